"""Per-step overhead of Strategy.run: 8 replicas (MirroredStrategy over 8 logical CPUs): a trivial fn, one
4 KiB all-reduce, and one 4 KiB all-reduce of a PerReplica argument. Prints one line per case (median and
ratio to its target) and one JSON line; compares with tf.distribute if installed.

Targets (issue #11): trivial <= 20 us, all-reduce <= 50 us, with a PerReplica argument <= 60 us per step.

Usage: python benchmarks/bench_run_overhead.py [--tiny] [--steps N] [--cpu-time]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

_clock = time.perf_counter
TARGETS_US = {"trivial_us": 20, "all_reduce_4k_us": 50, "per_replica_arg_us": 60}


def _median_us(run_step, steps: int, repeats: int) -> float:
    for _ in range(max(steps // 10, 1)):
        run_step()  # warm up
    samples = []
    for _ in range(repeats):
        start = _clock()
        for _ in range(steps):
            run_step()
        samples.append((_clock() - start) / steps * 1e6)
    return statistics.median(samples)


def bench_tpustrategy(steps: int, repeats: int) -> dict:
    import numpy as np

    import tpustrategy as tps

    cpu = tps.config.list_physical_devices("CPU")[0]
    tps.config.set_logical_device_configuration(cpu, [tps.config.LogicalDeviceConfiguration()] * 8)
    strategy = tps.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == 8
    payload = tps.constant(np.ones(1024, np.float32))  # 4 KiB

    def trivial():
        return None

    def with_all_reduce():
        return tps.distribute.get_replica_context().all_reduce("sum", payload)

    def reduce_argument(x):
        return tps.distribute.get_replica_context().all_reduce("sum", x)

    per_replica = strategy.experimental_distribute_values_from_function(
        lambda context: tps.constant(np.full(1024, context.replica_id_in_sync_group, np.float32)))
    return {
        "trivial_us": _median_us(lambda: strategy.run(trivial), steps, repeats),
        "all_reduce_4k_us": _median_us(lambda: strategy.run(with_all_reduce), steps, repeats),
        "per_replica_arg_us": _median_us(lambda: strategy.run(reduce_argument, args=(per_replica,)), steps, repeats),
    }


def bench_tensorflow(steps: int, repeats: int) -> dict | None:
    try:
        import tensorflow as tf
    except ImportError:
        return None
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 8)
    strategy = tf.distribute.MirroredStrategy([f"CPU:{i}" for i in range(8)])
    payload = tf.ones([1024], tf.float32)
    return {
        "trivial_us": _median_us(lambda: strategy.run(lambda: None), steps, repeats),
        "all_reduce_4k_us": _median_us(
            lambda: strategy.run(lambda: tf.distribute.get_replica_context().all_reduce("sum", payload)),
            steps, repeats),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tiny", action="store_true", help="a few steps only (smoke test)")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with the process's CPU time (a fairer comparison on a loaded machine)")
    args = parser.parse_args()
    global _clock
    if args.cpu_time:
        _clock = time.process_time
    steps, repeats = (20, 1) if args.tiny else (args.steps, 5)
    ours = bench_tpustrategy(steps, repeats)
    for case, median in ours.items():
        print(f"run_overhead {case:<20} median {median:8.1f} us  target {TARGETS_US[case]:4d} us  "
              f"ratio to target {median / TARGETS_US[case]:.2f}")
    result = {"benchmark": "run_overhead", "replicas": 8, "steps": steps, "tpustrategy": ours,
              "clock": "process_time" if args.cpu_time else "perf_counter", "targets_us": TARGETS_US}
    theirs = None if args.tiny else bench_tensorflow(max(steps // 10, 20), repeats)
    if theirs is not None:
        result["tensorflow"] = theirs
        result["speedup_vs_tf"] = {k: theirs[k] / ours[k] for k in theirs}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
