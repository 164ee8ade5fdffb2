"""The demo of ``python -m tpustrategy demo``: the slice, then real distributed numbers on it."""

from __future__ import annotations

import numpy as np

import tpustrategy as tps
from tpustrategy import _core
from tpustrategy._pictures.topology_picture import topology_text

_GIB = 1 << 30


def print_presets() -> None:
    """One line per slice preset: chips, TF devices (cores), TensorCores, hosts, mesh, HBM per device, ICI."""
    print(f"{'slice':<11}{'gen':<5}{'chips':>6}{'cores':>7}{'TCs':>7}{'hosts':>6}  {'mesh [x,y,z,core]':<18}"
          f"{'HBM/core':>10}  ICI torus")
    for p in _core.slice.slice_presets():
        chip = p.chip
        wraps = "".join(axis for axis, w in zip("xyz", p.wraparound, strict=True) if w)
        torus = f"{chip.ici_torus_dims}D, {chip.ici_links_per_chip} links x {chip.ici_gbps_per_link:g} GB/s, "
        torus += f"wraps {wraps}" if wraps else "no wraparound"
        if p.twisted:
            torus += ", twisted"
        print(f"{p.name:<11}{p.generation:<5}{p.num_chips:>6}{p.num_devices:>7}"
              f"{p.num_chips * chip.tensorcores_per_chip:>7}{p.num_hosts:>6}  {str(list(p.mesh_shape)):<18}"
              f"{chip.hbm_bytes_per_device / _GIB:>6.1f} GiB  {torus}")
    print("cores: TF devices (TPU:n); TCs: TensorCores (v4/v5p chips join two into one megacore device)")


def print_topology(slice_name: str, max_planes: int | None = None) -> None:
    """The topology picture of ``slice_name`` (activates no slice: the preset's own topology)."""
    topology = tps.tpu.experimental.Topology._of_slice(slice_name)
    print(topology_text(topology, max_planes))


def print_slice() -> None:
    preset = _core.slice.active_slice()
    chip = preset.chip
    print(f"Simulated slice {preset.name}: {preset.num_hosts} host(s) x {preset.devices_per_host} TPU devices, "
          f"mesh [x, y, z, core] = {list(preset.mesh_shape)}")
    print(f"  TPU {chip.name}: {chip.cores_per_chip} device(s)/chip, {chip.bf16_tflops_per_chip:g} bf16 TFLOP/s/chip, "
          f"{chip.hbm_bytes_per_device / _GIB:g} GiB HBM per device, {chip.ici_torus_dims}D torus ICI")
    for d in _core.devices.list_devices("TPU"):
        x, y, z, core = d.coordinates
        print(f"  {d.name:<44} host {d.task}  chip ({x},{y},{z}) core {core}")


def run_demo(slice_name: str | None = None) -> None:
    if slice_name:
        _core.slice.activate_slice(slice_name)
    print_slice()
    print()
    resolver = tps.distribute.cluster_resolver.TPUClusterResolver(tpu=slice_name or "")
    tps.config.experimental_connect_to_cluster(resolver)
    tps.tpu.experimental.initialize_tpu_system(resolver)
    strategy = tps.distribute.TPUStrategy(resolver)
    n = strategy.num_replicas_in_sync
    print(f"TPUStrategy: {n} replicas, {strategy.extended.num_hosts} host(s)")

    # A global batch of 2n rows, split across the replicas by the input pipeline.
    features = np.arange(2 * n * 4, dtype=np.float32).reshape(2 * n, 4)
    dataset = tps.data.Dataset.from_tensor_slices(features).batch(2 * n)
    batch = next(iter(strategy.experimental_distribute_dataset(dataset)))
    with strategy.scope():
        weights = tps.Variable(tps.ones((4, 1)), name="weights")

    @tps.function
    def step(x: tps.Tensor) -> tuple[tps.Tensor, tps.Tensor]:
        ctx = tps.distribute.get_replica_context()
        assert ctx is not None  # inside strategy.run: replica context
        local = tps.reduce_sum(tps.matmul(x, weights) ** 2)
        return local, ctx.all_reduce(tps.distribute.ReduceOp.SUM, local)

    local, total = strategy.run(step, args=(batch,))
    for i, value in enumerate(strategy.experimental_local_results(local)):
        rows = np.asarray(strategy.experimental_local_results(batch)[i]) // 4  # row index of each row
        print(f"  replica {i} on {value.device}: global rows {rows[:, 0].astype(int).tolist()} -> "
              f"sum((x @ w)^2) = {float(value):g}")
    expected = float(np.sum((features @ np.ones((4, 1), np.float32)) ** 2))
    print(f"  all_reduce(SUM) on every replica = {float(strategy.experimental_local_results(total)[0]):g} "
          f"(numpy: {expected:g})")
    mean = strategy.reduce(tps.distribute.ReduceOp.MEAN, batch, axis=0)
    print(f"  strategy.reduce(MEAN, batch, axis=0) = {np.asarray(mean)} (numpy: {features.mean(axis=0)})")
    print("\nHBM in use per core (batch slices + the mirrored weights + results):")
    for d in _core.devices.list_devices("TPU"):
        info = tps.config.experimental.get_memory_info(d.name)
        print(f"  {d.name}: current {info['current']} B, peak {info['peak']} B")


def _tensor_demo() -> None:
    with tps.device("TPU:0"):
        x = tps.constant(np.arange(8, dtype=np.float32))
    print("tensor on TPU:0:", repr(x))
    print("HBM of TPU:0:", tps.config.experimental.get_memory_info("TPU:0"))
