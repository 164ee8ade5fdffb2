"""``tf.compat.v1.train.GradientDescentOptimizer``: var -= learning_rate * gradient."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.compat.v1.train.optimizer import Optimizer


class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent; `learning_rate` a number, a tensor or a callable returning one."""

    def __init__(self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _prepare(self) -> None:
        self._learning_rate_tensor = self._hyper_tensor(self._learning_rate)

    def _apply_dense(self, grad: _core.tensor.Tensor, var: Any) -> None:
        var.assign_sub(grad * self._cast(self._learning_rate_tensor, var.dtype))
