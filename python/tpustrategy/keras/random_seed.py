"""Where unseeded Keras randomness comes from: one process-wide numpy Generator that
``tf.keras.utils.set_random_seed`` resets, so a seeded program builds the same weights every run.

Values are drawn with numpy's Philox generator: deterministic, but not TF's stateless Philox stream, so
the numbers differ from TensorFlow's for the same seed (the distributions and their parameters match).
"""

from __future__ import annotations

import numpy as np

_state = {"rng": np.random.default_rng()}


def set_random_seed(seed: int) -> None:
    """Seeds Python's, numpy's and Keras' global generators (``keras.utils.set_random_seed``)."""
    import random

    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed!r} (of type {type(seed)})")
    random.seed(seed)
    np.random.seed(seed % (2**32))
    _state["rng"] = np.random.Generator(np.random.Philox(seed))


def generator(seed=None) -> np.random.Generator:
    """A fresh generator for an explicit seed (same values on every call), else the global one."""
    if seed is None:
        return _state["rng"]
    if not isinstance(seed, int):
        raise ValueError(f"Argument `seed` must be an integer or None. Received: seed={seed!r}")
    return np.random.Generator(np.random.Philox(seed))


class SeedGenerator:
    """A stream of draws (``keras.random.SeedGenerator``): seeded streams repeat from construction."""

    def __init__(self, seed=None):
        self._rng = generator(seed) if seed is not None else np.random.Generator(
            np.random.Philox(int(generator().integers(0, 2**63 - 1))))

    def next(self) -> np.random.Generator:
        return self._rng
