"""``tf.random.Generator``: TF's stateful generator, number for number.

The state is a non-trainable int64 Variable laid out as TF's: Philox [counter low 64 bits, counter high 64
bits, key], ThreeFry [counter, key]. ``from_seed(s)`` writes the seed's 64-bit chunks low first (padding a
short list of seeds with zeros on the left), so ``from_seed(1234)`` is [1234, 0, 0]. A draw of n values reads
the state, advances the 128-bit counter by 256 * n modulo 2**64 (TF's RngReadAndSkip) and hands the old key
and counter to TF's stateless Philox kernels; ``skip(n)`` advances the same way. ``split`` and ``make_seeds`` draw
full-range int64 keys. ThreeFry generators are built with TF's state, but drawing from one raises
UnimplementedError, as TF's CPU kernels do.

Not built: ``binomial``; the per-replica keys TF derives when a generator made outside a strategy is used in
``strategy.run`` (here every replica draws from the one state).
"""

from __future__ import annotations

import enum
import math
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.ops import random_ops
from tpustrategy.ops._args import TensorLike, int_list
from tpustrategy.variables import Variable

_MASK64 = (1 << 64) - 1
_BLOCKS_PER_VALUE = 256  # TF's RngReadAndSkip advances the counter by this per value drawn
_STATE_SIZE = {random_ops.PHILOX: 3, random_ops.THREEFRY: 2, random_ops.AUTO_SELECT: 3}


class Algorithm(enum.Enum):
    """tf.random.Algorithm."""

    PHILOX = random_ops.PHILOX
    THREEFRY = random_ops.THREEFRY
    AUTO_SELECT = random_ops.AUTO_SELECT


def _state_size(alg: int) -> int:
    if alg not in _STATE_SIZE:
        raise random_ops.unsupported_alg_error(alg)
    return _STATE_SIZE[alg]


def _signed(value: int) -> int:
    value &= _MASK64
    return value - (1 << 64) if value >= 1 << 63 else value


def _int_values(value: Any) -> list[int]:
    if isinstance(value, list | tuple) and all(isinstance(v, int) for v in value):
        return [_signed(v) for v in value]  # numpy would turn [7, 2**63] into floats
    if hasattr(value, "numpy"):
        value = value.numpy()
    array = np.asarray(value)
    if array.dtype.kind not in "iuO" and array.size:
        raise TypeError(f"a random generator state or seed must be integers, got {array.dtype}")
    return [_signed(int(v)) for v in array.reshape(-1)]


def create_rng_state(seed: Any, alg: Any) -> _core.tensor.Tensor:
    """The state ``from_seed(seed, alg)`` starts from (tf.random.create_rng_state): an int64 vector."""
    size = _state_size(random_ops.convert_alg_to_int(alg))
    if isinstance(seed, int):
        chunks = []
        for _ in range(size):  # Python ints are unbounded: chop into 64-bit chunks, low first
            chunks.append(_signed(seed))
            seed >>= 64
        values = chunks
    else:
        values = _int_values(seed)[:size]
    values = [0] * (size - len(values)) + values  # left: a short seed must not land in the counter alone
    state: _core.tensor.Tensor = _core.tensor.constant(values, _core.tensor.int64)
    return state


def _check_state_shape(count: int, alg: int) -> None:
    size = _state_size(alg)
    if count != size:
        raise ValueError(f"Shapes ({count},) and [{size}] are incompatible")


class Generator:
    """A random generator with its own state (tf.random.Generator). Build it with ``from_seed``,
    ``from_non_deterministic_state``, ``from_state`` or ``from_key_counter``."""

    def __init__(self, copy_from: Generator | None = None, state: Any = None, alg: Any = None) -> None:
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("Generator(copy_from=...) takes neither state nor alg")
            if not isinstance(copy_from, Generator):
                raise TypeError(f"copy_from must be a tf.random.Generator, got {type(copy_from).__name__}")
            self._alg = copy_from.algorithm
            self._state_var = self._new_variable(_int_values(copy_from.state))
            return
        if alg is None or state is None:
            # TF asserts here; bad input gets a typed error in this project
            raise ValueError("Generator needs state and alg together (or copy_from); use Generator.from_seed(...)")
        self._alg = random_ops.convert_alg_to_int(alg)
        if isinstance(state, Variable) or type(state).__name__ in ("MirroredVariable", "SyncOnReadVariable"):
            _check_state_shape(math.prod(state.shape.as_list()), self._alg)
            self._state_var = state
        else:
            values = _int_values(state)
            _check_state_shape(len(values), self._alg)
            self._state_var = self._new_variable(values)

    @staticmethod
    def _new_variable(values: Sequence[int]) -> Variable:
        return Variable(_core.tensor.constant(values, _core.tensor.int64), trainable=False, name="StateVar")

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> Generator:
        """A generator starting from `state` (see the module docstring for the layout)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        """A generator whose sequence depends only on `seed` (an int or a vector of ints)."""
        alg = random_ops.PHILOX if alg is None else random_ops.convert_alg_to_int(alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """A generator seeded from the operating system's entropy."""
        alg = random_ops.PHILOX if alg is None else random_ops.convert_alg_to_int(alg)
        return cls(state=[_signed(secrets.randbits(64)) for _ in range(_state_size(alg))], alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> Generator:
        """A generator with state counter + [key]."""
        alg = random_ops.convert_alg_to_int(alg)
        return cls(state=cls._key_counter_state(key, counter, alg), alg=alg)

    @staticmethod
    def _key_counter_state(key: Any, counter: Any, alg: int) -> list[int]:
        counter_values = _int_values(counter)
        if len(counter_values) != _state_size(alg) - 1:
            raise ValueError(f"Shapes ({len(counter_values)},) and [{_state_size(alg) - 1}] are incompatible")
        key_values = _int_values(key)
        if len(key_values) != 1 or np.ndim(key.numpy() if hasattr(key, "numpy") else key) != 0:
            raise ValueError(f"Shapes ({len(key_values)},) and [] are incompatible")
        return counter_values + key_values

    @property
    def state(self) -> Variable:
        """The state Variable (int64)."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        """The algorithm id: 1 Philox, 2 ThreeFry, 3 auto-select (Philox here)."""
        return self._alg

    @property
    def key(self) -> _core.tensor.Tensor:
        """The key: the state's last element."""
        key: _core.tensor.Tensor = _core.tensor.constant(self._values()[-1], _core.tensor.int64)
        return key

    def _values(self) -> list[int]:
        return [int(v) & _MASK64 for v in np.asarray(self._state_var.numpy()).reshape(-1)]

    def _assign(self, values: Sequence[int]) -> None:
        self._state_var.assign(_core.tensor.constant([_signed(v) for v in values], _core.tensor.int64))

    def reset(self, state: Any) -> None:
        """Sets the state (a vector of the algorithm's state size)."""
        values = _int_values(state)
        _check_state_shape(len(values), self._alg)
        self._assign(values)

    def reset_from_seed(self, seed: Any) -> None:
        """Sets the state ``from_seed(seed)`` would start from."""
        self._assign(_int_values(create_rng_state(seed, self._alg)))

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        """Sets the state to counter + [key]."""
        self._assign(self._key_counter_state(key, counter, self._alg))

    def skip(self, delta: int) -> _core.tensor.Tensor:
        """Advances the counter as drawing `delta` values would; returns the state before (TF's RngReadAndSkip)."""
        before: _core.tensor.Tensor = _core.tensor.constant([_signed(v) for v in self._read_and_skip(int(delta))],
                                                            _core.tensor.int64)
        return before

    def _read_and_skip(self, delta: int) -> list[int]:
        if self._alg == random_ops.THREEFRY:
            raise random_ops.threefry_unsupported()
        old = self._values()
        counter = _philox_skip(random_ops._words(old[0], 2) + random_ops._words(old[1], 2),
                               (delta * _BLOCKS_PER_VALUE) & _MASK64)
        self._assign([counter[0] | (counter[1] << 32), counter[2] | (counter[3] << 32), old[2]])
        return old

    def _sampler(self, shape: TensorLike) -> random_ops.Sampler:
        """The kernels at the counter a draw of `shape` gets (the state advances first, even for a shape the kernel
        then rejects, as in TF)."""
        old = self._read_and_skip(math.prod(int_list(shape, "shape")))
        words = random_ops._words
        return random_ops.Sampler(words(old[2], 2), words(old[0], 2) + words(old[1], 2))

    def normal(self, shape: TensorLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
               dtype: Any = _core.tensor.float32, name: str | None = None) -> Any:
        """Normal values, TF's numbers."""
        dtype = _float_dtype(dtype, mean)
        return random_ops._normal_from(shape, mean, stddev, dtype, False, self._sampler(shape).floats)

    def truncated_normal(self, shape: TensorLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                         dtype: Any = _core.tensor.float32, name: str | None = None) -> Any:
        """Normal values within 2 standard deviations of the mean, TF's numbers."""
        dtype = _float_dtype(dtype, mean)
        return random_ops._normal_from(shape, mean, stddev, dtype, True, self._sampler(shape).floats)

    def uniform(self, shape: TensorLike, minval: TensorLike = 0, maxval: TensorLike = None,
                dtype: Any = _core.tensor.float32, name: str | None = None) -> Any:
        """Uniform values in [minval, maxval), TF's numbers. Integer dtypes need both bounds, or neither for the
        whole range.

        Raises:
          ValueError: an integer dtype with only one bound.
          InvalidArgumentError: minval >= maxval for integers.
        """
        dtype = _core.tensor.DType(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {random_ops._dtype_str(dtype)}, minval and maxval must be both "
                                 f"`None` or both non-`None`; got minval={minval} and maxval={maxval}")
            if minval is None:
                return self.uniform_full_int(shape, dtype)
        sampler = self._sampler(shape)
        return random_ops._uniform_from(shape, minval, maxval, dtype, sampler.floats, sampler.ints)

    def uniform_full_int(self, shape: TensorLike, dtype: Any = _core.tensor.uint64, name: str | None = None) -> Any:
        """Integers over the whole range of int32 / int64 / uint32 / uint64, TF's numbers."""
        return self._sampler(shape).full_ints(random_ops._shape(shape), _core.tensor.DType(dtype))

    def make_seeds(self, count: int = 1) -> Any:
        """[2, count] int64 seeds for the stateless ops: full-range keys over a row of zeros."""
        keys = self.uniform_full_int([int(count)], _core.tensor.int64)
        return _core.ops.stack([keys, _core.ops.zeros([int(count)], _core.tensor.int64)], 0)

    def split(self, count: int = 1) -> list[Generator]:
        """`count` new generators, each with a full-range int64 key and a zero counter (this one advances)."""
        keys = self.uniform_full_int([int(count)], _core.tensor.int64).numpy()
        size = _state_size(self._alg)
        return [Generator(state=[0] * (size - 1) + [int(k)], alg=self._alg) for k in keys]


def _philox_skip(counter: tuple[int, ...], count: int) -> list[int]:
    """TF's PhiloxRandom::Skip(count) on four 32-bit counter words: a 128-bit add, except that a carry out of the
    low word into a high half of all ones is lost (TF's arithmetic, kept for equal states)."""
    words = list(counter)
    low, high = count & 0xFFFFFFFF, count >> 32
    words[0] = (words[0] + low) & 0xFFFFFFFF
    if words[0] < low:
        high = (high + 1) & 0xFFFFFFFF
    words[1] = (words[1] + high) & 0xFFFFFFFF
    if words[1] < high:
        words[2] = (words[2] + 1) & 0xFFFFFFFF
        if words[2] == 0:
            words[3] = (words[3] + 1) & 0xFFFFFFFF
    return words


def _float_dtype(dtype: object, mean: Any) -> _core.tensor.DType:
    dtype = _core.tensor.DType(dtype)
    if not dtype.is_floating:  # TF fails converting the mean to the dtype, before drawing
        raise TypeError(f"Cannot convert {mean!r} to EagerTensor of dtype {dtype.name}")
    return dtype


_global_generator: list[Generator] = []


def get_global_generator() -> Generator:
    """The process-wide generator (created from entropy on first use)."""
    if not _global_generator:
        _global_generator.append(Generator.from_non_deterministic_state())
    return _global_generator[0]


def set_global_generator(generator: Generator) -> None:
    """Replaces the process-wide generator."""
    _global_generator[:] = [generator]
