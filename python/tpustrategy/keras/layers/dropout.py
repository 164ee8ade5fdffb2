"""``keras.layers.Dropout``: in training, zeroes each value with probability ``rate`` and scales the rest by
1 / (1 - rate); the identity in inference (and for rate 0; rate 1 gives zeros).

As Keras 3 on TensorFlow (``tf.nn.experimental.stateless_dropout``): the keep mask is ``u >= rate`` for
``u = tf.random.stateless_uniform(noise_shape, seed)``, with the seed pair from the layer's SeedGenerator
(``[seed, 0]``, ``[seed, 1]``, ... one per training call), so masks are TensorFlow's for the same seed.
Under a strategy each replica's call takes the next pair (replicas in order).
"""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.keras._tensors import shape_of
from tpustrategy.keras.layers.layer import Layer
from tpustrategy.keras.random_seed import SeedGenerator
from tpustrategy.ops import random_ops


class Dropout(Layer):
    """Zeroes random values in training and scales the rest up (the identity otherwise), with TensorFlow's
    masks for the same seed (see the module docstring).

    Args:
      rate: the probability that a value is dropped, in [0, 1].
      noise_shape: the shape of the keep mask, broadcast against the input; None entries take the input's
        size (default: the input's shape).
      seed: an int seed for the layer's seed generator (None: one drawn from Python's ``random``).

    Raises:
      ValueError: `rate` is not a number in [0, 1], or `seed` is not an int.
    """

    supports_masking = True

    def __init__(self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(rate, int | float) or not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.rate = float(rate)
        self.noise_shape = noise_shape
        self.seed = seed
        self._seed_generator = SeedGenerator(seed)

    def call(self, inputs: Any, training: bool = False) -> Any:
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return _core.ops.zeros(list(shape_of(inputs)), inputs.dtype)
        shape = shape_of(inputs)
        noise_shape = shape if self.noise_shape is None else tuple(
            s if n is None else n for n, s in zip(self.noise_shape, shape, strict=True))
        dtype = inputs.dtype
        kept = random_ops.stateless_uniform(noise_shape, self._seed_generator.next(), dtype=dtype) >= \
            _core.tensor.constant(self.rate, dtype)
        scaled = inputs * _core.tensor.constant(1.0 / (1.0 - self.rate), dtype)
        return _core.ops.where(kept, scaled, _core.ops.zeros([], dtype))
