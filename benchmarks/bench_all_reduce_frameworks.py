"""8-way all-reduce (SUM) of float32 buffers: tpustrategy vs TF MirroredStrategy (vs JAX psum), same data, same run.

Per replica 1, 16 and 64 MiB. Sides (each skipped when not importable):
  tps_run       — MirroredStrategy over 8 logical CPUs, strategy.run + ReplicaContext.all_reduce
  tps_core      — tpustrategy._core.collectives.all_reduce on the 8 per-replica tensors directly (no scheduler)
  tf_run        — tf.distribute.MirroredStrategy over 8 logical CPUs, strategy.run + all_reduce (eager)
  jax_psum      — jit(shard_map(psum)) over 8 host devices (XLA_FLAGS=--xla_force_host_platform_device_count=8),
                  the inputs placed with jax.device_put and a NamedSharding over a 1-D mesh
Each framework runs in a process of its own (TF and JAX from the reference venv of
tools/install_references.sh; skipped when it is absent). Prints a table of medians and ratios
(side / tps_run) and one JSON line. ``--tiny`` uses 4 KiB once, tpustrategy only (a test).

    PYTHONPATH=python python benchmarks/bench_all_reduce_frameworks.py [--tiny] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sides  # noqa: E402

REPLICAS = 8
MIB = 1 << 20
# Must be set before jax is imported (it is read once, at backend start-up).
os.environ.setdefault("XLA_FLAGS", f"--xla_force_host_platform_device_count={REPLICAS}")


def median_s(fn, repeats: int) -> float:
    fn()  # warm up: first collectives allocate, TF traces its replica function
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _logical_cpu_strategy(module):
    cpu = module.config.list_physical_devices("CPU")[0]
    module.config.set_logical_device_configuration(cpu, [module.config.LogicalDeviceConfiguration()] * REPLICAS)
    return module.distribute.MirroredStrategy([f"CPU:{i}" for i in range(REPLICAS)])


def _per_replica_buffers(module, strategy, elements: int):
    import numpy as np

    return strategy.experimental_distribute_values_from_function(
        lambda ctx: module.constant(np.full(elements, ctx.replica_id_in_sync_group + 1, np.float32)))


def _check_sum(result, elements: int) -> None:
    import numpy as np

    expected = REPLICAS * (REPLICAS + 1) / 2
    first = np.asarray(result)
    assert first.shape == (elements,) and first[0] == expected and first[-1] == expected, first[:4]


def bench_tpustrategy(sizes: list[int], repeats: int) -> dict:
    import tpustrategy as tps
    from tpustrategy import _core

    strategy = _logical_cpu_strategy(tps)
    out = {"tps_run": {}, "tps_core": {}}
    for size in sizes:
        elements = size // 4
        buffers = _per_replica_buffers(tps, strategy, elements)
        locals_ = list(strategy.experimental_local_results(buffers))

        def run_step(buffers=buffers):
            return strategy.run(lambda x: tps.distribute.get_replica_context().all_reduce("SUM", x), args=(buffers,))

        _check_sum(strategy.experimental_local_results(run_step())[REPLICAS - 1], elements)
        _check_sum(_core.collectives.all_reduce(locals_, "SUM")[0], elements)
        out["tps_run"][size] = median_s(run_step, repeats)
        out["tps_core"][size] = median_s(lambda locals_=locals_: _core.collectives.all_reduce(locals_, "SUM"), repeats)
    return out


def bench_tensorflow(sizes: list[int], repeats: int) -> dict | None:
    try:
        import tensorflow as tf
    except ImportError:
        return None
    strategy = _logical_cpu_strategy(tf)
    out = {}
    for size in sizes:
        elements = size // 4
        buffers = _per_replica_buffers(tf, strategy, elements)

        def run_step(buffers=buffers):
            result = strategy.run(lambda x: tf.distribute.get_replica_context().all_reduce("SUM", x), args=(buffers,))
            for value in strategy.experimental_local_results(result):
                value.numpy()  # eager collectives are asynchronous: wait for every replica's result
            return result

        _check_sum(strategy.experimental_local_results(run_step())[REPLICAS - 1], elements)
        out[size] = median_s(run_step, repeats)
    return {"tf_run": out}


def bench_jax(sizes: list[int], repeats: int) -> dict | None:
    try:
        import jax
    except ImportError:
        return None
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    try:
        shard_map = jax.shard_map
    except AttributeError:  # JAX < 0.6
        from jax.experimental.shard_map import shard_map
    if jax.local_device_count() < REPLICAS:
        return None
    mesh = Mesh(np.array(jax.local_devices()[:REPLICAS]), ("i",))
    spec = PartitionSpec("i")
    psum = jax.jit(shard_map(lambda x: jax.lax.psum(x, "i"), mesh=mesh, in_specs=spec, out_specs=spec))
    out = {}
    for size in sizes:
        host = np.stack([np.full(size // 4, i + 1, np.float32) for i in range(REPLICAS)])
        shards = jax.device_put(host, NamedSharding(mesh, spec))  # row i on device i
        _check_sum(np.asarray(psum(shards))[0], size // 4)
        out[size] = median_s(lambda shards=shards: psum(shards).block_until_ready(), repeats)
    return {"jax_psum": out}


def report(results: dict, sizes: list[int]) -> dict:
    base = results["tps_run"]
    ratios = {side: {size: times[size] / base[size] for size in sizes} for side, times in results.items()}
    print(f"{'bytes/replica':>14} " + " ".join(f"{side:>22}" for side in results))
    for size in sizes:
        cells = [f"{results[side][size] * 1e3:>10.3f} ms ({ratios[side][size]:>5.2f}x)" for side in results]
        print(f"{size:>14} " + " ".join(f"{c:>22}" for c in cells))
    return ratios


SIDES = {"tps": bench_tpustrategy, "tf": bench_tensorflow, "jax": bench_jax}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="4 KiB per replica, one sample, no TF/JAX (smoke test)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--side", choices=tuple(SIDES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes, repeats = ([4096], 1) if args.tiny else ([MIB, 16 * MIB, 64 * MIB], args.repeats)
    if args.side:
        _sides.emit({"results": SIDES[args.side](sizes, repeats)})
        return
    script, forwarded = os.path.abspath(__file__), (["--tiny"] if args.tiny else []) + ["--repeats", str(repeats)]
    results: dict = {}
    reference = None if args.tiny else _sides.reference_python()
    for side in ("tps", "tf", "jax"):
        if side != "tps" and reference is None:
            continue
        python = sys.executable if side == "tps" else reference
        side_results = _sides.run_side(script, side, forwarded, python=python,
                                       extra_env={"TF_CPP_MIN_LOG_LEVEL": "3"})["results"] or {}
        # JSON keys are strings: back to byte sizes.
        results.update({name: {int(k): v for k, v in times.items()} for name, times in side_results.items()})
    ratios = report(results, sizes)
    print(json.dumps({"benchmark": "all_reduce_frameworks", "replicas": REPLICAS, "dtype": "float32", "op": "SUM",
                      "median_s": results, "ratio_vs_tps_run": ratios}))


if __name__ == "__main__":
    main()
