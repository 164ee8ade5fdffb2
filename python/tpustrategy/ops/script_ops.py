"""``tf.py_function`` and ``tf.numpy_function``: wrap a Python function as an op.

Everything runs eagerly here, so the function is simply called (in ``Dataset.map`` too): with Tensors
for ``py_function``, numpy values for ``numpy_function``. Its results are converted to ``Tout``. A
Python exception leaves as the TF error TensorFlow's py_func kernel turns it into (ValueError /
TypeError -> InvalidArgumentError, StopIteration -> OutOfRangeError, MemoryError ->
ResourceExhaustedError, NotImplementedError -> UnimplementedError, other -> UnknownError; a TF
error passes through), so ``Dataset.ignore_errors`` drops such elements as in TF.

Static shapes: TF cannot see into the function, so its outputs have an unknown shape in a ``Dataset.map``
element_spec (``TensorSpec(shape=<unknown>, ...)``) until ``set_shape`` / ``tf.ensure_shape`` states one; so
here (framework/static_shape.py), and values computed from an output get the static shape TF's shape inference
gives them (``x + 1`` is unknown too, ``tf.reduce_sum(x)`` a scalar).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import static_shape
from tpustrategy.framework.constant import convert_to_tensor
from tpustrategy.framework.string_tensor import StringTensor, is_string_dtype, to_bytes_array
from tpustrategy.framework.tensor import Tensor

_ERROR_OF = ((ValueError, errors.InvalidArgumentError), (TypeError, errors.InvalidArgumentError),
             (StopIteration, errors.OutOfRangeError), (MemoryError, errors.ResourceExhaustedError),
             (NotImplementedError, errors.UnimplementedError))


def tf_error_of(e: Exception) -> errors.OpError:
    """The TF error TF's py_func kernel turns the Python exception `e` into (a TF error stays itself)."""
    if isinstance(e, errors.OpError):
        return e
    error = next((tf_error for kind, tf_error in _ERROR_OF if isinstance(e, kind)), errors.UnknownError)
    return error(None, None, f"{type(e).__name__}: {e}")


def _call(func: Callable[..., Any], args: Sequence[Any]) -> Any:
    try:
        return func(*args)
    except Exception as e:  # noqa: BLE001  (every Python error becomes a TF error, as in TF's kernel)
        raise tf_error_of(e) from e


def _convert(value: Any, dtype: Any) -> Tensor | StringTensor:
    if is_string_dtype(dtype):
        try:
            return StringTensor(value if isinstance(value, StringTensor) else to_bytes_array(
                value.numpy() if isinstance(value, Tensor) else value))
        except TypeError:
            raise errors.InvalidArgumentError(None, None, f"The function's output {value!r} cannot be converted "
                                              "to tf.string (Tout).") from None
    if isinstance(value, Tensor) and value.dtype == _core.tensor.DType(dtype):
        return value
    array = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    target = _core.tensor.DType(dtype)
    if array.dtype.kind in "OSU" or (array.dtype.kind == "f" and target.is_integer):
        raise errors.InvalidArgumentError(None, None, f"The function's output {value!r} cannot be converted to "
                                          f"{target!r} (Tout).")
    converted: Tensor = _core.tensor.constant(array.astype(target.as_numpy_dtype), target)
    return converted


def _outputs(result: Any, Tout: Any, inputs: Sequence[Any] = ()  # noqa: N803  (TF's argument name)
             ) -> Tensor | StringTensor | list[Tensor | StringTensor] | None:
    if Tout is None:
        return None
    if isinstance(Tout, (list, tuple)):
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) != len(Tout):
            raise errors.InvalidArgumentError(None, None, f"The function returned {len(values)} values but Tout has "
                                              f"{len(Tout)} types.")
        return [_opaque(_convert(v, t), inputs) for v, t in zip(values, Tout, strict=True)]
    if isinstance(result, (list, tuple)):
        if len(result) != 1:
            raise errors.InvalidArgumentError(None, None, f"The function returned {len(result)} values but Tout is "
                                              "a single type.")
        result = result[0]
    return _opaque(_convert(result, Tout), inputs)


def _opaque(output: Tensor | StringTensor, inputs: Sequence[Any]) -> Tensor | StringTensor:
    """`output` gets an unknown static shape where a Dataset function's spec is being found (TF's rule)."""
    if static_shape.active():
        # A fresh tensor: an input the function returned keeps the static shape it has.
        if isinstance(output, Tensor):
            output = _core.ops.stop_gradient(output)  # a new id over the same buffer
        elif any(output is x for x in inputs):
            output = StringTensor(to_bytes_array(output.numpy()))
        static_shape.mark_unknown(output)
    return output


def py_function(func: Callable[..., Any] | None = None, inp: Sequence[Any] | None = None,  # noqa: N803
                Tout: Any = None, name: str | None = None) -> Any:
    """Calls ``func(*inp)`` with Tensors; the results are converted to ``Tout``."""
    if not callable(func):
        raise TypeError(f"`func` must be callable, got {type(func).__name__}")
    args = [v if isinstance(v, (Tensor, StringTensor)) else convert_to_tensor(v) for v in (inp or [])]
    return _outputs(_call(func, args), Tout, args)


def numpy_function(func: Callable[..., Any] | None = None, inp: Sequence[Any] | None = None,  # noqa: N803
                   Tout: Any = None, stateful: bool = True, name: str | None = None) -> Any:
    """Calls ``func(*inp)`` with numpy values; the results are converted to ``Tout``."""
    if not callable(func):
        raise TypeError(f"`func` must be callable, got {type(func).__name__}")
    args = [v.numpy() if isinstance(v, (Tensor, StringTensor)) else v for v in (inp or [])]
    return _outputs(_call(func, args), Tout)
