"""Per-replica cost of ``strategy.run`` with one 4 KiB all-reduce, from 8 to 2048 replicas, and peak RSS.

TPUStrategy on a v3-2048 slice (TPUSTRATEGY_SLICE=v3-2048) with a DeviceAssignment of n replicas, and
MirroredStrategy over the first n of 2048 logical CPU devices, n = 8, 32, 128, 512, 2048. The same-run baseline
("greenlet") is the substrate alone: n bare greenlets whose step parks once and adds 1, no tpustrategy code; its
growth from 8 to 2048 is what suspending 2048 Python functions costs on this machine's caches. The figure of
merit is the CPU time per replica per step (``time.process_time``: on a loaded machine wall time mostly
measures the other processes): flat (target: at 2048 <= 1.2x the cost at 8, issue #11) means no O(n) work
per replica, O(n^2) per step.

Each strategy kind runs in a process of its own, which builds the strategies for every n and then samples
them interleaved (8, 32, ..., 2048, 8, 32, ...), so that a change in the machine's load hits every n alike;
a row is the median of the samples. Each row also counts the Python bytecodes of one traced step per replica:
load-independent, and flat when no replica does O(n) work in Python (C++ instructions need hardware counters, which
perf lacks on the VMs this runs on). Peak RSS is ru_maxrss after the warm-up steps of each n, run in
increasing n: the peak up to that n.

Prints a table and one JSON line. ``--tiny`` runs n = 8 and 32 for a few steps (a test).

    PYTHONPATH=python python benchmarks/bench_scaling.py [--tiny] [--rounds R] [--replica-steps S] [--wall]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sides  # noqa: E402

REPLICAS = (8, 32, 128, 512, 2048)
TARGET_RATIO = 1.2  # per-replica cost at the largest n over the cost at 8 (issue #11)


def make_strategy(tps, kind: str, n: int):
    if kind == "mirrored":
        return tps.distribute.MirroredStrategy([f"CPU:{i}" for i in range(n)])
    resolver = tps.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    topology = tps.tpu.experimental.initialize_tpu_system(resolver)
    assignment = tps.tpu.experimental.DeviceAssignment.build(topology, num_replicas=n)
    return tps.distribute.TPUStrategy(resolver, experimental_device_assignment=assignment)


def python_work(strategy, step_fn) -> tuple[int, int]:
    """Python function calls and bytecodes of one step: a count of the interpreter's work that load does not change
    (this machine's perf has no hardware counters), flat per replica when no replica does O(n) work in Python."""
    counts = {"call": 0, "opcode": 0}

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        if event in counts:
            counts[event] += 1
        return trace

    sys.settrace(trace)
    try:
        strategy.run(step_fn)
    finally:
        sys.settrace(None)
    return counts["call"], counts["opcode"]


class BareGreenlets:
    """The substrate alone, the same-run baseline: n greenlets, each running the step function, which parks once per
    step (a switch to the driver and back, as a replica does at a collective) and adds 1. Its curve is what
    suspending n Python functions and resuming them costs per function on this machine, before any of our code."""

    def __init__(self, n: int) -> None:
        import greenlet

        self.num_replicas_in_sync = n
        self._step_fn: Any = None
        driver = greenlet.getcurrent()

        def body() -> None:
            while True:
                driver.switch(self._step_fn())

        self._workers = [greenlet.greenlet(body) for _ in range(n)]

    def run(self, fn: Any) -> list[Any]:
        self._step_fn = fn
        for worker in self._workers:  # each runs to its park point
            worker.switch()
        return [worker.switch(1.0) for worker in self._workers]  # resumed with the "result": each ends its step

    def experimental_local_results(self, values: list[Any]) -> list[Any]:
        return values


def park_greenlet() -> float:
    """A replica's park in BareGreenlets: to the driver, and back with the step's result."""
    import greenlet

    return greenlet.getcurrent().parent.switch()


def setup_side(kind: str, counts: list[int]) -> tuple[Any, Any]:
    """The step function of `kind` and a function making its "strategy" of n replicas."""
    if kind == "greenlet":
        return (lambda: park_greenlet() + 1.0), BareGreenlets
    import numpy as np

    import tpustrategy as tps

    if kind == "mirrored":  # one device configuration per process, as in TF: the largest n
        cpu = tps.config.list_physical_devices("CPU")[0]
        tps.config.set_logical_device_configuration(cpu, [tps.config.LogicalDeviceConfiguration()] * max(counts))
    else:
        tps.config.experimental_connect_to_cluster(tps.distribute.cluster_resolver.TPUClusterResolver(tpu=""))
    payload = tps.constant(np.ones(1024, np.float32))  # 4 KiB

    def step_fn():
        return tps.distribute.get_replica_context().all_reduce("sum", payload)

    return step_fn, lambda n: make_strategy(tps, kind, n)


def run_side(kind: str, counts: list[int], replica_steps: int, rounds: int, clock) -> list[dict]:
    import numpy as np

    step_fn, make = setup_side(kind, counts)
    strategies, peak_rss = {}, {}
    for n in sorted(counts):
        strategy = strategies[n] = make(n)
        assert strategy.num_replicas_in_sync == n
        for _ in range(2):  # warm-up: the replica workers and the Rendezvous are pooled after the first step
            result = strategy.experimental_local_results(strategy.run(step_fn))
        expected = 2.0 if kind == "greenlet" else n  # the bare step adds 1 to its "result" 1; the others all-reduce
        assert len(result) == n and float(np.asarray(result[-1]).ravel()[0]) == expected
        peak_rss[n] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    samples: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(rounds):
        for n in counts:
            strategy, steps = strategies[n], max(2, replica_steps // n)  # the same replica-steps at every n
            start = clock()
            for _ in range(steps):
                strategy.run(step_fn)
            samples[n].append((clock() - start) / steps)
    rows = []
    for n in counts:
        calls, bytecodes = python_work(strategies[n], step_fn)
        step_s = statistics.median(samples[n])
        rows.append({"kind": kind, "replicas": n, "step_us": step_s * 1e6, "per_replica_us": step_s / n * 1e6,
                     "per_replica_us_min": min(samples[n]) / n * 1e6, "samples": len(samples[n]),
                     "py_calls_per_replica": calls / n, "py_bytecodes_per_replica": bytecodes / n,
                     "peak_rss_mib": peak_rss[n]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="8 and 32 replicas, a few steps (smoke test)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved samples of every n (default 9)")
    parser.add_argument("--replica-steps", type=int, default=None,
                        help="replica-steps per sample (steps = this / n; default 16384)")
    parser.add_argument("--wall", action="store_true", help="time with perf_counter instead of CPU time")
    parser.add_argument("--side", help=argparse.SUPPRESS)  # "kind:n1,n2,...:replica_steps:rounds", in a child
    args = parser.parse_args()
    if args.side:
        kind, counts, replica_steps, rounds = args.side.split(":")
        clock = time.perf_counter if args.wall else time.process_time
        _sides.emit({"rows": run_side(kind, [int(n) for n in counts.split(",")], int(replica_steps), int(rounds),
                                      clock)})
        return
    counts = (8, 32) if args.tiny else REPLICAS
    rounds = args.rounds or (2 if args.tiny else 9)
    replica_steps = args.replica_steps or (64 if args.tiny else 16384)
    script = os.path.abspath(__file__)
    rows = []
    for kind in ("tpu", "mirrored", "greenlet"):
        env = {"TPUSTRATEGY_SLICE": "v3-2048"} if kind == "tpu" else {}
        side = f"{kind}:{','.join(map(str, counts))}:{replica_steps}:{rounds}"
        rows += _sides.run_side(script, side, ["--wall"] if args.wall else [], extra_env=env)["rows"]
    print(f"{'strategy':<9} {'replicas':>8} {'step_us':>10} {'per_replica_us':>15} {'vs_8':>6} {'peak_rss_MiB':>13} "
          f"{'py_bytecodes/replica':>21}")
    summary: dict[str, dict[int, float]] = {}
    for row in rows:
        base = next(r for r in rows if r["kind"] == row["kind"] and r["replicas"] == counts[0])
        row["ratio_vs_smallest"] = row["per_replica_us"] / base["per_replica_us"]
        summary.setdefault(row["kind"], {})[row["replicas"]] = row["ratio_vs_smallest"]
        print(f"{row['kind']:<9} {row['replicas']:>8} {row['step_us']:>10.1f} {row['per_replica_us']:>15.2f} "
              f"{row['ratio_vs_smallest']:>6.2f} {row['peak_rss_mib']:>13.1f} {row['py_bytecodes_per_replica']:>21.1f}")
    for kind, ratios in summary.items():
        largest = max(ratios)
        if kind == "greenlet":
            extra = {r["replicas"]: r["per_replica_us"] for r in rows if r["kind"] == kind}
            print(f"baseline greenlet  per-replica cost at {largest} vs {counts[0]}: {ratios[largest]:.2f}x  (bare "
                  f"suspension, +{extra[largest] - extra[counts[0]]:.2f} us per replica: the substrate's own growth)")
            continue
        print(f"scaling {kind:<9} per-replica cost at {largest} vs {counts[0]}: {ratios[largest]:.2f}x  target "
              f"<= {TARGET_RATIO}x  ratio to target {ratios[largest] / TARGET_RATIO:.2f}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; medians of {rounds} interleaved samples")
    print(json.dumps({"benchmark": "scaling", "payload_bytes": 4096, "rows": rows,
                      "target_ratio_at_max": TARGET_RATIO, "ratio_vs_smallest": summary,
                      "clock": "perf_counter" if args.wall else "process_time", "rounds": rounds,
                      "load_average": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
