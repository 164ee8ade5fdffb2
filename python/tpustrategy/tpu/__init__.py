"""``tf.tpu``: the simulated TPU system, its Topology and DeviceAssignment."""

from __future__ import annotations

from tpustrategy.tpu import experimental, tpu_system
from tpustrategy.tpu.device_assignment import device_assignment

__all__ = ["device_assignment", "experimental", "tpu_system"]
