"""``KerasTensor`` (a symbolic shape and dtype, the functional API's edges) and ``Node`` (one layer call).

A KerasTensor knows the Node that produced it; a functional Model walks these back from its outputs
to its inputs. Stand-in concrete tensors (zeros, unknown dimensions filled in) let a layer's own ``call``
infer output shapes, so every layer gets shape inference without a separate ``compute_output_shape``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from tpustrategy import _core, nest


class KerasTensor:
    """A symbolic tensor: ``shape`` (a tuple, None for unknown dimensions), ``dtype`` and ``name``."""

    def __init__(self, shape: Any, dtype: str = "float32", name: str | None = None, sparse: bool = False) -> None:
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = getattr(dtype, "name", dtype) or "float32"
        self.name = name
        self.sparse = sparse
        self._node: Node | None = None  # the Node whose output this is (None for an Input before it is registered)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def _placeholder(self, fill: int) -> _core.tensor.Tensor:
        shape = [fill if d is None else d for d in self.shape]
        dtype = np.dtype(self.dtype) if self.dtype != "bfloat16" else np.float32
        t = _core.tensor.convert_to_tensor(np.zeros(shape, dtype))
        return t if t.dtype.name == self.dtype else _core.ops.cast(t, _core.tensor.DType(self.dtype))

    def __repr__(self) -> str:
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse={self.sparse}, name={self.name}>"

    def __bool__(self) -> NoReturn:
        raise TypeError("A symbolic KerasTensor cannot be used as a Python bool.")

    def __array__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"A KerasTensor is symbolic: it cannot be converted to a numpy array ({self!r}). Pass "
                        "it to Keras layers, or wrap other functions in a `keras.layers.Lambda`.")

    # Operators on KerasTensors become layers, as Keras 3's ops do.
    def _binary(self, other: Any, fn: Callable[[Any, Any], Any], name: str) -> Any:
        from tpustrategy.keras.layers.lambda_layer import Lambda  # lazy: Lambda is a Layer, which imports this module

        if isinstance(other, KerasTensor):
            return Lambda(lambda xs: fn(xs[0], xs[1]), name=None)([self, other])
        return Lambda(lambda x: fn(x, other))(self)

    def __add__(self, other: Any) -> Any:
        return self._binary(other, lambda a, b: a + b, "add")

    def __radd__(self, other: Any) -> Any:
        return self._binary(other, lambda a, b: b + a, "add")

    def __sub__(self, other: Any) -> Any:
        return self._binary(other, lambda a, b: a - b, "subtract")

    def __rsub__(self, other: Any) -> Any:
        return self._binary(other, lambda a, b: b - a, "subtract")

    def __mul__(self, other: Any) -> Any:
        return self._binary(other, lambda a, b: a * b, "multiply")

    def __rmul__(self, other: Any) -> Any:
        return self._binary(other, lambda a, b: b * a, "multiply")

    def __truediv__(self, other: Any) -> Any:
        return self._binary(other, lambda a, b: a / b, "divide")


class Node:
    """One call of a layer on symbolic inputs: the layer, the call's arguments (with KerasTensors), outputs."""

    def __init__(self, layer: Any, call_args: tuple[Any, ...], call_kwargs: dict[str, Any]) -> None:
        self.layer = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs: Any = None

    def set_outputs(self, outputs: Any) -> None:
        self.outputs = outputs
        for i, t in enumerate(nest.flatten(outputs)):
            t._node = self
            t._output_index = i

    @property
    def input_tensors(self) -> list[KerasTensor]:
        return [x for x in nest.flatten((self.call_args, self.call_kwargs)) if isinstance(x, KerasTensor)]

    def run(self, values: dict[int, Any], training: bool | None = None) -> Any:
        """Calls the layer with each KerasTensor argument replaced by its value in `values` (id -> tensor)."""
        args, kwargs = nest.map_structure(lambda x: values[id(x)] if isinstance(x, KerasTensor) else x,
                                          (self.call_args, self.call_kwargs))
        kwargs = dict(kwargs)
        if training is not None and self.layer._call_has_training_arg and kwargs.get("training") is None:
            kwargs["training"] = training
        return self.layer(*args, **kwargs)


__all__ = ["KerasTensor", "Node"]
