"""``tf.distribute.OneDeviceStrategy``: one replica, everything placed on one device."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.distribute import distribute_lib
from tpustrategy.distribute.extended import StrategyExtendedV1
from tpustrategy.framework import device_scope


class OneDeviceExtended(StrategyExtendedV1):
    def __init__(self, container_strategy: Any, device: str | _core.devices.Device | None) -> None:
        super().__init__(container_strategy)
        self._device = device_scope.resolve_device(device)

    # None (OneDeviceStrategy(None)): the replica runs wherever the caller's device scope places it.
    def _replica_devices(self) -> list[_core.devices.Device | None]:  # type: ignore[override]
        return [self._device]

    def _create_variable(self, next_creator: Any, **kwargs: Any) -> Any:
        # One device: variables are plain, placed on it.
        with device_scope.device_scope(self._device):
            variable = next_creator(**kwargs)
        variable._distribute_strategy = self._container_strategy()
        return variable


class OneDeviceStrategy(distribute_lib.Strategy):
    """Runs on the single device `device` (e.g. ``"GPU:0"`` or ``"CPU:0"``)."""

    def __init__(self, device: str | _core.devices.Device) -> None:
        super().__init__(OneDeviceExtended(self, device))


class OneDeviceStrategyV1(distribute_lib.StrategyV1):
    """``tf.compat.v1.distribute.OneDeviceStrategy``."""

    def __init__(self, device: str | _core.devices.Device) -> None:
        super().__init__(OneDeviceExtended(self, device))
