"""Elementwise math, comparisons, reductions, matmul and cast (mirrors ``tf.math`` / ``tf.linalg``).

Every op runs in C++ with the GIL released; binary ops broadcast like NumPy, and a
Python operand takes the dtype of the tensor operand (``t + 1`` keeps ``t``'s dtype).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy import _core
from tpustrategy.ops import _spmd_hook
from tpustrategy.ops._args import axis_int, axis_list, mentions_ragged, tensor_list
from tpustrategy.ops._elementwise_entry import elementwise_entry

_ops = _core.ops
Tensor = _core.tensor.Tensor
_Op = Callable[..., Any]


def _named(op: _Op, kernel: _Op, doc: str) -> _Op:
    """Gives a TF-signature wrapper the kernel's name and its own docstring (for help() and reprs)."""
    op.__name__ = op.__qualname__ = kernel.__name__
    op.__doc__ = doc
    return op


def _unary(kernel: _Op, doc: str) -> _Op:
    kind = kernel.__name__

    def op(x: Any, name: str | None = None) -> Any:
        if _spmd_hook.active and _spmd_hook.sharded(x):
            return _spmd_hook.partitioner.unary(kind, x)
        return kernel(x)

    return elementwise_entry(_named(op, kernel, doc))


def _binary(kernel: _Op, doc: str, c_entry: bool = True) -> _Op:
    kind = kernel.__name__

    def op(x: Any, y: Any, name: str | None = None) -> Any:
        if _spmd_hook.active and _spmd_hook.sharded(x, y):
            return _spmd_hook.partitioner.binary(kind, x, y)
        return kernel(x, y)

    return elementwise_entry(_named(op, kernel, doc)) if c_entry else _named(op, kernel, doc)


add = _binary(_ops.add, "Returns x + y elementwise (tf.math.add).")
subtract = _binary(_ops.subtract, "Returns x - y elementwise (tf.math.subtract).")
multiply = _binary(_ops.multiply, "Returns x * y elementwise (tf.math.multiply).")
divide = _binary(_ops.divide, "Returns x / y elementwise; integers give float64 (tf.math.divide).")
truediv = divide
floordiv = _binary(_ops.floordiv, "Returns floor(x / y) elementwise (tf.math.floordiv).")
floormod = _binary(_ops.floormod, "Returns x mod y with the sign of y, like Python's % (tf.math.floormod).")
mod = floormod
pow = _binary(_ops.pow, "Returns x ** y elementwise (tf.math.pow).")  # noqa: A001
maximum = _binary(_ops.maximum, "Returns max(x, y) elementwise; NaN propagates (tf.math.maximum).")
minimum = _binary(_ops.minimum, "Returns min(x, y) elementwise; NaN propagates (tf.math.minimum).")
# Python functions: tf.equal / tf.not_equal wrap them with the string path (string_dispatch.py), whose
# functools.wraps takes the signature and type hints from here.
equal = _binary(_ops.equal, "Returns x == y elementwise as bool (tf.math.equal).", c_entry=False)
not_equal = _binary(_ops.not_equal, "Returns x != y elementwise as bool (tf.math.not_equal).", c_entry=False)
less = _binary(_ops.less, "Returns x < y elementwise as bool (tf.math.less).")
less_equal = _binary(_ops.less_equal, "Returns x <= y elementwise as bool (tf.math.less_equal).")
greater = _binary(_ops.greater, "Returns x > y elementwise as bool (tf.math.greater).")
greater_equal = _binary(_ops.greater_equal, "Returns x >= y elementwise as bool (tf.math.greater_equal).")
logical_and = _binary(_ops.logical_and, "Returns x AND y for bool tensors (tf.math.logical_and).")
logical_or = _binary(_ops.logical_or, "Returns x OR y for bool tensors (tf.math.logical_or).")

negative = _unary(_ops.negative, "Returns -x elementwise (tf.math.negative).")
abs = _unary(_ops.abs, "Returns |x| elementwise (tf.math.abs).")  # noqa: A001
square = _unary(_ops.square, "Returns x * x elementwise (tf.math.square).")
exp = _unary(_ops.exp, "Returns e ** x for floating x (tf.math.exp).")
log = _unary(_ops.log, "Returns the natural logarithm of floating x (tf.math.log).")
sqrt = _unary(_ops.sqrt, "Returns the square root of floating x (tf.math.sqrt).")
rsqrt = _unary(_ops.rsqrt, "Returns 1 / sqrt(x) for floating x (tf.math.rsqrt).")
tanh = _unary(_ops.tanh, "Returns tanh(x) for floating x (tf.math.tanh).")
sigmoid = _unary(_ops.sigmoid, "Returns 1 / (1 + exp(-x)) for floating x (tf.math.sigmoid).")
floor = _unary(_ops.floor, "Returns floor(x) for floating x (tf.math.floor).")
ceil = _unary(_ops.ceil, "Returns ceil(x) for floating x (tf.math.ceil).")
sign = _unary(_ops.sign, "Returns -1, 0 or 1 elementwise (tf.math.sign).")
logical_not = _unary(_ops.logical_not, "Returns NOT x for a bool tensor (tf.math.logical_not).")


def _reduction(kernel: _Op, doc: str) -> _Op:
    kind = kernel.__name__.removeprefix("reduce_")

    def op(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
        if not isinstance(input_tensor, Tensor) and mentions_ragged(input_tensor):  # ops/ragged/ragged_reduce_ops
            from tpustrategy.ops.ragged import ragged_reduce_ops

            return ragged_reduce_ops.reduce(kernel, input_tensor, axis, keepdims)
        if _spmd_hook.active and _spmd_hook.sharded(input_tensor):
            return _spmd_hook.partitioner.reduce(kind, input_tensor, axis, keepdims)
        return kernel(input_tensor, axis_list(axis), keepdims=bool(keepdims))

    return _named(op, kernel, doc)


reduce_sum = _reduction(_ops.reduce_sum, "Sum over `axis` (all axes when None) (tf.math.reduce_sum).")
reduce_mean = _reduction(_ops.reduce_mean, "Mean over `axis`; integer inputs divide like TF (tf.math.reduce_mean).")
reduce_max = _reduction(_ops.reduce_max, "Maximum over `axis` (tf.math.reduce_max).")
reduce_min = _reduction(_ops.reduce_min, "Minimum over `axis` (tf.math.reduce_min).")
reduce_prod = _reduction(_ops.reduce_prod, "Product over `axis` (tf.math.reduce_prod).")
reduce_any = _reduction(_ops.reduce_any, "Logical OR over `axis` of a bool tensor (tf.math.reduce_any).")
reduce_all = _reduction(_ops.reduce_all, "Logical AND over `axis` of a bool tensor (tf.math.reduce_all).")


def argmax(input: Any, axis: Any = None, output_type: Any = _core.tensor.int64,  # noqa: A002
           name: str | None = None) -> Any:
    """Index of the first maximum along `axis` (default 0) (tf.math.argmax)."""
    return _ops.argmax(input, 0 if axis is None else axis_int(axis), output_type=_core.tensor.DType(output_type))


def argmin(input: Any, axis: Any = None, output_type: Any = _core.tensor.int64,  # noqa: A002
           name: str | None = None) -> Any:
    """Index of the first minimum along `axis` (default 0) (tf.math.argmin)."""
    return _ops.argmin(input, 0 if axis is None else axis_int(axis), output_type=_core.tensor.DType(output_type))


def add_n(inputs: Any, name: str | None = None) -> Tensor:
    """Sum of a list of same-shaped tensors (tf.math.add_n)."""
    tensors = tensor_list(inputs, "inputs")
    if not tensors:
        raise ValueError("inputs must be a non-empty list of tensors")
    total = tensors[0]
    for t in tensors[1:]:
        if tuple(t._shape_tuple) != tuple(total._shape_tuple):
            raise _core_invalid(f"add_n inputs must have one shape, got {total._shape_tuple} and {t._shape_tuple}")
        total = _ops.add(total, t)
    return total


def _core_invalid(message: str) -> Exception:
    from tpustrategy import errors

    error: Exception = errors.InvalidArgumentError(None, None, message)
    return error


def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: Any = None,
    name: str | None = None,
) -> Any:
    """Matrix product over the last two axes with broadcast batch axes (tf.linalg.matmul).

    ``adjoint_*`` equal ``transpose_*`` for real dtypes and conjugate complex operands; ``*_is_sparse`` are
    hints and ignored.
    """
    if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
        raise ValueError("Only one of transpose and adjoint may be True for each operand")
    # The kernel's flags are plain transposes; an adjoint of a complex operand also conjugates it.
    if adjoint_a and _tensor(a).dtype.is_complex:
        a = _ops.conj(a)
    if adjoint_b and _tensor(b).dtype.is_complex:
        b = _ops.conj(b)
    if _spmd_hook.active and _spmd_hook.sharded(a, b):
        return _spmd_hook.partitioner.matmul(a, b, bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b))
    result = _ops.matmul(a, b, transpose_a=bool(transpose_a or adjoint_a), transpose_b=bool(transpose_b or adjoint_b))
    if output_type is not None and _core.tensor.DType(output_type) != result.dtype:
        return _ops.cast(result, _core.tensor.DType(output_type))
    return result


def cast(x: Any, dtype: Any, name: str | None = None) -> Any:
    """Converts `x` to `dtype`; float to int truncates toward zero (tf.cast). A RaggedTensor's flat values convert."""
    if not isinstance(x, Tensor) and mentions_ragged(x):
        return x.with_flat_values(cast(x.flat_values, dtype))
    return _ops.cast(x, _core.tensor.DType(dtype))


def _tensor(value: Any, dtype: Any = None) -> Tensor:
    if isinstance(value, _core.tensor.Tensor):
        return value
    tensor: Tensor = _core.tensor.convert_to_tensor(value, dtype)
    return tensor


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Any:
    """Clamps `t` to [clip_value_min, clip_value_max] elementwise (tf.clip_by_value)."""
    return _ops.minimum(_ops.maximum(t, clip_value_min), clip_value_max)


def squared_difference(x: Any, y: Any, name: str | None = None) -> Any:
    """(x - y) ** 2 elementwise (tf.math.squared_difference)."""
    return _ops.square(_ops.subtract(x, y))


def reciprocal(x: Any, name: str | None = None) -> Any:
    """1 / x elementwise (tf.math.reciprocal)."""
    t = _tensor(x)
    return _ops.divide(_ops.ones([], t.dtype), t)


def is_nan(x: Any, name: str | None = None) -> Any:
    """True where x is NaN (tf.math.is_nan); floating dtypes only."""
    t = _tensor(x)
    if not t.dtype.is_floating:
        raise TypeError(f"is_nan requires a floating-point tensor, got {t.dtype.name}")
    return _ops.not_equal(t, t)


def is_finite(x: Any, name: str | None = None) -> Any:
    """True where x is neither infinite nor NaN (tf.math.is_finite); floating dtypes only."""
    t = _tensor(x)
    if not t.dtype.is_floating:
        raise TypeError(f"is_finite requires a floating-point tensor, got {t.dtype.name}")
    return _ops.less(_ops.abs(t), float("inf"))


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    """Variance over `axis` (tf.math.reduce_variance); floating dtypes only."""
    t = _tensor(input_tensor)
    if not t.dtype.is_floating:
        raise TypeError(f"reduce_variance requires a floating-point tensor, got {t.dtype.name}")
    axes = axis_list(axis)
    mean = _ops.reduce_mean(t, axes, keepdims=True)
    return _ops.reduce_mean(_ops.square(_ops.subtract(t, mean)), axes, keepdims=bool(keepdims))


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    """Standard deviation over `axis` (tf.math.reduce_std); floating dtypes only."""
    return _ops.sqrt(reduce_variance(input_tensor, axis, keepdims))


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    """log(sum(exp(x))) over `axis`, computed stably (tf.math.reduce_logsumexp)."""
    t = _tensor(input_tensor)
    axes = axis_list(axis)
    m = _ops.reduce_max(t, axes, keepdims=True)
    m = _ops.where(is_finite(m), m, _ops.zeros([], t.dtype))
    s = _ops.log(_ops.reduce_sum(_ops.exp(_ops.subtract(t, m)), axes, keepdims=True))
    out = _ops.add(s, m)
    if keepdims:
        return out
    return _ops.squeeze(out, list(range(t.ndim)) if axes is None else axes)


def count_nonzero(input: Any, axis: Any = None, keepdims: bool = False, dtype: Any = _core.tensor.int64,  # noqa: A002
                  name: str | None = None) -> Any:
    """Number of non-zero elements over `axis` (tf.math.count_nonzero)."""
    t = _tensor(input)
    nonzero = _ops.cast(t, _core.tensor.bool) if t.dtype != _core.tensor.bool else t
    return _ops.reduce_sum(_ops.cast(nonzero, _core.tensor.DType(dtype)), axis_list(axis), keepdims=bool(keepdims))
