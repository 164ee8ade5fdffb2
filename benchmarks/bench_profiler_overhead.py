"""Cost of recording on Strategy.run (issue 16: <= 5 % with the profiler off, <= 30 % with it on).

Workload: TPUStrategy on v3-8 (8 replicas), one step = per replica two 64x64 float32 matmuls, a relu and a sum,
then one all-reduce of the [32, 64] result (about 10 ops and one collective per replica).
Cases, interleaved in one process, median per step:
  off  -- no recording (the hooks are not installed: one atomic load per op and per collective);
  on   -- the recorder installed (what tf.profiler.experimental.start does), the record taken after every step.
With --baseline PYTHONPATH (a tree without the hooks whose _core is built, e.g. `git worktree add /tmp/base
<merge-base>` + `cmake --build build --target _core` there; pass /tmp/base/python) the 'off' case also runs in
fresh processes, three rounds alternating with this tree's: the same-run baseline for the 'off' overhead.

Usage: python benchmarks/bench_profiler_overhead.py [--tiny] [--steps N] [--repeats N] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _workload():
    import numpy as np

    import tpustrategy as tf

    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    tf.tpu.experimental.initialize_tpu_system(resolver)
    strategy = tf.distribute.TPUStrategy(resolver)
    w = tf.constant(np.ones((64, 64), np.float32) / 64)
    x = tf.constant(np.ones((32, 64), np.float32))

    def fn(x):
        y = tf.matmul(tf.nn.relu(tf.matmul(x, w)), w)
        return tf.distribute.get_replica_context().all_reduce("sum", y), tf.reduce_sum(y)

    return lambda: strategy.run(fn, args=(x,))


def _block_us(step, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps * 1e6


def _off_only(steps: int, repeats: int) -> list[float]:
    step = _workload()
    for _ in range(max(steps // 5, 1)):
        step()
    return [_block_us(step, steps) for _ in range(repeats)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--baseline", default=None, help="PYTHONPATH of a baseline tree for the 'off' case")
    parser.add_argument("--off-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    steps, repeats = (5, 3) if args.tiny else (args.steps, args.repeats)
    if args.off_only:
        print(json.dumps(_off_only(steps, repeats)))
        return

    from tpustrategy import _core

    sim = _core.sim
    step = _workload()

    last = [0]

    def recorded():
        step()
        last[0] = sim.record_take().num_events

    for _ in range(max(steps // 5, 1)):
        step()
    off, on = [], []
    for _ in range(repeats):
        off.append(_block_us(step, steps))
        sim.record_start()
        try:
            on.append(_block_us(recorded, steps))
        finally:
            sim.record_stop()
            sim.record_take()
    result = {"case": "run_8_replicas", "off_us": round(statistics.median(off), 2),
              "on_us": round(statistics.median(on), 2),
              "on_overhead": round(statistics.median(on) / statistics.median(off) - 1, 4),
              "events_per_step": last[0]}
    if args.baseline:
        here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")
        runs = {"branch": [], "baseline": []}
        for _ in range(3):
            for label, path in (("branch", here), ("baseline", args.baseline)):
                env = dict(os.environ, PYTHONPATH=path)
                out = subprocess.run([sys.executable, os.path.abspath(__file__), "--off-only", "--steps", str(steps),
                                      "--repeats", str(repeats)], env=env, capture_output=True, text=True,
                                     check=True, timeout=600).stdout
                runs[label].extend(json.loads(out.strip().splitlines()[-1]))
        branch, baseline = statistics.median(runs["branch"]), statistics.median(runs["baseline"])
        result.update({"off_fresh_us": round(branch, 2), "baseline_off_fresh_us": round(baseline, 2),
                       "off_overhead_vs_baseline": round(branch / baseline - 1, 4)})
    _print_summary(result, steps, repeats)
    print(json.dumps(result))


def _print_summary(result: dict, steps: int, repeats: int) -> None:
    """The medians and the two ratios the issue bounds, readable (the JSON line follows for tools)."""
    print(f"run() of 8 replicas (~{result['events_per_step']} recorded events/step); median of {repeats} blocks "
          f"x {steps} steps, interleaved in one process")
    print(f"  profiler off : {result['off_us']:9.2f} us/step")
    on_ratio = result["on_us"] / result["off_us"]
    verdict = "ok" if on_ratio - 1 <= 0.30 else "OVER"
    print(f"  profiler on  : {result['on_us']:9.2f} us/step   on/off = {on_ratio:.3f} ({on_ratio - 1:+.1%}; "
          f"limit +30 %: {verdict})")
    if "off_fresh_us" in result:
        off_ratio = result["off_fresh_us"] / result["baseline_off_fresh_us"]
        verdict = "ok" if off_ratio - 1 <= 0.05 else "OVER"
        print(f"  off, fresh processes: this tree {result['off_fresh_us']:.2f} us vs baseline tree "
              f"{result['baseline_off_fresh_us']:.2f} us   ratio = {off_ratio:.3f} ({off_ratio - 1:+.1%}; "
              f"limit +5 %: {verdict})")
    else:
        print("  off vs a tree without the hooks: not measured (pass --baseline PATH)")


if __name__ == "__main__":
    main()
