#!/usr/bin/env bash
# Regenerates the type stubs of the private extension (python/tpustrategy/_core/*.pyi) from the
# built module, so IDEs and mypy see the real signatures. Run after changing a binding.
# (A stub folder named _core does not shadow the extension: Python prefers _core.*.so to a
# folder without __init__.py.)
# The facade is imported first, so the stubs also show what it adds to Tensor (shape, ref, indexing).
# The facade names Tensor's module "tpustrategy" (as TF's repr and type(t).__module__ show it); the generator
# would then write `from tpustrategy import Tensor` instead of the class, a cycle that mypy resolves to Any.
# Only while generating, Tensor names the module that defines it.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --disable-pip-version-check "pybind11-stubgen>=2.5"
out="$(mktemp -d)"
PYTHONPATH=python python3 - "$out" <<'PY' >/dev/null
import sys

import pybind11_stubgen

import tpustrategy  # noqa: F401  (the facade's additions to Tensor)
from tpustrategy import _core

_core.tensor.Tensor.__module__ = "tpustrategy._core.tensor"
sys.argv = ["pybind11-stubgen", "tpustrategy._core", "-o", sys.argv[1], "--ignore-all-errors"]
pybind11_stubgen.main()
PY
rm -rf python/tpustrategy/_core
cp -r "$out/tpustrategy/_core" python/tpustrategy/_core
touch python/tpustrategy/py.typed
echo "stubs written to python/tpustrategy/_core/"
