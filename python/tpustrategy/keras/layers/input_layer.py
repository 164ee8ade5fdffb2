"""``keras.Input`` and ``keras.layers.InputLayer``: the source of a functional graph (Keras 3)."""

from __future__ import annotations

from typing import Any

from tpustrategy.keras.layers.keras_tensor import KerasTensor, Node
from tpustrategy.keras.layers.layer import Layer


class InputLayer(Layer):
    """Holds the KerasTensor a functional model starts from.

    Args:
      shape: the shape without the batch dimension; batch_shape: the full shape (not both).

    Raises:
      ValueError: both or neither of ``shape`` and ``batch_shape`` given.
    """

    def __init__(self, shape: tuple[int | None, ...] | None = None, batch_size: int | None = None, dtype: Any = None,
                 sparse: bool | None = None, batch_shape: tuple[int | None, ...] | None = None,
                 input_tensor: Any = None, optional: bool = False, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        if shape is not None and batch_shape is not None:
            raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
        if shape is None and batch_shape is None and input_tensor is None:
            raise ValueError("You must pass a `shape` argument.")
        if input_tensor is not None:
            batch_shape = input_tensor.shape
        elif batch_shape is None:
            if isinstance(shape, int):
                shape = (shape,)
            assert shape is not None  # checked above
            batch_shape = (batch_size,) + tuple(shape)
        self._batch_shape = tuple(batch_shape)
        self._input_dtype = getattr(dtype, "name", dtype) or "float32"
        self.sparse = bool(sparse)
        self.optional = optional
        self.built = True
        output = KerasTensor(self._batch_shape, self._input_dtype, name=self.name)
        node = Node(self, (), {})
        node.set_outputs(output)
        self._inbound_nodes.append(node)
        self.output_tensor = output
        self._output_shape_seen = self._batch_shape

    @property
    def batch_shape(self) -> tuple[int | None, ...]:
        """The input's full shape, batch dimension first (None where unknown)."""
        return self._batch_shape

    def call(self, inputs: Any = None) -> Any:
        return inputs

    def get_config(self) -> dict[str, Any]:
        return {"batch_shape": list(self._batch_shape), "dtype": self._input_dtype, "sparse": self.sparse,
                "ragged": False, "name": self.name, "optional": self.optional}


def Input(shape: tuple[int | None, ...] | None = None, batch_size: int | None = None, dtype: Any = None,
          sparse: bool | None = None, batch_shape: tuple[int | None, ...] | None = None, name: str | None = None,
          tensor: Any = None, optional: bool = False) -> KerasTensor:
    """A symbolic input: ``keras.Input(shape=(784,))`` (the batch dimension is added, unknown)."""
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse, batch_shape=batch_shape,
                       input_tensor=tensor, optional=optional, name=name)
    return layer.output_tensor


__all__ = ["Input", "InputLayer"]
