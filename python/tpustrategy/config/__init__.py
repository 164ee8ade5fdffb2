"""Device configuration and memory queries (mirrors ``tf.config``)."""

from __future__ import annotations

from typing import Any

from tpustrategy.config import experimental
from tpustrategy.config._devices import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    VirtualDeviceConfiguration,
    get_logical_device_configuration,
    get_virtual_device_configuration,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_virtual_device_configuration,
    set_visible_devices,
)
from tpustrategy.tpu import tpu_system


def experimental_connect_to_cluster(cluster_spec_or_resolver: Any, job_name: str = "localhost", task_index: int = 0,
                                    protocol: str | None = None, make_master_device_default: bool = True,
                                    cluster_device_filters: object = None) -> None:
    """Connects to a cluster; here it selects the simulated slice a TPUClusterResolver names."""
    tpu_system.connect_to_cluster(cluster_spec_or_resolver)


def experimental_connect_to_host(remote_host: object = None, job_name: str = "worker") -> None:
    """Accepted for compatibility: the simulated slice is local."""


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Accepted for compatibility: tpustrategy always executes eagerly."""


def functions_run_eagerly() -> bool:
    """Always True: tpustrategy has no graph tracing, so every function runs eagerly."""
    return True


__all__ = [
    "LogicalDevice",
    "PhysicalDevice",
    "LogicalDeviceConfiguration",
    "VirtualDeviceConfiguration",
    "list_logical_devices",
    "list_physical_devices",
    "set_logical_device_configuration",
    "set_virtual_device_configuration",
    "get_logical_device_configuration",
    "get_virtual_device_configuration",
    "get_visible_devices",
    "set_visible_devices",
    "experimental_connect_to_cluster",
    "experimental_connect_to_host",
    "run_functions_eagerly",
    "functions_run_eagerly",
    "experimental",
]
