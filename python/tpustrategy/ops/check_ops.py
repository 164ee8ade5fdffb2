"""``tf.debugging`` assertions, eager: each checks its inputs at the call and raises TF's error type with TF's
wording (InvalidArgumentError for data, ValueError for static shapes, TypeError for dtypes); on success the
``assert_*`` ops return None, as TF's eager ones do, and ``check_numerics`` returns its input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import static_shape
from tpustrategy.framework.string_tensor import StringTensor
from tpustrategy.framework.tensor import Tensor
from tpustrategy.framework.tensor_shape import TensorShape, as_shape
from tpustrategy.ops._args import TensorLike


def _tensor(x: TensorLike, dtype: Any = None) -> Any:
    return x if isinstance(x, Tensor) and dtype is None else _core.tensor.convert_to_tensor(x, dtype)


def _array(t: TensorLike) -> np.ndarray:
    return np.asarray(t.numpy())


def _prefix(message: Any) -> str:
    return f"{message}\n" if message else ""


def _fail(message: str) -> Any:
    raise errors.InvalidArgumentError(None, None, message)


def _binary(x: TensorLike, y: TensorLike, compare: Any, symbol: str, message: Any, summarize: Any) -> Any:
    x = _tensor(x)
    y = _tensor(y, x.dtype)
    a, b = _array(x), _array(y)
    try:
        a_b, b_b = np.broadcast_arrays(a, b)
    except ValueError:
        _fail(f"Incompatible shapes: {list(a.shape)} vs. {list(b.shape)}")
    ok = compare(a_b, b_b)
    if np.all(ok):
        return None
    n = 3 if summarize is None else summarize
    bad = np.argwhere(~ok)
    _fail(f"{_prefix(message)}Condition x {symbol} y did not hold.\nIndices of first {min(len(bad), n)} different "
          f"values:\n{bad[:n]}\nCorresponding x values:\n{a_b[~ok][:n]}\nCorresponding y values:\n{b_b[~ok][:n]}\n"
          f"First {min(a.size, n)} elements of x:\n{a.ravel()[:n]}\nFirst {min(b.size, n)} elements of y:\n"
          f"{b.ravel()[:n]}")


def assert_equal(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                 name: str | None = None) -> Any:
    """Checks ``x == y`` element-wise (broadcast, `y` converted to x's dtype), eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (the text: `message`, then the first `summarize`, default 3,
        failures), or the shapes do not broadcast.
    """
    return _binary(x, y, np.equal, "==", message, summarize)


def assert_none_equal(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                      name: str | None = None) -> Any:
    """Checks ``x != y`` element-wise (broadcast, `y` converted to x's dtype), eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (the text: `message`, then the first `summarize`, default 3,
        failures), or the shapes do not broadcast.
    """
    return _binary(x, y, np.not_equal, "!=", message, summarize)


def assert_less(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                name: str | None = None) -> Any:
    """Checks ``x < y`` element-wise (broadcast, `y` converted to x's dtype), eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (the text: `message`, then the first `summarize`, default 3,
        failures), or the shapes do not broadcast.
    """
    return _binary(x, y, np.less, "<", message, summarize)


def assert_less_equal(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                      name: str | None = None) -> Any:
    """Checks ``x <= y`` element-wise (broadcast, `y` converted to x's dtype), eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (the text: `message`, then the first `summarize`, default 3,
        failures), or the shapes do not broadcast.
    """
    return _binary(x, y, np.less_equal, "<=", message, summarize)


def assert_greater(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                   name: str | None = None) -> Any:
    """Checks ``x > y`` element-wise (broadcast, `y` converted to x's dtype), eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (the text: `message`, then the first `summarize`, default 3,
        failures), or the shapes do not broadcast.
    """
    return _binary(x, y, np.greater, ">", message, summarize)


def assert_greater_equal(x: TensorLike, y: TensorLike, message: Any = None, summarize: Any = None,
                         name: str | None = None) -> Any:
    """Checks ``x >= y`` element-wise (broadcast, `y` converted to x's dtype), eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (the text: `message`, then the first `summarize`, default 3,
        failures), or the shapes do not broadcast.
    """
    return _binary(x, y, np.greater_equal, ">=", message, summarize)


def _unary(x: TensorLike, compare: Any, symbol: str, message: Any, summarize: Any) -> Any:
    x = _tensor(x)
    a = _array(x)
    if np.all(compare(a, 0)):
        return None
    n = 3 if summarize is None else summarize
    shown = [str(v) for v in a.ravel()[:n]]
    _fail(f"{_prefix(message)}Condition x {symbol} 0 did not hold element-wise: x (shape={tuple(a.shape)} "
          f"dtype={x.dtype.name}) = {shown}")


def assert_positive(x: TensorLike, message: Any = None, summarize: Any = None, name: str | None = None) -> Any:
    """Checks ``x > 0`` element-wise, eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (`message`, x's shape and dtype, its first `summarize` values).
    """
    return _unary(x, np.greater, ">", message, summarize)


def assert_negative(x: TensorLike, message: Any = None, summarize: Any = None, name: str | None = None) -> Any:
    """Checks ``x < 0`` element-wise, eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (`message`, x's shape and dtype, its first `summarize` values).
    """
    return _unary(x, np.less, "<", message, summarize)


def assert_non_negative(x: TensorLike, message: Any = None, summarize: Any = None, name: str | None = None) -> Any:
    """Checks ``x >= 0`` element-wise, eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (`message`, x's shape and dtype, its first `summarize` values).
    """
    return _unary(x, np.greater_equal, ">=", message, summarize)


def assert_non_positive(x: TensorLike, message: Any = None, summarize: Any = None, name: str | None = None) -> Any:
    """Checks ``x <= 0`` element-wise, eagerly; None when it holds.

    Raises:
      InvalidArgumentError: it fails somewhere (`message`, x's shape and dtype, its first `summarize` values).
    """
    return _unary(x, np.less_equal, "<=", message, summarize)


def assert_near(x: TensorLike, y: TensorLike, rtol: Any = None, atol: Any = None, message: Any = None,
                summarize: Any = None, name: str | None = None) -> Any:
    """|x - y| <= atol + rtol * |y| element-wise; tolerances default to 10 × the dtype's epsilon."""
    x = _tensor(x)
    y = _tensor(y, x.dtype)
    a, b = _array(x).astype(np.float64), _array(y).astype(np.float64)
    eps = float(np.finfo(_array(x).dtype).eps) if _array(x).dtype.kind == "f" else 0.0
    rtol = 10 * eps if rtol is None else float(rtol)
    atol = 10 * eps if atol is None else float(atol)
    if np.all(np.abs(a - b) <= atol + rtol * np.abs(b)):
        return None
    _fail(f"{_prefix(message)}x and y not equal to tolerance rtol = {rtol}, atol = {atol}\nx (shape="
          f"{tuple(a.shape)} dtype={x.dtype.name}) = {a.ravel()[:3]}\ny (shape={tuple(b.shape)} dtype="
          f"{y.dtype.name}) = {b.ravel()[:3]}")


def _rank_of(x: TensorLike) -> tuple[int, tuple[int, ...]]:
    shape = tuple(_tensor(x)._shape_tuple)
    return len(shape), shape


def assert_rank(x: TensorLike, rank: Any, message: Any = None, name: str | None = None) -> Any:
    """Checks that `x` has static rank `rank`; returns None.

    Raises:
      ValueError: it has another rank (after `message`, as TF's static check).
    """
    actual, shape = _rank_of(x)
    if actual != int(rank):
        raise ValueError(f"{message + ' ' if message else ''}Tensor must have rank {int(rank)}. Received rank "
                         f"{actual}, shape {shape}")


def assert_rank_at_least(x: TensorLike, rank: Any, message: Any = None, name: str | None = None) -> Any:
    """Checks that `x` has a static rank of at least `rank`; returns None.

    Raises:
      ValueError: its rank is lower (after `message`, as TF's static check).
    """
    actual, shape = _rank_of(x)
    if actual < int(rank):
        raise ValueError(f"{message + ' ' if message else ''}Tensor must have rank at least {int(rank)}. Received "
                         f"rank {actual}, shape {shape}")


def assert_rank_in(x: TensorLike, ranks: Any, message: Any = None, name: str | None = None) -> Any:
    """Checks that the static rank of `x` is one of `ranks` (ints); returns None.

    Raises:
      ValueError: it is none of them (after `message`, as TF's static check).
    """
    actual, shape = _rank_of(x)
    wanted = tuple(int(r) for r in ranks)
    if actual not in wanted:
        raise ValueError(f"{message + ' ' if message else ''}Tensor must have rank in {wanted}. Received rank "
                         f"{actual}, shape {shape}")


def assert_scalar(tensor: TensorLike, message: Any = None, name: str | None = None) -> Any:
    """Checks that `tensor` has rank 0; returns None.

    Raises:
      ValueError: `tensor` has rank >= 1 (after `message`).
    """
    _, shape = _rank_of(tensor)
    if shape:
        raise ValueError(f"{message + ' ' if message else ''}Expected scalar shape, saw shape: {shape}.")


def assert_type(tensor: TensorLike, tf_type: Any, message: Any = None, name: str | None = None) -> Any:
    """Checks that `tensor` has dtype `tf_type` (a DType or its name); returns None.

    Raises:
      TypeError: it has another dtype (after `message`).
    """
    dtype = _core.tensor.DType(tf_type)
    actual = _tensor(tensor).dtype
    if actual != dtype:
        raise TypeError(f"{message + ' ' if message else ''}tensor must be of type {dtype!r}; got {actual!r}")


def assert_integer(x: TensorLike, message: Any = None, name: str | None = None) -> Any:
    """Checks that `x` has an integer dtype; returns None.

    Raises:
      TypeError: its dtype is not an integer one (after `message`).
    """
    dtype = _tensor(x).dtype
    if not dtype.is_integer:
        raise TypeError(f'{message + " " if message else ""}Expected "x" to be integer type. Found: tensor of dtype '
                        f"{dtype}")


def is_numeric_tensor(tensor: TensorLike) -> bool:
    """Whether `tensor` is a Tensor of a floating or integer dtype (a Python or numpy value is not)."""
    return isinstance(tensor, Tensor) and (tensor.dtype.is_floating or tensor.dtype.is_integer)


def assert_proper_iterable(values: TensorLike) -> Any:
    """Checks that `values` is iterable and not a string, bytes, Tensor or numpy array; returns None.

    Raises:
      TypeError: it is not such an iterable.
    """
    if isinstance(values, (str, bytes, Tensor, np.ndarray)) or not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument \"values\" to be a \"proper\" iterable.  Found: {type(values)}")


def assert_shapes(shapes: Any, data: TensorLike = None, summarize: Any = None, message: Any = None,
                  name: str | None = None) -> Any:
    """Checks tensors against symbolic shapes: ``[(x, ("N", "D")), (y, ("N",))]``; a symbol names one size
    across tensors, an int is an exact size, ``...`` (or a leading "*") allows any leading dimensions."""
    items = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes: dict[Any, Any] = {}
    for tensor, spec in items:
        t = _tensor(tensor)
        shape = tuple(t._shape_tuple)
        spec = tuple(spec) if not isinstance(spec, str) else tuple(spec)
        described = f"Tensor shape={shape} dtype={t.dtype.name}"
        prefix = message + " " if message else ""
        leading = bool(spec) and (spec[0] is Ellipsis or spec[0] == "*")
        dims = spec[1:] if leading else spec
        if (len(shape) < len(dims)) if leading else (len(shape) != len(dims)):
            raise ValueError(f"{prefix}{described} must have rank {len(dims)}. Received rank {len(shape)}, "
                             f"shape {shape}")
        offset = len(shape) - len(dims)
        for i, symbol in enumerate(dims):
            size = shape[offset + i]
            if isinstance(symbol, (int, np.integer)):
                if size != int(symbol):
                    raise ValueError(f"{prefix}{described} dimension {offset + i} must have size {int(symbol)}. "
                                     f"Received size {size}, shape {shape}")
            elif symbol in sizes and sizes[symbol][0] != size:
                known, where = sizes[symbol]
                raise ValueError(f"{prefix}Specified by {where} dimension {i}. {described} dimension {offset + i} "
                                 f"must have size {known}. Received size {size}, shape {shape}")
            else:
                sizes.setdefault(symbol, (size, described.replace("Tensor ", "tensor ", 1)))


def _debug_string(shape: TensorShape) -> str:
    """TF's C++ ``TensorShape::DebugString``: ``[2,?]``, ``<unknown>``."""
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def ensure_shape(x: TensorLike, shape: Any, name: str | None = None) -> Any:
    """``tf.ensure_shape``: `x` (as a tensor) if its shape is compatible with `shape` (None dims match any
    size), else TF's InvalidArgumentError. Inside ``Dataset.map`` it also states a py_function output's static
    shape, as ``set_shape`` does."""
    t = x if isinstance(x, (Tensor, StringTensor)) else _tensor(x)
    expected = as_shape(shape)
    if not expected.is_compatible_with(t._shape_tuple):
        _fail(f"Shape of tensor input {_debug_string(TensorShape(t._shape_tuple))} is not compatible with expected "
              f"shape {_debug_string(expected)}.")
    static_shape.refine(t, expected)
    return t


def check_numerics(tensor: TensorLike, message: Any, name: str | None = None) -> Any:
    """Returns `tensor`; InvalidArgumentError "<message> : Tensor had NaN values" (or Inf, or Inf and NaN)."""
    t = _tensor(tensor)
    if not t.dtype.is_floating:
        raise TypeError(f"check_numerics needs a floating tensor, got {t.dtype.name}")
    a = _array(t).astype(np.float64)
    nan, inf = bool(np.isnan(a).any()), bool(np.isinf(a).any())
    if nan or inf:
        kind = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
        _fail(f"{message} : Tensor had {kind} values")
    return t


def assert_all_finite(t: TensorLike, msg: Any, name: str | None = None, x: TensorLike = None,
                      message: Any = None) -> Any:
    """``tf.debugging.assert_all_finite``: check_numerics on `t` (or `x`) with `msg` (or `message`).

    Returns:
      The tensor, when no value is NaN or infinite.

    Raises:
      InvalidArgumentError: some value is NaN or infinite.
      TypeError: the dtype is not floating.
    """
    return check_numerics(t if t is not None else x, msg if msg is not None else message)


def _summarize(item: Any, summarize: int) -> str:
    if isinstance(item, (str, bytes)):
        return repr(item.encode() if isinstance(item, str) else item)
    if isinstance(item, Tensor) or isinstance(item, np.ndarray) or isinstance(item, (int, float, bool, list)):
        values = np.asarray(item.numpy() if isinstance(item, Tensor) else item).ravel()[:summarize]
        return ", ".join(str(v) for v in values)
    return str(item)


def Assert(condition: TensorLike, data: TensorLike, summarize: Any = None, name: str | None = None) -> Any:  # noqa: N802 - TF's name
    """InvalidArgumentError "Expected '<condition>' to be true. Summarized data: ..." when `condition` is false."""
    value = condition.numpy() if isinstance(condition, Tensor) else condition
    if bool(np.asarray(value)):
        return None
    summary = "\n".join(_summarize(d, 3 if summarize is None else summarize) for d in data)
    _fail(f"Expected '{condition}' to be true. Summarized data: {summary}")
