"""The demo of ``python -m tpustrategy demo``: the slice, then real distributed numbers on it."""

from __future__ import annotations

import numpy as np

import tpustrategy as tps
from tpustrategy import _core

_GIB = 1 << 30


def print_presets() -> None:
    print(f"{'slice':<10}{'chip':<6}{'mesh [x,y,z,core]':<20}{'hosts':>6}{'devices/host':>14}{'HBM/device':>12}")
    for p in _core.slice_presets():
        print(f"{p.name:<10}{p.generation:<6}{str(list(p.mesh_shape)):<20}{p.num_hosts:>6}{p.devices_per_host:>14}"
              f"{p.chip.hbm_bytes_per_device / _GIB:>9.1f} GiB")


def print_slice() -> None:
    preset = _core.active_slice()
    chip = preset.chip
    print(f"Simulated slice {preset.name}: {preset.num_hosts} host(s) x {preset.devices_per_host} TPU devices, "
          f"mesh [x, y, z, core] = {list(preset.mesh_shape)}")
    print(f"  TPU {chip.name}: {chip.cores_per_chip} device(s)/chip, {chip.bf16_tflops_per_chip:g} bf16 TFLOP/s/chip, "
          f"{chip.hbm_bytes_per_device / _GIB:g} GiB HBM per device, {chip.ici_torus_dims}D torus ICI")
    for d in _core.list_devices("TPU"):
        x, y, z, core = d.coordinates
        print(f"  {d.name:<44} host {d.task}  chip ({x},{y},{z}) core {core}")


def run_demo(slice_name: str | None = None) -> None:
    if slice_name:
        _core.activate_slice(slice_name)
    print_slice()
    print()
    distribute = getattr(tps, "distribute", None)
    strategy_cls = getattr(distribute, "TPUStrategy", None) or getattr(distribute, "MirroredStrategy", None)
    if strategy_cls is None:
        _tensor_demo()
        return
    strategy = strategy_cls() if strategy_cls.__name__ == "TPUStrategy" else strategy_cls(
        [d.name for d in _core.list_devices("TPU")])
    n = strategy.num_replicas_in_sync
    print(f"{type(strategy).__name__} with {n} replicas")
    global_batch = np.arange(4 * n, dtype=np.float32).reshape(n, 4)
    per_replica = strategy.experimental_distribute_values_from_function(
        lambda ctx: tps.constant(global_batch[ctx.replica_id_in_sync_group]))

    def step(x):
        ctx = tps.distribute.get_replica_context()
        local = tps.reduce_sum(x * x) if hasattr(tps, "reduce_sum") else tps.constant(float(np.sum(np.square(x))))
        total = ctx.all_reduce(tps.distribute.ReduceOp.SUM, local)
        return local, total

    local, total = strategy.run(step, args=(per_replica,))
    for i, value in enumerate(strategy.experimental_local_results(local)):
        print(f"  replica {i} on {value.device}: sum(x*x) = {float(value.numpy()):g}")
    print(f"  all_reduce(SUM) on every replica = {float(strategy.experimental_local_results(total)[0].numpy()):g} "
          f"(numpy: {float(np.sum(global_batch ** 2)):g})")
    mean = strategy.reduce(tps.distribute.ReduceOp.MEAN, per_replica, axis=0)
    print(f"  strategy.reduce(MEAN, axis=0) = {np.asarray(mean)} (numpy: {global_batch.mean(axis=0)})")
    print("\nHBM in use per core:")
    for d in _core.list_devices("TPU"):
        info = tps.config.experimental.get_memory_info(d.name)
        print(f"  {d.name}: current {info['current']} B, peak {info['peak']} B")


def _tensor_demo() -> None:
    with tps.device("TPU:0"):
        x = tps.constant(np.arange(8, dtype=np.float32))
    print("tensor on TPU:0:", repr(x))
    print("HBM of TPU:0:", tps.config.experimental.get_memory_info("TPU:0"))
