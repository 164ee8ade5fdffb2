"""Soak: many steps and many strategies must leave memory flat (issue 10).

Phase 1 runs ``--steps`` steps of ``strategy.run`` on a TPUStrategy (v3-8, 8 replicas), each with an
all-reduce, a ``merge_call`` and updates of a mirrored variable (assign_add with SUM aggregation, which
itself goes through merge_call). Phase 2 creates and destroys ``--strategies`` strategies (TPUStrategy
and MirroredStrategy alternately), each making a variable and running one step. Process RSS and the
HBM in use on every TPU core (``tf.config.experimental.get_memory_info``) are sampled at intervals; a
least-squares slope over the samples after warm-up says whether they are flat.

Prints one JSON line per phase: the RSS slope (bytes per step / strategy, after warm-up), RSS max - min
(after warm-up and overall), HBM min / max and slope. ``flat`` is true when HBM returns to the same bytes
at every sample and RSS grows by less than ``--rss-tolerance-mib`` over the phase (after warm-up).

Usage: python benchmarks/bench_soak.py [--tiny] [--steps N] [--strategies N] [--samples N]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def hbm_bytes(tf) -> int:
    return sum(tf.config.experimental.get_memory_info(d.name)["current"] for d in tf.config.list_logical_devices("TPU"))


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys over xs (0 for fewer than two points)."""
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0


def summarise(phase: str, unit: str, samples: list[tuple[int, int, int]], seconds: float, tolerance_mib: float) -> dict:
    warm = samples[len(samples) // 5 :]  # the first fifth is warm-up (allocator pools, caches)
    xs = [s[0] for s in warm]
    rss = [s[1] for s in warm]
    hbm = [s[2] for s in samples]
    rss_slope = slope(xs, rss)
    rss_growth = rss_slope * (xs[-1] - xs[0]) if len(xs) > 1 else 0.0
    return {
        "phase": phase,
        "count": samples[-1][0],
        "unit": unit,
        "seconds": round(seconds, 2),
        "us_per_unit": round(seconds / max(samples[-1][0], 1) * 1e6, 1),
        "rss_start_mib": round(samples[0][1] / 2**20, 2),
        "rss_after_warmup_mib": round(rss[0] / 2**20, 2),
        "rss_end_mib": round(samples[-1][1] / 2**20, 2),
        "rss_slope_bytes_per_unit": round(rss_slope, 3),
        "rss_growth_after_warmup_mib": round(rss_growth / 2**20, 3),
        "rss_max_minus_min_after_warmup_mib": round((max(rss) - min(rss)) / 2**20, 3),
        "rss_max_minus_min_mib": round((max(s[1] for s in samples) - min(s[1] for s in samples)) / 2**20, 3),
        "hbm_bytes_min": min(hbm),
        "hbm_bytes_max": max(hbm),
        "hbm_slope_bytes_per_unit": round(slope([s[0] for s in samples], hbm), 6),
        "flat": min(hbm) == max(hbm) and rss_growth < tolerance_mib * 2**20,
    }


def soak_steps(tf, steps: int, samples: int, tolerance_mib: float) -> dict:
    import numpy as np

    strategy = tf.distribute.TPUStrategy()
    with strategy.scope():
        v = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
    payload = tf.constant(np.ones(256, np.float32))

    def merge_fn(strategy_, value):
        return strategy_.reduce(tf.distribute.ReduceOp.SUM, value, axis=None)

    def step():
        ctx = tf.distribute.get_replica_context()
        total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, payload)
        merged = ctx.merge_call(merge_fn, args=(total,))
        v.assign_add(tf.constant(1.0))  # a per-replica value: SUM aggregates the 8 contributions
        return merged

    interval = max(steps // samples, 1)
    baseline_hbm = None
    records = []
    start = time.perf_counter()
    for i in range(1, steps + 1):
        strategy.run(step)
        if i % interval == 0 or i == steps:
            gc.collect()
            hbm = hbm_bytes(tf)
            baseline_hbm = hbm if baseline_hbm is None else baseline_hbm
            records.append((i, rss_bytes(), hbm))
    seconds = time.perf_counter() - start
    # Every replica adds 1 per step and SUM aggregation adds the 8 contributions.
    expected = float(steps * strategy.num_replicas_in_sync)
    result = summarise("steps", "step", records, seconds, tolerance_mib)
    result["variable_value"] = float(v.numpy())
    result["variable_expected"] = expected
    result["flat"] = result["flat"] and result["variable_value"] == expected
    return result


def soak_strategies(tf, count: int, samples: int, tolerance_mib: float) -> dict:
    interval = max(count // samples, 1)
    records = []
    start = time.perf_counter()
    for i in range(1, count + 1):
        strategy = tf.distribute.TPUStrategy() if i % 2 else tf.distribute.MirroredStrategy(["CPU:0"])
        with strategy.scope():
            variable = tf.Variable(tf.ones([64]), aggregation=tf.VariableAggregation.MEAN)
        strategy.run(lambda var=variable: var.assign_add(tf.ones([64])))
        del variable, strategy
        if i % interval == 0 or i == count:
            gc.collect()
            records.append((i, rss_bytes(), hbm_bytes(tf)))
    seconds = time.perf_counter() - start
    return summarise("strategies", "strategy", records, seconds, tolerance_mib)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="a few hundred steps: for the test suite")
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--strategies", type=int, default=1_000)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--rss-tolerance-mib", type=float, default=8.0)
    args = parser.parse_args()
    if args.tiny:
        args.steps, args.strategies, args.samples = 300, 40, 10

    import tpustrategy as tf

    for result in (
        soak_steps(tf, args.steps, args.samples, args.rss_tolerance_mib),
        soak_strategies(tf, args.strategies, args.samples, args.rss_tolerance_mib),
    ):
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
