"""
DType and Tensor (private; use the tpustrategy facade).
"""
from __future__ import annotations
from tpustrategy import Tensor
import typing
__all__: list[str] = ['DType', 'Tensor', 'bfloat16', 'bool', 'complex128', 'complex64', 'constant', 'convert_to_tensor', 'copy_to_device', 'float16', 'float32', 'float64', 'int16', 'int32', 'int64', 'int8', 'uint16', 'uint32', 'uint64', 'uint8']
class DType:
    """
    A tensor element type (mirrors tf.DType).
    """
    def __eq__(self, arg0: typing.Any) -> bool:
        ...
    def __getstate__(self) -> str:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self, type_value: typing.Any) -> None:
        """
        The DType of `type_value`.
        
        Args:
          type_value: a DType, a numpy dtype or type, or a dtype name ("float32").
        
        Raises:
          TypeError: `type_value` names no supported dtype.
        """
    def __ne__(self, arg0: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, arg0: str) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def as_numpy_dtype(self) -> ...:
        ...
    @property
    def base_dtype(self) -> DType:
        ...
    @property
    def is_bool(self) -> bool:
        ...
    @property
    def is_complex(self) -> bool:
        ...
    @property
    def is_floating(self) -> bool:
        ...
    @property
    def is_integer(self) -> bool:
        ...
    @property
    def is_quantized(self) -> bool:
        ...
    @property
    def is_unsigned(self) -> bool:
        ...
    @property
    def max(self) -> typing.Any:
        ...
    @property
    def min(self) -> typing.Any:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def real_dtype(self) -> DType:
        ...
    @property
    def size(self) -> int:
        ...
def constant(value: typing.Any, dtype: typing.Any = None) -> typing.Any:
    """
    Creates a Tensor holding a copy of `value` (tf.constant).
    
    Args:
      value: a Tensor, numpy array, Python scalar or nested list.
      dtype: the DType wanted; None infers it as TF does.
    
    Returns:
      A new Tensor on the current device.
    
    Raises:
      TypeError: `value` cannot be converted to `dtype`.
    """
def convert_to_tensor(value: typing.Any, dtype: typing.Any = None) -> typing.Any:
    """
    Converts a Python value, numpy array or Tensor to a Tensor.
    
    Args:
      value: a Tensor (returned as it is when the dtype matches), numpy array, Python scalar or nested list.
      dtype: the DType wanted; None infers it as TF does.
    
    Returns:
      A Tensor.
    
    Raises:
      TypeError: `value` cannot be converted, or a Tensor of another dtype is given with `dtype`.
    """
def copy_to_device(tensor: Tensor, device: str) -> Tensor:
    """
    A copy of `tensor` on another simulated device.
    
    Args:
      tensor: the Tensor to copy.
      device: a full or partial device name, e.g. "TPU:3".
    
    Returns:
      The new Tensor, charged to `device`.
    
    Raises:
      ValueError: no device matches `device`, or several do.
      ResourceExhaustedError: the device's memory is full.
    """
bfloat16: DType
bool: DType
complex128: DType
complex64: DType
float16: DType
float32: DType
float64: DType
int16: DType
int32: DType
int64: DType
int8: DType
uint16: DType
uint32: DType
uint64: DType
uint8: DType
