"""TF's random streams for tf.data (Dataset.shuffle, Dataset.random), number for number.

A random dataset's op takes (seed, seed2) by TF's seed rules (``tpustrategy.ops.random_ops.get_seed``; neither
seed set: fresh entropy). Each new iterator then gets its own pair: with reshuffling, TF's RandomSeedGenerator
hands out the next two 32-bit words of Philox(seed, seed2); without, the pair itself. The iterator draws the
32-bit words of Philox(its seed, its seed2) one at a time (TF's SingleSampleAdapter).
"""

from __future__ import annotations

import secrets

from tpustrategy.ops import random_ops


class IteratorSeeds:
    """The (seed, seed2) of each new iterator of one random dataset."""

    def __init__(self, seed: int | None, reshuffle: bool):
        first, second = random_ops.get_seed(seed)
        if first is None:
            first, second = secrets.randbits(63), secrets.randbits(63)
        assert second is not None  # get_seed gives both seeds or neither
        self._pair = (first, second)
        self._reshuffle = reshuffle
        self._count = 0

    def reset(self) -> None:
        self._count = 0

    def next(self) -> tuple[int, int]:
        if not self._reshuffle:
            return self._pair
        self._count += 1
        words = random_ops.philox_seeded(*self._pair).words(2 * self._count).numpy()
        return int(words[-2]), int(words[-1])


class Words:
    """The 32-bit words of TF's Philox(seed, seed2) stream, in order (fetched from the C++ kernel in chunks)."""

    _CHUNK = 1024  # words; a multiple of 4, so chunk i starts at block i * _CHUNK / 4

    def __init__(self, seed: int, seed2: int):
        self._start = random_ops.philox_seeded(seed, seed2)
        self._chunks = 0
        self._buffer: list[int] = []
        self._position = 0

    def next(self) -> int:
        if self._position == len(self._buffer):
            blocks = self._chunks * self._CHUNK // 4
            counter = random_ops._words(blocks, 2) + self._start.counter[2:]
            self._buffer = random_ops.Sampler(self._start.key, counter).words(self._CHUNK).numpy().tolist()
            self._chunks += 1
            self._position = 0
        word = self._buffer[self._position]
        self._position += 1
        return word
