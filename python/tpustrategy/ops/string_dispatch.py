"""The layout ops TF also runs on ``tf.string`` tensors (reshape, concat, stack, gather, ...), on the host.

String tensors never reach the C++ kernels (framework/string_tensor.py); ``wrap`` puts a numpy path in front
of the tf.<op> names for them, so ``tf.reshape(strings, ...)`` works as in TF while numeric calls go straight
to the kernels. A string given to a numeric-only op still fails as TF does (InvalidArgumentError).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework.string_tensor import StringTensor, is_string_dtype, to_bytes_array
from tpustrategy.ops._args import axis_int, int_list


def _arr(value: Any) -> np.ndarray:
    return to_bytes_array(value)


def _ints(value: Any) -> np.ndarray:
    return np.asarray(value.numpy() if isinstance(value, _core.tensor.Tensor) else value)


def _reshape(tensor: Any, shape: Any, name: str | None = None) -> StringTensor:
    array, dims = _arr(tensor), int_list(shape, "shape")
    try:
        return StringTensor(array.reshape(dims))
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"Input to reshape is a tensor with {array.size} values, but "
                                          f"the requested shape is {dims}") from None


def _concat(values: Any, axis: Any, name: str = "concat") -> StringTensor:
    return StringTensor(np.concatenate([_arr(v) for v in values], axis_int(axis)))


def _stack(values: Any, axis: Any = 0, name: str = "stack") -> StringTensor:
    arrays = [_arr(v) for v in values]
    if len({a.shape for a in arrays}) > 1:
        raise errors.InvalidArgumentError(None, None, f"Shapes of all inputs must match: "
                                          f"{[list(a.shape) for a in arrays]}")
    return StringTensor(np.stack(arrays, axis_int(axis)))


def _unstack(value: Any, num: int | None = None, axis: Any = 0, name: str = "unstack") -> list[StringTensor]:
    array = np.moveaxis(_arr(value), axis_int(axis), 0)
    return [StringTensor(np.ascontiguousarray(row)) for row in array]


def _gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None, batch_dims: int = 0,
            name: str | None = None) -> StringTensor:
    array, index = _arr(params), _ints(indices)
    ax = 0 if axis is None else axis_int(axis)
    limit = array.shape[ax] if array.ndim else 0
    bad = index[(index < 0) | (index >= limit)]
    if bad.size:
        raise errors.InvalidArgumentError(None, None, f"indices = {int(bad.flat[0])} is not in [0, {limit})")
    return StringTensor(np.take(array, index, axis=ax))


def _cast(x: Any, dtype: Any, name: str | None = None) -> StringTensor:
    if isinstance(x, StringTensor):
        if is_string_dtype(dtype):
            return x
        raise errors.UnimplementedError(None, None, f"Cast string to {_core.tensor.DType(dtype).name} is not supported")
    raise errors.UnimplementedError(None, None, f"Cast {x.dtype.name} to string is not supported")


def _where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> StringTensor:
    if x is None or y is None:
        raise errors.InvalidArgumentError(None, None, "tf.where on a string condition is not defined")
    mask = _ints(condition).astype(bool)
    left, right = _arr(x), _arr(y)
    return StringTensor(np.asarray(np.where(mask, left, right), dtype=object))


_IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {
    "reshape": _reshape,
    "expand_dims": lambda input, axis, name=None: StringTensor(np.expand_dims(_arr(input), axis_int(axis))),  # noqa: A006
    "squeeze": lambda input, axis=None, name=None: StringTensor(  # noqa: A006
        np.squeeze(_arr(input), None if axis is None else tuple(int_list(axis, "axis")))),
    "transpose": lambda a, perm=None, conjugate=False, name="transpose": StringTensor(
        np.ascontiguousarray(np.transpose(_arr(a), None if perm is None else int_list(perm, "perm")))),
    "concat": _concat,
    "stack": _stack,
    "unstack": _unstack,
    "identity": lambda input, name=None: StringTensor(_arr(input)),  # noqa: A006
    "tile": lambda input, multiples, name=None: StringTensor(np.tile(_arr(input), int_list(multiples, "multiples"))),  # noqa: A006
    "gather": _gather,
    "reverse": lambda tensor, axis, name=None: StringTensor(np.flip(_arr(tensor), tuple(int_list(axis, "axis")))),
    "boolean_mask": lambda tensor, mask, axis=None, name="boolean_mask": StringTensor(
        _arr(tensor)[_ints(mask).astype(bool)]),
    "shape": lambda input, out_type=_core.tensor.int32, name=None: _core.tensor.constant(  # noqa: A006
        list(_arr(input).shape), _core.tensor.DType(out_type)),
    "rank": lambda input, name=None: _core.tensor.constant(_arr(input).ndim, _core.tensor.int32),  # noqa: A006
    "size": lambda input, out_type=_core.tensor.int32, name=None: _core.tensor.constant(  # noqa: A006
        int(_arr(input).size), _core.tensor.DType(out_type)),
    "equal": lambda x, y, name=None: StringTensor(x) == y,
    "not_equal": lambda x, y, name=None: StringTensor(x) != y,
    "cast": _cast,
    "where": _where,
}


def _mentions_string(value: Any) -> bool:
    if isinstance(value, StringTensor):
        return True
    return isinstance(value, (list, tuple)) and any(isinstance(v, StringTensor) for v in value)


def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` with the string path of `name` in front (only when a StringTensor is among the arguments)."""
    string_fn = _IMPLEMENTATIONS[name]

    @functools.wraps(fn)
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        if any(_mentions_string(a) for a in args) or any(_mentions_string(v) for v in kwargs.values()) or (
                name == "cast" and is_string_dtype(args[1] if len(args) > 1 else kwargs.get("dtype"))):
            return string_fn(*args, **kwargs)
        return fn(*args, **kwargs)

    return dispatch


NAMES = tuple(_IMPLEMENTATIONS)
