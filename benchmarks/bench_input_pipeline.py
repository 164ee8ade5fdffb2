"""Input pipeline throughput: from_tensor_slices → batch → experimental_distribute_dataset over 8 replicas
(MirroredStrategy over 8 logical CPUs), iterated to the end, against a plain numpy loop over the same data
that slices each global batch into 8 per-replica arrays and copies each one (the host→device copy every
input pipeline makes). Elements are rows. Prints the ratio (target >= 0.5) and one JSON line.

Usage: python benchmarks/bench_input_pipeline.py [--tiny] [--rows N] [--row-floats F] [--batch B]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

REPLICAS = 8


def _best_rate(fn, rows: int, repeats: int) -> float:
    fn()  # warm up
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(rows / (time.perf_counter() - start))
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="a few batches, for the test suite")
    parser.add_argument("--rows", type=int, default=32768)
    parser.add_argument("--row-floats", type=int, default=256, help="float32 values per row")
    parser.add_argument("--batch", type=int, default=1024, help="global batch size")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.tiny:
        args.rows, args.row_floats, args.batch, args.repeats = 256, 16, 64, 1

    import numpy as np

    import tpustrategy as tps

    cpu = tps.config.list_physical_devices("CPU")[0]
    tps.config.set_logical_device_configuration(cpu, [tps.config.LogicalDeviceConfiguration()] * REPLICAS)
    strategy = tps.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == REPLICAS
    data = np.random.default_rng(0).standard_normal((args.rows, args.row_floats), dtype=np.float32)
    dist_dataset = strategy.experimental_distribute_dataset(
        tps.data.Dataset.from_tensor_slices(data).batch(args.batch))

    def tpustrategy_epoch():
        seen = 0
        for x in dist_dataset:
            seen += sum(v._shape_tuple[0] for v in x.values)
        assert seen == args.rows

    def numpy_epoch():
        seen = 0
        for begin in range(0, args.rows, args.batch):
            batch = data[begin:begin + args.batch]
            per_replica = -(-len(batch) // REPLICAS)
            parts = [batch[j * per_replica:(j + 1) * per_replica].copy() for j in range(REPLICAS)]
            seen += sum(len(p) for p in parts)
        assert seen == args.rows

    ours = _best_rate(tpustrategy_epoch, args.rows, args.repeats)
    baseline = _best_rate(numpy_epoch, args.rows, args.repeats)
    ratio = ours / baseline
    print(f"tpustrategy: {ours:,.0f} rows/s   numpy slicing + copies: {baseline:,.0f} rows/s   "
          f"ratio {ratio:.2f} (target >= 0.5)")
    print(json.dumps({"benchmark": "input_pipeline", "replicas": REPLICAS, "rows": args.rows,
                      "row_bytes": 4 * args.row_floats, "global_batch": args.batch,
                      "tpustrategy_rows_per_s": round(ours), "numpy_rows_per_s": round(baseline),
                      "ratio": round(ratio, 3), "target_ratio": 0.5}))


if __name__ == "__main__":
    main()
