#!/usr/bin/env bash
# The test command: set up, build, and run every suite (GoogleTest and pytest through CTest; pytest
# runs the notebooks and the tiny benchmarks too), then the reliability stages:
#   * the GoogleTest suite built with ASan + UBSan (-O1, every report fatal) in build-asan/;
#   * the threaded GoogleTest suites built with TSan in build-tsan/;
#   * the libFuzzer harnesses (clang, ASan + UBSan) in build-fuzz/, each run for FUZZ_SECONDS over the
#     checked-in seed corpus (tests_cpp/fuzz/corpus/).
#   * the lint stage (tools/lint.sh): ruff, mypy --strict on the package, clang-format, clang-tidy over
#     cpp/ with the release build's compile commands.
# Fails when any test fails, any sanitizer reports, any lint finding, or no test ran. Prints each stage's wall time.
# Knobs: BUILD_DIR (default build), SANITIZERS=0 skips the sanitizer stages, FUZZ=0 the fuzz stage, LINT=0 the
# lint stage, FUZZ_SECONDS (default 20). Extra arguments go to the first ctest run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/bootstrap.sh
BUILD_DIR="${BUILD_DIR:-build}"
SANITIZERS="${SANITIZERS:-1}"
FUZZ="${FUZZ:-1}"
LINT="${LINT:-1}"
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
JOBS="$(nproc)"
declare -a TIMES=()

stage() {  # stage NAME COMMAND...: runs the command, records its wall time
  local name=$1 start=$SECONDS
  shift
  echo "=== ${name}"
  "$@"
  TIMES+=("${name}: $((SECONDS - start)) s")
}

main_suite() {
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v python3)" >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS"
  ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$JOBS" "$@"
}

# A C++-only build of the GoogleTest suites (no extension, no pytest, no benchmarks), -O1 with sanitizers.
sanitizer_build() {  # sanitizer_build DIR SANITIZERS SUITES
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
    -DTPUSTRATEGY_SANITIZE="$2" -DTPUSTRATEGY_TEST_SUITES="$3" \
    -DTPUSTRATEGY_BUILD_PYTHON=OFF -DTPUSTRATEGY_BUILD_BENCHMARKS=OFF -DTPUSTRATEGY_BUILD_SHARED=OFF >/dev/null
  cmake --build "$1" -j "$JOBS"
}

# TSan of LLVM 14 / GCC 12 cannot map its shadow with the 28+ bits of mmap randomisation of newer
# kernels ("unexpected memory mapping"); without ASLR it can. The personality is inherited by ctest's
# children.
no_aslr() {
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    setarch "$(uname -m)" -R "$@"
  else
    "$@"
  fi
}

asan_suite() {
  sanitizer_build build-asan address,undefined ""
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure --no-tests=error -j "$JOBS"
}

tsan_suite() {
  local suites="test_worker_pool;test_rendezvous;test_replica_runner;test_cross_replica;test_batching;test_tfrecord"
  local extra
  for extra in tests_cpp/test_*communicator*.cc tests_cpp/test_mpi*.cc; do
    [[ -e $extra ]] && suites+=";$(basename "$extra" .cc)"
  done
  sanitizer_build build-tsan thread "$suites"
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    no_aslr ctest --test-dir build-tsan --output-on-failure --no-tests=error -j "$JOBS"
}

fuzz_suite() {
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
    -DCMAKE_CXX_COMPILER=clang++ -DTPUSTRATEGY_BUILD_FUZZERS=ON -DTPUSTRATEGY_FUZZ_SECONDS="$FUZZ_SECONDS" \
    -DTPUSTRATEGY_SANITIZE=address,undefined -DTPUSTRATEGY_BUILD_TESTS=OFF \
    -DTPUSTRATEGY_BUILD_PYTHON=OFF -DTPUSTRATEGY_BUILD_BENCHMARKS=OFF -DTPUSTRATEGY_BUILD_SHARED=OFF >/dev/null
  cmake --build build-fuzz --target fuzzers -j "$JOBS"
  # One harness at a time: each gets the whole budget of CPU.
  ASAN_OPTIONS=halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-fuzz --output-on-failure --no-tests=error -L fuzz
}

stage "build + ctest (release, pytest)" main_suite "$@"
[[ $LINT != 0 ]] && stage "lint (ruff, mypy, clang-format, clang-tidy)" \
  env BUILD_DIR="$BUILD_DIR" JOBS="$JOBS" bash tools/lint.sh
if [[ $SANITIZERS != 0 ]]; then
  stage "ASan+UBSan GoogleTest" asan_suite
  stage "TSan threaded GoogleTest" tsan_suite
fi
[[ $FUZZ != 0 ]] && stage "libFuzzer harnesses (${FUZZ_SECONDS} s each)" fuzz_suite
echo "=== wall times"
printf '  %s\n' "${TIMES[@]}"
