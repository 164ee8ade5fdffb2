"""``tf.random``: stateful ops with TF's seed rules, stateless ops, and the seed bookkeeping they share.

Every op gives TensorFlow's own numbers: TF's Philox4x32-10 kernels (``_core.ops.philox_*``,
cpp/tpustrategy/ops/tf_philox_random.h and tf_philox_sampling.h) fed the key and counter TF would feed them.

* Stateful ops (``uniform``, ``normal``, ``truncated_normal``, ``categorical``, ``shuffle``): TF's seed rules
  pick (seed, seed2): ``tf.random.set_seed(s)`` then op seed None takes the next op seed from
  ``random.Random(s)`` (TF's eager context does the same); an op seed alone pairs with TF's default global seed
  (87654321); neither is fresh entropy. The key is the seed, the counter's high half seed2 and its low half the
  blocks earlier calls of the same kernel (same dtypes and seeds) reserved: TF keeps one generator per kernel, so
  a repeated explicit op seed continues the sequence, and ``set_seed`` restarts everything.
* Stateless ops depend only on their ``seed`` argument (shape [2]): TF's key and counter for the seed
  (StatelessRandomGetKeyCounter), then the same kernels.

``categorical`` follows TF's CPU kernel on one thread; TF splits big batches across threads, each shard with
its own stream offset, so calls large enough for TF to shard (thousands of rows x samples) can differ.
"""

from __future__ import annotations

import math
import numbers
import random
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import string_tensor
from tpustrategy.ops._args import Tensor, TensorLike, int_list

_ops = _core.ops
_DType = _core.tensor.DType
# A sampler's draws: floats(dims, dtype, distribution) and ints(dims, dtype, minval, maxval).
_DrawFloats = Callable[[list[int], _DType, str], Any]
_DrawInts = Callable[[list[int], _DType, int, int], Any]
DEFAULT_GRAPH_SEED = 87654321
_MASK64 = (1 << 64) - 1


_MAXINT32 = 2**31 - 1
_BLOCKS_RESERVED_PER_OUTPUT = 256  # TF's stateful kernels advance their Philox counter by this per output


class _SeedState:
    global_seed: int | None = None
    op_seeds = random.Random()
    # TF's stateful kernels: (kernel, dtype, seed, seed2) -> Philox blocks used so far
    kernels: dict[tuple[str, str, int, int], int] = {}


def set_seed(seed: int | None) -> None:
    """Sets the global random seed (tf.random.set_seed); None clears it. As TF's eager context: op seeds come
    from ``random.Random(seed)`` again and every op's sequence restarts, so the random ops that follow repeat
    exactly (and give TensorFlow's numbers)."""
    _SeedState.global_seed = None if seed is None else int(seed)
    _SeedState.op_seeds = random.Random(_SeedState.global_seed)
    _SeedState.kernels = {}


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """TF's (global seed, op seed) for an op given `op_seed` (tf.compat.v1.get_seed); (None, None) when neither
    seed is set. Without an op seed, the op takes the next ``randint(0, 2**31 - 1)`` of the global seed's
    Python generator, as TF's eager context does."""
    if _SeedState.global_seed is not None:
        if op_seed is None:
            op_seed = _SeedState.op_seeds.randint(0, _MAXINT32)
        seeds = _SeedState.global_seed % _MAXINT32, int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    else:
        return None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


class Sampler:
    """TF's Philox kernels at one (key, counter): key two 32-bit words, counter four, low first."""

    def __init__(self, key: Sequence[int], counter: Sequence[int]) -> None:
        self.key, self.counter = tuple(key), tuple(counter)

    def floats(self, dims: Any, dtype: Any, distribution: Any) -> Any:
        return _ops.philox_random_float(dims, dtype, distribution, self.key, self.counter)

    def ints(self, dims: Any, dtype: Any, minval: TensorLike, maxval: TensorLike) -> Any:
        return _ops.philox_random_int(dims, dtype, minval, maxval, self.key, self.counter)

    def full_ints(self, dims: Any, dtype: Any) -> Any:
        return _ops.philox_random_full_int(dims, dtype, self.key, self.counter)

    def words(self, count: int) -> Any:
        return _ops.philox_words(count, self.key, self.counter)

    def shuffled(self, x: Any, rows: Any) -> Any:
        """`x` with its `rows` first-axis rows permuted as TF's shuffle kernels do (rows <= 1: `x` itself)."""
        if rows <= 1:
            return x
        permutation = _ops.philox_shuffle_permutation(rows, self.key, self.counter)
        if isinstance(x, string_tensor.StringTensor):  # strings live on the host: permuted there
            return string_tensor.StringTensor(np.asarray(x.numpy())[np.asarray(permutation.numpy())])
        return _ops.gather(x, permutation, 0)

    def categorical(self, logits: TensorLike, num_samples: int, dtype: Any) -> Any:
        return _ops.philox_multinomial(logits, num_samples, dtype, self.key, self.counter)


def philox_seeded(seed: int, seed2: int) -> Sampler:
    """TF's PhiloxRandom(seed, seed2): the key is `seed`, the counter's high half `seed2`."""
    return Sampler(_words(seed, 2), (0, 0) + _words(seed2, 2))


def _stateful(op_seed: int | None, kernel: str, dtype: Any, outputs: int, blocks: int | None = None) -> Sampler:
    """One call of TF's stateful kernel `kernel` (RandomUniform, Multinomial, ...): Philox keyed by the global
    seed, its counter's high half the op seed and its low half the blocks earlier calls of the same kernel (same
    dtype and seeds) reserved. This call reserves `blocks` more (default 256 per output, as most kernels). No
    seed at all: fresh entropy, as TF."""
    seed, seed2 = get_seed(op_seed)
    used = 0
    if seed is None:  # fresh seeds are never seen again: nothing to remember (no growing table)
        seed, seed2 = secrets.randbits(63), secrets.randbits(63)
    else:
        assert seed2 is not None  # get_seed gives both seeds or neither
        name = (kernel, dtype.name if hasattr(dtype, "name") else _core.tensor.DType(dtype).name, seed, seed2)
        used = _SeedState.kernels.get(name, 0)
        _SeedState.kernels[name] = used + (outputs * _BLOCKS_RESERVED_PER_OUTPUT if blocks is None else blocks)
    return Sampler(_words(seed, 2), _words(used, 2) + _words(seed2, 2))


def _words(value: int, count: int) -> tuple[int, ...]:
    """`value` as `count` 32-bit words, low first (two's complement for negatives)."""
    return tuple((int(value) >> (32 * i)) & 0xFFFFFFFF for i in range(count))


def _shape(shape: TensorLike) -> list[int]:
    dims = int_list(shape, "shape")
    if any(d < 0 for d in dims):
        raise errors.InvalidArgumentError(None, None, f"Dimension -1 must be >= 0; shape {dims} is invalid")
    return dims


def _is_python_number(value: Any, target: int) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value == target


def _scaled(sample: Tensor, low_or_mean: TensorLike, scale: TensorLike, dtype: _DType, uniform: bool) -> Tensor:
    """sample * scale + offset (uniform: offset + sample * (maxval - minval)), skipping identities; tensors
    broadcast as in TF, and are differentiable."""
    if uniform:
        if _is_python_number(low_or_mean, 0) and _is_python_number(scale, 1):
            return sample
        low = _core.tensor.convert_to_tensor(low_or_mean, dtype)
        high = _core.tensor.convert_to_tensor(scale, dtype)
        return _ops.add(_ops.multiply(sample, _ops.subtract(high, low)), low)
    out = sample
    if not _is_python_number(scale, 1):
        out = _ops.multiply(out, _core.tensor.convert_to_tensor(scale, dtype))
    if not _is_python_number(low_or_mean, 0):
        out = _ops.add(out, _core.tensor.convert_to_tensor(low_or_mean, dtype))
    return out


def _int_bound(value: TensorLike, what: str) -> int:
    if isinstance(value, _core.tensor.Tensor):
        if value.ndim != 0:
            raise errors.InvalidArgumentError(None, None, f"{what} must be a scalar for integer uniform, got shape "
                                              f"{value._shape_tuple}")
        return int(value)
    return int(value)


def _uniform_from(shape: TensorLike, minval: TensorLike, maxval: TensorLike, dtype: Any, draw_float: _DrawFloats,
                  draw_int: _DrawInts) -> Any:
    """Uniform values from the samplers `draw_float(dims, dtype, distribution)` / `draw_int(dims, dtype, lo, hi)`."""
    dtype = _core.tensor.DType(dtype)
    dims = _shape(shape)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        return draw_int(dims, dtype, _int_bound(minval, "minval"), _int_bound(maxval, "maxval"))
    if not dtype.is_floating:
        raise ValueError(f"Invalid dtype {dtype!r}: random uniform needs a floating or integer dtype")
    return _scaled(draw_float(dims, dtype, "uniform"), minval, 1 if maxval is None else maxval, dtype, True)


def _float_dtype(dtype: object, what: str) -> _DType:
    dtype = _core.tensor.DType(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Invalid dtype {dtype!r} for {what}: a floating dtype is required")
    return dtype


def _normal_from(shape: TensorLike, mean: TensorLike, stddev: TensorLike, dtype: Any, truncated: bool,
                 draw_float: _DrawFloats) -> Tensor:
    dtype = _float_dtype(dtype, "truncated_normal" if truncated else "normal")
    sample = draw_float(_shape(shape), dtype, "truncated_normal" if truncated else "normal")
    return _scaled(sample, mean, stddev, dtype, False)


def _outputs(shape: TensorLike) -> int:
    return math.prod(_shape(shape))


def uniform(shape: TensorLike, minval: TensorLike = 0, maxval: TensorLike = None, dtype: Any = _core.tensor.float32,
            seed: int | None = None, name: str | None = None) -> Any:
    """Uniform values in [minval, maxval) (tf.random.uniform); integer dtypes need `maxval`. TF's numbers.

    Raises:
      ValueError: an integer dtype without maxval.
      InvalidArgumentError: minval >= maxval for integers, a negative dimension.
    """
    dtype = _core.tensor.DType(dtype)
    if dtype not in _UNIFORM_DTYPES[:6]:
        raise ValueError(f"Argument `dtype` got invalid value {_dtype_str(dtype)}. Accepted dtypes are "
                         f"{_dtypes_str(_UNIFORM_DTYPES[:6])}.")
    if dtype.is_integer and maxval is None:
        raise ValueError(f"Must specify maxval for integer dtype {_dtype_repr(dtype)}")
    kernel = _stateful(seed, "RandomUniformInt" if dtype.is_integer else "RandomUniform", dtype, _outputs(shape))
    return _uniform_from(shape, minval, maxval, dtype, kernel.floats, kernel.ints)


def normal(shape: TensorLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0, dtype: Any = _core.tensor.float32,
           seed: int | None = None, name: str | None = None) -> Any:
    """Normal values (tf.random.normal), TF's numbers."""
    kernel = _stateful(seed, "RandomStandardNormal", dtype, _outputs(shape))
    return _normal_from(shape, mean, stddev, dtype, False, kernel.floats)


def truncated_normal(shape: TensorLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                     dtype: Any = _core.tensor.float32, seed: int | None = None, name: str | None = None) -> Any:
    """Normal values redrawn until within 2 standard deviations of the mean (tf.random.truncated_normal), TF's
    numbers."""
    kernel = _stateful(seed, "TruncatedNormal", dtype, _outputs(shape))
    return _normal_from(shape, mean, stddev, dtype, True, kernel.floats)




def _dtype_repr(dtype: Any) -> str:
    return f"tf.{_core.tensor.DType(dtype).name}"


def _dtype_str(dtype: Any) -> str:
    return f"<dtype: '{_core.tensor.DType(dtype).name}'>"


def _dtypes_str(dtypes: Iterable[Any]) -> str:
    return "(" + ", ".join(_dtype_repr(d) for d in dtypes) + ")"


_t = _core.tensor
_UNIFORM_DTYPES = (_t.float16, _t.bfloat16, _t.float32, _t.float64, _t.int32, _t.int64, _t.uint32, _t.uint64)


def _as_tensor(value: TensorLike) -> Tensor:
    return value if isinstance(value, _core.tensor.Tensor) else _core.tensor.convert_to_tensor(value)


def _categorical_dtype(dtype: Any) -> _DType:
    out = _core.tensor.int64 if dtype is None else _core.tensor.DType(dtype)
    if out not in (_t.int32, _t.int64):
        raise ValueError(f"Argument `dtype` got invalid value {_dtype_str(out)}. Accepted dtypes are "
                         f"{_dtypes_str((_t.int32, _t.int64))}.")
    return out


def _categorical_blocks(logits: Tensor, num_samples: int) -> int:
    """The Philox blocks TF's Multinomial reserves: 256 per pair of words its CPU kernel may use (none when it
    rejects the input or has nothing to draw)."""
    dims: tuple[int, ...] = logits._shape_tuple
    if len(dims) != 2 or num_samples <= 0 or dims[0] == 0 or dims[1] <= 0 or not logits.dtype.is_floating:
        return 0
    return dims[0] * ((num_samples + 3) // 4 * 4) * 2 * _BLOCKS_RESERVED_PER_OUTPUT


def categorical(logits: TensorLike, num_samples: int, dtype: Any = None, seed: int | None = None,
                name: str | None = None) -> Any:
    """Class indices drawn from softmax(logits) per row (tf.random.categorical): [batch, num_samples], TF's
    numbers (see the module docstring on large batches).

    Raises:
      ValueError: `dtype` is not int32 / int64.
      InvalidArgumentError: logits not a matrix, num_samples < 0, zero classes.
    """
    x = _as_tensor(logits)
    out = _categorical_dtype(dtype)
    n = int(num_samples)
    kernel = _stateful(seed, f"Multinomial/{out.name}", x.dtype, 0, _categorical_blocks(x, n))
    return kernel.categorical(x, n, out)


def stateless_categorical(logits: TensorLike, num_samples: int, seed: TensorLike, dtype: Any = _core.tensor.int64,
                          name: str | None = None) -> Any:
    """Class indices determined by `seed` alone (tf.random.stateless_categorical), TF's numbers."""
    x = _as_tensor(logits)
    out = _categorical_dtype(dtype)
    return stateless_sampler(seed).categorical(x, int(num_samples), out)


def _shuffle_operand(value: TensorLike) -> Tensor | string_tensor.StringTensor:
    if string_tensor.is_string_value(value):
        return value if isinstance(value, string_tensor.StringTensor) else string_tensor.StringTensor(value)
    return _as_tensor(value)


def _shuffled_rows(x: Tensor | string_tensor.StringTensor) -> int:
    """The rows TF's shuffle kernels permute: none for a tensor of at most one element or row (returned as is)."""
    if x.ndim == 0 or math.prod(x._shape_tuple) <= 1:
        return 0
    return x._shape_tuple[0]


def shuffle(value: TensorLike, seed: int | None = None, name: str | None = None) -> Any:
    """`value` with its first dimension randomly permuted (tf.random.shuffle), TF's permutation; a scalar or
    single row comes back unchanged, as in TF."""
    x = _shuffle_operand(value)
    rows = _shuffled_rows(x)
    kernel = _stateful(seed, "RandomShuffle", x.dtype, 0, (rows + 2) // 4 if rows > 1 else 0)
    return kernel.shuffled(x, rows)


def stateless_shuffle(value: TensorLike, seed: TensorLike, alg: Any = "auto_select", name: str | None = None) -> Any:
    """`value` with its first dimension permuted as determined by `seed` (tf.random.experimental.stateless_shuffle)."""
    x = _shuffle_operand(value)
    return stateless_sampler(seed, alg).shuffled(x, _shuffled_rows(x))


def _stateless_seed(seed: TensorLike) -> tuple[int, int]:
    values = np.asarray(seed.numpy() if isinstance(seed, _core.tensor.Tensor) else seed)
    if values.shape != (2,):
        raise errors.InvalidArgumentError(None, None, f"seed must have shape [2], not {list(values.shape)}")
    if values.dtype.kind not in "iu":
        raise TypeError(f"seed must be int32 or int64, got {values.dtype}")
    return int(values[0]), int(values[1])


PHILOX, THREEFRY, AUTO_SELECT = 1, 2, 3


def unsupported_alg_error(alg: Any) -> ValueError:
    return ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                      "algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")


def convert_alg_to_int(alg: Any) -> int:
    """tf.random.Algorithm, its value or its name ("philox", "threefry", "auto_select") -> 1, 2 or 3."""
    if isinstance(alg, bool):
        raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")
    if isinstance(alg, int):
        return alg
    if hasattr(alg, "value") and isinstance(alg.value, int):  # tf.random.Algorithm
        return int(alg.value)
    if isinstance(alg, str):
        canonical = alg.strip().lower().replace("-", "").replace("_", "")
        names = {"philox": PHILOX, "threefry": THREEFRY, "autoselect": AUTO_SELECT}
        if canonical in names:
            return names[canonical]
        raise unsupported_alg_error(alg)
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def threefry_unsupported() -> errors.UnimplementedError:
    """What TF's CPU kernels raise for ThreeFry (only XLA implements it)."""
    return errors.UnimplementedError(None, None, "Non-XLA devices don't support the ThreeFry algorithm.")


def stateless_sampler(seed: TensorLike, alg: Any = "auto_select") -> Sampler:
    """TF's key and counter for a stateless seed pair: the pair scrambled through one Philox block, as TF does
    for "auto_select" and "philox" alike."""
    alg = convert_alg_to_int(alg)
    if alg == THREEFRY:
        raise threefry_unsupported()
    if alg not in (PHILOX, AUTO_SELECT):
        raise unsupported_alg_error(alg)
    key, counter = _ops.stateless_key_counter(*_stateless_seed(seed))
    return Sampler(key, counter)


def stateless_uniform(shape: TensorLike, seed: TensorLike, minval: TensorLike = 0, maxval: TensorLike = None,
                      dtype: Any = _core.tensor.float32, name: str | None = None, alg: Any = "auto_select") -> Any:
    """Uniform values determined by `seed` ([2] integers) alone (tf.random.stateless_uniform), TF's numbers;
    integer dtypes with minval = maxval = None cover the dtype's whole range.

    Raises:
      ValueError: a dtype TF does not accept, only one of minval / maxval for integers, an unsigned dtype with
        bounds.
    """
    dtype = _core.tensor.DType(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {_dtype_str(dtype)}. Accepted dtypes are "
                         f"{_dtypes_str(_UNIFORM_DTYPES)}.")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {_dtype_str(dtype)}, argument `minval` and `maxval` must "
                             f"be both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype in (_t.uint32, _t.uint64):
            raise ValueError(f"Argument `dtype` got invalid value {_dtype_str(dtype)} when argument `minval` is not "
                             "None. Please don't use unsigned integers in this case.")
    sampler = stateless_sampler(seed, alg)
    if dtype.is_integer and minval is None:
        return sampler.full_ints(_shape(shape), dtype)
    return _uniform_from(shape, minval, maxval, dtype, sampler.floats, sampler.ints)


def stateless_normal(shape: TensorLike, seed: TensorLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                     dtype: Any = _core.tensor.float32, name: str | None = None, alg: Any = "auto_select") -> Any:
    """Normal values determined by `seed` alone (tf.random.stateless_normal), TensorFlow's numbers."""
    return _normal_from(shape, mean, stddev, dtype, False, stateless_sampler(seed, alg).floats)


def stateless_truncated_normal(shape: TensorLike, seed: TensorLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                               dtype: Any = _core.tensor.float32, name: str | None = None,
                               alg: Any = "auto_select") -> Any:
    """Truncated normal values determined by `seed` alone (tf.random.stateless_truncated_normal), TensorFlow's
    numbers."""
    return _normal_from(shape, mean, stddev, dtype, True, stateless_sampler(seed, alg).floats)


def split(seed: TensorLike, num: int = 2, alg: Any = "auto_select") -> Any:
    """`num` new seeds from `seed` (tf.random.split): full-range integers of the seed's dtype, shape [num, 2]."""
    seed = _as_tensor(seed)
    return stateless_sampler(seed, alg).full_ints([int(num), 2], seed.dtype)


def fold_in(seed: TensorLike, data: TensorLike, alg: Any = "auto_select") -> Any:
    """A new seed [random, data] from `seed` and `data` (tf.random.fold_in), of `data`'s dtype."""
    data = _as_tensor(data)
    first = stateless_sampler(seed, alg).full_ints([], data.dtype)
    return _ops.stack([first, data], 0)
