"""``tf.keras.regularizers`` L1, L2, L1L2 (Keras 3 defaults: l1 = l2 = 0.01) and ``get``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy import _core
from tpustrategy.keras._tensors import scalar, tensor


def _validate(value: Any, name: str) -> float:
    if not isinstance(value, int | float) or value < 0:
        raise ValueError(f"Value for argument `{name}` must be a non-negative float. Received: {name}={value!r}")
    return float(value)


class Regularizer:
    """Base class of weight penalties: ``__call__(x)`` returns a scalar loss added to the model's losses."""

    def __call__(self, x: Any) -> Any:
        """The penalty for weight `x` as a scalar tensor (the base class always returns 0.0)."""
        return _core.tensor.constant(0.0, _core.tensor.float32)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments as a JSON-serializable dict (empty for the base class)."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Regularizer:
        """Builds the regularizer from a ``get_config`` dict.

        Raises:
            ValueError: For a key the constructor does not take, unless it holds a neutral value (None, False).
        """
        from tpustrategy.keras.config_kwargs import constructor_kwargs  # lazy: drops Keras' unused None keys

        return cls(**constructor_kwargs(cls, config))


class L1L2(Regularizer):
    """Sum of L1 and L2 penalties: l1 * sum(|x|) + l2 * sum(x^2).

    Args:
        l1: The L1 factor (default 0).
        l2: The L2 factor (default 0).

    Raises:
        ValueError: If a factor is not a non-negative int or float.
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1, self.l2 = _validate(l1, "l1"), _validate(l2, "l2")

    def __call__(self, x: Any) -> Any:
        x = tensor(x)
        total = _core.ops.zeros([], x.dtype)
        if self.l1:
            total = total + scalar(self.l1, x.dtype) * _core.ops.reduce_sum(_core.ops.abs(x))
        if self.l2:
            total = total + scalar(self.l2, x.dtype) * _core.ops.reduce_sum(_core.ops.square(x))
        return total

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """L1 penalty l1 * sum(|x|) (default factor 0.01).

    Raises:
        ValueError: If `l1` is not a non-negative int or float.
    """

    def __init__(self, l1: float = 0.01) -> None:
        super().__init__(l1=l1)

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1}


class L2(L1L2):
    """L2 penalty l2 * sum(x^2) (default factor 0.01; no 1/2 factor, as in Keras 3).

    Raises:
        ValueError: If `l2` is not a non-negative int or float.
    """

    def __init__(self, l2: float = 0.01) -> None:
        super().__init__(l2=l2)

    def get_config(self) -> dict[str, Any]:
        return {"l2": self.l2}


l1, l2, l1_l2 = L1, L2, L1L2


def get(identifier: object) -> Callable[..., Any] | None:
    """A regularizer from None, a name ("l1", "l2", "l1_l2", any case), a serialized dict, or a callable.

    Returns:
        A regularizer instance or the callable as given; None for None. A name builds the class with its defaults.

    Raises:
        ValueError: If the identifier is none of those (a class, for example).
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
        from tpustrategy.keras.saving.serialization_lib import deserialize_keras_object

        regularizer: Callable[..., Any] = deserialize_keras_object(identifier, printable_module_name="regularizer")
        return regularizer
    if isinstance(identifier, Regularizer) or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, str):
        found = {"l1": L1, "l2": L2, "l1_l2": L1L2, "l1l2": L1L2}.get(identifier.lower())
        if found is not None:
            return found()
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")


__all__ = ["L1", "L1L2", "L2", "Regularizer", "get", "l1", "l1_l2", "l2"]
