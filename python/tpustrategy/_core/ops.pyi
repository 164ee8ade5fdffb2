"""
Tensor kernels (private; use the tpustrategy facade).
"""
from __future__ import annotations
import collections.abc
import tpustrategy._core.tensor
import typing
__all__: list[str] = ['abs', 'add', 'angle', 'argmax', 'argmin', 'avg_pool2d', 'avg_pool3d', 'bitwise_and', 'bitwise_or', 'bitwise_xor', 'broadcast_to', 'cast', 'ceil', 'complex', 'concat', 'conj', 'conv2d', 'conv2d_backprop_input', 'conv3d', 'conv3d_backprop_input', 'depthwise_conv2d', 'divide', 'equal', 'exp', 'expand_dims', 'fill', 'floor', 'floordiv', 'floormod', 'gather', 'greater', 'greater_equal', 'identity', 'imag', 'invert', 'left_shift', 'less', 'less_equal', 'log', 'log_softmax', 'logical_and', 'logical_not', 'logical_or', 'matmul', 'max_pool2d', 'max_pool3d', 'maximum', 'minimum', 'multiply', 'negative', 'not_equal', 'one_hot', 'ones', 'pad', 'philox_multinomial', 'philox_random_float', 'philox_random_full_int', 'philox_random_int', 'philox_shuffle_permutation', 'philox_words', 'pow', 'random_float', 'random_int', 'range', 'real', 'reduce_all', 'reduce_any', 'reduce_max', 'reduce_mean', 'reduce_min', 'reduce_prod', 'reduce_sum', 'relu', 'reshape', 'right_shift', 'rsqrt', 'sigmoid', 'sign', 'slice', 'softmax', 'split', 'split_sizes', 'sqrt', 'square', 'squeeze', 'stack', 'stateless_key_counter', 'stop_gradient', 'subtract', 'tanh', 'tile', 'top_k', 'transpose', 'unsorted_segment_sum', 'unstack', 'where', 'zeros']
def _apply_gradient_descent(var: tpustrategy._core.tensor.Tensor, grad: tpustrategy._core.tensor.Tensor, lr: tpustrategy._core.tensor.Tensor) -> tpustrategy._core.tensor.Tensor:
    """
    var - grad * lr in one pass (TF's ResourceApplyGradientDescent), bit-identical to the two ops.
    
    Args:
      var: the variable's value.
      grad: its gradient, same dtype and shape.
      lr: the scalar learning rate, same dtype.
    """
def _assign_update(value: tpustrategy._core.tensor.Tensor, delta: tpustrategy._core.tensor.Tensor, subtract: bool) -> tpustrategy._core.tensor.Tensor:
    """
    The new value of Variable.assign_add / assign_sub (not recorded on tapes).
    
    Args:
      value: the variable's value.
      delta: a Tensor of value's dtype and shape.
      subtract: value - delta when True, value + delta when False.
    """
def _elementwise_entry(name: str, fallback: typing.Any, *, module: str, doc: str) -> typing.Any:
    """
    The public function of elementwise op `name` (tf.add, tf.exp, ...): a plain CPython function that runs
    Tensor operands (or a Tensor and a Python number) itself and hands every other call to `fallback`.
    
    Args:
      name: an op of _core.ops' elementwise set ("add", "relu", ...).
      fallback: the facade's Python function of the op, with the same signature.
      module: the function's __module__ (where pickling and Keras' serialization find it).
      doc: its docstring, beginning with CPython's text signature line ("add(x, y, name=None)\\n--\\n\\n").
    
    Raises:
      ValueError: `name` is no elementwise op.
    """
def abs(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def add(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def angle(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Elementwise part of a complex tensor (real / imag / angle give its real dtype), or tf.bitwise.invert.
    
    Args:
      x: a Tensor (complex for conj / angle parts, integer for invert; real / imag / conj pass real dtypes through).
      name: Ignored (TF graph name).
    """
def argmax(input: typing.Any, axis: typing.SupportsInt | typing.SupportsIndex = 0, *, output_type: tpustrategy._core.tensor.DType = ...) -> tpustrategy._core.tensor.Tensor:
    """
    Index of the first maximum along `axis` (tf.math.argmax).
    
    Args:
      input: a Tensor or a value convertible to one.
      axis: the axis to reduce (negative counts from the end).
      output_type: int32 or int64.
    
    Returns:
      A Tensor of `output_type` with `axis` removed.
    
    Raises:
      InvalidArgumentError: the axis is out of range, or the input is empty along it.
    """
def argmin(input: typing.Any, axis: typing.SupportsInt | typing.SupportsIndex = 0, *, output_type: tpustrategy._core.tensor.DType = ...) -> tpustrategy._core.tensor.Tensor:
    """
    Index of the first minimum along `axis` (tf.math.argmin).
    
    Args:
      input: a Tensor or a value convertible to one.
      axis: the axis to reduce (negative counts from the end).
      output_type: int32 or int64.
    
    Returns:
      A Tensor of `output_type` with `axis` removed.
    
    Raises:
      InvalidArgumentError: the axis is out of range, or the input is empty along it.
    """
def avg_pool2d(input: typing.Any, *, ksize: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], padding: str, explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> tpustrategy._core.tensor.Tensor:
    """
    2-D average pooling over NHWC (tf.nn.avg_pool2d); padding is not counted.
    
    Args:
      input: [batch, height, width, channels].
      ksize: the (height, width) window.
      strides: the (height, width) steps, all > 0.
      padding: "SAME", "VALID" or "EXPLICIT".
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    
    Raises:
      InvalidArgumentError: an input of rank other than 4, a non-positive window or stride, an unknown padding.
    """
def avg_pool3d(input: typing.Any, *, ksize: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"], strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"], padding: str) -> tpustrategy._core.tensor.Tensor:
    """
    3-D average pooling over NDHWC (tf.nn.avg_pool3d); padding is not counted.
    
    Args:
      input: [batch, depth, height, width, channels].
      ksize: the (depth, height, width) window.
      strides: the (depth, height, width) steps, all > 0.
      padding: "SAME" or "VALID".
    
    Raises:
      InvalidArgumentError: an input of rank other than 5, a non-positive window or stride, an unknown padding.
    """
def bitwise_and(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    tf.bitwise op with broadcasting; shift amounts clamp to [0, bits - 1].
    
    Args:
      x: an integer Tensor.
      y: an integer Tensor of x's dtype; a Python operand takes x's dtype.
      name: Ignored (TF graph name).
    
    Raises:
      TypeError: non-integer or mismatched dtypes.
    """
def bitwise_or(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    tf.bitwise op with broadcasting; shift amounts clamp to [0, bits - 1].
    
    Args:
      x: an integer Tensor.
      y: an integer Tensor of x's dtype; a Python operand takes x's dtype.
      name: Ignored (TF graph name).
    
    Raises:
      TypeError: non-integer or mismatched dtypes.
    """
def bitwise_xor(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    tf.bitwise op with broadcasting; shift amounts clamp to [0, bits - 1].
    
    Args:
      x: an integer Tensor.
      y: an integer Tensor of x's dtype; a Python operand takes x's dtype.
      name: Ignored (TF graph name).
    
    Raises:
      TypeError: non-integer or mismatched dtypes.
    """
def broadcast_to(input: typing.Any, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tpustrategy._core.tensor.Tensor:
    """
    Broadcasts `input` to `shape` (tf.broadcast_to, NumPy rules).
    
    Args:
      input: a Tensor or a value convertible to one.
      shape: the target shape.
    
    Raises:
      InvalidArgumentError: input does not broadcast to shape.
    """
def cast(x: typing.Any, dtype: tpustrategy._core.tensor.DType) -> tpustrategy._core.tensor.Tensor:
    """
    Converts `x` to `dtype` (tf.cast).
    
    Float to integer truncates toward zero and saturates (NaN becomes 0); any value to bool is `x != 0`.
    
    Args:
      x: A Tensor or a value convertible to one.
      dtype: The target DType.
    
    Returns:
      `x` itself when it already has `dtype`, else a new Tensor.
    """
def ceil(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def complex(real: typing.Any, imag: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    complex tensor real + 1j * imag (complex64 of float32 parts, complex128 of float64 parts).
    
    Args:
      real: float32 or float64 Tensor.
      imag: Tensor of real's dtype, broadcastable against `real`.
      name: Ignored (TF graph name).
    
    Raises:
      TypeError: the parts differ in dtype or are not float32 / float64.
    """
def concat(values: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], axis: typing.SupportsInt | typing.SupportsIndex) -> tpustrategy._core.tensor.Tensor:
    """
    Concatenates tensors of one dtype along `axis` (tf.concat).
    
    Args:
      values: Tensors of one dtype and rank, equal except along `axis`.
      axis: the axis (negative counts from the end).
    
    Raises:
      InvalidArgumentError: no values, or dtypes, ranks or other dimensions differ.
    """
def conj(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Elementwise part of a complex tensor (real / imag / angle give its real dtype), or tf.bitwise.invert.
    
    Args:
      x: a Tensor (complex for conj / angle parts, integer for invert; real / imag / conj pass real dtypes through).
      name: Ignored (TF graph name).
    """
def conv2d(input: typing.Any, filter: typing.Any, *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], padding: str, explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> tpustrategy._core.tensor.Tensor:
    """
    2-D convolution over NHWC (tf.nn.conv2d); input depth may be a multiple of the filter's (groups).
    
    Args:
      input: [batch, height, width, channels].
      filter: [filter_height, filter_width, in_channels, out_channels] (conv2d) or
        [filter_height, filter_width, channels, multiplier] (depthwise_conv2d).
      strides, dilations: (height, width) steps and rates, all > 0.
      padding: "SAME", "VALID" or "EXPLICIT".
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    
    Raises:
      InvalidArgumentError: ranks other than 4, mismatched depths or dtypes, non-positive strides /
        dilations, negative explicit paddings, an unknown padding string.
    """
def conv2d_backprop_input(input_sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], filter: typing.Any, out_backprop: typing.Any, *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], padding: str, explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> tpustrategy._core.tensor.Tensor:
    """
    The gradient of conv2d with respect to an input of `input_sizes` (tf.nn.conv2d_transpose).
    
    Args:
      input_sizes: the [batch, height, width, channels] of the convolution's input.
      filter: [filter_height, filter_width, in_channels, out_channels].
      out_backprop: the gradient of the convolution's output.
      strides, dilations: (height, width) steps and rates, all > 0.
      padding: "SAME", "VALID" or "EXPLICIT".
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    
    Raises:
      InvalidArgumentError: out_backprop's shape is not the convolution's output shape, or as conv2d.
    """
def conv3d(input: typing.Any, filter: typing.Any, *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"], padding: str) -> tpustrategy._core.tensor.Tensor:
    """
    3-D convolution over NDHWC (tf.nn.conv3d), im2col + GEMM.
    
    Args:
      input: [batch, depth, height, width, channels].
      filter: [filter_depth, filter_height, filter_width, channels, out_channels].
      strides, dilations: (depth, height, width) steps and rates, all > 0.
      padding: "SAME" or "VALID".
    
    Raises:
      InvalidArgumentError: ranks other than 5, mismatched depths or dtypes, non-positive strides / dilations,
        an unknown padding string.
    """
def conv3d_backprop_input(input_sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], filter: typing.Any, out_backprop: typing.Any, *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"], padding: str) -> tpustrategy._core.tensor.Tensor:
    """
    The gradient of conv3d with respect to an input of `input_sizes` (tf.nn.conv3d_transpose).
    
    Args:
      input_sizes: the [batch, depth, height, width, channels] of the convolution's input.
      filter: [filter_depth, filter_height, filter_width, channels, out_channels].
      out_backprop: the gradient of the convolution's output.
      strides, dilations: (depth, height, width) steps and rates, all > 0.
      padding: "SAME" or "VALID".
    
    Raises:
      InvalidArgumentError: out_backprop's shape is not the convolution's output shape, or as conv3d.
    """
def depthwise_conv2d(input: typing.Any, filter: typing.Any, *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], padding: str, explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> tpustrategy._core.tensor.Tensor:
    """
    Depthwise 2-D convolution over NHWC (tf.nn.depthwise_conv2d_native).
    
    Args:
      input: [batch, height, width, channels].
      filter: [filter_height, filter_width, in_channels, out_channels] (conv2d) or
        [filter_height, filter_width, channels, multiplier] (depthwise_conv2d).
      strides, dilations: (height, width) steps and rates, all > 0.
      padding: "SAME", "VALID" or "EXPLICIT".
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    
    Raises:
      InvalidArgumentError: ranks other than 4, mismatched depths or dtypes, non-positive strides /
        dilations, negative explicit paddings, an unknown padding string.
    """
def divide(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def equal(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def exp(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def expand_dims(input: typing.Any, axis: typing.SupportsInt | typing.SupportsIndex) -> tpustrategy._core.tensor.Tensor:
    """
    Inserts a length-1 axis at `axis` (tf.expand_dims).
    
    Args:
      input: a Tensor or a value convertible to one.
      axis: in [-rank - 1, rank].
    
    Raises:
      InvalidArgumentError: axis out of range.
    """
def fill(dims: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], value: typing.Any) -> tpustrategy._core.tensor.Tensor:
    """
    A tensor of shape `dims` filled with the scalar `value` (tf.fill).
    
    Args:
      dims: the shape.
      value: a scalar Tensor or Python number; its dtype is the result's.
    """
def floor(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def floordiv(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def floormod(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def gather(params: typing.Any, indices: typing.Any, axis: typing.SupportsInt | typing.SupportsIndex = 0) -> tpustrategy._core.tensor.Tensor:
    """
    Gathers slices of `params` along `axis` (tf.gather).
    
    Args:
      params: a Tensor or a value convertible to one.
      indices: an int32 / int64 Tensor of indices into axis `axis`.
      axis: the axis to gather from.
    
    Returns:
      A Tensor of shape params.shape[:axis] + indices.shape + params.shape[axis + 1:].
    
    Raises:
      InvalidArgumentError: an index is out of range.
    """
def greater(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def greater_equal(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def identity(input: typing.Any) -> tpustrategy._core.tensor.Tensor:
    """
    The same values on the current device (tf.identity).
    
    Args:
      input: a Tensor or a value convertible to one.
    """
def imag(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Elementwise part of a complex tensor (real / imag / angle give its real dtype), or tf.bitwise.invert.
    
    Args:
      x: a Tensor (complex for conj / angle parts, integer for invert; real / imag / conj pass real dtypes through).
      name: Ignored (TF graph name).
    """
def invert(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Elementwise part of a complex tensor (real / imag / angle give its real dtype), or tf.bitwise.invert.
    
    Args:
      x: a Tensor (complex for conj / angle parts, integer for invert; real / imag / conj pass real dtypes through).
      name: Ignored (TF graph name).
    """
def left_shift(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    tf.bitwise op with broadcasting; shift amounts clamp to [0, bits - 1].
    
    Args:
      x: an integer Tensor.
      y: an integer Tensor of x's dtype; a Python operand takes x's dtype.
      name: Ignored (TF graph name).
    
    Raises:
      TypeError: non-integer or mismatched dtypes.
    """
def less(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def less_equal(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def log(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def log_softmax(logits: typing.Any, axis: typing.SupportsInt | typing.SupportsIndex = -1) -> tpustrategy._core.tensor.Tensor:
    """
    Numerically stable log-softmax over `axis` (tf.nn.log_softmax).
    
    Args:
      logits: a floating Tensor.
      axis: the axis to normalise over.
    """
def logical_and(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def logical_not(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def logical_or(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def matmul(a: typing.Any, b: typing.Any, *, transpose_a: bool = False, transpose_b: bool = False) -> tpustrategy._core.tensor.Tensor:
    """
    Matrix product of the last two axes, batch axes broadcast (tf.linalg.matmul).
    
    Args:
      a: a Tensor of rank >= 2 (or convertible).
      b: a Tensor of rank >= 2 of a's dtype; a Python operand takes a's dtype.
      transpose_a: use the transpose of a's last two axes.
      transpose_b: use the transpose of b's last two axes.
    
    Returns:
      A Tensor of shape batch + [M, N].
    
    Raises:
      InvalidArgumentError: rank < 2, mismatched inner dimensions, batch shapes that do not broadcast.
    """
def max_pool2d(input: typing.Any, *, ksize: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], padding: str, explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> tpustrategy._core.tensor.Tensor:
    """
    2-D max pooling over NHWC (tf.nn.max_pool2d); padding never wins.
    
    Args:
      input: [batch, height, width, channels].
      ksize: the (height, width) window.
      strides: the (height, width) steps, all > 0.
      padding: "SAME", "VALID" or "EXPLICIT".
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    
    Raises:
      InvalidArgumentError: an input of rank other than 4, a non-positive window or stride, an unknown padding.
    """
def max_pool3d(input: typing.Any, *, ksize: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"], strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(3)"], padding: str) -> tpustrategy._core.tensor.Tensor:
    """
    3-D max pooling over NDHWC (tf.nn.max_pool3d); padding never wins, the gradient goes to every tied maximum.
    
    Args:
      input: [batch, depth, height, width, channels].
      ksize: the (depth, height, width) window.
      strides: the (depth, height, width) steps, all > 0.
      padding: "SAME" or "VALID".
    
    Raises:
      InvalidArgumentError: an input of rank other than 5, a non-positive window or stride, an unknown padding.
    """
def maximum(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def minimum(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def multiply(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def negative(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def not_equal(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def one_hot(indices: typing.Any, depth: typing.SupportsInt | typing.SupportsIndex, *, on_value: typing.Any = None, off_value: typing.Any = None, axis: typing.SupportsInt | typing.SupportsIndex = -1, dtype: tpustrategy._core.tensor.DType | None = None) -> tpustrategy._core.tensor.Tensor:
    """
    One-hot encoding (tf.one_hot); out-of-range indices give all off_value.
    
    Args:
      indices: an integer Tensor.
      depth: the number of classes.
      on_value: the value at the index (default 1).
      off_value: the value elsewhere (default 0).
      axis: where the new axis of length `depth` goes (-1: last).
      dtype: the result's DType; None takes on_value's or off_value's, else float32.
    
    Returns:
      A Tensor of rank indices.rank + 1.
    """
def ones(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: tpustrategy._core.tensor.DType = ...) -> tpustrategy._core.tensor.Tensor:
    """
    A tensor of ones (tf.ones).
    
    Args:
      shape: the shape.
      dtype: the DType.
    """
def pad(tensor: typing.Any, paddings: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tpustrategy._core.tensor.Tensor:
    """
    Zero padding (tf.pad with mode CONSTANT and value 0).
    
    Args:
      tensor: a Tensor or a value convertible to one.
      paddings: the flattened [rank, 2] (before, after) amounts.
    
    Raises:
      InvalidArgumentError: paddings of the wrong length, or negative.
    """
def philox_multinomial(logits: tpustrategy._core.tensor.Tensor, num_samples: typing.SupportsInt | typing.SupportsIndex, dtype: tpustrategy._core.tensor.DType, key: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], counter: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> tpustrategy._core.tensor.Tensor:
    """
    [batch, num_samples] class indices drawn from softmax(logits) as TF's Multinomial kernel draws them.
    
    TF's single-shard stream from (key, counter).
    
    Args:
      logits: [batch, classes] unnormalised log-probabilities.
      num_samples: samples per row.
      dtype: int32 or int64, the indices' DType.
      key: TF's Philox key (two uint32).
      counter: TF's Philox counter (four uint32).
    """
def philox_random_float(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: tpustrategy._core.tensor.DType, distribution: str, key: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], counter: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> tpustrategy._core.tensor.Tensor:
    """
    Standard samples exactly as TF's Philox kernels draw them from (key, counter).
    
    Args:
      shape: the result's shape.
      dtype: a floating DType.
      distribution: "uniform" [0, 1), "normal" or "truncated_normal" (within 2 stddev).
      key: TF's Philox key (two uint32).
      counter: TF's Philox counter (four uint32).
    
    Raises:
      ValueError: an unknown distribution.
    """
def philox_random_full_int(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: tpustrategy._core.tensor.DType, key: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], counter: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> tpustrategy._core.tensor.Tensor:
    """
    Integers over the whole range of the dtype exactly as TF's Philox kernels draw them.
    
    Args:
      shape: the result's shape.
      dtype: int32, uint32, int64 or uint64.
      key: TF's Philox key (two uint32).
      counter: TF's Philox counter (four uint32).
    """
def philox_random_int(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: tpustrategy._core.tensor.DType, minval: typing.SupportsInt | typing.SupportsIndex, maxval: typing.SupportsInt | typing.SupportsIndex, key: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], counter: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> tpustrategy._core.tensor.Tensor:
    """
    Integers uniform in [minval, maxval) exactly as TF's Philox kernels draw them.
    
    Args:
      shape: the result's shape.
      dtype: int32 or int64.
      minval: the lower bound, included.
      maxval: the upper bound, excluded.
      key: TF's Philox key (two uint32).
      counter: TF's Philox counter (four uint32).
    """
def philox_shuffle_permutation(n: typing.SupportsInt | typing.SupportsIndex, key: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], counter: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> tpustrategy._core.tensor.Tensor:
    """
    The int64 row permutation TF's RandomShuffle / StatelessShuffle draws for n rows from (key, counter).
    
    Args:
      n: the number of rows.
      key: TF's Philox key (two uint32).
      counter: TF's Philox counter (four uint32).
    """
def philox_words(count: typing.SupportsInt | typing.SupportsIndex, key: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"], counter: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> tpustrategy._core.tensor.Tensor:
    """
    The first `count` 32-bit words (uint32) of TF's Philox stream at (key, counter).
    
    Args:
      count: how many words.
      key: TF's Philox key (two uint32).
      counter: TF's Philox counter (four uint32).
    """
def pow(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def random_float(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: tpustrategy._core.tensor.DType, distribution: str, seed: typing.SupportsInt | typing.SupportsIndex, stream: typing.SupportsInt | typing.SupportsIndex) -> tpustrategy._core.tensor.Tensor:
    """
    Standard samples that are a pure function of (seed, stream, element index): Philox4x32-10, not TF's stream.
    
    Args:
      shape: the result's shape.
      dtype: a floating DType.
      distribution: "uniform" [0, 1), "normal" or "truncated_normal" (within 2 stddev).
      seed: the seed.
      stream: the stream, so that one seed gives several independent sequences.
    
    Raises:
      ValueError: an unknown distribution.
    """
def random_int(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: tpustrategy._core.tensor.DType, minval: typing.SupportsInt | typing.SupportsIndex, maxval: typing.SupportsInt | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, stream: typing.SupportsInt | typing.SupportsIndex) -> tpustrategy._core.tensor.Tensor:
    """
    Integers uniform in [minval, maxval), a pure function of (seed, stream, index).
    
    Args:
      shape: the result's shape.
      dtype: int32 or int64.
      minval: the lower bound, included.
      maxval: the upper bound, excluded.
      seed: the seed.
      stream: the stream.
    """
def range(start: typing.Any, limit: typing.Any, delta: typing.Any, *, dtype: tpustrategy._core.tensor.DType | None = None) -> tpustrategy._core.tensor.Tensor:
    """
    The sequence start, start + delta, ... up to but excluding limit (tf.range).
    
    Args:
      start: the first value.
      limit: the bound, excluded.
      delta: the step, not zero.
      dtype: the DType; None infers the widest of int32 < int64 < float32 < float64 among the arguments.
    
    Raises:
      InvalidArgumentError: delta is zero or points away from limit.
    """
def real(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Elementwise part of a complex tensor (real / imag / angle give its real dtype), or tf.bitwise.invert.
    
    Args:
      x: a Tensor (complex for conj / angle parts, integer for invert; real / imag / conj pass real dtypes through).
      name: Ignored (TF graph name).
    """
def reduce_all(input_tensor: typing.Any, axis: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, *, keepdims: bool = False) -> tpustrategy._core.tensor.Tensor:
    """
    Reduces `input_tensor` over `axis` (tf.reduce_*).
    
    Args:
      input_tensor: A Tensor or a value convertible to one.
      axis: None (all axes) or a list of axes (negative counts from the end; [] reduces nothing).
      keepdims: Keep reduced axes with length 1.
    
    Returns:
      The reduced Tensor (same dtype; the mean of integers uses integer division).
    
    Raises:
      InvalidArgumentError: an axis is out of range.
      TypeError: unsupported dtype (bool for arithmetic reductions, non-bool for any/all).
    """
def reduce_any(input_tensor: typing.Any, axis: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, *, keepdims: bool = False) -> tpustrategy._core.tensor.Tensor:
    """
    Reduces `input_tensor` over `axis` (tf.reduce_*).
    
    Args:
      input_tensor: A Tensor or a value convertible to one.
      axis: None (all axes) or a list of axes (negative counts from the end; [] reduces nothing).
      keepdims: Keep reduced axes with length 1.
    
    Returns:
      The reduced Tensor (same dtype; the mean of integers uses integer division).
    
    Raises:
      InvalidArgumentError: an axis is out of range.
      TypeError: unsupported dtype (bool for arithmetic reductions, non-bool for any/all).
    """
def reduce_max(input_tensor: typing.Any, axis: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, *, keepdims: bool = False) -> tpustrategy._core.tensor.Tensor:
    """
    Reduces `input_tensor` over `axis` (tf.reduce_*).
    
    Args:
      input_tensor: A Tensor or a value convertible to one.
      axis: None (all axes) or a list of axes (negative counts from the end; [] reduces nothing).
      keepdims: Keep reduced axes with length 1.
    
    Returns:
      The reduced Tensor (same dtype; the mean of integers uses integer division).
    
    Raises:
      InvalidArgumentError: an axis is out of range.
      TypeError: unsupported dtype (bool for arithmetic reductions, non-bool for any/all).
    """
def reduce_mean(input_tensor: typing.Any, axis: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, *, keepdims: bool = False) -> tpustrategy._core.tensor.Tensor:
    """
    Reduces `input_tensor` over `axis` (tf.reduce_*).
    
    Args:
      input_tensor: A Tensor or a value convertible to one.
      axis: None (all axes) or a list of axes (negative counts from the end; [] reduces nothing).
      keepdims: Keep reduced axes with length 1.
    
    Returns:
      The reduced Tensor (same dtype; the mean of integers uses integer division).
    
    Raises:
      InvalidArgumentError: an axis is out of range.
      TypeError: unsupported dtype (bool for arithmetic reductions, non-bool for any/all).
    """
def reduce_min(input_tensor: typing.Any, axis: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, *, keepdims: bool = False) -> tpustrategy._core.tensor.Tensor:
    """
    Reduces `input_tensor` over `axis` (tf.reduce_*).
    
    Args:
      input_tensor: A Tensor or a value convertible to one.
      axis: None (all axes) or a list of axes (negative counts from the end; [] reduces nothing).
      keepdims: Keep reduced axes with length 1.
    
    Returns:
      The reduced Tensor (same dtype; the mean of integers uses integer division).
    
    Raises:
      InvalidArgumentError: an axis is out of range.
      TypeError: unsupported dtype (bool for arithmetic reductions, non-bool for any/all).
    """
def reduce_prod(input_tensor: typing.Any, axis: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, *, keepdims: bool = False) -> tpustrategy._core.tensor.Tensor:
    """
    Reduces `input_tensor` over `axis` (tf.reduce_*).
    
    Args:
      input_tensor: A Tensor or a value convertible to one.
      axis: None (all axes) or a list of axes (negative counts from the end; [] reduces nothing).
      keepdims: Keep reduced axes with length 1.
    
    Returns:
      The reduced Tensor (same dtype; the mean of integers uses integer division).
    
    Raises:
      InvalidArgumentError: an axis is out of range.
      TypeError: unsupported dtype (bool for arithmetic reductions, non-bool for any/all).
    """
def reduce_sum(input_tensor: typing.Any, axis: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, *, keepdims: bool = False) -> tpustrategy._core.tensor.Tensor:
    """
    Reduces `input_tensor` over `axis` (tf.reduce_*).
    
    Args:
      input_tensor: A Tensor or a value convertible to one.
      axis: None (all axes) or a list of axes (negative counts from the end; [] reduces nothing).
      keepdims: Keep reduced axes with length 1.
    
    Returns:
      The reduced Tensor (same dtype; the mean of integers uses integer division).
    
    Raises:
      InvalidArgumentError: an axis is out of range.
      TypeError: unsupported dtype (bool for arithmetic reductions, non-bool for any/all).
    """
def relu(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def reshape(tensor: typing.Any, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tpustrategy._core.tensor.Tensor:
    """
    Reshapes `tensor` (tf.reshape); shares the buffer.
    
    Args:
      tensor: a Tensor or a value convertible to one.
      shape: the new shape; one dimension may be -1 (inferred).
    
    Raises:
      InvalidArgumentError: the element counts differ, or more than one -1.
    """
def right_shift(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    tf.bitwise op with broadcasting; shift amounts clamp to [0, bits - 1].
    
    Args:
      x: an integer Tensor.
      y: an integer Tensor of x's dtype; a Python operand takes x's dtype.
      name: Ignored (TF graph name).
    
    Raises:
      TypeError: non-integer or mismatched dtypes.
    """
def rsqrt(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def sigmoid(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def sign(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def slice(input_: typing.Any, begin: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tpustrategy._core.tensor.Tensor:
    """
    The block of `input_` at `begin` of `size` (tf.slice).
    
    Args:
      input_: a Tensor or a value convertible to one.
      begin: the start index per axis.
      size: the extent per axis; -1 means to the end.
    
    Raises:
      InvalidArgumentError: the block does not fit in the input.
    """
def softmax(logits: typing.Any, axis: typing.SupportsInt | typing.SupportsIndex = -1) -> tpustrategy._core.tensor.Tensor:
    """
    Numerically stable softmax over `axis` (tf.nn.softmax).
    
    Args:
      logits: a floating Tensor.
      axis: the axis to normalise over.
    """
def split(value: typing.Any, num: typing.SupportsInt | typing.SupportsIndex, axis: typing.SupportsInt | typing.SupportsIndex = 0) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Splits into `num` equal parts (tf.split with an integer).
    
    Args:
      value: a Tensor or a value convertible to one.
      num: the number of parts; must divide value.shape[axis].
      axis: the axis to split.
    
    Returns:
      A list of `num` Tensors.
    
    Raises:
      InvalidArgumentError: num does not divide the axis.
    """
def split_sizes(value: typing.Any, sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], axis: typing.SupportsInt | typing.SupportsIndex = 0) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Splits into parts of `sizes` (tf.split with a list).
    
    Args:
      value: a Tensor or a value convertible to one.
      sizes: the parts' sizes along `axis`; one may be -1 (the rest).
      axis: the axis to split.
    
    Returns:
      A list of len(sizes) Tensors.
    
    Raises:
      InvalidArgumentError: the sizes do not add up to the axis.
    """
def sqrt(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def square(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def squeeze(input: typing.Any, axis: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] = []) -> tpustrategy._core.tensor.Tensor:
    """
    Removes length-1 axes (tf.squeeze).
    
    Args:
      input: a Tensor or a value convertible to one.
      axis: the axes to remove; all length-1 axes when empty.
    
    Raises:
      InvalidArgumentError: a listed axis is out of range or not of length 1.
    """
def stack(values: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], axis: typing.SupportsInt | typing.SupportsIndex = 0) -> tpustrategy._core.tensor.Tensor:
    """
    Stacks same-shaped tensors along a new axis (tf.stack).
    
    Args:
      values: Tensors of one dtype and shape.
      axis: where the new axis goes, in [-rank - 1, rank].
    
    Raises:
      InvalidArgumentError: no values, or dtypes or shapes differ.
    """
def stateless_key_counter(seed0: typing.SupportsInt | typing.SupportsIndex, seed1: typing.SupportsInt | typing.SupportsIndex) -> tuple[typing.Annotated[list[int], "FixedSize(2)"], typing.Annotated[list[int], "FixedSize(4)"]]:
    """
    TF's Philox (key, counter) for a stateless seed pair (StatelessRandomGetKeyCounter).
    
    Args:
      seed0: the seed pair's first element.
      seed1: the seed pair's second element.
    
    Returns:
      (key: two uint32, counter: four uint32).
    """
def stop_gradient(input: typing.Any) -> tpustrategy._core.tensor.Tensor:
    """
    The same values; no gradient flows back through the result (tf.stop_gradient).
    
    Args:
      input: a Tensor or a value convertible to one.
    """
def subtract(x: typing.Any, y: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise with NumPy broadcasting.
    
    Args:
      x: A Tensor or a value convertible to one.
      y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).
    
    Raises:
      InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
      TypeError: the op does not support the dtype, or a Python operand is not representable in it.
    """
def tanh(x: typing.Any, *, name: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Applies the op elementwise.
    
    Args:
      x: A Tensor or a value convertible to one.
      name: Ignored (TF graph name).
    
    Returns:
      A Tensor with the dtype and shape of `x`.
    
    Raises:
      TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).
    """
def tile(input: typing.Any, multiples: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tpustrategy._core.tensor.Tensor:
    """
    Repeats `input` `multiples[i]` times along axis i (tf.tile).
    
    Args:
      input: a Tensor or a value convertible to one.
      multiples: one non-negative count per axis.
    
    Raises:
      InvalidArgumentError: len(multiples) differs from the rank, or a count is negative.
    """
def top_k(input: typing.Any, k: typing.SupportsInt | typing.SupportsIndex, *, index_type: tpustrategy._core.tensor.DType = ...) -> tuple[tpustrategy._core.tensor.Tensor, tpustrategy._core.tensor.Tensor]:
    """
    (values, indices) of the k largest entries of the last axis, descending, ties by lower index.
    
    Args:
      input: a Tensor of rank >= 1 (or convertible).
      k: how many entries to keep.
      index_type: int32 or int64, the indices' DType.
    
    Raises:
      InvalidArgumentError: a scalar input, k < 0, or k > the last dimension.
    """
def transpose(a: typing.Any, perm: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] = []) -> tpustrategy._core.tensor.Tensor:
    """
    Permutes axes (tf.transpose).
    
    Args:
      a: a Tensor or a value convertible to one.
      perm: a permutation of range(rank); reverses the axes when empty.
    
    Raises:
      InvalidArgumentError: perm is not a permutation of the axes.
    """
def unsorted_segment_sum(data: typing.Any, segment_ids: typing.Any, num_segments: typing.SupportsInt | typing.SupportsIndex) -> tpustrategy._core.tensor.Tensor:
    """
    Sums rows of `data` per segment id (tf.math.unsorted_segment_sum).
    
    Args:
      data: a Tensor.
      segment_ids: an integer Tensor, one id per row of `data`; negative ids are dropped.
      num_segments: the number of segments (the result's first dimension).
    
    Returns:
      A Tensor of shape [num_segments] + data.shape[1:].
    
    Raises:
      InvalidArgumentError: an id >= num_segments, or mismatched shapes.
    """
def unstack(value: typing.Any, axis: typing.SupportsInt | typing.SupportsIndex = 0) -> list[tpustrategy._core.tensor.Tensor]:
    """
    The slices of `value` along `axis` (tf.unstack).
    
    Args:
      value: a Tensor of rank >= 1 (or convertible).
      axis: the axis to unstack (negative counts from the end).
    
    Returns:
      A list of value.shape[axis] Tensors, each without `axis`.
    """
def where(condition: typing.Any, x: typing.Any = None, y: typing.Any = None) -> tpustrategy._core.tensor.Tensor:
    """
    Selects x where condition else y, broadcasting (tf.where).
    
    Args:
      condition: a bool Tensor.
      x: the values where condition is true; None with y None.
      y: the values where condition is false.
    
    Returns:
      With x and y, a Tensor of the broadcast shape; with only condition, the int64 [n, rank] coordinates
      of its true elements.
    
    Raises:
      ValueError: only one of x and y is given.
      InvalidArgumentError: the shapes do not broadcast or x and y differ in dtype.
    """
def zeros(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: tpustrategy._core.tensor.DType = ...) -> tpustrategy._core.tensor.Tensor:
    """
    A tensor of zeros (tf.zeros).
    
    Args:
      shape: the shape.
      dtype: the DType.
    """
