"""Cross-check tpustrategy against real TensorFlow: run the same small tf.distribute programs on both, compare exactly.

A developer tool, not a test (TensorFlow is never a project dependency and CI does not have it):

    PYTHONPATH=python /opt/tfvenv/bin/python tools/crosscheck_tf.py [-k SUBSTRING] [--verbose]
        [--write-reference tests_py/data/crosscheck_nn_tf.json]
        [--tpustrategy-python python3] [--tf-results tf.json]
    TPUSTRATEGY_PYTHON=python3 ~/.cache/tpustrategy-references/bin/python tools/crosscheck_tf.py -k keras

--write-reference stores TF's side of the selected cases (error messages dropped); tests_py/test_crosscheck_nn.py
compares tpustrategy against that file in the normal test suite, without TensorFlow.

Each framework runs in its own subprocess (`--emit tensorflow|tpustrategy`), which prints one JSON object
{case: description}; descriptions hold type names, dtypes, shapes, exact values, reprs and error type names
(see crosscheck/describe.py). The parent prints a table and exits 1 on any mismatch not in KNOWN_DEVIATIONS.
A case that kills its process (TF aborts on some internal CHECK failures) is reported as "aborted" on that side,
and the run resumes with the next case in a fresh process; a TF-side abort is listed, not counted as a mismatch.

Then the file formats (crosscheck/formats.py): checkpoints and summary event files written by TensorFlow are
read by tpustrategy and the other way round (--formats-only runs just that stage). It needs Keras and the
tensorboard package in TF's environment (tools/install_references.sh installs both).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent

# case name -> why tpustrategy deliberately differs from TF's MirroredStrategy there (SEMANTICS.md section).
_NO_TF_LOW_PRECISION = "TF's CPU collectives cannot all_reduce float16/bfloat16 (InternalError); no TF reference"
_TPU_TYPES = "TPU variables print as TPUMirroredVariable/TPUSyncOnReadVariable, as TF's TPUStrategy does"
_SEMANTICS_2_3 = "SEMANTICS.md 2.3: a non-tensor 0 reduces to 0 (TF 2.21 raises AttributeError on it)"
_SEMANTICS_2_5 = "SEMANTICS.md 2.5: unbatched input -> ValueError 'call batch ...' (TF 2.21 raises IndexError)"
_ULP = "float32 matmul/softmax: 1-ulp differences from oneDNN's accumulation order vs our Eigen kernels"
_GRADIENT_SUM_ORDER = ("float64 gradients: 1-ulp differences from the order the tape adds an input's gradient "
                       "contributions (TF: (a - b) - c in its backprop order; ours a - (b + c)), and in softmax's")
_FIT_ULP = "Keras fit on Mirrored: float32 weights differ in the last digit (the matmul ulps above, over steps)"
_HALF_ACCUMULATION = ("float16/bfloat16 reductions accumulate in float32, as XLA does on a TPU (TF on CPU sums in "
                      "float16: its float16 mean overflows to inf)")
_SEMANTICS_2_4 = ("SEMANTICS.md 2.4: local results of a nest without DistributedValues are (v,) (TF 2.21 repeats "
                  "any nest once per replica)")
_SEMANTICS_2_6 = ("SEMANTICS.md 2.6: cross-replica assign of a PerReplica to a SUM MirroredVariable -> TypeError "
                  "'Expected value to be mirrored' (TF 2.21 gives each component its replica's value)")
_NON_SLOT = ("update_non_slot(colocate_with not from non_slot_devices) -> TypeError naming the value (TF asserts: "
             "AssertionError); the project's rule for bad input")
_SPARSE_PREFETCH = ("TPUStrategy refuses sparse / ragged components with device prefetch (ValueError, TF's "
                    "tpu_strategy wording), as TF's TPUStrategy does; TF's side of a tpu case runs MirroredStrategy")
KNOWN_DEVIATIONS: dict[str, str] = {
    "sparse_tensors_in_pipelines[tpu]": _SPARSE_PREFETCH,
    "strategy_group_and_update_non_slot[mirrored]": _NON_SLOT,
    "strategy_group_and_update_non_slot[tpu]": _NON_SLOT,
    "all_reduce_low_precision[mirrored]": _NO_TF_LOW_PRECISION,
    "all_reduce_low_precision[tpu]": _NO_TF_LOW_PRECISION,
    "mirrored_variable_updates[tpu]": _TPU_TYPES,
    "sync_on_read_variable_updates[tpu]": _TPU_TYPES,
    "low_precision_rounding": _HALF_ACCUMULATION,
    "merge_call_sees_per_replica[mirrored]": _SEMANTICS_2_4,
    "mirrored_variable_cross_replica_per_replica_assign[mirrored]": _SEMANTICS_2_6,
    "mirrored_variable_cross_replica_per_replica_assign[tpu]": _SEMANTICS_2_6,
    "variable_creation_errors[tpu]": _TPU_TYPES,
    "strategy_reduce_plain_values[mirrored]": _SEMANTICS_2_3,
    "strategy_reduce_plain_values[tpu]": _SEMANTICS_2_3,
    "distribute_dataset_unbatched[mirrored]": _SEMANTICS_2_5,
    "distribute_dataset_unbatched[tpu]": _SEMANTICS_2_5,
    "matmul_cases": _ULP,
    "softmax_cases": _ULP,
    "gradients_elementwise": _GRADIENT_SUM_ORDER,
    "gradients_reductions_and_matmul": _GRADIENT_SUM_ORDER,
    "keras_fit_parity[mirrored]": _FIT_ULP,
}


def emit(framework: str, pattern: str, done: set[str]) -> None:
    """Runs every case on `framework` not in `done` and prints {case: description} as one JSON line.

    TF's CPU collectives abort every later collective in the process after one failure (e.g. an all_reduce of
    float16), which later cases see as InternalError or InvalidArgumentError ("Graph execution error"), raised or
    caught inside the case. So a TF case with such an error ends this run: it is kept only if it ran first in
    this process (then the error is its own), else the parent reruns it in a fresh process.
    """
    import importlib

    from crosscheck import (  # noqa: F401
        cases_autodiff,
        cases_fidelity,
        cases_input,
        cases_nn,
        cases_ops,
        cases_reduce,
        cases_run,
        cases_variables,
    )
    from crosscheck.describe import describe
    from crosscheck.registry import make_logical_cpus, ordered_cases, strategy_factory

    importlib.import_module("crosscheck.cases_keras")  # registers keras_fit_parity (a separate line: merge-friendly)
    importlib.import_module("crosscheck.cases_v1_optimizers")  # tf.compat.v1.train optimizers under strategies
    importlib.import_module("crosscheck.cases_dtypes")  # uint8 … uint64, int8, int16, complex64
    importlib.import_module("crosscheck.cases_strings")  # tf.string tensors and RaggedTensors in pipelines
    importlib.import_module("crosscheck.cases_ragged_ops")  # ragged ==, step slicing, rebatch; device names
    importlib.import_module("crosscheck.cases_nn3d")  # conv3d, conv3d_transpose, max_pool3d, avg_pool3d
    importlib.import_module("crosscheck.cases_wide_dtypes")  # complex128, complex gradients, range / one_hot
    importlib.import_module("crosscheck.cases_random")  # Generator, categorical, shuffle, tf.data shuffle / random
    importlib.import_module("crosscheck.cases_tf_data_tests")  # checks of TF's tf.data kernel tests, translated
    importlib.import_module("crosscheck.cases_tf_distribute_tests")  # checks of TF's tf.distribute tests, translated
    importlib.import_module("crosscheck.cases_py_function_shapes")  # static shapes downstream of py_function
    importlib.import_module("crosscheck.cases_image_resize")  # tf.image.resize, standardization, l2_normalize
    importlib.import_module("crosscheck.cases_map_static_shapes")  # einsum, segments, strings, ragged in map
    importlib.import_module("crosscheck.cases_image_crops")  # crops, pads, brightness, contrast (+ random)
    importlib.import_module("crosscheck.cases_fidelity_gaps")  # linspace/meshgrid, ragged in map, regex, traces
    tf = importlib.import_module(framework)
    make_logical_cpus(tf)
    results, complete = {}, True
    for case in ordered_cases():
        # -k matches a case's name or its module (e.g. -k cases_fidelity: one area's cases).
        if (pattern not in case.name and pattern not in case.fn.__module__) or case.name in done:
            continue
        print(_STARTED + case.name, flush=True)  # the parent's clue if this case kills the process
        try:
            args = (tf,) if case.kind is None else (tf, strategy_factory(tf, case.kind))
            description = describe(case.fn(*args))
        except Exception as e:  # noqa: BLE001 - an unexpected error is a result too (compared by type)
            description = {"raised": type(e).__name__, "message": str(e).splitlines()[:1]}
        if framework == "tensorflow" and _may_be_poisoned(description):
            complete = False
            if not results:
                results[case.name] = description
            break
        results[case.name] = description
    print("CROSSCHECK " + json.dumps({"results": results, "complete": complete}, sort_keys=True))


_STARTED = "CROSSCHECK-STARTED "


def _aborted_case(stdout: str, returncode: int) -> dict:
    """{case: description} for the case a dead emitter process was running (the last one it started)."""
    started = [x[len(_STARTED):] for x in stdout.splitlines() if x.startswith(_STARTED)]
    if not started:
        return {}
    how = f"signal {-returncode}" if returncode < 0 else f"exit {returncode}"
    return {started[-1]: {"aborted": f"the process died ({how}) while running this case"}}


def _may_be_poisoned(description) -> bool:
    text = json.dumps(description)
    return "InternalError" in text or "InvalidArgumentError" in text


def run_framework(framework: str, pattern: str, python: str = sys.executable) -> dict:
    """All case results of `framework`, resuming in a fresh subprocess after a run that stopped early."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    results: dict = {}
    while True:
        proc = subprocess.run([python, __file__, "--emit", framework, "-k", pattern,
                               "--done", json.dumps(sorted(results))],
                              capture_output=True, text=True, env=env, cwd=ROOT)
        line = next((x for x in proc.stdout.splitlines() if x.startswith("CROSSCHECK ")), None)
        if line is None:
            aborted = _aborted_case(proc.stdout, proc.returncode)
            if not aborted:
                sys.exit(f"{framework} run failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
            print(f"{framework}: {next(iter(aborted))} killed its process (exit {proc.returncode}); resuming after it",
                  file=sys.stderr)
            results.update(aborted)
            continue
        run = json.loads(line[len("CROSSCHECK "):])
        results.update(run["results"])
        if run["complete"]:
            return results


def first_difference(a, b, path: str = "") -> str:
    """The path of the first place two descriptions differ, with both sides (shortened)."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for key in a:
            if a[key] != b[key]:
                return first_difference(a[key], b[key], f"{path}/{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return f"{path or '/'}: tf={json.dumps(a)[:300]} tps={json.dumps(b)[:300]}"


def _without_messages(description):
    # Messages are for the reader; the compared thing is the error type.
    if isinstance(description, dict):
        return {k: _without_messages(v) for k, v in description.items() if k != "message"}
    if isinstance(description, list):
        return [_without_messages(v) for v in description]
    return description


def compare(theirs: dict, ours: dict, verbose: bool) -> int:
    """Prints the table; returns the number of unexpected mismatches."""
    failures = 0
    counts: dict[str, int] = {}
    print(f"{'case':<58} {'result':<10} details")
    for name in sorted(ours.keys() | theirs.keys()):
        a, b = theirs.get(name, {"missing": True}), ours.get(name, {"missing": True})
        if _without_messages(a) == _without_messages(b):
            status, details = "match", ""
        elif "aborted" in a:  # TF itself died: nothing to compare with
            status, details = "tf-abort", a["aborted"]
        elif name in KNOWN_DEVIATIONS:
            status, details = "deviation", KNOWN_DEVIATIONS[name]
        else:
            status, details = "MISMATCH", first_difference(a, b)
            failures += 1
        if verbose and status != "match":
            details += f"\n    tf:  {json.dumps(a)}\n    tps: {json.dumps(b)}"
        print(f"{name:<58} {status:<10} {details}")
        counts[status] = counts.get(status, 0) + 1
    summary = ", ".join(f"{counts.get(k, 0)} {k}" for k in ("match", "deviation", "MISMATCH", "tf-abort"))
    print(f"\n{len(ours.keys() | theirs.keys())} cases: {summary}; {failures} unexpected mismatches")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emit", choices=("tensorflow", "tpustrategy"), help=argparse.SUPPRESS)
    parser.add_argument("--done", default="[]", help=argparse.SUPPRESS)  # JSON list of cases to skip
    parser.add_argument("-k", default="", help="only cases whose name (or module, e.g. cases_fidelity) contains this")
    parser.add_argument("--verbose", action="store_true", help="print both descriptions of each mismatch")
    parser.add_argument("--write-reference", metavar="JSON",
                        help="store TF's descriptions of the selected cases (messages dropped) for the test suite")
    parser.add_argument("--emit-format", nargs=3, metavar=("FRAMEWORK", "STEP", "DIR"), help=argparse.SUPPRESS)
    parser.add_argument("--formats-only", action="store_true", help="only the checkpoint / summary format stage")
    parser.add_argument("--tpustrategy-python", default=os.environ.get("TPUSTRATEGY_PYTHON", sys.executable),
                        help="interpreter for the tpustrategy side (one with the project's dependencies, when the "
                             "TensorFlow venv lacks them; default $TPUSTRATEGY_PYTHON)")
    parser.add_argument("--tf-results", help="JSON file of TensorFlow's results: read if it exists, else written "
                                             "(TF's side is the slow one)")
    args = parser.parse_args()
    if args.emit:
        emit(args.emit, args.k, set(json.loads(args.done)))
        return 0
    if args.emit_format:
        from crosscheck.formats import step

        framework, number, directory = args.emit_format
        print("CROSSCHECK " + json.dumps(step(framework, int(number), directory)))
        return 0
    failures = 0
    if not args.formats_only:
        if args.tf_results and Path(args.tf_results).exists():
            theirs = json.loads(Path(args.tf_results).read_text())
        else:
            theirs = run_framework("tensorflow", args.k)
            if args.tf_results:
                Path(args.tf_results).write_text(json.dumps(theirs, sort_keys=True))
        if args.write_reference:
            path = Path(args.write_reference)
            stored = json.loads(path.read_text()) if path.exists() else {}
            # the selected cases replace their old entries; a case TF died on has no reference
            stored.update(_without_messages({k: v for k, v in theirs.items() if "aborted" not in v}))
            path.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        ours = run_framework("tpustrategy", args.k, args.tpustrategy_python)
        failures += compare(theirs, ours, args.verbose)
    return 1 if failures or check_formats(args.tpustrategy_python) else 0


def check_formats(tpustrategy_python: str) -> int:
    """Runs the three format steps (TF writes, tpustrategy reads and writes, TF reads); returns the problems."""
    import tempfile

    from crosscheck.formats import compare as compare_formats

    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    outputs = []
    with tempfile.TemporaryDirectory() as directory:
        for number, framework in enumerate(("tensorflow", "tpustrategy", "tensorflow"), start=1):
            # tpustrategy's step runs on the project's Python (the extension and its dependencies live there)
            python = sys.executable if framework == "tensorflow" else tpustrategy_python
            proc = subprocess.run([python, __file__, "--emit-format", framework, str(number), directory],
                                  capture_output=True, text=True, env=env, cwd=ROOT)
            line = next((x for x in proc.stdout.splitlines() if x.startswith("CROSSCHECK ")), None)
            if line is None:
                sys.exit(f"format step {number} ({framework}) failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
            outputs.append(json.loads(line[len("CROSSCHECK "):]))
    problems = compare_formats(*outputs)
    print("\nformats: checkpoints (tf.Module, Keras Dense + Adam) and summary event files, both directions")
    for problem in problems:
        print(f"  MISMATCH {problem}")
    print(f"formats: {len(problems)} mismatches")
    return len(problems)


if __name__ == "__main__":
    sys.exit(main())
