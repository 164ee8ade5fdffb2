"""``tpustrategy.device(name)``: where new tensors are placed.

The current device belongs to the C++ execution context of the code running now (the caller's, or one
replica's inside ``Strategy.run``: the scheduler switches contexts with the replica greenlets). It is the
single source of truth: allocations land on that simulated device and are charged to its memory.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tpustrategy import _core

# The simulated device new tensors go to (None = host CPU 0).
current_device = _core.devices.current_device


@contextlib.contextmanager
def device_scope(device: _core.devices.Device | None) -> Iterator[_core.devices.Device | None]:
    """Places new tensors on `device` (a _core.devices.Device or None) for the block."""
    previous = _core.devices.current_device()
    _core.devices.set_current_device(device)  # type: ignore[arg-type]  # None (host CPU 0) too; the stub omits it
    try:
        yield device
    finally:
        _core.devices.set_current_device(previous)


def resolve_device(name: str | _core.devices.Device | None) -> _core.devices.Device | None:
    """A full or partial TF device name, a Device or None → the simulated device."""
    if name is None or isinstance(name, _core.devices.Device):
        return name
    if not isinstance(name, str):
        raise TypeError(f"device name must be a string, got {type(name).__name__}: {name!r}")
    if name == "":
        return current_device()
    return _core.devices.find_device(name)


@contextlib.contextmanager
def device(device_name: str | _core.devices.Device | None) -> Iterator[_core.devices.Device | None]:
    """Specifies the device for tensors created in the block (mirrors ``tf.device``).

    Args:
      device_name: a TF device string such as ``"/job:localhost/replica:0/task:0/device:TPU:3"``
        or a partial one such as ``"TPU:3"`` or ``"CPU:0"``.

    Raises:
      ValueError: the name matches no simulated device.
    """
    with device_scope(resolve_device(device_name)) as d:
        yield d
