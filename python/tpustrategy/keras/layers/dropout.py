"""``keras.layers.Dropout``: in training, zeroes each value with probability ``rate`` and scales the rest by
1 / (1 - rate); the identity in inference. The keep mask is drawn with the layer's seeded generator
(numpy Philox: deterministic for a seed, not TF's random stream)."""

from __future__ import annotations

import numpy as np

from tpustrategy import _core
from tpustrategy.keras._tensors import shape_of
from tpustrategy.keras.layers.layer import Layer
from tpustrategy.keras.random_seed import SeedGenerator


class Dropout(Layer):
    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(rate, int | float) or not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.rate = float(rate)
        self.noise_shape = noise_shape
        self.seed = seed
        self._seed_generator = SeedGenerator(seed)

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        shape = shape_of(inputs)
        noise_shape = shape if self.noise_shape is None else tuple(
            s if n is None else n for n, s in zip(self.noise_shape, shape, strict=True))
        keep = self._seed_generator.next().random(noise_shape) >= self.rate
        scale = np.where(keep, 1.0 / (1.0 - self.rate), 0.0).astype(np.dtype(inputs.dtype.name))
        return inputs * _core.tensor.convert_to_tensor(scale)
