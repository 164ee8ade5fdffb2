"""Benchmark tpustrategy's elementwise add and matmul kernels against numpy (and TF eager ops) on the same data.

Prints a human-readable table and one JSON line per case (``{"bench": "ops", ...}``) with the
median time of each side and the ratio tps / numpy (below 1 means tpustrategy is faster); when
TensorFlow is importable (never a project dependency), also TF's eager op time and tps / tf.
``--tiny`` runs very small sizes once or twice, for use as a test (without TF).

    PYTHONPATH=python python benchmarks/bench_ops.py [--tiny] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import tpustrategy as tps


def median_seconds(fn, repeats: int, min_time: float) -> float:
    """Median over `repeats` samples; each sample loops fn until `min_time` has passed."""
    fn()  # warm up (allocation, page faults)
    samples = []
    for _ in range(repeats):
        loops = 0
        start = time.perf_counter()
        while True:
            fn()
            loops += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        samples.append(elapsed / loops)
    return statistics.median(samples)


def cases(tiny: bool):
    if tiny:
        return [("add", (64, 64), "float32"), ("matmul", (32, 32), "float32")]
    return [
        ("add", (1024,), "float32"),
        ("add", (1024, 1024), "float32"),
        ("add", (4096, 4096), "float32"),
        ("add_broadcast_row", (4096, 4096), "float32"),
        ("matmul", (128, 128), "float32"),
        ("matmul", (1024, 1024), "float32"),
        ("matmul", (1024, 1024), "float64"),
    ]


def import_tensorflow():
    """TF for the baseline column, or None; TF is optional and never installed by the project."""
    try:
        import tensorflow as tf
    except ImportError:
        return None
    return tf


def tf_op(tf, op: str, a: np.ndarray, b: np.ndarray):
    """The same op as a TF eager call on TF tensors made from the same arrays (CPU eager ops run synchronously)."""
    ta, tb = tf.constant(a), tf.constant(b)
    return (lambda: tf.add(ta, tb)) if op.startswith("add") else (lambda: tf.matmul(ta, tb))


def run_case(op: str, shape: tuple[int, ...], dtype: str, repeats: int, min_time: float, tf=None) -> dict:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape[-1:] if op == "add_broadcast_row" else shape).astype(dtype)
    ta, tb = tps.constant(a), tps.constant(b)
    if op.startswith("add"):
        np_fn, tps_fn = (lambda: np.add(a, b)), (lambda: tps.add(ta, tb))
        flops = a.size
    else:
        np_fn, tps_fn = (lambda: np.matmul(a, b)), (lambda: tps.matmul(ta, tb))
        flops = 2 * shape[0] * shape[1] * shape[1]
    np.testing.assert_allclose(np.asarray(tps_fn()), np_fn(), rtol=1e-3, atol=1e-3 * shape[-1])
    t_np = median_seconds(np_fn, repeats, min_time)
    t_tps = median_seconds(tps_fn, repeats, min_time)
    result = {
        "bench": "ops",
        "op": op,
        "shape": list(shape),
        "dtype": dtype,
        "numpy_s": t_np,
        "tps_s": t_tps,
        "ratio_tps_over_numpy": t_tps / t_np,
        "tps_gflops": flops / t_tps / 1e9,
        "threads": os.cpu_count(),
    }
    if tf is not None:
        tf_fn = tf_op(tf, op, a, b)
        np.testing.assert_allclose(tf_fn().numpy(), np_fn(), rtol=1e-3, atol=1e-3 * shape[-1])
        result["tf_s"] = median_seconds(tf_fn, repeats, min_time)
        result["ratio_tps_over_tf"] = t_tps / result["tf_s"]
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="tiny sizes, a couple of repeats (smoke test)")
    parser.add_argument("--repeats", type=int, default=None, help="samples per side (median is reported)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (2 if args.tiny else 7)
    min_time = 0.001 if args.tiny else 0.05
    tf = None if args.tiny else import_tensorflow()
    results = [run_case(op, shape, dtype, repeats, min_time, tf) for op, shape, dtype in cases(args.tiny)]
    tf_header = f" {'tf':>10} {'tps/tf':>8}" if tf is not None else ""
    print(f"{'op':<18} {'shape':<14} {'dtype':<8} {'numpy':>10} {'tps':>10} {'tps/numpy':>10}{tf_header}")
    for r in results:
        shape = "x".join(map(str, r["shape"]))
        tf_cells = f" {r['tf_s'] * 1e6:>8.1f}us {r['ratio_tps_over_tf']:>8.2f}" if "tf_s" in r else ""
        print(
            f"{r['op']:<18} {shape:<14} {r['dtype']:<8} {r['numpy_s'] * 1e6:>8.1f}us {r['tps_s'] * 1e6:>8.1f}us "
            f"{r['ratio_tps_over_numpy']:>10.2f}{tf_cells}"
        )
    for r in results:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
