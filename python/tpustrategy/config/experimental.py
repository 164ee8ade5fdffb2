"""``tf.config.experimental``: per-device memory statistics."""

from __future__ import annotations

from tpustrategy import _core

# tf.config.experimental has these under the same names as tf.config (set_virtual_… is the old name).
from tpustrategy.config._devices import (  # noqa: F401
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_visible_devices,
)
from tpustrategy.config._devices import (  # noqa: F401
    set_logical_device_configuration as set_virtual_device_configuration,
)


def _device(device: object) -> _core.devices.Device:
    if isinstance(device, _core.devices.Device):
        return device
    if not isinstance(device, str):
        raise ValueError(f"device must be a device name string, got {device!r}")
    return _core.devices.find_device(device)


def get_memory_info(device: str | _core.devices.Device) -> dict[str, int]:
    """Current and peak bytes in use on `device` (e.g. ``"TPU:0"``), as TF reports them.

    Returns:
      ``{'current': bytes, 'peak': bytes}``.
    """
    info = _device(device).memory_info()
    return {"current": info["current"], "peak": info["peak"]}


def get_memory_usage(device: str | _core.devices.Device) -> int:
    """Deprecated in TF: the current bytes in use on `device`."""
    current: int = _device(device).memory_info()["current"]
    return current


def reset_memory_stats(device: str | _core.devices.Device) -> None:
    """Resets the peak of `device` to its current usage."""
    _device(device).reset_memory_stats()


def get_memory_limit(device: str | _core.devices.Device) -> int:
    """tpustrategy extension: the capacity of `device` in bytes."""
    limit: int = _device(device).memory_info()["limit"]
    return limit


def set_memory_growth(device: object, enable: bool) -> None:
    """Accepted for compatibility: simulated memory is accounted, not reserved."""


def get_memory_growth(device: object) -> bool:
    """Always True for any `device`: simulated memory grows as it is allocated, nothing is reserved up front."""
    return True

