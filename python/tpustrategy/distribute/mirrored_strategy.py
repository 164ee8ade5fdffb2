"""``tf.distribute.MirroredStrategy``: synchronous replicas on simulated local devices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from tpustrategy import _core
from tpustrategy.distribute import distribute_lib
from tpustrategy.distribute.extended import StrategyExtendedV1
from tpustrategy.framework import device_scope
from tpustrategy.framework.device_order import in_tf_order


def default_devices() -> list[_core.devices.Device]:
    """TF's rule (mirrored_strategy.all_local_devices): every logical GPU, else every logical CPU, in
    list_logical_devices order. A client connected to a multi-host slice lists its own CPU and each worker
    task's CPU, so it mirrors over all of them, as TF 2.21 does (tests_py/data/tf_client_device_names.json)."""
    gpus = in_tf_order(_core.devices.list_devices("GPU"))
    return gpus if gpus else in_tf_order(_core.devices.list_devices("CPU"))


def resolve_devices(
    devices: str | _core.devices.Device | Sequence[str | _core.devices.Device],
) -> list[_core.devices.Device]:
    """Device names ("GPU:0", "/device:CPU:1", "TPU:3") or Devices → distinct simulated devices."""
    if isinstance(devices, (str, _core.devices.Device)):
        devices = [devices]
    if not isinstance(devices, (list, tuple)):
        raise TypeError(f"`devices` must be a device name, a Device or a list of them, got {type(devices).__name__}")
    for d in devices:
        if d is None or (isinstance(d, str) and not d):
            raise ValueError(f"`devices` must name devices, got {d!r} in {list(devices)!r}")
    # None and "" were refused above: every name resolves to a device.
    resolved = [cast(_core.devices.Device, device_scope.resolve_device(d)) for d in devices]
    if not resolved:
        raise ValueError("Must specify at least one device.")
    names = [d.name for d in resolved]
    if len(set(names)) != len(names):
        raise ValueError(f"No duplicates allowed in `devices` argument: {list(devices)}")
    return resolved


class MirroredExtended(StrategyExtendedV1):
    def __init__(self, container_strategy: Any, devices: Any) -> None:
        super().__init__(container_strategy)
        self._devices = resolve_devices(devices) if devices is not None else default_devices()
        # Partial last batches: exhausted replicas get empty dummies until every replica is done (as TF 2.x).
        self.experimental_enable_get_next_as_optional = True

    def _replica_devices(self) -> list[_core.devices.Device]:
        return self._devices


class MirroredStrategy(distribute_lib.Strategy):
    """One replica per device; variables mirrored on every device; collectives across all replicas.

    Args:
      devices: device names such as ``["GPU:0", "GPU:1"]`` (simulated devices of those names are
        created as needed). Default, as TF: every logical GPU if any is configured, else every logical CPU
        (``list_logical_devices("CPU")``: the host's, split or not, and each connected worker task's).
      cross_device_ops: a ``tf.distribute.CrossDeviceOps`` (ReductionToOneDevice, NcclAllReduce,
        HierarchicalCopyAllReduce) or None; every one gives the same results on the simulator's collectives.
    """

    def __init__(self, devices: Any = None, cross_device_ops: Any = None) -> None:
        super().__init__(MirroredExtended(self, devices))


class MirroredStrategyV1(distribute_lib.StrategyV1):
    """``tf.compat.v1.distribute.MirroredStrategy``."""

    def __init__(self, devices: Any = None, cross_device_ops: Any = None) -> None:
        super().__init__(MirroredExtended(self, devices))
