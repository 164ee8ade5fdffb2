#!/usr/bin/env bash
# The lint stage of the test command: ruff (Python style and errors), mypy --strict on the package (pyproject.toml's
# [tool.mypy]), clang-format (every tracked C++ source and header against .clang-format, checked without rewriting; to
# apply it: git ls-files '*.cc' '*.h' | xargs clang-format-14 -i), and clang-tidy (.clang-tidy: bugprone,
# performance, modernize, readability) over the C++ sources of the folders in TIDY_DIRS with the compile commands
# of BUILD_DIR (configured by the main stage; CMAKE_EXPORT_COMPILE_COMMANDS is on), JOBS files at a time.
# Fails on any finding; prints each tool's wall time.
# TIDY_DIRS holds all of the library: every cpp/tpustrategy domain (ops included) and the pybind11 bindings.
# Knobs: CLANG_FORMAT (default clang-format-14), CLANG_TIDY (default clang-tidy-14), BUILD_DIR (default build),
# JOBS (default nproc), TIDY_DIRS, TIDY_SKIP (a regex of sources to leave out), TIDY_FILES (a regex searched in the
# absolute path: only matching sources, for iterating).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-$(nproc)}"
PYTHON="${PYTHON:-python3}"
# The clang-tidy whose checks .clang-tidy was tuned for: the Debian clang-tidy-14 that bootstrap.sh installs, by its
# versioned name, so that a different clang-tidy earlier on the PATH (a PyPI wheel, a newer LLVM) is never picked up.
CLANG_TIDY="${CLANG_TIDY:-clang-tidy-14}"
# Pinned for the same reason: each clang-format release lays some constructs out differently.
CLANG_FORMAT="${CLANG_FORMAT:-clang-format-14}"
TIDY_SKIP="${TIDY_SKIP:-}"
TIDY_DIRS="${TIDY_DIRS:-cpp/tpustrategy/core cpp/tpustrategy/parallel cpp/tpustrategy/tpu cpp/tpustrategy/collectives cpp/tpustrategy/runtime cpp/tpustrategy/sim cpp/tpustrategy/distribute cpp/tpustrategy/data cpp/tpustrategy/checkpoint cpp/tpustrategy/autodiff cpp/tpustrategy/spmd cpp/tpustrategy/ops cpp/bindings}"
status=0

timed() {  # timed NAME COMMAND...: runs, prints the wall time, remembers a failure and goes on
  local name=$1 start=$SECONDS
  shift
  if "$@"; then
    echo "lint: ${name} clean ($((SECONDS - start)) s)"
  else
    echo "lint: ${name} FAILED ($((SECONDS - start)) s)"
    status=1
  fi
}

format_check() {
  if ! command -v "$CLANG_FORMAT" >/dev/null; then
    echo "lint: $CLANG_FORMAT is not installed (tools/bootstrap.sh installs it)" >&2
    return 1
  fi
  # Every tracked C++ file: the library, bindings, GoogleTests, fuzz harnesses, benchmarks, examples.
  git ls-files -z '*.cc' '*.h' | xargs -0 -P "$JOBS" -n 32 "$CLANG_FORMAT" --dry-run --Werror
}

tidy() {
  if [[ ! -f $BUILD_DIR/compile_commands.json ]]; then
    echo "lint: $BUILD_DIR/compile_commands.json is missing (configure the build first)" >&2
    return 1
  fi
  if ! command -v "$CLANG_TIDY" >/dev/null; then
    echo "lint: $CLANG_TIDY is not installed (tools/bootstrap.sh installs it)" >&2
    return 1
  fi
  local sources
  sources=$("$PYTHON" - "$BUILD_DIR/compile_commands.json" "${TIDY_FILES:-}" "$TIDY_SKIP" $TIDY_DIRS <<'PY'
import json, os, re, sys
roots = tuple(os.path.realpath(d) + os.sep for d in sys.argv[4:])
only = re.compile(sys.argv[2]) if sys.argv[2] else None
skip = re.compile(sys.argv[3]) if sys.argv[3] else None
files = sorted({os.path.realpath(os.path.join(e["directory"], e["file"])) for e in json.load(open(sys.argv[1]))})
print("\n".join(f for f in files if f.startswith(roots) and (only is None or only.search(f))
                and (skip is None or not skip.search(f))))
PY
)
  [[ -n $sources ]] || { echo "lint: no C++ sources of $TIDY_DIRS in the compile commands" >&2; return 1; }
  echo "lint: $("$CLANG_TIDY" --version | grep -o 'version [0-9.]*') over $(wc -l <<<"$sources") sources, $JOBS at a time"
  # One clang-tidy per source; xargs exits non-zero if any of them reported a finding (WarningsAsErrors: '*').
  # The "N warnings generated" lines count matches in system headers, which are not reported.
  xargs -P "$JOBS" -n 1 "$CLANG_TIDY" -p "$BUILD_DIR" --quiet <<<"$sources" 2>&1 | sed -u '/warnings\{0,1\} generated\.$/d'
}

timed "ruff" "$PYTHON" -m ruff check python tests_py tools benchmarks
timed "mypy --strict" "$PYTHON" -m mypy
timed "clang-format" format_check
timed "clang-tidy" tidy
exit $status
