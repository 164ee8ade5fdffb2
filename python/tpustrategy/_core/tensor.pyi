"""
DType and Tensor (private; use the tpustrategy facade).
"""
from __future__ import annotations
import collections.abc
import tpustrategy.framework.string_tensor
import tpustrategy.framework.tensor
import tpustrategy.framework.tensor_shape
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
class Tensor:
    """
    An immutable tensor on a simulated device (mirrors tf.Tensor / EagerTensor).
    
    np.asarray(t) and t.numpy() are zero-copy read-only views that keep the tensor
    alive; np.array(t) copies. Its bytes count against its device's memory.
    """
    __array_priority__: typing.ClassVar[int] = 100
    def __abs__(self) -> Tensor:
        ...
    def __add__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __and__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __array__(self, dtype: typing.Any = None, copy: typing.Any = None) -> typing.Any:
        """
        The numpy protocol: np.asarray(t).
        
        Args:
          dtype: convert to this numpy dtype (a copy); None keeps the tensor's.
          copy: True always copies; None or False give the zero-copy read-only view when no conversion is needed.
        
        Returns:
          A numpy array.
        """
    def __bool__(self) -> bool:
        ...
    def __complex__(self) -> typing.Any:
        ...
    def __copy__(self) -> typing.Any:
        ...
    def __deepcopy__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __eq__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __float__(self) -> float:
        ...
    def __floordiv__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __ge__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __getitem__(self, key: typing.Any) -> Tensor:
        ...
    def __getstate__(self) -> tuple[numpy.ndarray, DType]:
        ...
    def __gt__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> typing.Any:
        ...
    def __int__(self) -> int:
        ...
    def __invert__(self) -> Tensor:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __le__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __len__(self) -> int:
        ...
    def __lt__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __matmul__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __mod__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __mul__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __ne__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __neg__(self) -> Tensor:
        ...
    def __or__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __pos__(self) -> typing.Any:
        ...
    def __pow__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __radd__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __rand__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __repr__(self) -> str:
        ...
    def __rfloordiv__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __rmatmul__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __rmod__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __rmul__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __ror__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __rpow__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __rsub__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __rtruediv__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def __str__(self) -> str:
        ...
    def __sub__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __truediv__(self, arg0: typing.Any) -> typing.Any:
        ...
    def _buffer_address(self) -> int:
        ...
    def _num_elements(self) -> int:
        ...
    def experimental_ref(self: object) -> tpustrategy.framework.tensor.Reference:
        """
        A hashable reference to this tensor, compared by identity (``tensor.ref()``).
        """
    def get_shape(self) -> tpustrategy.framework.tensor_shape.TensorShape:
        ...
    def item(self) -> typing.Any:
        """
        The value of a size-1 tensor as a Python bool, int, float or complex (TypeError for other sizes).
        """
    def numpy(self) -> typing.Any:
        """
        Returns the value as numpy: a read-only view sharing the tensor's memory (a numpy scalar for rank 0).
        """
    def ref(self: object) -> tpustrategy.framework.tensor.Reference:
        """
        A hashable reference to this tensor, compared by identity (``tensor.ref()``).
        """
    def set_shape(self: Tensor | tpustrategy.framework.string_tensor.StringTensor, shape: tpustrategy.framework.tensor_shape.TensorShape | collections.abc.Iterable[int | None] | None) -> None:
        """
        TF's eager ``set_shape``: a ValueError unless `shape` is compatible with the tensor's (None dims match
            any size); the tensor is unchanged. A py_function output inside ``Dataset.map`` takes `shape` as its
            element_spec shape, as TF's static shape (framework/static_shape.py).
        """
    @property
    def _shape_tuple(self) -> tuple:
        ...
    @property
    def backing_device(self) -> str:
        """
        The device of this tensor's buffer.
        """
    @property
    def device(self) -> str:
        ...
    @property
    def dtype(self) -> DType:
        ...
    @property
    def nbytes(self) -> int:
        ...
    @property
    def ndim(self) -> int:
        ...
    @property
    def shape(self) -> tpustrategy.framework.tensor_shape.TensorShape:
        """
        The shape of this tensor, a TensorShape.
        """
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
