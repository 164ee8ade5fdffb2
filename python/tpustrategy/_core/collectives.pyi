"""
Cross-replica functions over tensors (private; use tpustrategy.distribute).
"""
from __future__ import annotations
import collections.abc
import tpustrategy._core.devices
import tpustrategy._core.tensor
import typing
__all__: list[str] = ['all_gather', 'all_reduce', 'broadcast', 'reduce_scatter']
def all_gather(tensors: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], axis: typing.SupportsInt | typing.SupportsIndex, *, devices: collections.abc.Sequence[tpustrategy._core.devices.Device] | None = None) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Concatenates every replica's tensor along `axis` (replica order) and delivers it to each device.
    
    Sizes along `axis` may differ; every other dimension, the rank and the dtype must match.
    
    Args:
      tensors: one Tensor per replica.
      axis: the axis to concatenate along (negative counts from the end).
      devices: where results go (one result each); None = each input's device.
    
    Returns:
      A list with one Tensor per device, sharing one buffer.
    
    Raises:
      InvalidArgumentError: rank 0, or dtypes, ranks or other dimensions that differ.
    """
def all_reduce(tensors: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], op: str, *, devices: collections.abc.Sequence[tpustrategy._core.devices.Device] | None = None) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Reduces every replica's tensor element-wise and delivers the result to each device.
    
    Args:
      tensors: one Tensor per replica, all of the same dtype and shape.
      op: "SUM", "MEAN", "MAX", "MIN" or "PROD" (any case).
      devices: where results go (one result each); None = each input's device.
    
    Returns:
      A list with one Tensor per device; they share one buffer, each charged to its device.
    
    Raises:
      InvalidArgumentError: dtypes or shapes differ (the message names the replica).
    """
def broadcast(tensor: tpustrategy._core.tensor.Tensor, devices: collections.abc.Sequence[tpustrategy._core.devices.Device]) -> list[tpustrategy._core.tensor.Tensor]:
    """
    The same value on each device (one shared buffer, charged to every device).
    
    Args:
      tensor: the value to broadcast.
      devices: the destination devices.
    
    Returns:
      A list with one Tensor per device.
    """
def reduce_scatter(tensors: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], op: str, *, devices: collections.abc.Sequence[tpustrategy._core.devices.Device] | None = None) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Replica j receives the reduction of every replica's j-th slice along axis 0.
    
    Args:
      tensors: one Tensor per replica, same dtype and shape; axis 0 divisible by the number of replicas.
      op: "SUM", "MEAN", "MAX", "MIN" or "PROD" (any case).
      devices: where results go (one result each); None = each input's device.
    
    Returns:
      A list with one Tensor per device: its slice of the reduction.
    
    Raises:
      InvalidArgumentError: dtypes or shapes differ, or axis 0 does not divide.
    """
