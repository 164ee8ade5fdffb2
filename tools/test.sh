#!/usr/bin/env bash
# The test command: set up, build, and run every suite (GoogleTest and pytest
# through CTest; pytest runs the notebooks and the tiny benchmarks too).
# Fails when any test fails or when no test ran.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/bootstrap.sh
BUILD_DIR="${BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v python3)" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$(nproc)" "$@"
