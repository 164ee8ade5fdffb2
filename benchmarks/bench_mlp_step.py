"""A data-parallel MLP step on 8 replicas: tpustrategy vs TF 2.21 tf.function vs JAX shard_map, same run.

Per replica (batch 256, width 512, float32): h = relu(x @ W1); y = h @ W2; loss = reduce_sum(y); then the
replicas all-reduce (SUM) a 512 x 512 gradient-sized tensor, W2 * loss. Forward + all-reduce only:
there is no autodiff yet (issue 11 asks for forward + backward once training lands).

Sides, each in a process of its own (see _sides.py), medians over steps:
  tps    — tpustrategy MirroredStrategy over 8 logical CPUs, eager strategy.run, MirroredVariables
  tf     — tf.distribute.MirroredStrategy over 8 logical CPUs, strategy.run inside tf.function
  jax    — jax.jit(shard_map(...)) over 8 host devices, x sharded by NamedSharding, W replicated, psum
  numpy  — the same arithmetic for 8 replicas in one numpy loop (the compute floor; no framework)
TF and JAX run from the reference venv (bash tools/install_references.sh) and are skipped without it.
Target: tps >= 1.2x faster than tf and jax. ``--tiny``: small shapes, tps and numpy only (a test).

    PYTHONPATH=python python benchmarks/bench_mlp_step.py [--tiny] [--steps N]
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
os.environ.setdefault("XLA_FLAGS", f"--xla_force_host_platform_device_count={REPLICAS}")


def data(batch: int, width: int):
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal((REPLICAS, batch, width)).astype(np.float32)
    w1 = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    w2 = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    return x, w1, w2


def timed(step, steps: int, repeats: int) -> float:
    step()  # warm up: tracing, compilation, first allocations
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        samples.append((time.perf_counter() - start) / steps)
    return statistics.median(samples)


def side_numpy(x, w1, w2, steps, repeats):
    import numpy as np

    def step():
        total = 0
        for r in range(REPLICAS):
            y = np.maximum(x[r] @ w1, 0) @ w2
            total = total + w2 * y.sum()
        return total

    return timed(step, steps, repeats), float(np.asarray(step(), np.float64).sum())


def _mirrored_over_cpus(module):
    cpu = module.config.list_physical_devices("CPU")[0]
    module.config.set_logical_device_configuration(cpu, [module.config.LogicalDeviceConfiguration()] * REPLICAS)
    return module.distribute.MirroredStrategy([f"CPU:{i}" for i in range(REPLICAS)])


def _strategy_step(module, x, w1, w2):
    """The step for tpustrategy and TF (one API): returns (strategy, run_step)."""
    strategy = _mirrored_over_cpus(module)
    with strategy.scope():
        v1, v2 = module.Variable(w1), module.Variable(w2)
    xs = strategy.experimental_distribute_values_from_function(
        lambda ctx: module.constant(x[ctx.replica_id_in_sync_group]))

    def replica_fn(xr):
        h = module.nn.relu(module.matmul(xr, v1))
        loss = module.reduce_sum(module.matmul(h, v2))
        return module.distribute.get_replica_context().all_reduce("sum", v2 * loss)

    return strategy, lambda: strategy.run(replica_fn, args=(xs,))


def side_tps(x, w1, w2, steps, repeats):
    import resource

    import numpy as np

    import tpustrategy as tps
    from tpustrategy import _core

    strategy, run_step = _strategy_step(tps, x, w1, w2)
    result = strategy.experimental_local_results(run_step())[0]

    def faults_and_time():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        seconds = timed(run_step, steps, repeats)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        return seconds, faults / (steps * repeats + 1)

    # The same step without the buffer cache (every result buffer fresh from the OS), then with it.
    limit = _core.devices.buffer_cache_limit()
    _core.devices.set_buffer_cache_limit(0)
    uncached_s, uncached_faults = faults_and_time()
    _core.devices.set_buffer_cache_limit(limit)
    seconds, faults = faults_and_time()
    extra = {"minor_faults_per_step": faults, "uncached_step_s": uncached_s,
             "uncached_minor_faults_per_step": uncached_faults}
    return seconds, float(np.asarray(result, np.float64).sum()), extra


def side_tf(x, w1, w2, steps, repeats):
    import numpy as np
    import tensorflow as tf

    strategy, run_step = _strategy_step(tf, x, w1, w2)
    step_fn = tf.function(run_step)

    def step():
        # The function's outputs are ready when it returns; fetching one makes that explicit.
        return strategy.experimental_local_results(step_fn())[0].numpy()

    result = step()
    return timed(step, steps, repeats), float(np.asarray(result, np.float64).sum())


def side_jax(x, w1, w2, steps, repeats):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    try:
        shard_map = jax.shard_map
    except AttributeError:  # JAX < 0.6
        from jax.experimental.shard_map import shard_map
    mesh = Mesh(np.array(jax.devices()[:REPLICAS]), ("i",))
    batch = PartitionSpec("i")

    def replica_fn(xr, a, b):
        y = jnp.maximum(xr[0] @ a, 0) @ b
        return jax.lax.psum(b * jnp.sum(y), "i")[None]

    fn = jax.jit(shard_map(replica_fn, mesh=mesh, in_specs=(batch, PartitionSpec(), PartitionSpec()),
                           out_specs=batch))
    xs = jax.device_put(x, NamedSharding(mesh, batch))
    a, b = (jax.device_put(w, NamedSharding(mesh, PartitionSpec())) for w in (w1, w2))
    result = np.asarray(fn(xs, a, b))[0]
    return timed(lambda: fn(xs, a, b).block_until_ready(), steps, repeats), float(result.astype(np.float64).sum())


SIDES = {"tps": side_tps, "tf": side_tf, "jax": side_jax, "numpy": side_numpy}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="small shapes, tpustrategy and numpy only (smoke test)")
    parser.add_argument("--steps", type=int, default=None, help="steps per sample")
    parser.add_argument("--side", choices=tuple(SIDES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    batch, width = (16, 32) if args.tiny else (256, 512)
    steps, repeats = (args.steps or (3 if args.tiny else 10)), (1 if args.tiny else 7)
    if args.side:
        seconds, checksum, *extra = SIDES[args.side](*data(batch, width), steps, repeats)
        _sides.emit({"side": args.side, "step_s": seconds, "checksum": checksum, "blas": _sides.blas_info(),
                     **(extra[0] if extra else {})})
        return
    script = os.path.abspath(__file__)
    forwarded = (["--tiny"] if args.tiny else []) + ["--steps", str(steps)]
    reference = None if args.tiny else _sides.reference_python()
    results = {}
    for side in ("tps", "numpy", "tf", "jax"):
        if side in ("tf", "jax") and reference is None:
            continue
        python = reference if side in ("tf", "jax") else sys.executable
        results[side] = _sides.run_side(script, side, forwarded, python=python, extra_env={"TF_CPP_MIN_LOG_LEVEL": "3"})
    expected = results["numpy"]["checksum"]
    for side, r in results.items():  # every framework computed the same step
        assert abs(r["checksum"] - expected) <= 1e-3 * abs(expected) + 1e-2, (side, r["checksum"], expected)
    base = results["tps"]["step_s"]
    print(f"MLP step, {REPLICAS} replicas, batch {batch} x width {width} per replica (forward + all-reduce)")
    print(f"{'side':<7} {'step_ms':>9} {'side/tps':>9}")
    for side, r in results.items():
        print(f"{side:<7} {r['step_s'] * 1e3:>9.2f} {r['step_s'] / base:>9.2f}")
    tps_side = results["tps"]
    print(f"tps minor page faults per step: {tps_side['minor_faults_per_step']:.1f} with the buffer cache, "
          f"{tps_side['uncached_minor_faults_per_step']:.1f} without (step {tps_side['uncached_step_s'] * 1e3:.2f} ms)")
    for side, r in results.items():
        for lib in r["blas"]:
            print(f"# {side}: {lib['internal_api']} {lib['version']} kernel={lib['architecture']} "
                  f"threads={lib['num_threads']}")
    load = os.getloadavg()[0]  # 2 cores: above 2 the figures are contended
    parts = [f"summary mlp_step tps {base * 1e3:.2f} ms"]
    for side in ("numpy", "tf", "jax"):
        if side not in results:
            parts.append(f"{side} skipped")
            continue
        speedup = results[side]["step_s"] / base
        verdict = "" if side == "numpy" else (" target >= 1.2x met" if speedup >= 1.2 else " target >= 1.2x NOT met")
        parts.append(f"{side} {results[side]['step_s'] * 1e3:.2f} ms speedup {speedup:.2f}x{verdict}")
    print(" | ".join(parts) + f" | load {load:.1f}")
    print(json.dumps({"benchmark": "mlp_step", "load_average_1min": load, "replicas": REPLICAS, "batch": batch,
                      "width": width,
                      "median_step_s": {s: r["step_s"] for s, r in results.items()},
                      "speedup_of_tps": {s: r["step_s"] / base for s, r in results.items() if s != "tps"},
                      "target_speedup": 1.2, "tps_minor_faults_per_step": tps_side["minor_faults_per_step"],
                      "tps_uncached_minor_faults_per_step": tps_side["uncached_minor_faults_per_step"]}))


if __name__ == "__main__":
    main()
