"""``tf.compat.v1.train.AdamOptimizer`` (TF's ApplyAdam kernel): with t-th powers beta1_power, beta2_power
(float32 non-slot variables starting at beta1, beta2 and multiplied by them after each step),
lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); m += (g - m)(1 - beta1); v += (g^2 - v)(1 - beta2);
var -= lr_t * m / (sqrt(v) + epsilon)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.compat.v1.train.optimizer import Optimizer, component_for

if TYPE_CHECKING:
    from tpustrategy.compat.v1.train.optimizer import _OptimizerVariable


class AdamOptimizer(Optimizer):
    """Adam; slots ``"m"`` and ``"v"`` per variable, non-slot ``beta1_power`` and ``beta2_power``."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adam") -> None:
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _get_beta_accumulators(self) -> tuple[_OptimizerVariable | None, _OptimizerVariable | None]:
        return self._get_non_slot_variable("beta1_power"), self._get_non_slot_variable("beta2_power")

    def _create_slots(self, var_list: list[Any]) -> None:
        self._create_non_slot_variable(self._beta1, "beta1_power")
        self._create_non_slot_variable(self._beta2, "beta2_power")
        for var in var_list:
            self._zeros_slot(var, "m", self._name)
            self._zeros_slot(var, "v", self._name)

    def _prepare(self) -> None:
        self._tensors = [self._hyper_tensor(x) for x in (self._lr, self._beta1, self._beta2, self._epsilon)]

    def _apply_dense(self, grad: _core.tensor.Tensor, var: Any) -> None:
        ops, dtype = _core.ops, var.dtype
        lr, beta1, beta2, epsilon = (self._cast(x, dtype) for x in self._tensors)
        beta1_power, beta2_power = (_core.ops.cast(component_for(p, var).value(), dtype)
                                    for p in self._get_beta_accumulators())
        alpha = lr * ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        m, v = self._slot(var, "m"), self._slot(var, "v")
        m.assign_add((grad - m.value()) * (1 - beta1))
        v.assign_add((ops.square(grad) - v.value()) * (1 - beta2))
        var.assign_sub((m.value() * alpha) / (ops.sqrt(v.value()) + epsilon))

    def _finish(self) -> list[tuple[Any, Callable[[Any], Any]]]:
        beta1_power, beta2_power = self._get_beta_accumulators()
        beta1, beta2 = self._tensors[1], self._tensors[2]
        return [(beta1_power, lambda p: p.assign(p.value() * self._cast(beta1, p.dtype))),
                (beta2_power, lambda p: p.assign(p.value() * self._cast(beta2, p.dtype)))]

