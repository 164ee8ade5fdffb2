"""``tf.compat.v1.train.MomentumOptimizer``: accum = momentum * accum + g; then var -= lr * accum, or with
``use_nesterov`` var -= lr * (g + momentum * accum) (TF's ApplyMomentum kernel; not Keras' SGD form)."""

from __future__ import annotations

from tpustrategy.compat.v1.train.optimizer import Optimizer


class MomentumOptimizer(Optimizer):
    """Momentum (optionally Nesterov); slot ``"momentum"`` per variable."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)

    def _create_slots(self, var_list) -> None:
        for var in var_list:
            self._zeros_slot(var, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = self._hyper_tensor(self._learning_rate)
        self._momentum_tensor = self._hyper_tensor(self._momentum)

    def _apply_dense(self, grad, var) -> None:
        lr, momentum = (self._cast(t, var.dtype) for t in (self._learning_rate_tensor, self._momentum_tensor))
        accum = self._slot(var, "momentum")
        accum.assign(accum.value() * momentum + grad)
        if self._use_nesterov:
            var.assign_sub(grad * lr + accum.value() * momentum * lr)
        else:
            var.assign_sub(accum.value() * lr)
