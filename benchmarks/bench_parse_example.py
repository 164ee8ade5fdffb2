"""tf.io.parse_example of N serialized tf.train.Examples with 3 features (a float32 [4] vector, an int64
label and a variable-length int64 list), tpustrategy's C++ parser against TensorFlow's, same run.

The serialized batch is built once (by tpustrategy; the bytes are TF-identical) and handed to every side in a
file. Sides, each in a process of its own (see _sides.py), alternating for ``--rounds`` rounds with the order
rotated so that load from other processes falls on all of them alike:
  tps          — tpustrategy.io.parse_example (eager; the parser is C++ with the GIL released)
  tf_eager     — tf.io.parse_example called eagerly (TF 2.21)
  tf_function  — the same call inside a tf.function traced once (TF's strongest form: no eager dispatch)
The TF sides run from the reference venv (bash tools/install_references.sh) and are skipped without it.
Each side prints the median of ``--repeats`` calls; the summary is the median over rounds of each side and
the median over rounds of the per-round ratio TF / tps (above 1: tpustrategy is faster). Target (issue 14):
tps at >= 1x the speed of TF's parse_example.

Usage: python benchmarks/bench_parse_example.py [--tiny] [--examples N] [--rounds R] [--repeats K]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sides  # noqa: E402

TF_SIDES = ("tf_eager", "tf_function")


def make_batch(n: int) -> list[bytes]:
    import numpy as np

    import tpustrategy as tps

    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        ids = rng.integers(0, 1000, rng.integers(0, 6)).tolist()
        feature = {"x": tps.train.Feature(float_list=tps.train.FloatList(value=rng.random(4).tolist())),
                   "label": tps.train.Feature(int64_list=tps.train.Int64List(value=[i % 10])),
                   "ids": tps.train.Feature(int64_list=tps.train.Int64List(value=ids))}
        out.append(tps.train.Example(features=tps.train.Features(feature=feature)).SerializeToString())
    return out


def median_ms(parse, repeats: int) -> float:
    parse()  # warm up: first allocations, tracing for tf.function
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        parse()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def side_tps(serialized: list[bytes], repeats: int) -> float:
    import tpustrategy as tps

    spec = {"x": tps.io.FixedLenFeature([4], tps.float32), "label": tps.io.FixedLenFeature([], tps.int64),
            "ids": tps.io.VarLenFeature(tps.int64)}
    return median_ms(lambda: tps.io.parse_example(serialized, spec)["x"].numpy(), repeats)


def side_tf(serialized: list[bytes], repeats: int, in_function: bool) -> float:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    spec = {"x": tf.io.FixedLenFeature([4], tf.float32), "label": tf.io.FixedLenFeature([], tf.int64),
            "ids": tf.io.VarLenFeature(tf.int64)}
    batch = tf.constant(serialized)
    parse = tf.io.parse_example
    if in_function:
        parse = tf.function(parse)
    return median_ms(lambda: parse(batch, spec)["x"].numpy(), repeats)


def run_side(side: str, batch_path: str, repeats: int) -> None:
    with open(batch_path, "rb") as f:
        serialized = pickle.load(f)
    ms = side_tps(serialized, repeats) if side == "tps" else side_tf(serialized, repeats, side == "tf_function")
    _sides.emit({"side": side, "median_ms": ms})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="200 examples, one round, no TensorFlow (smoke test)")
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of every side")
    parser.add_argument("--repeats", type=int, default=7, help="calls timed per side per round")
    parser.add_argument("--side", choices=("tps", *TF_SIDES), help=argparse.SUPPRESS)
    parser.add_argument("--batch", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        run_side(args.side, args.batch, args.repeats)
        return
    n, rounds, repeats = (200, 1, 1) if args.tiny else (args.examples, args.rounds, args.repeats)
    reference = None if args.tiny else _sides.reference_python()
    sides = ["tps"] + ([*TF_SIDES] if reference else [])
    times: dict[str, list[float]] = {side: [] for side in sides}
    with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as f:
        pickle.dump(make_batch(n), f)
    try:
        for r in range(rounds):
            for side in sides[r % len(sides):] + sides[:r % len(sides)]:
                result = _sides.run_side(__file__, side, ["--batch", f.name, "--repeats", str(repeats)],
                                         python=None if side == "tps" else reference,
                                         extra_env={"TF_CPP_MIN_LOG_LEVEL": "3"})
                times[side].append(result["median_ms"])
    finally:
        os.unlink(f.name)
    medians = {side: round(statistics.median(samples), 3) for side, samples in times.items()}
    speedups = {side: round(statistics.median(t / o for t, o in zip(times[side], times["tps"], strict=True)), 2)
                for side in TF_SIDES if side in times}
    print(f"parse_example, {n} examples x 3 features, {rounds} round(s), medians in ms: "
          + ", ".join(f"{side} {ms}" for side, ms in medians.items())
          + "".join(f" | speedup vs {side} {x}x" for side, x in speedups.items()) + f" | load {os.getloadavg()[0]:.1f}")
    print(json.dumps({"op": "parse_example", "examples": n, "features": 3, "rounds": rounds,
                      "tpustrategy_ms": medians["tps"], "tensorflow_ms": medians.get("tf_eager"),
                      "tf_function_ms": medians.get("tf_function"), "speedup_vs_tf": speedups.get("tf_eager"),
                      "speedup_vs_tf_function": speedups.get("tf_function"),
                      "load_average_1min": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
