"""
Simulated devices, placement and memory (private; use tf.config).
"""
from __future__ import annotations
import typing
__all__: list[str] = ['Device', 'buffer_cache_limit', 'cached_memory_bytes', 'current_device', 'default_cpu', 'find_device', 'host_cpu', 'job', 'list_devices', 'local_devices', 'parse_device_spec', 'release_cached_memory', 'set_buffer_cache_limit', 'set_current_device', 'set_job', 'set_logical_cpu_count', 'set_logical_gpu_count']
class Device:
    """
    A simulated device: a TPU core, a host CPU or a logical device.
    """
    def __eq__(self, arg0: Device) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def memory_info(self) -> dict:
        """
        {'current': bytes in use, 'peak': the most since the last reset, 'limit': the capacity}.
        """
    def reset_memory_stats(self) -> None:
        """
        Sets the peak to the current usage.
        """
    def set_memory_limit(self, bytes: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Sets the device's memory capacity.
        
        Args:
          bytes: the new capacity in bytes.
        """
    @property
    def coordinates(self) -> typing.Annotated[list[int], "FixedSize(4)"]:
        ...
    @property
    def default_memory_limit(self) -> int:
        ...
    @property
    def device_type(self) -> str:
        ...
    @property
    def host_index(self) -> int:
        ...
    @property
    def index(self) -> int:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def task(self) -> int:
        ...
def buffer_cache_limit() -> int:
    """
    The most host bytes the tensor-buffer caches keep together.
    """
def cached_memory_bytes() -> int:
    """
    Host bytes held by the tensor-buffer caches.
    """
def current_device() -> Device:
    """
    The device new tensors are placed on (None = host CPU 0).
    """
def default_cpu() -> Device:
    """
    Where tensors made outside any device scope live: the client's CPU on a multi-host slice (TF's
    /job:localhost/replica:0/task:0/device:CPU:0), else host 0's CPU.
    """
def find_device(name: str) -> Device:
    """
    Resolves a full or partial TF device name to a simulated device.
    
    Args:
      name: e.g. "TPU:3", "/job:localhost/replica:0/task:0/device:CPU:0".
    
    Returns:
      The Device (GPU:k and CPU:k, k > 0, are created on first use as logical devices of host 0).
    
    Raises:
      ValueError: no device matches, or several do.
    """
def host_cpu(task: typing.SupportsInt | typing.SupportsIndex = 0) -> Device:
    """
    The CPU device of a slice host (never a client's CPU).
    
    Args:
      task: the host's task index.
    
    Raises:
      ValueError: no host has that task index.
    """
def job() -> str:
    """
    The job in the slice's devices' names (localhost, worker).
    """
def list_devices(device_type: str = '') -> list[Device]:
    """
    Devices of the simulated slice, TPU cores first, in ordinal order.
    
    Args:
      device_type: "TPU", "CPU" or "GPU"; "" lists every device.
    
    Returns:
      A list of Device.
    """
def local_devices(device_type: str = '') -> list[Device]:
    """
    The process's own devices: a multi-host slice's client's, else host 0's.
    
    Args:
      device_type: "TPU", "CPU" or "GPU"; "" lists every device.
    
    Returns:
      A list of Device, in the order list_devices gives.
    """
def parse_device_spec(name: str) -> dict:
    """
    Parses a TF device name into its parts (tf.DeviceSpec.from_string).
    
    Args:
      name: e.g. "/job:worker/replica:0/task:1/device:TPU:3" or "GPU:0".
    
    Returns:
      {'job', 'replica', 'task', 'device_type', 'device_index'}, None for each part not given.
    
    Raises:
      ValueError: the name cannot be parsed.
    """
def release_cached_memory() -> int:
    """
    Returns the host memory the tensor-buffer caches hold (freed buffers kept for reuse) to the OS.
    
    Returns:
      The bytes freed. HBM accounting is unaffected: cached blocks are charged to no device.
    """
def set_buffer_cache_limit(bytes: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Sets the buffer caches' limit; drops the caches when over it.
    
    Args:
      bytes: the most host bytes the caches keep together (0 disables caching).
    
    Raises:
      ValueError: a negative limit.
    """
def set_current_device(device: Device) -> None:
    """
    Places new tensors on `device`.
    
    Args:
      device: a Device, or None for host CPU 0.
    """
def set_job(job: str) -> None:
    """
    Renames every device into `job`; only while no replica runs.
    
    A TF_CONFIG worker's devices are /job:worker/...
    
    Args:
      job: the job name, e.g. "worker".
    
    Raises:
      ValueError: an invalid job name.
    """
def set_logical_cpu_count(count: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Splits host 0's CPU into `count` logical CPU devices (tf.config.set_logical_device_configuration).
    
    Args:
      count: the number of CPU devices, at least 1.
    
    Raises:
      ValueError: count < 1.
    """
def set_logical_gpu_count(count: typing.SupportsInt | typing.SupportsIndex, *, memory_limit_bytes: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
    """
    Makes `count` logical GPU devices on host 0.
    
    Args:
      count: the number of GPU devices (0 removes them).
      memory_limit_bytes: each device's memory capacity; 0 keeps the default.
    
    Raises:
      ValueError: a negative count.
    """
