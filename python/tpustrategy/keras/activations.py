"""``tf.keras.activations`` (Keras 3 formulas) and ``get(name_or_callable)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from tpustrategy import _core
from tpustrategy.keras._tensors import scalar, tensor


def relu(x: Any, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> Any:
    """Rectified linear unit, Keras 3's generalized form.

    Args:
        x: A tensor-like input.
        negative_slope: Slope applied to `x - threshold` where `x <= threshold` (0 zeroes those values).
        max_value: If given, the output is clipped to at most this value.
        threshold: Values above it pass through unchanged.

    Returns:
        A tensor of `x`'s shape and dtype.
    """
    x = tensor(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return _core.ops.relu(x)
    ops = _core.ops
    out = ops.where(ops.greater(x, scalar(threshold, x.dtype)), x,
                    (x - threshold) * scalar(negative_slope, x.dtype) if negative_slope else ops.zeros([], x.dtype))
    if max_value is not None:
        out = ops.minimum(out, scalar(max_value, x.dtype))
    return out


def linear(x: Any) -> Any:
    """Returns `x` unchanged (the identity activation, also what ``get(None)`` gives)."""
    return x


def sigmoid(x: Any) -> Any:
    """Elementwise logistic function 1 / (1 + exp(-x))."""
    return _core.ops.sigmoid(tensor(x))


def tanh(x: Any) -> Any:
    """Elementwise hyperbolic tangent."""
    return _core.ops.tanh(tensor(x))


def softmax(x: Any, axis: int = -1) -> Any:
    """Softmax along `axis` (the last by default): exp(x) normalized to sum to 1 there."""
    return _core.ops.softmax(tensor(x), axis)


def log_softmax(x: Any, axis: int = -1) -> Any:
    """Logarithm of ``softmax(x, axis)``, computed directly for numerical stability."""
    return _core.ops.log_softmax(tensor(x), axis)


def softplus(x: Any) -> Any:
    """log(1 + exp(x)), computed as relu(x) + log(1 + exp(-|x|)) so large inputs do not overflow."""
    x = tensor(x)
    ops = _core.ops
    return ops.relu(x) + ops.log(ops.exp(ops.negative(ops.abs(x))) + scalar(1.0, x.dtype))


def softsign(x: Any) -> Any:
    """Elementwise x / (|x| + 1)."""
    x = tensor(x)
    return x / (_core.ops.abs(x) + scalar(1.0, x.dtype))


def elu(x: Any, alpha: float = 1.0) -> Any:
    """Exponential linear unit: `x` where x > 0, else alpha * (exp(x) - 1)."""
    x = tensor(x)
    ops = _core.ops
    return ops.where(ops.greater(x, ops.zeros([], x.dtype)), x,
                     (ops.exp(ops.minimum(x, ops.zeros([], x.dtype))) - scalar(1.0, x.dtype)) * scalar(alpha, x.dtype))


def selu(x: Any) -> Any:
    """Scaled ELU with the fixed self-normalizing constants (alpha ≈ 1.6733, scale ≈ 1.0507)."""
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return elu(x, alpha) * scalar(scale, tensor(x).dtype)


def swish(x: Any) -> Any:
    """Elementwise x * sigmoid(x) (also reachable as ``silu``)."""
    x = tensor(x)
    return x * _core.ops.sigmoid(x)


silu = swish


def exponential(x: Any) -> Any:
    """Elementwise exp(x)."""
    return _core.ops.exp(tensor(x))


def hard_sigmoid(x: Any) -> Any:
    """relu6(x + 3) / 6 (Keras 3's definition)."""
    x = tensor(x)
    ops = _core.ops
    return ops.minimum(ops.relu(x + scalar(3.0, x.dtype)), scalar(6.0, x.dtype)) / scalar(6.0, x.dtype)


def relu6(x: Any) -> Any:
    """ReLU clipped at 6: min(max(x, 0), 6)."""
    x = tensor(x)
    return _core.ops.minimum(_core.ops.relu(x), scalar(6.0, x.dtype))


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    """`x` where x > 0, else x * negative_slope (Keras 3's default slope is 0.2)."""
    x = tensor(x)
    return _core.ops.where(_core.ops.greater(x, _core.ops.zeros([], x.dtype)), x, x * scalar(negative_slope, x.dtype))


def mish(x: Any) -> Any:
    """Elementwise x * tanh(softplus(x))."""
    x = tensor(x)
    return x * _core.ops.tanh(softplus(x))


_BY_NAME = {f.__name__: f for f in (relu, linear, sigmoid, tanh, softmax, log_softmax, softplus, softsign, elu, selu,
                                      swish, exponential, hard_sigmoid, relu6, leaky_relu, mish)}
_BY_NAME["silu"] = swish


def get(identifier: object) -> Callable[..., Any]:
    """The activation function for a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]
    if isinstance(identifier, str):
        from tpustrategy.keras.object_registration import get_registered_object

        found: Callable[..., Any] | None = get_registered_object(identifier)
        if found is not None:
            return found
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation: Callable[..., Any]) -> str:
    """The name Keras 3 writes: the built-in's name, or a registered function's "package>name"."""
    name = vars(activation).get("_keras_registered_name") or getattr(activation, "__name__", str(activation)) \
        if hasattr(activation, "__dict__") else getattr(activation, "__name__", str(activation))
    return cast(str, name)  # a function's __name__ or its registered name


__all__ = sorted(_BY_NAME) + ["get", "serialize"]
