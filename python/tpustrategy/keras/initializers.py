"""``tf.keras.initializers`` (Keras 3 formulas: VarianceScaling fans, truncation at two standard deviations).

An initializer called with ``(shape, dtype)`` returns a Tensor. The random ones draw with TF's stateless
ops on the seed pair ``[seed, 0]``, as Keras 3 on TensorFlow: with ``seed=`` an int every call returns the
same values; without, the seed is taken at construction from Python's ``random`` (random_seed.py), so after
``keras.utils.set_random_seed`` the values are TensorFlow's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.keras import random_seed
from tpustrategy.keras._tensors import as_dtype
from tpustrategy.keras.naming import lookup
from tpustrategy.ops import random_ops


def _np_dtype(dtype: Any) -> np.dtype[Any] | type[np.float32]:
    return np.dtype(as_dtype(dtype).name) if as_dtype(dtype).name != "bfloat16" else np.float32


def _as_tensor(array: np.ndarray[Any, Any], dtype: Any) -> _core.tensor.Tensor:
    dtype = as_dtype(dtype)
    t: _core.tensor.Tensor = _core.tensor.convert_to_tensor(np.ascontiguousarray(array.astype(_np_dtype(dtype))))
    return t if t.dtype == dtype else _core.ops.cast(t, dtype)


def _shape(shape: Any) -> tuple[int, ...]:
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"Initializer shape must be non-negative; received shape={dims}")
    return dims


class Initializer:
    """Base class: ``__call__(shape, dtype=None)`` returns a Tensor; ``get_config`` as Keras."""

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        """Returns a new tensor of initial values.

        Args:
            shape: The tensor's shape (a sequence of non-negative ints or a TensorShape).
            dtype: Its dtype (a DType or name); None is float32.

        Returns:
            A Tensor of `shape` and `dtype`.

        Raises:
            ValueError: If `shape` has a negative dimension.
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments as a JSON-serializable dict (empty for the base class)."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        """Builds the initializer from a ``get_config`` dict.

        Raises:
            ValueError: For a key the constructor does not take, unless it holds a neutral value (None, False).
        """
        from tpustrategy.keras.config_kwargs import constructor_kwargs  # lazy: drops Keras' unused None keys

        return cls(**constructor_kwargs(cls, config))

    def clone(self) -> Initializer:
        """A new initializer of the same class and config (same seed when one was given)."""
        return type(self).from_config(self.get_config())


class Constant(Initializer):
    """Fills the tensor with `value`, broadcast to the requested shape.

    Args:
        value: A scalar (or an array broadcastable to the shape) to fill with.
    """

    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return _as_tensor(np.broadcast_to(np.asarray(self.value), _shape(shape)), dtype)

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value}


class Zeros(Constant):
    """Fills the tensor with 0."""

    def __init__(self) -> None:
        super().__init__(0.0)

    def get_config(self) -> dict[str, Any]:
        return {}


class Ones(Constant):
    """Fills the tensor with 1."""

    def __init__(self) -> None:
        super().__init__(1.0)

    def get_config(self) -> dict[str, Any]:
        return {}


class _Random(Initializer):
    def __init__(self, seed: int | None = None) -> None:
        if seed is not None and not isinstance(seed, int):
            raise ValueError(f"`seed` argument should be an instance of `keras.random.SeedGenerator()` or an "
                             f"integer. Received: seed={seed!r}")
        self._init_seed = seed
        self.seed = seed if seed is not None else random_seed.make_default_seed()

    def _seed_pair(self) -> list[int]:
        return random_seed.stateless_seed(self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self._init_seed}


class RandomNormal(_Random):
    """Draws from a normal distribution (a TF stateless op, so a seed fixes the values).

    Args:
        mean: The distribution's mean.
        stddev: Its standard deviation.
        seed: An int; None takes one from Python's ``random`` at construction. Either way the seed is fixed
            then, so every call of one instance returns the same values.

    Raises:
        ValueError: If `seed` is neither None nor an int.
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return random_ops.stateless_normal(_shape(shape), self._seed_pair(), self.mean, self.stddev, as_dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self._init_seed}


class TruncatedNormal(RandomNormal):
    """Like RandomNormal, but every value lies within two standard deviations of the mean.

    Args:
        mean: The distribution's mean.
        stddev: The standard deviation before truncation.
        seed: An int, or None for one taken from Python's ``random`` at construction.

    Raises:
        ValueError: If `seed` is neither None nor an int.
    """

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return random_ops.stateless_truncated_normal(_shape(shape), self._seed_pair(), self.mean, self.stddev,
                                                     as_dtype(dtype))


class RandomUniform(_Random):
    """Draws uniformly from [minval, maxval) (a TF stateless op, so a seed fixes the values).

    Args:
        minval: The lower bound (included).
        maxval: The upper bound (excluded).
        seed: An int, or None for one taken from Python's ``random`` at construction.

    Raises:
        ValueError: If `seed` is neither None nor an int.
    """

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None) -> None:
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        return random_ops.stateless_uniform(_shape(shape), self._seed_pair(), self.minval, self.maxval,
                                            as_dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self._init_seed}


def compute_fans(shape: Sequence[int]) -> tuple[int, int]:
    """(fan_in, fan_out) as Keras: a kernel's last two axes, times the receptive field of the others."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(_Random):
    """Draws with a variance of scale / fan, the fan taken from the shape as Keras does.

    For a kernel the fans are its last two dimensions times the product of the others (the receptive field).

    Args:
        scale: The positive scaling factor.
        mode: Which fan divides it: "fan_in", "fan_out" or "fan_avg" (their mean).
        distribution: "truncated_normal" (truncated at two standard deviations, its stddev corrected so the
            variance holds), "untruncated_normal" or "uniform" (within +-sqrt(3 * variance)); any case.
        seed: An int, or None for one taken from Python's ``random`` at construction.

    Raises:
        ValueError: If `scale` is not positive, `mode` or `distribution` is not one of those, or `seed` is
            neither None nor an int.
    """

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal",
                 seed: int | None = None) -> None:
        super().__init__(seed)
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: expected one of ['fan_in', 'fan_out', 'fan_avg']. "
                             f"Received: mode={mode}")
        distribution = distribution.lower()
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("Invalid `distribution` argument: expected one of ['uniform', 'truncated_normal', "
                             f"'untruncated_normal']. Received: distribution={distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> Any:
        shape = _shape(shape)
        fan_in, fan_out = compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, fan)
        dtype, seed = as_dtype(dtype), self._seed_pair()
        if self.distribution == "truncated_normal":
            # 0.8796...: the stddev of a standard normal truncated to [-2, 2]
            return random_ops.stateless_truncated_normal(shape, seed, 0.0, math.sqrt(variance) / 0.87962566103423978,
                                                         dtype)
        if self.distribution == "untruncated_normal":
            return random_ops.stateless_normal(shape, seed, 0.0, math.sqrt(variance), dtype)
        limit = math.sqrt(3.0 * variance)
        return random_ops.stateless_uniform(shape, seed, -limit, limit, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self._init_seed}


def _variance_scaling(name: str, scale: float, mode: str, distribution: str) -> type[VarianceScaling]:
    class _Preset(VarianceScaling):
        def __init__(self, seed: int | None = None) -> None:
            super().__init__(scale, mode, distribution, seed)

        def get_config(self) -> dict[str, Any]:
            return {"seed": self._init_seed}

    _Preset.__name__ = _Preset.__qualname__ = name
    _Preset.__doc__ = (f"VarianceScaling(scale={scale}, mode={mode!r}, distribution={distribution!r}); its "
                       "only argument is `seed` (an int, or None for one drawn at construction).")
    return _Preset


GlorotUniform = _variance_scaling("GlorotUniform", 1.0, "fan_avg", "uniform")
GlorotNormal = _variance_scaling("GlorotNormal", 1.0, "fan_avg", "truncated_normal")
HeNormal = _variance_scaling("HeNormal", 2.0, "fan_in", "truncated_normal")
HeUniform = _variance_scaling("HeUniform", 2.0, "fan_in", "uniform")
LecunNormal = _variance_scaling("LecunNormal", 1.0, "fan_in", "truncated_normal")
LecunUniform = _variance_scaling("LecunUniform", 1.0, "fan_in", "uniform")

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal, "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "he_normal": HeNormal, "he_uniform": HeUniform, "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform, "variance_scaling": VarianceScaling,
}


def get(identifier: Any) -> Callable[..., Any] | None:
    """An initializer from a name ("glorot_uniform", "GlorotUniform"), an instance, a class or a callable."""
    return lookup(identifier, Initializer, _BY_NAME, "initializer")


__all__ = ["Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Initializer", "LecunNormal",
           "LecunUniform", "Ones", "RandomNormal", "RandomUniform", "TruncatedNormal", "VarianceScaling", "Zeros",
           "get"]
