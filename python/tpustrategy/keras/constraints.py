"""``tf.keras.constraints`` (Keras 3): projections applied to a variable after each optimizer update.

A layer's ``kernel_constraint`` (``bias_constraint``, ``embeddings_constraint``, ``beta/gamma_constraint``,
``depthwise_constraint``) is attached to the variable as ``variable.constraint``; the optimizer assigns
``constraint(variable)`` right after updating it (on every component of a distributed variable), as
Keras 3's optimizer does. Norms are taken over ``axis`` (0: each column of a Dense kernel), with Keras'
epsilon 1e-7 in the denominators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy import _core
from tpustrategy.keras._tensors import scalar, tensor
from tpustrategy.keras.naming import lookup
from tpustrategy.ops._args import TensorLike

_EPSILON = 1e-7


def _norms(w: TensorLike, axis: int | list[int] | tuple[int, ...]) -> _core.tensor.Tensor:
    axes = list(axis) if isinstance(axis, list | tuple) else [axis]
    return _core.ops.sqrt(_core.ops.reduce_sum(_core.ops.square(w), axis=axes, keepdims=True))


def _clip(x: TensorLike, low: TensorLike, high: TensorLike) -> _core.tensor.Tensor:
    return _core.ops.minimum(_core.ops.maximum(x, low), high)


class Constraint:
    """Base class: ``__call__(w)`` returns the projected value."""

    def __call__(self, w: Any) -> Any:
        """Returns `w` projected onto the constraint (the base class returns it unchanged).

        Args:
            w: The variable's new value (a tensor, variable or array).

        Returns:
            The value the optimizer assigns back to the variable.
        """
        return w

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments as a JSON-serializable dict (empty for the base class)."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Constraint:
        """Builds the constraint from a dict ``get_config`` returned."""
        return cls(**config)


class MaxNorm(Constraint):
    """Scales each slice whose norm exceeds ``max_value`` down to it: w * clip(n, 0, max) / (eps + n)."""

    def __init__(self, max_value: float = 2, axis: int | list[int] = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Any:
        w = tensor(w)
        norms = _norms(w, self.axis)
        desired = _clip(norms, scalar(0.0, w.dtype), scalar(self.max_value, w.dtype))
        return w * (desired / (scalar(_EPSILON, w.dtype) + norms))

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Zeroes the negative entries."""

    def __call__(self, w: Any) -> Any:
        w = tensor(w)
        return w * _core.ops.cast(_core.ops.greater_equal(w, scalar(0.0, w.dtype)), w.dtype)


class UnitNorm(Constraint):
    """Divides each slice by its norm: w / (eps + n)."""

    def __init__(self, axis: int | list[int] = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        w = tensor(w)
        return w / (scalar(_EPSILON, w.dtype) + _norms(w, self.axis))

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """w * (rate * clip(n, min, max) + (1 - rate) * n) / (eps + n)."""

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis: int | list[int] = 0) -> None:
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Any:
        w = tensor(w)
        norms = _norms(w, self.axis)
        clipped = _clip(norms, scalar(self.min_value, w.dtype), scalar(self.max_value, w.dtype))
        desired = scalar(self.rate, w.dtype) * clipped + scalar(1.0 - self.rate, w.dtype) * norms
        return w * (desired / (scalar(_EPSILON, w.dtype) + norms))

    def get_config(self) -> dict[str, Any]:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
_BY_NAME = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm}


def get(identifier: Any) -> Callable[..., Any] | None:
    """A constraint from None, a name ("non_neg", "NonNeg"), a config dict, an instance or a callable."""
    return lookup(identifier, Constraint, _BY_NAME, "constraint")


__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "get", "max_norm", "min_max_norm",
           "non_neg", "unit_norm"]
