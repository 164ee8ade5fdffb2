#!/usr/bin/env bash
# The main job: install the package from source and run the demo on the default slice.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/bootstrap.sh
python3 -m pip install -q --disable-pip-version-check .
cd /tmp && python3 -m tpustrategy demo "$@"
