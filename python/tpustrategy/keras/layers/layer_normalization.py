"""``keras.layers.LayerNormalization`` (Keras 3): each example normalised over ``axis`` (default the last),
then scaled by gamma and shifted by beta (per feature along ``axis``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.keras import constraints, initializers, regularizers
from tpustrategy.keras._tensors import shape_of
from tpustrategy.keras.layers.layer import Layer
from tpustrategy.keras.layers.normalization_utils import batch_normalization, moments, normalize_axes

if TYPE_CHECKING:
    from tpustrategy.ops._args import Tensor
    from tpustrategy.variables import Variable


class LayerNormalization(Layer):
    """Normalizes each example over `axis` with its own mean and variance, then applies gamma and beta;
    computes in float32 and returns the input's dtype.

    Args:
      axis: the axis or list of axes normalized over, which also give gamma's and beta's shape.
      epsilon: added to the variance before its square root.
      center, scale: whether to create and apply beta (an offset) and gamma (a factor).
      rms_scaling: not implemented; must stay False.
      *_initializer, *_regularizer, *_constraint: for gamma and beta (callables or names).

    Raises:
      NotImplementedError: ``rms_scaling=True``.
      ValueError: at build, an `axis` out of range for the input.
    """

    supports_masking = True

    def __init__(self, axis: int | list[int] = -1, epsilon: float = 1e-3, center: bool = True, scale: bool = True,
                 rms_scaling: bool = False, beta_initializer: Any = "zeros", gamma_initializer: Any = "ones",
                 beta_regularizer: Any = None, gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if rms_scaling:
            raise NotImplementedError("LayerNormalization(rms_scaling=True) is not implemented")
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        self._axes = normalize_axes(self.axis, rank, self.name)
        shape = tuple(input_shape[a] for a in self._axes)
        self.gamma = self.add_weight(autocast=False, name="gamma", shape=shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight(autocast=False, name="beta", shape=shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None
        self.built = True

    def _broadcast(self, variable: Variable | None, shape: Sequence[int]) -> Tensor | None:
        if variable is None:
            return None
        target = [shape[i] if i in self._axes else 1 for i in range(len(shape))]
        return _core.ops.reshape(variable._as_tensor(), target)

    def call(self, inputs: Any) -> Any:
        x = inputs if inputs.dtype == _core.tensor.float32 else _core.ops.cast(inputs, _core.tensor.float32)
        shape = shape_of(x)
        mean, variance = moments(x, self._axes)
        outputs = batch_normalization(x, mean, variance, self._broadcast(self.beta, shape),
                                      self._broadcast(self.gamma, shape), self.epsilon)
        return outputs if outputs.dtype == inputs.dtype else _core.ops.cast(outputs, inputs.dtype)
