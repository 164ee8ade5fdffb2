#!/usr/bin/env bash
# Regenerates the type stubs of the private extension (python/tpustrategy/_core/*.pyi) from the
# built module, so IDEs and mypy see the real signatures. Run after changing a binding.
# (A stub folder named _core does not shadow the extension: Python prefers _core.*.so to a
# folder without __init__.py.)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --disable-pip-version-check "pybind11-stubgen>=2.5"
out="$(mktemp -d)"
PYTHONPATH=python python3 -m pybind11_stubgen tpustrategy._core -o "$out" --ignore-all-errors >/dev/null
rm -rf python/tpustrategy/_core
cp -r "$out/tpustrategy/_core" python/tpustrategy/_core
touch python/tpustrategy/py.typed
echo "stubs written to python/tpustrategy/_core/"
