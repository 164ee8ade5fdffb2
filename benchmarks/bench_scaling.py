"""Per-replica cost of ``strategy.run`` with one 4 KiB all-reduce, from 8 to 2048 replicas, and peak RSS.

TPUStrategy on a v3-2048 slice (TPUSTRATEGY_SLICE=v3-2048) with a DeviceAssignment of n replicas, and
MirroredStrategy over n logical CPU devices, n = 8, 32, 128, 512, 2048. Each (strategy, n) runs in a
process of its own, so its peak RSS (ru_maxrss) is its own. The figure of merit is the cost per replica
per step: flat (target: at 2048 <= 1.2x the cost at 8) means no O(n) work per replica, O(n^2) per step.

Prints a table and one JSON line. ``--tiny`` runs n = 8 and 32 for a few steps (a test).

    PYTHONPATH=python python benchmarks/bench_scaling.py [--tiny] [--steps N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sides  # noqa: E402

REPLICAS = (8, 32, 128, 512, 2048)
TARGET_RATIO = 1.2  # per-replica cost at the largest n over the cost at 8 (issue #11)
_clock = time.perf_counter


def make_strategy(tps, kind: str, n: int):
    if kind == "mirrored":
        cpu = tps.config.list_physical_devices("CPU")[0]
        tps.config.set_logical_device_configuration(cpu, [tps.config.LogicalDeviceConfiguration()] * n)
        return tps.distribute.MirroredStrategy([f"CPU:{i}" for i in range(n)])
    resolver = tps.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    tps.config.experimental_connect_to_cluster(resolver)
    topology = tps.tpu.experimental.initialize_tpu_system(resolver)
    assignment = tps.tpu.experimental.DeviceAssignment.build(topology, num_replicas=n)
    return tps.distribute.TPUStrategy(resolver, experimental_device_assignment=assignment)


def run_side(kind: str, n: int, steps: int, repeats: int) -> dict:
    import numpy as np

    import tpustrategy as tps

    strategy = make_strategy(tps, kind, n)
    assert strategy.num_replicas_in_sync == n
    payload = tps.constant(np.ones(1024, np.float32))  # 4 KiB

    def step_fn():
        return tps.distribute.get_replica_context().all_reduce("sum", payload)

    result = strategy.experimental_local_results(strategy.run(step_fn))
    assert len(result) == n and float(np.asarray(result[-1])[0]) == n
    samples = []
    for _ in range(repeats):
        start = _clock()
        for _ in range(steps):
            strategy.run(step_fn)
        samples.append((_clock() - start) / steps)
    step_s = statistics.median(samples)
    return {"kind": kind, "replicas": n, "step_us": step_s * 1e6, "per_replica_us": step_s / n * 1e6,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="8 and 32 replicas, a few steps (smoke test)")
    parser.add_argument("--steps", type=int, default=None, help="steps per sample at 8 replicas (fewer at more)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with each side's CPU time (a fairer figure on a loaded machine)")
    parser.add_argument("--side", help=argparse.SUPPRESS)  # "kind:n:steps:repeats", run in a child process
    args = parser.parse_args()
    if args.side:
        if args.cpu_time:
            global _clock
            _clock = time.process_time
        kind, n, steps, repeats = args.side.split(":")
        _sides.emit(run_side(kind, int(n), int(steps), int(repeats)))
        return
    counts, repeats = ((8, 32), 1) if args.tiny else (REPLICAS, 5)
    base_steps = args.steps or (4 if args.tiny else 400)
    script = os.path.abspath(__file__)
    rows = []
    for kind in ("tpu", "mirrored"):
        for n in counts:
            steps = max(2, base_steps * 8 // n)  # about the same replica-steps per sample at every n
            env = {"TPUSTRATEGY_SLICE": "v3-2048"} if kind == "tpu" else {}
            flags = ["--cpu-time"] if args.cpu_time else []
            rows.append(_sides.run_side(script, f"{kind}:{n}:{steps}:{repeats}", flags, extra_env=env))
    print(f"{'strategy':<9} {'replicas':>8} {'step_us':>10} {'per_replica_us':>15} {'vs_8':>6} {'peak_rss_MiB':>13}")
    summary = {}
    for row in rows:
        base = next(r for r in rows if r["kind"] == row["kind"] and r["replicas"] == counts[0])
        row["ratio_vs_smallest"] = row["per_replica_us"] / base["per_replica_us"]
        summary.setdefault(row["kind"], {})[row["replicas"]] = row["ratio_vs_smallest"]
        print(f"{row['kind']:<9} {row['replicas']:>8} {row['step_us']:>10.1f} {row['per_replica_us']:>15.2f} "
              f"{row['ratio_vs_smallest']:>6.2f} {row['peak_rss_mib']:>13.1f}")
    for kind, ratios in summary.items():
        largest = max(ratios)
        print(f"scaling {kind:<9} per-replica cost at {largest} vs {counts[0]}: {ratios[largest]:.2f}x  target "
              f"<= {TARGET_RATIO}x  ratio to target {ratios[largest] / TARGET_RATIO:.2f}")
    print(json.dumps({"benchmark": "scaling", "payload_bytes": 4096, "rows": rows,
                      "target_ratio_at_max": TARGET_RATIO, "ratio_vs_smallest": summary,
                      "clock": "process_time" if args.cpu_time else "perf_counter"}))


if __name__ == "__main__":
    main()
