"""The simulated devices as ``tf.config`` lists and configures them (shared by tf.config and
tf.config.experimental)."""

from __future__ import annotations

import collections
from collections.abc import Sequence

from tpustrategy import _core
from tpustrategy.framework.device_order import in_tf_order

LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])


class LogicalDeviceConfiguration(
    collections.namedtuple(
        "LogicalDeviceConfiguration", ["memory_limit", "experimental_priority", "experimental_device_ordinal"]
    )
):
    """How to carve a physical device into logical ones; ``memory_limit`` is in MiB."""

    def __new__(cls, memory_limit: int | None = None, experimental_priority: int | None = None,
                experimental_device_ordinal: int | None = None) -> LogicalDeviceConfiguration:
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


VirtualDeviceConfiguration = LogicalDeviceConfiguration

_MIB = 1 << 20
_logical_configuration: dict[str, list[LogicalDeviceConfiguration]] = {}
_GPU_COUNT = 0


def _device_type_filter(device_type: object, function: str) -> str:
    """``device_type`` (None or a string such as "TPU") as the registry's filter; TypeError otherwise.

    TF 2.21 raises AttributeError for some non-string types and silently returns [] for others; a
    clear TypeError naming the argument is what no correct program can depend on either way.
    """
    if device_type is None:
        return ""
    if not isinstance(device_type, str):
        raise TypeError(
            f"{function}: `device_type` must be a string such as 'TPU', 'CPU' or 'GPU' (or None), "
            f"got {type(device_type).__name__}: {device_type!r}"
        )
    return device_type.upper()


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """Logical devices: the client's (CPU first), then every worker task's CPU and TPU cores, as TF lists them
    once ``experimental_connect_to_cluster`` has added the cluster's remote devices."""
    devices = _core.devices.list_devices(_device_type_filter(device_type, "list_logical_devices"))
    return [LogicalDevice(_logical_name(d), d.device_type) for d in in_tf_order(devices)]


def _logical_name(device: _core.devices.Device) -> str:
    # TF drops job, replica and task from devices of job "localhost" (no cluster configured yet): "/device:CPU:0".
    if device.name.startswith("/job:localhost/"):
        return f"/device:{device.device_type}:{device.index}"
    return device.name


def _local_physical(device_type: str) -> list[_core.devices.Device]:
    """The client machine's own hardware, CPU first: TF lists physical devices of this process only, so the
    client of a multi-host slice (whose cores are /job:worker devices) has its CPU alone, as a TF 2.21 client
    of remote worker tasks has (tests_py/data/tf_client_device_names.json)."""
    return in_tf_order([d for d in _core.devices.list_devices(device_type)
                         if d.name.startswith("/job:localhost/") and not (d.device_type == "CPU" and d.index > 0)])


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """Physical devices of the client: its CPU, then its local TPU cores (one host) and the configured GPUs."""
    out = []
    counters: dict[str, int] = collections.Counter()
    for d in _local_physical(_device_type_filter(device_type, "list_physical_devices")):
        out.append(PhysicalDevice(f"/physical_device:{d.device_type}:{counters[d.device_type]}", d.device_type))
        counters[d.device_type] += 1
    return out


def _physical_to_devices(device: object) -> _core.devices.Device:
    name = device.name if isinstance(device, (PhysicalDevice, LogicalDevice)) else str(device)
    if name.startswith("/physical_device:"):
        kind, index = name[len("/physical_device:") :].split(":")
        matching = _local_physical(kind)
        index = int(index)
        if index >= len(matching):
            raise ValueError(f"Unrecognized device: {name}")
        return matching[index]
    found: _core.devices.Device = _core.devices.find_device(name)
    return found


def set_logical_device_configuration(device: PhysicalDevice | str,
                                     logical_devices: Sequence[LogicalDeviceConfiguration] | None) -> None:
    """Splits a device into logical devices, or limits a device's memory.

    * CPU: ``N`` configurations give ``N`` logical CPUs (CPU:0 … CPU:N-1), as TF does.
    * GPU: ``N`` configurations give ``N`` simulated logical GPUs.
    * TPU: a single configuration with ``memory_limit`` (MiB) lowers that core's HBM capacity,
      so a model's fit can be tested without allocating gigabytes.
    """
    if logical_devices is None:
        logical_devices = []
    if not isinstance(logical_devices, (list, tuple)):
        raise TypeError(f"logical_devices must be a list of LogicalDeviceConfiguration, got {logical_devices!r}")
    for config in logical_devices:
        if not isinstance(config, LogicalDeviceConfiguration):
            raise TypeError(f"logical_devices must hold LogicalDeviceConfiguration objects, got {config!r}")
    target = _physical_to_devices(device)
    kind = target.device_type
    if kind == "CPU":
        if any(c.memory_limit is not None for c in logical_devices):
            raise ValueError("Setting memory limit on CPU virtual devices is currently not supported")
        _core.devices.set_logical_cpu_count(max(1, len(logical_devices)))
    elif kind == "GPU":
        limit = logical_devices[0].memory_limit if logical_devices else None
        _core.devices.set_logical_gpu_count(len(logical_devices), memory_limit_bytes=int(limit * _MIB) if limit else 0)
    else:
        if len(logical_devices) > 1:
            raise ValueError(
                f"A simulated TPU core cannot be split into {len(logical_devices)} logical devices; "
                "give one LogicalDeviceConfiguration with a memory_limit"
            )
        limit = logical_devices[0].memory_limit if logical_devices else None
        target.set_memory_limit(target.default_memory_limit if limit is None else int(limit * _MIB))
    _logical_configuration[target.name] = list(logical_devices)


set_virtual_device_configuration = set_logical_device_configuration


def get_logical_device_configuration(device: PhysicalDevice | str) -> list[LogicalDeviceConfiguration] | None:
    """The configurations last given to ``set_logical_device_configuration`` for `device`.

    Args:
      device: a PhysicalDevice or its name ("/physical_device:TPU:0"), or a device name of the slice.

    Returns:
      The list of LogicalDeviceConfiguration last set for `device`, or None if it was never configured.

    Raises:
      ValueError: `device` names no device of the simulated slice.
    """
    target = _physical_to_devices(device)
    return _logical_configuration.get(target.name)


get_virtual_device_configuration = get_logical_device_configuration


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The visible physical devices, optionally of one `device_type`: every simulated device is visible.

    Raises:
      TypeError: `device_type` is neither None nor a string.
    """
    _device_type_filter(device_type, "get_visible_devices")
    return list_physical_devices(device_type)


def set_visible_devices(devices: Sequence[PhysicalDevice] | PhysicalDevice, device_type: str | None = None) -> None:
    """Validated as TF validates it (every entry must be a PhysicalDevice of this machine); every simulated
    device stays visible.

    Raises:
      ValueError: an entry is not one of ``list_physical_devices()`` ("Unrecognized device", as TF).
      TypeError: ``device_type`` is not a string.
    """
    _device_type_filter(device_type, "set_visible_devices")
    if not isinstance(devices, list):  # as TF: a PhysicalDevice is itself a tuple
        devices = [devices]  # type: ignore[list-item]  # a PhysicalDevice is a Sequence too: mypy cannot narrow
    physical = list_physical_devices()
    for d in devices:
        if d not in physical:
            raise ValueError(f"Unrecognized device: {d!r}")
