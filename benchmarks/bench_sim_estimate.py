"""The cost model on the largest presets (issue 16: "estimating on a 4096-chip preset takes <= 1 s").

Median wall time of: every collective kind over every axis set of v4-8192 (4096 chips); one all-reduce whose group
lists all 4096 devices by coordinates; a data-parallel step on StepTimeline (4096 cores x 20 layers of matmuls, one
all-reduce over every core per layer: 81,920 op records and 20 collectives); a recorded 8-replica step (20 layers)
re-estimated on the whole preset with estimate_step (the what-if path); the same on the 8960-chip v5p pod.
Baseline in the same run: building the preset's Topology (an existing query of the same size).
Prints one JSON line per case.

Usage: python benchmarks/bench_sim_estimate.py [--tiny] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def _median_s(fn, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tiny", action="store_true", help="small slice, one repeat (smoke test)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    repeats = 1 if args.tiny else args.repeats
    slices = ["v4-32"] if args.tiny else ["v4-8192", "v5p-17920"]
    layers = 2 if args.tiny else 20

    from tpustrategy import _core
    from tpustrategy import experimental as tpx

    record = tpx.StepRecord(name="recorded")
    for _ in range(layers):
        for replica in range(8):
            record.add_op("BatchMatMulV2", [[1024, 4096], [4096, 4096]], [[1024, 4096]], dtype="bfloat16",
                          replica=replica)
            record.add_op("Relu", [[1024, 4096]], [[1024, 4096]], dtype="bfloat16", replica=replica)
        record.add_collective("all_reduce", [(r, 0) for r in range(8)], 4096 * 4096, dtype="bfloat16")

    for name in slices:
        preset = _core.slice.find_slice_preset(name)
        n = preset.num_hosts * preset.devices_per_host
        mesh = list(preset.mesh_shape)
        members = [[x, y, z, 0] for z in range(mesh[2]) for y in range(mesh[1]) for x in range(mesh[0])]

        def every_collective(name=name):
            for kind in ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
                         "collective_permute"]:
                for axes in ["x", "xy", "xyz"]:
                    tpx.estimate_collective_time(kind, 1 << 30, slice=name, axes=axes)

        def group_by_coordinates(name=name, members=members):
            tpx.estimate_collective("all_reduce", 1 << 30, slice=name, group=members)

        def data_parallel_step(name=name, n=n):
            t = tpx.StepTimeline(name)
            cores, flops, nbytes = np.arange(n), np.full(n, 2.0 * 1024 * 4096 * 4096), np.full(n, 1e8)
            everyone = list(range(n))
            for _ in range(layers):
                t.add_ops(cores, flops, nbytes, name="matmul")
                t.add_collective("grads", "all_reduce", everyone, 4096 * 4096 * 2)
            return t.summarize().step_time

        def recorded_step_what_if(name=name):
            # A recorded 8-replica step (per layer: matmul, relu per replica, one all-reduce) re-estimated on the
            # whole preset: replica t runs recorded replica t mod 8's program, every all-reduce spans every core.
            return tpx.estimate_step(record, name).step_time

        baseline = _median_s(lambda name=name: _core.topology.slice_topology(name), repeats)
        for case, fn in [("every_collective_x18", every_collective), ("group_by_coordinates", group_by_coordinates),
                         (f"step_timeline_{layers}_layers", data_parallel_step),
                         (f"recorded_step_what_if_{layers}_layers", recorded_step_what_if)]:
            seconds = _median_s(fn, repeats)
            print(json.dumps({"slice": name, "devices": n, "case": case, "median_s": round(seconds, 6),
                              "baseline_topology_s": round(baseline, 6), "under_1s": seconds < 1.0}))


if __name__ == "__main__":
    main()
