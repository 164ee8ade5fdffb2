"""A data-parallel MLP training step on 8 replicas: tpustrategy vs TF 2.21 tf.function vs JAX shard_map, same run.

Per replica (batch 256, width 512, float32): h = relu(x @ W1); y = h @ W2; loss = reduce_mean(square(y - t));
the gradients of W1 and W2 (GradientTape / jax.grad / by hand), then one all-reduce (SUM) of both gradients
across the replicas. No update: every step computes the same gradients, which the sides must agree on.

Sides, each in a process of its own (see _sides.py), medians over steps:
  tps    — tpustrategy MirroredStrategy over 8 logical CPUs, eager strategy.run, GradientTape, ctx.all_reduce
  tf     — tf.distribute.MirroredStrategy over 8 logical CPUs, the same step inside tf.function
  jax    — jax.jit(shard_map(jax.grad ...)) over 8 host devices, x / t sharded by NamedSharding, psum
  numpy  — the same forward and hand-written backward for 8 replicas in one numpy loop (the compute floor)
Every side dumps its all-reduced gradients; the parent checks them against numpy's (to float32 rounding).
TF and JAX run from the reference venv (bash tools/install_references.sh) and are skipped without it.
Target (issue 11): tps >= 1.2x faster than tf and jax. ``--tiny``: small shapes, tps and numpy only (a test).

The GEMM floor: the step is 5 GEMMs of 2*batch*width^2 FLOPs per replica (two forward, three backward), ~79 % of
its time. Each side also times its framework's float32 matmul alone on the step's own GEMM shapes (best of
GEMM_REPEATS) and reports the time those GEMMs take with nothing else: the gemm_floor_ms column. A step 1.2x faster
than the faster of TF and JAX must fit in T = that step / 1.2, GEMMs included; when the lowest GEMM floor of every
library measured here exceeds T, no implementation built on these GEMMs meets the target, whatever its other
overheads. The step floor adds the least time any side spent beyond its own GEMM floor (the closing argument of
issue 11 for this target, measured in the same run).
``--rounds N`` runs the sides N times, interleaved. The cpu_ms column is each process's CPU time per step, all
threads: on a loaded machine it still measures the work, though thread pools that spin (OpenBLAS, TF's, XLA's)
count their spinning. For the work alone, run with OPENBLAS_NUM_THREADS=1 TF_NUM_INTRAOP_THREADS=1
TF_NUM_INTEROP_THREADS=1 and XLA_FLAGS adding --xla_cpu_multi_thread_eigen=false (tpustrategy's pool polls for at most
100 µs after an op).

    PYTHONPATH=python python benchmarks/bench_mlp_step.py [--tiny] [--steps N] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _sides  # noqa: E402

REPLICAS = 8
os.environ.setdefault("XLA_FLAGS", f"--xla_force_host_platform_device_count={REPLICAS}")


def data(batch: int, width: int):
    """Per-replica inputs x and targets t ([REPLICAS, batch, width]) and the two weights."""
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal((REPLICAS, batch, width)).astype(np.float32)
    t = rng.standard_normal((REPLICAS, batch, width)).astype(np.float32)
    w1 = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    w2 = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    return x, t, w1, w2


def timed(step, steps: int, repeats: int) -> tuple[float, float]:
    """Median wall seconds per step, and the process's CPU seconds per step over all samples (threads included:
    on a loaded machine the wall time is the machine's, the CPU time still roughly the work's)."""
    step()  # warm up: tracing, compilation, first allocations
    samples = []
    cpu_start = time.process_time()
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        samples.append((time.perf_counter() - start) / steps)
    return statistics.median(samples), (time.process_time() - cpu_start) / (steps * repeats)


GEMM_REPEATS = 7


def gemm_floor_s(matmul, to_tensor, batch: int, width: int) -> float:
    """The step's GEMMs alone, at one framework's best rate: per replica three of [batch, width] @ [width, width]
    (x@W1, h@W2, dy@W2^T) and two of [width, batch] @ [batch, width] (h^T@dy, x^T@dz), each the best of
    GEMM_REPEATS timed loops on contiguous operands, results fetched to host; times REPLICAS."""
    import numpy as np

    rng = np.random.default_rng(1)

    def best_seconds(m: int, k: int, n: int) -> float:
        a, b = to_tensor(rng.standard_normal((m, k)).astype(np.float32)), to_tensor(
            rng.standard_normal((k, n)).astype(np.float32))
        np.asarray(matmul(a, b))  # warm up: thread pools, buffers, compilation
        best, loops = float("inf"), 10
        for _ in range(GEMM_REPEATS):
            start = time.perf_counter()
            for _ in range(loops):
                np.asarray(matmul(a, b))
            best = min(best, (time.perf_counter() - start) / loops)
        return best

    return REPLICAS * (3 * best_seconds(batch, width, width) + 2 * best_seconds(width, batch, width))


def step_gemm_flops(batch: int, width: int) -> int:
    """FLOPs of the step's GEMMs: x@W1, h@W2 forward; dy@W2^T, h^T@dy, x^T@dz backward; every replica."""
    return REPLICAS * 5 * 2 * batch * width * width


def side_numpy(x, t, w1, w2, steps, repeats, shape):
    import numpy as np

    scale = np.float32(2.0 / t[0].size)  # d mean((y - t)^2) / dy = 2 (y - t) / count

    def step():
        g1 = g2 = 0
        for r in range(REPLICAS):
            z = x[r] @ w1
            h = np.maximum(z, 0)
            dy = (h @ w2 - t[r]) * scale
            dz = (dy @ w2.T) * (z > 0)
            g1, g2 = g1 + x[r].T @ dz, g2 + h.T @ dy
        return g1, g2

    return timed(step, steps, repeats), step(), {"gemm_floor_s": gemm_floor_s(np.matmul, np.asarray, *shape)}


def _mirrored_over_cpus(module):
    cpu = module.config.list_physical_devices("CPU")[0]
    module.config.set_logical_device_configuration(cpu, [module.config.LogicalDeviceConfiguration()] * REPLICAS)
    return module.distribute.MirroredStrategy([f"CPU:{i}" for i in range(REPLICAS)])


def _strategy_step(module, x, t, w1, w2):
    """The step for tpustrategy and TF (one API): returns (strategy, run_step)."""
    strategy = _mirrored_over_cpus(module)
    with strategy.scope():
        v1, v2 = module.Variable(w1), module.Variable(w2)
    inputs = strategy.experimental_distribute_values_from_function(
        lambda ctx: tuple(module.constant(v[ctx.replica_id_in_sync_group]) for v in (x, t)))

    def replica_fn(xr, tr):
        with module.GradientTape() as tape:
            h = module.nn.relu(module.matmul(xr, v1))
            loss = module.reduce_mean(module.square(module.matmul(h, v2) - tr))
        grads = tape.gradient(loss, [v1, v2])
        return module.distribute.get_replica_context().all_reduce("sum", grads)

    return strategy, lambda: strategy.run(replica_fn, args=inputs)


def _first_replica(strategy, grads):
    return [strategy.experimental_local_results(g)[0].numpy() for g in grads]


def side_tps(x, t, w1, w2, steps, repeats, shape):
    import resource

    import tpustrategy as tps
    from tpustrategy import _core

    strategy, run_step = _strategy_step(tps, x, t, w1, w2)
    grads = _first_replica(strategy, run_step())

    def faults_and_time():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        timing = timed(run_step, steps, repeats)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        return timing, faults / (steps * repeats + 1)

    # The same step without the buffer cache (every result buffer fresh from the OS), then with it.
    limit = _core.devices.buffer_cache_limit()
    _core.devices.set_buffer_cache_limit(0)
    (uncached_s, _), uncached_faults = faults_and_time()
    _core.devices.set_buffer_cache_limit(limit)
    timing, faults = faults_and_time()
    extra = {"minor_faults_per_step": faults, "uncached_step_s": uncached_s,
             "uncached_minor_faults_per_step": uncached_faults,
             "gemm_floor_s": gemm_floor_s(tps.matmul, tps.constant, *shape)}
    return timing, grads, extra


def side_tf(x, t, w1, w2, steps, repeats, shape):
    import tensorflow as tf

    strategy, run_step = _strategy_step(tf, x, t, w1, w2)
    step_fn = tf.function(run_step)

    def step():
        # The function's outputs are ready when it returns; fetching one makes that explicit.
        return strategy.experimental_local_results(step_fn()[0])[0].numpy()

    step()
    timing, grads = timed(step, steps, repeats), _first_replica(strategy, step_fn())
    with tf.device("CPU:0"):
        return timing, grads, {"gemm_floor_s": gemm_floor_s(tf.matmul, tf.constant, *shape)}


def side_jax(x, t, w1, w2, steps, repeats, shape):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    try:
        shard_map = jax.shard_map
    except AttributeError:  # JAX < 0.6
        from jax.experimental.shard_map import shard_map
    varying = getattr(jax.lax, "pcast", None)  # JAX >= 0.7 types values as varying / unvarying over mesh axes
    mesh = Mesh(np.array(jax.devices()[:REPLICAS]), ("i",))
    batch, replicated = PartitionSpec("i"), PartitionSpec()

    def loss(weights, xr, tr):
        a, b = weights
        return jnp.mean(jnp.square(jnp.maximum(xr @ a, 0) @ b - tr))

    def replica_fn(xr, tr, a, b):
        # Varying copies of the replicated weights: the gradient of an unvarying input would already be
        # summed over the replicas (shard_map's transpose of the broadcast), and the psum below is the step's.
        weights = (a, b) if varying is None else varying((a, b), "i", to="varying")
        return jax.lax.psum(jax.grad(loss)(weights, xr[0], tr[0]), "i")

    fn = jax.jit(shard_map(replica_fn, mesh=mesh, in_specs=(batch, batch, replicated, replicated),
                           out_specs=(replicated, replicated)))
    xs, ts = (jax.device_put(v, NamedSharding(mesh, batch)) for v in (x, t))
    a, b = (jax.device_put(w, NamedSharding(mesh, replicated)) for w in (w1, w2))
    grads = [np.asarray(g) for g in fn(xs, ts, a, b)]
    timing = timed(lambda: jax.block_until_ready(fn(xs, ts, a, b)), steps, repeats)
    return timing, grads, {"gemm_floor_s": gemm_floor_s(jax.jit(jnp.matmul), jnp.asarray, *shape)}


def check_gradients(results: dict, dumps: dict) -> float:
    """Asserts every side's all-reduced gradients equal numpy's to float32 rounding; the largest relative gap."""
    import numpy as np

    expected = np.load(dumps["numpy"])
    worst = 0.0
    for side in results:
        got = np.load(dumps[side])
        for name in ("g1", "g2"):
            scale = float(np.abs(expected[name]).max())
            gap = float(np.abs(got[name] - expected[name]).max()) / scale
            assert gap <= 1e-4, f"{side} {name}: max gap {gap:.2e} of max |g| {scale:.3e} against numpy"
            worst = max(worst, gap)
    return worst


def gemm_ceiling(results: dict, flops: int) -> dict:
    """Whether a step 1.2x faster than the faster of TF and JAX fits above the floors measured here: the lowest GEMM
    floor alone, and that plus the least time any side spent beyond its own GEMM floor (elementwise ops, the
    all-reduce, dispatch; a lower bound, since a side's GEMM floor also carries its per-call overhead)."""
    targets = [s for s in ("tf", "jax") if s in results] or ["numpy"]  # --tiny: numpy stands in, to run this code
    fastest = min(targets, key=lambda s: results[s]["step_s"])
    allowed_s = results[fastest]["step_s"] / 1.2
    floor_side = min(results, key=lambda s: results[s]["gemm_floor_s"])
    floor_s = results[floor_side]["gemm_floor_s"]
    rest_side = min(results, key=lambda s: results[s]["step_s"] - results[s]["gemm_floor_s"])
    rest_s = max(0.0, results[rest_side]["step_s"] - results[rest_side]["gemm_floor_s"])

    def verdict(seconds: float) -> str:
        return "within reach" if seconds <= allowed_s else f"out of reach by {seconds / allowed_s:.2f}x"

    text = (f"gemm floor: 1.2x faster than {fastest} ({results[fastest]['step_s'] * 1e3:.2f} ms) is "
            f"{allowed_s * 1e3:.2f} ms; the step's {flops / 1e9:.2f} GFLOP of GEMMs alone take {floor_s * 1e3:.2f} ms "
            f"at the best rate measured ({floor_side}'s matmul, {flops / floor_s / 1e9:.1f} GFLOP/s): "
            f"{verdict(floor_s)}\nstep floor: those GEMMs plus the least time a side spent beyond its GEMM floor "
            f"({rest_side}: {rest_s * 1e3:.2f} ms) take {(floor_s + rest_s) * 1e3:.2f} ms: {verdict(floor_s + rest_s)}")
    return {"allowed_s": allowed_s, "floor_s": floor_s, "reachable": floor_s <= allowed_s,
            "step_floor_s": floor_s + rest_s, "step_floor_reachable": floor_s + rest_s <= allowed_s, "text": text}


SIDES = {"tps": side_tps, "tf": side_tf, "jax": side_jax, "numpy": side_numpy}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiny", action="store_true", help="small shapes, tpustrategy and numpy only (smoke test)")
    parser.add_argument("--steps", type=int, default=None, help="steps per sample")
    parser.add_argument("--rounds", type=int, default=1, help="run every side this many times, interleaved; "
                        "medians over rounds")
    parser.add_argument("--side", choices=tuple(SIDES), help=argparse.SUPPRESS)
    parser.add_argument("--dump", help=argparse.SUPPRESS)  # where a side saves its gradients (.npz)
    args = parser.parse_args()
    batch, width = (16, 32) if args.tiny else (256, 512)
    steps, repeats = (args.steps or (3 if args.tiny else 10)), (1 if args.tiny else 7)
    if args.side:
        import numpy as np

        (seconds, cpu_seconds), grads, extra = SIDES[args.side](*data(batch, width), steps, repeats, (batch, width))
        np.savez(args.dump, g1=np.asarray(grads[0]), g2=np.asarray(grads[1]))
        _sides.emit({"side": args.side, "step_s": seconds, "cpu_s": cpu_seconds, "blas": _sides.blas_info(),
                     **extra})
        return
    script = os.path.abspath(__file__)
    reference = None if args.tiny else _sides.reference_python()
    sides = [s for s in ("tps", "numpy", "tf", "jax") if reference is not None or s not in ("tf", "jax")]
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as tmp:
        dumps = {side: os.path.join(tmp, f"{side}.npz") for side in sides}
        for _ in range(args.rounds):
            for side in sides:
                python = reference if side in ("tf", "jax") else sys.executable
                forwarded = (["--tiny"] if args.tiny else []) + ["--steps", str(steps), "--dump", dumps[side]]
                runs[side].append(_sides.run_side(script, side, forwarded, python=python,
                                                  extra_env={"TF_CPP_MIN_LOG_LEVEL": "3"}))
        worst_gap = check_gradients(runs, dumps)  # every framework computed the same gradients
    results = {side: {**rs[-1], **{key: statistics.median(r[key] for r in rs)
                                   for key in ("step_s", "cpu_s", "gemm_floor_s")}}
               for side, rs in runs.items()}
    base = results["tps"]["step_s"]
    print(f"MLP step, {REPLICAS} replicas, batch {batch} x width {width} per replica (forward + backward + "
          f"all-reduce; {args.rounds} round(s); gradients agree with numpy to {worst_gap:.1e} of max |g|)")
    flops = step_gemm_flops(batch, width)
    print(f"{'side':<7} {'step_ms':>9} {'side/tps':>9} {'cpu_ms':>9} {'GFLOP/s':>8} {'gemm_floor_ms':>14}")
    for side, r in results.items():
        print(f"{side:<7} {r['step_s'] * 1e3:>9.2f} {r['step_s'] / base:>9.2f} {r['cpu_s'] * 1e3:>9.2f} "
              f"{flops / r['step_s'] / 1e9:>8.1f} {r['gemm_floor_s'] * 1e3:>14.2f}")
    ceiling = gemm_ceiling(results, flops)
    print(ceiling["text"])
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
                      "width": width, "rounds": args.rounds, "max_gradient_gap": worst_gap,
                      "median_step_s": {s: r["step_s"] for s, r in results.items()},
                      "cpu_s_per_step": {s: r["cpu_s"] for s, r in results.items()},
                      "speedup_of_tps": {s: r["step_s"] / base for s, r in results.items() if s != "tps"},
                      "target_speedup": 1.2, "step_gemm_flops": flops,
                      "gemm_floor_s": {s: r["gemm_floor_s"] for s, r in results.items()},
                      "target_step_s": ceiling["allowed_s"],
                      "target_above_gemm_floor": ceiling["reachable"], "step_floor_s": ceiling["step_floor_s"],
                      "target_above_step_floor": ceiling["step_floor_reachable"],
                      "tps_minor_faults_per_step": tps_side["minor_faults_per_step"],
                      "tps_uncached_minor_faults_per_step": tps_side["uncached_minor_faults_per_step"]}))


if __name__ == "__main__":
    main()
