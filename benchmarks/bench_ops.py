"""tpustrategy's dense kernels (matmul, conv2d / conv3d, elementwise, reductions) against numpy and TF eager ops.

conv2d (NHWC, 3x3, SAME, stride 1; shape = batch, height, width, in, out) and conv3d (NDHWC, 3x3x3; shape =
batch, depth, height, width, in, out) are im2col + GEMM here; the numpy baseline is the same algorithm written
in numpy (sliding_window_view + tensordot on OpenBLAS).

TF runs in a process of its own (see _sides.py): importing TensorFlow slows numpy's BLAS in the same
process, so a same-process baseline would flatter us. numpy and tpustrategy run together in another
process (without TF, OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset), their samples interleaved so that load
from other processes falls on both alike, with a quiet gap (QUIET_GAP_S) before each sample: OpenBLAS's threads
spin for about 0.1 s after each call before they sleep, and on a 2-core machine numpy's spinning threads took
the cores from our worker pool (a 1024² float32 matmul timed 1.5-2x slower right after numpy's than alone). The
numpy side is the baseline: numpy's
OpenBLAS (float32 / float64 matmul; bfloat16 matmul is compared with numpy's float32 sgemm on the same
shapes, since numpy has no bfloat16 BLAS and TF-on-CPU computes bfloat16 in float32 too). Targets
(issue 11): matmul <= 1.2x numpy, elementwise and reductions <= 1.0x numpy.

Prints a table and one JSON line per case (``{"bench": "ops", ...}``) with the median time of each side
and ratio = tps / numpy (below 1: tpustrategy is faster); TF columns when the reference venv exists
(``bash tools/install_references.sh``). ``--tiny`` runs two tiny cases, numpy and tpustrategy only (a test).

    PYTHONPATH=python python benchmarks/bench_ops.py [--tiny] [--repeats N] [--filter matmul]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sides  # noqa: E402


def cases(tiny: bool) -> list[tuple[str, tuple[int, ...], str]]:
    if tiny:
        return [("add", (64, 64), "float32"), ("matmul", (32, 32), "float32"), ("conv2d", (2, 8, 8, 4, 8), "float32"),
                ("conv3d", (1, 4, 4, 4, 2, 4), "float32")]
    out = [("matmul", (n, n), "float32") for n in (128, 256, 512, 1024, 2048)]
    out += [("matmul", (n, n), "float64") for n in (128, 512, 1024, 2048)]
    out += [("matmul", (n, n), "bfloat16") for n in (128, 512, 1024, 2048)]
    out += [("batch_matmul", (64, 128, 128), "float32"), ("batch_matmul", (8, 512, 512), "float32")]
    out += [("conv2d", (32, 28, 28, 32, 64), "float32"), ("conv2d", (8, 56, 56, 64, 64), "float32"),
            ("conv2d", (16, 14, 14, 256, 256), "float32")]
    out += [("conv3d", (4, 16, 16, 16, 16, 32), "float32"), ("conv3d", (2, 8, 28, 28, 32, 64), "float32")]
    out += [("add", (1024,), "float32"), ("add", (1024, 1024), "float32"), ("add", (4096, 4096), "float32"),
            ("add_broadcast_row", (4096, 4096), "float32"), ("multiply", (4096, 4096), "float32"),
            ("relu", (4096, 4096), "float32"), ("exp", (1024, 1024), "float32")]
    out += [("reduce_sum_axis0", (4096, 4096), "float32"), ("reduce_sum_axis1", (4096, 4096), "float32"),
            ("reduce_sum_all", (4096, 4096), "float32"), ("reduce_max_axis1", (1024, 1024), "float32")]
    return out


def case_id(op: str, shape: tuple[int, ...], dtype: str) -> str:
    return f"{op}:{dtype}:{'x'.join(map(str, shape))}"


def inputs(op: str, shape: tuple[int, ...]):
    import numpy as np

    rng = np.random.default_rng(0)
    if op == "conv2d":
        n, h, w, c, o = shape
        return (rng.standard_normal((n, h, w, c)).astype(np.float32),
                rng.standard_normal((3, 3, c, o)).astype(np.float32))
    if op == "conv3d":
        n, d, h, w, c, o = shape
        return (rng.standard_normal((n, d, h, w, c)).astype(np.float32),
                rng.standard_normal((3, 3, 3, c, o)).astype(np.float32))
    a = rng.standard_normal(shape).astype(np.float32)
    b_shape = shape[-1:] if op == "add_broadcast_row" else shape
    b = rng.standard_normal(b_shape).astype(np.float32)
    return a, b


def flops(op: str, shape: tuple[int, ...]) -> float:
    if op == "conv2d":
        n, h, w, c, o = shape
        return 2.0 * n * h * w * c * o * 9
    if op == "conv3d":
        n, d, h, w, c, o = shape
        return 2.0 * n * d * h * w * c * o * 27
    if "matmul" in op:
        batch = shape[0] if op == "batch_matmul" else 1
        n, k = shape[-2], shape[-1]
        return 2.0 * batch * n * k * k
    return float(__import__("math").prod(shape))


def numpy_fn(op: str, a, b, dtype: str):
    import numpy as np

    if op == "conv2d":  # im2col by strided views, then one tensordot (OpenBLAS sgemm)
        def conv():
            padded = np.pad(a, [(0, 0), (1, 1), (1, 1), (0, 0)])
            windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))  # n, h, w, c, 3, 3
            return np.tensordot(windows, b, axes=([4, 5, 3], [0, 1, 2]))

        return conv
    if op == "conv3d":  # the same over three spatial axes
        def conv3d():
            padded = np.pad(a, [(0, 0), (1, 1), (1, 1), (1, 1), (0, 0)])
            windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3, 3), axis=(1, 2, 3))
            return np.tensordot(windows, b, axes=([5, 6, 7, 4], [0, 1, 2, 3]))

        return conv3d
    if "matmul" in op:  # bfloat16: numpy's float32 sgemm is the baseline
        a, b = (a, b) if dtype != "float64" else (a.astype(np.float64), b.astype(np.float64))
        return lambda: np.matmul(a, b)
    return {
        "add": lambda: np.add(a, b), "add_broadcast_row": lambda: np.add(a, b), "multiply": lambda: np.multiply(a, b),
        "relu": lambda: np.maximum(a, 0), "exp": lambda: np.exp(a),
        "reduce_sum_axis0": lambda: np.sum(a, axis=0), "reduce_sum_axis1": lambda: np.sum(a, axis=1),
        "reduce_sum_all": lambda: np.sum(a), "reduce_max_axis1": lambda: np.max(a, axis=1),
    }[op]


def framework_fn(module, op: str, a, b, dtype: str):
    """The op in tpustrategy or TF (the same API names), on tensors made from the same arrays."""
    ta, tb = module.constant(a), module.constant(b)
    if dtype != "float32":
        ta, tb = module.cast(ta, getattr(module, dtype)), module.cast(tb, getattr(module, dtype))
    return {
        "matmul": lambda: module.matmul(ta, tb), "batch_matmul": lambda: module.matmul(ta, tb),
        "conv2d": lambda: module.nn.conv2d(ta, tb, 1, "SAME"),
        "conv3d": lambda: module.nn.conv3d(ta, tb, [1, 1, 1, 1, 1], "SAME"),
        "add": lambda: module.add(ta, tb), "add_broadcast_row": lambda: module.add(ta, tb),
        "multiply": lambda: module.multiply(ta, tb), "relu": lambda: module.nn.relu(ta), "exp": lambda: module.exp(ta),
        "reduce_sum_axis0": lambda: module.reduce_sum(ta, axis=0),
        "reduce_sum_axis1": lambda: module.reduce_sum(ta, axis=1),
        "reduce_sum_all": lambda: module.reduce_sum(ta), "reduce_max_axis1": lambda: module.reduce_max(ta, axis=1),
    }[op]


def checksum(value) -> float:
    import numpy as np

    if hasattr(value, "numpy"):
        value = value.numpy()
    return float(np.asarray(value, dtype=np.float64).sum())


QUIET_GAP_S = 0.25  # longer than OpenBLAS's spin before its threads sleep (2**28 cycles by default)


def run_side(side: str, tiny: bool, repeats: int, min_time: float, only: str | None) -> dict:
    """side "np_tps": numpy and tpustrategy, samples interleaved; side "tf": TensorFlow alone."""
    if side == "tf":
        import tensorflow as module
    else:
        import tpustrategy as module
    times: dict = {"numpy": {}, "tps": {}, "tf": {}}
    sums: dict = {"numpy": {}, "tps": {}, "tf": {}}
    for op, shape, dtype in cases(tiny):
        cid = case_id(op, shape, dtype)
        if only and only not in cid:
            continue
        a, b = inputs(op, shape)
        fns = {"tf": framework_fn(module, op, a, b, dtype)} if side == "tf" else \
            {"numpy": numpy_fn(op, a, b, dtype), "tps": framework_fn(module, op, a, b, dtype)}
        samples: dict = {name: [] for name in fns}
        for _ in range(repeats):  # one sample of each side per round
            for name, fn in fns.items():
                if not tiny:
                    time.sleep(QUIET_GAP_S)  # the other side's threads stop spinning first
                samples[name].append(_sides.median_seconds(fn, 1, min_time))
        for name, fn in fns.items():
            sums[name][cid] = checksum(fn())
            times[name][cid] = sorted(samples[name])[len(samples[name]) // 2]
    return {"side": side, "times": times, "checksums": sums, "blas": _sides.blas_info()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="tiny sizes, a couple of repeats (smoke test)")
    parser.add_argument("--repeats", type=int, default=None, help="samples per side (median is reported)")
    parser.add_argument("--filter", default=None, help="only cases whose id contains this text")
    parser.add_argument("--side", choices=("np_tps", "tf"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.tiny else 7)
    min_time = 0.001 if args.tiny else 0.05
    if args.side:
        _sides.emit(run_side(args.side, args.tiny, repeats, min_time, args.filter))
        return 0

    forwarded = (["--tiny"] if args.tiny else []) + ["--repeats", str(repeats)]
    forwarded += ["--filter", args.filter] if args.filter else []
    script = os.path.abspath(__file__)
    both = _sides.run_side(script, "np_tps", forwarded)
    sides = {name: {"times": both["times"][name], "checksums": both["checksums"][name], "blas": both["blas"]}
             for name in ("numpy", "tps")}
    reference = None if args.tiny else _sides.reference_python()
    if reference:
        tf_side = _sides.run_side(script, "tf", forwarded, python=reference, extra_env={"TF_CPP_MIN_LOG_LEVEL": "3"})
        sides["tf"] = {"times": tf_side["times"]["tf"], "checksums": tf_side["checksums"]["tf"],
                       "blas": tf_side["blas"]}
    results = []
    for op, shape, dtype in cases(args.tiny):
        cid = case_id(op, shape, dtype)
        if cid not in sides["tps"]["times"]:
            continue
        t_np, t_tps = sides["numpy"]["times"][cid], sides["tps"]["times"][cid]
        expected, got = sides["numpy"]["checksums"][cid], sides["tps"]["checksums"][cid]
        # Sum of all outputs: bfloat16 rounds each output to 8 bits, reductions reorder: a loose check.
        tolerance = (5e-2 if dtype == "bfloat16" else 1e-3) * (abs(expected) + 1e-3 * flops(op, shape) ** 0.5 + 1.0)
        assert abs(got - expected) <= tolerance, (cid, got, expected)
        r = {"bench": "ops", "op": op, "shape": list(shape), "dtype": dtype, "numpy_s": t_np, "tps_s": t_tps,
             "ratio_tps_over_numpy": t_tps / t_np, "tps_gflops": flops(op, shape) / t_tps / 1e9,
             "threads": os.cpu_count()}
        if "tf" in sides:
            r["tf_s"] = sides["tf"]["times"][cid]
            r["ratio_tps_over_tf"] = t_tps / r["tf_s"]
        results.append(r)
    tf_header = f" {'tf':>11} {'tps/tf':>7}" if "tf" in sides else ""
    print(f"{'op':<18} {'shape':<14} {'dtype':<9} {'numpy':>11} {'tps':>11} {'tps/numpy':>9} {'GFLOP/s':>8}{tf_header}")
    for r in results:
        shape = "x".join(map(str, r["shape"]))
        tf_cells = f" {r['tf_s'] * 1e6:>9.1f}us {r['ratio_tps_over_tf']:>7.2f}" if "tf_s" in r else ""
        print(f"{r['op']:<18} {shape:<14} {r['dtype']:<9} {r['numpy_s'] * 1e6:>9.1f}us {r['tps_s'] * 1e6:>9.1f}us "
              f"{r['ratio_tps_over_numpy']:>9.2f} {r['tps_gflops']:>8.2f}{tf_cells}")
    for side, data in (("numpy+tps", sides["numpy"]), ("tf", sides.get("tf", {"blas": []}))):
        for lib in data["blas"]:
            print(f"# {side}: {lib['internal_api']} {lib['version']} kernel={lib['architecture']} "
                  f"threads={lib['num_threads']} ({os.path.basename(lib['filepath'] or '')})")
    load = os.getloadavg()[0]  # 2 cores: above 2 the figures are contended
    for r in results:
        target = 1.2 if "matmul" in r["op"] or r["op"] in ("conv2d", "conv3d") else 1.0
        r["target_ratio"], r["load_average_1min"] = target, load
        tf_part = f" | tf {r['tf_s'] * 1e6:.1f}us ratio {r['ratio_tps_over_tf']:.2f}" if "tf_s" in r else ""
        print(f"summary ops {r['op']}:{r['dtype']}:{'x'.join(map(str, r['shape']))} tps {r['tps_s'] * 1e6:.1f}us | "
              f"numpy {r['numpy_s'] * 1e6:.1f}us ratio {r['ratio_tps_over_numpy']:.2f} target <= {target:.1f} "
              f"{'met' if r['ratio_tps_over_numpy'] <= target else 'NOT met'}{tf_part} | load {load:.1f}")
    for r in results:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
