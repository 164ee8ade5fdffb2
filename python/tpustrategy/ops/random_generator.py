"""``tf.random.Generator``: an explicit random state (key, counter). Each draw uses the current counter as
the Philox stream and advances it, so a generator made ``from_seed(s)`` repeats its sequence exactly; the
numbers are not TF's (see random_ops)."""

from __future__ import annotations

import secrets

from tpustrategy import _core
from tpustrategy.ops import random_ops

_MASK64 = (1 << 64) - 1
PHILOX = 1  # tf.random.Algorithm.PHILOX's value


class Generator:
    """A random generator with its own state (tf.random.Generator). Build it with ``from_seed``,
    ``from_non_deterministic_state`` or ``from_state``."""

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if not isinstance(copy_from, Generator):
                raise TypeError(f"copy_from must be a Generator, got {type(copy_from).__name__}")
            self._key, self._counter = copy_from._key, copy_from._counter
        elif state is not None:
            self._set_state(state)
        else:
            raise ValueError("Generator needs copy_from or state; use Generator.from_seed(...) or "
                             "Generator.from_non_deterministic_state()")
        self._alg = PHILOX

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose sequence depends only on `seed` (an int)."""
        return cls(state=[0, 0, random_ops.key_of(int(seed), 0)], alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        return cls(state=[0, 0, secrets.randbits(63)], alg=alg)

    @classmethod
    def from_state(cls, state, alg=None):
        """A generator with the given [counter, 0, key] state (as returned by ``state``)."""
        return cls(state=state, alg=alg)

    def _set_state(self, state):
        try:
            values = [int(v) for v in (state.numpy() if hasattr(state, "numpy") else state)]
        except TypeError:
            raise TypeError(f"a generator state must be 3 integers, got {state!r}") from None
        if len(values) != 3:
            raise ValueError(f"a Philox generator state has 3 elements, got {len(values)}")
        self._counter, self._key = values[0] & _MASK64, values[2] & _MASK64

    @property
    def state(self):
        """[counter, 0, key] as an int64 tensor (a snapshot)."""
        as_signed = [v - (1 << 64) if v >= (1 << 63) else v for v in (self._counter, 0, self._key)]
        return _core.tensor.constant(as_signed, _core.tensor.int64)

    @property
    def algorithm(self):
        return self._alg

    def _next(self):
        stream = self._counter
        self._counter = (self._counter + 1) & _MASK64
        return self._key, stream

    def reset(self, state):
        self._set_state(state)

    def reset_from_seed(self, seed):
        self._key, self._counter = random_ops.key_of(int(seed), 0), 0

    def skip(self, delta):
        self._counter = (self._counter + int(delta)) & _MASK64

    def uniform(self, shape, minval=0, maxval=None, dtype=_core.tensor.float32, name=None):
        """Uniform values in [minval, maxval); integer dtypes need `maxval`."""
        key, stream = self._next()
        return random_ops._uniform(shape, minval, maxval, dtype, key, stream)

    def uniform_full_int(self, shape, dtype=_core.tensor.int64, name=None):
        """Integers over the full range of int32 / int64."""
        dtype = _core.tensor.DType(dtype)
        bits = 32 if dtype == _core.tensor.int32 else 64
        key, stream = self._next()
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return _core.ops.random_int(random_ops._shape(shape), dtype, low, high, key, stream)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_core.tensor.float32, name=None):
        """Normal values."""
        key, stream = self._next()
        return random_ops._normal(shape, mean, stddev, dtype, key, stream, False)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_core.tensor.float32, name=None):
        """Normal values within 2 standard deviations of the mean."""
        key, stream = self._next()
        return random_ops._normal(shape, mean, stddev, dtype, key, stream, True)

    def make_seeds(self, count=1):
        """[2, count] int64 seeds for the stateless ops."""
        key, stream = self._next()
        return _core.ops.random_int([2, int(count)], _core.tensor.int64, -(1 << 62), 1 << 62, key, stream)

    def split(self, count=1):
        """`count` new generators with independent sequences (this one's state advances)."""
        seeds = self.make_seeds(count).numpy()
        return [Generator(state=[0, 0, random_ops.key_of(int(seeds[0, i]), int(seeds[1, i]))])
                for i in range(int(count))]


_global_generator: list[Generator] = []


def get_global_generator():
    """The process-wide generator (created from entropy on first use)."""
    if not _global_generator:
        _global_generator.append(Generator.from_non_deterministic_state())
    return _global_generator[0]


def set_global_generator(generator):
    """Replaces the process-wide generator."""
    _global_generator[:] = [generator]
