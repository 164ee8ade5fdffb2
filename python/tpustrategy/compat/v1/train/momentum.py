"""``tf.compat.v1.train.MomentumOptimizer``: accum = momentum * accum + g; then var -= lr * accum, or with
``use_nesterov`` var -= lr * (g + momentum * accum) (TF's ApplyMomentum kernel; not Keras' SGD form)."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.compat.v1.train.optimizer import Optimizer
from tpustrategy.ops.array_ops import reshape
from tpustrategy.ops.gather_scatter_ops import gather, tensor_scatter_nd_update


class MomentumOptimizer(Optimizer):
    """Momentum (optionally Nesterov); slot ``"momentum"`` per variable."""

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)

    def _create_slots(self, var_list: list[Any]) -> None:
        for var in var_list:
            self._zeros_slot(var, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = self._hyper_tensor(self._learning_rate)
        self._momentum_tensor = self._hyper_tensor(self._momentum)

    def _apply_dense(self, grad: _core.tensor.Tensor, var: Any) -> None:
        lr, momentum = (self._cast(t, var.dtype) for t in (self._learning_rate_tensor, self._momentum_tensor))
        accum = self._slot(var, "momentum")
        accum.assign(accum.value() * momentum + grad)
        if self._use_nesterov:
            var.assign_sub(grad * lr + accum.value() * momentum * lr)
        else:
            var.assign_sub(accum.value() * lr)

    def _apply_sparse(self, values: _core.tensor.Tensor, rows: _core.tensor.Tensor, var: Any) -> None:
        """TF's SparseApplyMomentum: only the rows present move (their accumulators too); other rows keep both."""
        lr, momentum = (self._cast(t, var.dtype) for t in (self._learning_rate_tensor, self._momentum_tensor))
        accum, index = self._slot(var, "momentum"), reshape(rows, [-1, 1])
        accum_rows = gather(accum.value(), rows) * momentum + values
        accum.assign(tensor_scatter_nd_update(accum.value(), index, accum_rows))
        step = (values * lr + accum_rows * momentum * lr) if self._use_nesterov else accum_rows * lr
        var.assign(tensor_scatter_nd_update(var.value(), index, gather(var.value(), rows) - step))
