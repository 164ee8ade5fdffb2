"""``tf.nn.compute_average_loss`` / ``scale_regularization_loss``: per-replica shares of global losses, as TF 2.21."""

from __future__ import annotations

from typing import Any

import numpy as np

from tpustrategy import _core


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None) -> Any:
    """sum(per_example_loss * sample_weight) / global_batch_size.

    Without ``global_batch_size`` it is the per-replica batch (first dimension) times the number of
    replicas in sync of the current strategy (1 without one).

    Raises:
      ValueError: a scalar ``per_example_loss``, or a ``global_batch_size`` that is not a positive integer scalar.
      RuntimeError: called in cross-replica context of a strategy without ``global_batch_size``.
    """
    from tpustrategy.distribute import distribution_strategy_context as ds_context

    loss = per_example_loss._as_tensor() if hasattr(per_example_loss, "_as_tensor") else per_example_loss
    loss = loss if isinstance(loss, _core.tensor.Tensor) else _core.tensor.convert_to_tensor(loss)
    input_dtype = loss.dtype
    if loss.ndim == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1.")
    if sample_weight is not None:
        weight = (sample_weight if isinstance(sample_weight, _core.tensor.Tensor)
                  else _core.tensor.convert_to_tensor(sample_weight))
        loss = loss * _core.ops.cast(weight, input_dtype)
    if global_batch_size is None:
        if ds_context.has_strategy() and ds_context.in_cross_replica_context():
            raise RuntimeError("You are calling `compute_average_loss` in cross replica context, while it was "
                               "expected to be called in replica context.")
        num_replicas = ds_context.get_strategy().num_replicas_in_sync
        global_batch_size = loss._shape_tuple[0] * num_replicas
    value = np.asarray(global_batch_size)
    if value.ndim != 0:
        raise ValueError("global_batch_size must be scalar.")
    if not np.issubdtype(value.dtype, np.integer):
        raise ValueError("global_batch_size must be an integer.")
    if value <= 0:
        raise ValueError("global_batch_size must be positive.")
    return _core.ops.reduce_sum(loss) / _core.tensor.constant(float(value), input_dtype)


def scale_regularization_loss(regularization_loss: Any) -> Any:
    """sum(regularization_loss) / num_replicas_in_sync, so that summing over replicas gives the loss once.

    Raises:
      RuntimeError: called in cross-replica context of a strategy.
    """
    from tpustrategy.distribute import distribution_strategy_context as ds_context

    if ds_context.has_strategy() and ds_context.in_cross_replica_context():
        raise RuntimeError("You are calling `scale_regularization_loss` in cross replica context, while it was "
                           "expected to be called in replica context.")
    num_replicas = ds_context.get_strategy().num_replicas_in_sync
    losses = regularization_loss
    if isinstance(losses, list | tuple):
        losses = _core.ops.stack([_core.tensor.convert_to_tensor(x) if not isinstance(x, _core.tensor.Tensor) else x
                                  for x in losses], 0)
    elif not isinstance(losses, _core.tensor.Tensor):
        losses = _core.tensor.convert_to_tensor(losses)
    total = _core.ops.reduce_sum(losses)
    return total / _core.tensor.constant(float(num_replicas), total.dtype)
