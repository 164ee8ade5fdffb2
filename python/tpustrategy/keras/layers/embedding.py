"""``keras.layers.Embedding``: integer indices looked up in an (input_dim, output_dim) table.

The gradient of the lookup is an ``IndexedSlices`` (as TF's gather), which the Keras optimizers keep sparse as
Keras does (optimizers/sparse_math.py).
"""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.keras import constraints, initializers, regularizers
from tpustrategy.keras.layers.dense import _positive_int
from tpustrategy.keras.layers.layer import Layer
from tpustrategy.ops.gather_scatter_ops import gather


class Embedding(Layer):
    """Looks integer indices up in an (input_dim, output_dim) table; outputs come in the compute dtype.

    Args:
      input_dim: the vocabulary size (a positive int).
      output_dim: the size of each embedding vector (a positive int).
      embeddings_initializer, embeddings_regularizer, embeddings_constraint: for the table.
      mask_zero: whether index 0 is padding: the output mask is False where the input is 0.
      weights: initial values for the table, assigned when the layer is built.

    Raises:
      ValueError: `input_dim` or `output_dim` is not a positive int.
    """

    def __init__(self, input_dim: int, output_dim: int, embeddings_initializer: Any = "uniform",
                 embeddings_regularizer: Any = None, embeddings_constraint: Any = None, mask_zero: bool = False,
                 weights: Any = None, **kwargs: Any) -> None:
        kwargs.pop("input_length", None)
        super().__init__(**kwargs)
        self.input_dim = _positive_int(input_dim, "input_dim")
        self.output_dim = _positive_int(output_dim, "output_dim")
        self.embeddings_initializer = initializers.get(
            "random_uniform" if embeddings_initializer == "uniform" else embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self._initial_weights = weights
        self.autocast = False

    def build(self, input_shape: Any = None) -> None:
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim), name="embeddings",
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)

    def call(self, inputs: Any) -> Any:
        if not inputs.dtype.is_integer:
            inputs = _core.ops.cast(inputs, _core.tensor.int32)
        outputs = gather(self.embeddings, inputs)  # the table is not autocast: cast the rows (Keras 3)
        return outputs if outputs.dtype == self._compute_dtype else _core.ops.cast(outputs, self._compute_dtype)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not self.mask_zero:
            return None
        return _core.ops.not_equal(inputs, _core.ops.zeros([], inputs.dtype))
