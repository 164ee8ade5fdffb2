"""Keras 3's seeds: where an unseeded initializer's or layer's seed comes from, and ``SeedGenerator``.

As Keras 3 on TensorFlow: an unseeded initializer or Dropout takes ``random.randint(1, 10**9)`` from Python's
``random`` module when it is constructed (``keras.utils.set_random_seed`` seeds that module, numpy and
``tf.random``), and every draw is a TF stateless op on the seed pair ``[seed, counter]`` (each component
floor-modded by 2**31 - 2, as Keras' TF backend casts seeds to int32). So a program run after
``set_random_seed(s)`` builds the same weights and dropout masks as TensorFlow's Keras.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from tpustrategy.ops import random_ops

_INT32_MAX_MINUS_ONE = 2**31 - 2


def set_random_seed(seed: int) -> None:
    """Seeds Python's, numpy's and tf.random's global generators (``keras.utils.set_random_seed``)."""
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed!r} (of type {type(seed)})")
    random.seed(seed)
    np.random.seed(seed % (2**32))
    random_ops.set_seed(seed)


def make_default_seed() -> int:
    """The seed an unseeded initializer / SeedGenerator takes (Keras 3: from Python's ``random``)."""
    return random.randint(1, int(1e9))


def stateless_seed(seed: int, counter: int = 0) -> list[int]:
    """The int32 seed pair a TF stateless op receives for (seed, counter) (Keras' ``_cast_seed``)."""
    return [int(seed) % _INT32_MAX_MINUS_ONE, int(counter) % _INT32_MAX_MINUS_ONE]


class SeedGenerator:
    """A stream of stateless seeds (``keras.random.SeedGenerator``): ``next()`` returns ``[seed, k]`` for
    k = 0, 1, 2, ... (seed: the given one, else ``make_default_seed()``).

    Raises:
      ValueError: a seed that is not an integer.
    """

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self._seed, self._counter = seed, 0
        self.name = name or "seed_generator"

    def next(self) -> list[int]:
        pair = stateless_seed(self._seed, self._counter)
        self._counter += 1
        return pair

    def get_config(self) -> dict[str, Any]:
        return {"seed": self._initial_seed, "name": self.name}


__all__ = ["SeedGenerator", "make_default_seed", "set_random_seed", "stateless_seed"]
