"""``tf.tpu.experimental``: TPU topology, device assignment and system initialization."""

from __future__ import annotations

from tpustrategy.tpu.device_assignment import DeviceAssignment, DeviceOrderMode
from tpustrategy.tpu.topology import Topology
from tpustrategy.tpu.tpu_system import TPUSystemMetadata, initialize_tpu_system, shutdown_tpu_system

__all__ = [
    "DeviceAssignment",
    "DeviceOrderMode",
    "TPUSystemMetadata",
    "Topology",
    "initialize_tpu_system",
    "shutdown_tpu_system",
]
