"""The order in which TF lists devices, shared by tf.config's listings and MirroredStrategy's default devices."""

from __future__ import annotations

from collections.abc import Iterable

from tpustrategy import _core


def in_tf_order(devices: Iterable[_core.devices.Device]) -> list[_core.devices.Device]:
    """The client's own devices first, then each worker task's; within one task CPUs first.

    TF lists its local device manager before the remote devices a cluster connection adds, and its
    DeviceFactory always registers the CPU before any accelerator.
    """
    return sorted(devices, key=lambda d: (not d.name.startswith("/job:localhost/"), d.task,
                                          d.device_type != "CPU"))
