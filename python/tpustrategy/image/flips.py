"""Image flips (tf.image.flip_* and their random forms) with TensorFlow's draws: the stateless forms take
``stateless_uniform`` under the given seed, the stateful ones ``tf.random.uniform`` under TF's seed rules, so the
same seeds flip the same images as in TF 2.21. A 3-D image flips when its draw is below 0.5; a batch flips
image i when round-half-even of draw i is 1, blended as ``flips * flipped + (1 - flips) * image`` like TF."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.ops import math_ops, random_ops
from tpustrategy.ops._args import TensorLike
from tpustrategy.ops.numpy_backed_ops import reverse

_ops = _core.ops
Tensor = _core.tensor.Tensor


def _image(image: TensorLike) -> Tensor:
    x = math_ops._tensor(image)
    shape = "(" + ", ".join(str(d) for d in x._shape_tuple) + ("," if x.ndim == 1 else "") + ")"
    if x.ndim < 3:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    if x.ndim > 4:
        raise ValueError(f"'image' (shape {shape}) must have either 3 or 4 dimensions.")
    return x


def _flip(image: TensorLike, index: int) -> Any:
    x = _image(image)
    return reverse(x, [index + x.ndim - 3])


def _random_flip(image: TensorLike, index: int, uniform: Callable[[list[int]], Any]) -> Any:
    x = _image(image)
    if x.ndim == 3:
        return reverse(x, [index]) if float(uniform([]).numpy()) < 0.5 else x
    batch = x._shape_tuple[0]
    draws = np.round(np.asarray(uniform([batch]).numpy(), np.float64)).reshape(batch, 1, 1, 1)
    flips = _core.tensor.constant(draws.astype(x.dtype.as_numpy_dtype), x.dtype)
    keep = _ops.subtract(_core.tensor.constant(1, x.dtype), flips)
    return _ops.add(_ops.multiply(flips, reverse(x, [index + 1])), _ops.multiply(keep, x))


def flip_left_right(image: TensorLike) -> Any:
    """`image` ([height, width, channels] or a batch) mirrored left to right (tf.image.flip_left_right)."""
    return _flip(image, 1)


def flip_up_down(image: TensorLike) -> Any:
    """`image` mirrored top to bottom (tf.image.flip_up_down)."""
    return _flip(image, 0)


def random_flip_left_right(image: TensorLike, seed: int | None = None) -> Any:
    """`image` (or each image of a batch) mirrored left to right with probability 1/2, TF's draws."""
    return _random_flip(image, 1, lambda shape: random_ops.uniform(shape, seed=seed))


def random_flip_up_down(image: TensorLike, seed: int | None = None) -> Any:
    """`image` (or each image of a batch) mirrored top to bottom with probability 1/2, TF's draws."""
    return _random_flip(image, 0, lambda shape: random_ops.uniform(shape, seed=seed))


def stateless_random_flip_left_right(image: TensorLike, seed: TensorLike) -> Any:
    """`image` mirrored left to right when the draw for `seed` says so (tf.image.stateless_random_flip_left_right)."""
    return _random_flip(image, 1, lambda shape: random_ops.stateless_uniform(shape, seed))


def stateless_random_flip_up_down(image: TensorLike, seed: TensorLike) -> Any:
    """`image` mirrored top to bottom when the draw for `seed` says so (tf.image.stateless_random_flip_up_down)."""
    return _random_flip(image, 0, lambda shape: random_ops.stateless_uniform(shape, seed))
