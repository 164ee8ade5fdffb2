#!/usr/bin/env bash
# Installs everything the project needs on a fresh machine of this kind (root,
# Debian packages and PyPI reachable): the C++ libraries and the Python packages.
# Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
# clang + libclang-rt-14-dev (libFuzzer, its sanitizer runtimes) and zlib for the fuzz stage of tools/test.sh;
# Open MPI for the multi-process Communicator; clang-tidy 14 and clang-format 14 for the lint stage (pinned: their
# output is the lint stage's contract, and a newer version earlier on the PATH brings checks / layout changes the
# code was never held to).
APT_PACKAGES=(libeigen3-dev libfmt-dev libgtest-dev g++ ccache libopenblas-dev clang libclang-rt-14-dev zlib1g-dev
              libopenmpi-dev openmpi-bin clang-tidy-14 clang-format-14)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! "$PYTHON" - <<'PY' 2>/dev/null
import importlib.metadata as md, re, sys
for line in open("tools/requirements-dev.txt"):
    name = re.split(r"[<>=!~ ]", line.strip())[0]
    if name:
        md.version(name)
PY
then
  echo "bootstrap: installing Python packages"
  "$PYTHON" -m pip install -q --disable-pip-version-check -r tools/requirements-dev.txt
fi
"$PYTHON" -m ipykernel install --user --name python3 >/dev/null 2>&1 || true
