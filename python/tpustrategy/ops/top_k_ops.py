"""``tf.math.top_k`` (C++ kernel, gradient recorded: the values' gradient is scattered back to the chosen
positions) and ``tf.math.in_top_k``."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import static_shape
from tpustrategy.ops._args import axis_int

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = _core.tensor.int32,  # noqa: A002
          name: str | None = None) -> Any:
    """The `k` largest entries of the last axis in descending order (ties: lower index first) and their
    indices (tf.math.top_k). `sorted=False` also returns them sorted (TF leaves the order unspecified). NaN ranks
    above every number (TF places NaNs by its heap's comparisons; that order is not reproduced).

    Raises:
      InvalidArgumentError: a scalar input, k < 0, or k greater than the last dimension.
    """
    values, indices = _core.ops.top_k(input, axis_int(k, "k"), index_type=_core.tensor.DType(index_type))
    if isinstance(input, _core.tensor.Tensor):
        static_shape.note_top_k((values, indices), input, axis_int(k, "k"))
    return TopKV2(values, indices)


def in_top_k(targets: Any, predictions: Any, k: Any, name: str | None = None) -> Any:
    """Whether each target's prediction is among the `k` largest of its row (tf.math.in_top_k): true when
    fewer than k predictions are strictly larger (so ties at the boundary all count), false for a
    non-finite target prediction or an out-of-range target.

    Raises:
      InvalidArgumentError: predictions not a matrix, or targets not a vector of its rows.
    """
    p = np.asarray(predictions if not isinstance(predictions, _core.tensor.Tensor) else predictions.numpy())
    t = np.asarray(targets if not isinstance(targets, _core.tensor.Tensor) else targets.numpy())
    if p.ndim != 2:
        raise errors.InvalidArgumentError(None, None, f"predictions must be 2-dimensional, got shape {list(p.shape)}")
    if t.ndim != 1 or t.shape[0] != p.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"First dimension of predictions {p.shape[0]} must match length of targets {t.shape}")
    if t.dtype.kind not in "iu":
        raise TypeError(f"targets must be int32 or int64, got {t.dtype}")
    k = axis_int(k, "k")
    classes = p.shape[1]
    valid = (t >= 0) & (t < classes)
    safe = np.where(valid, t, 0)
    target_pred = p[np.arange(p.shape[0]), safe]
    larger = (p > target_pred[:, None]).sum(axis=1)
    result = valid & np.isfinite(target_pred) & (larger < k)
    return _core.tensor.constant(result, _core.tensor.bool)
