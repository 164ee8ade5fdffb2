"""``keras.optimizers.LossScaleOptimizer`` (Keras 3): dynamic loss scaling around another optimizer.

The trainer multiplies the loss by ``dynamic_scale`` (``scale_loss``) so that float16 gradients do not
underflow; ``apply_gradients`` divides the gradients back and then:
* any gradient not finite (checked after the cross-replica sum, on every replica's copy): the step is skipped,
  the scale halves and the growth counter restarts;
* otherwise the inner optimizer applies them, and after ``dynamic_growth_steps`` finite steps in a row the
  scale doubles.
Under a strategy the check and the scale update run once, in cross-replica context (one ``merge_call``), so
every replica takes the same branch. Scales are powers of two, so scaling and unscaling are exact.
Keras' TF backend checks the finiteness of replica 0's unsummed gradients; this checks the summed ones, which
differ only when a single replica's gradient overflows while the sum does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute.gradient_aggregation import apply_across_replicas
from tpustrategy.keras.optimizers import sparse_math
from tpustrategy.keras.optimizers.optimizer import Optimizer, _aggregate_option
from tpustrategy.ops.math_ops import is_finite
from tpustrategy.variables import Variable

if TYPE_CHECKING:
    from tpustrategy.distribute.distribute_lib import StrategyBase

# Base-optimizer options a LossScaleOptimizer refuses (they belong on the inner optimizer), with their defaults.
_INNER_OPTIONS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
                  "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


class LossScaleOptimizer(Optimizer):
    """Wraps `inner_optimizer` with dynamic loss scaling.

    Args:
      inner_optimizer: the optimizer that applies the unscaled gradients.
      initial_scale: the first loss scale (2**15).
      dynamic_growth_steps: finite steps between doublings of the scale (2000).

    Raises:
      ValueError: ``dynamic=False``, or a base-optimizer option that belongs on the inner optimizer.
    """

    def __init__(self, inner_optimizer: Optimizer, initial_scale: float = 2.0**15, dynamic_growth_steps: int = 2000,
                 name: str | None = None, **kwargs: Any) -> None:
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                             "`loss_scale_factor` directly on the `inner_optimizer`.")
        for option, default in _INNER_OPTIONS.items():
            if option in kwargs and kwargs.pop(option) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{option}`. Instead, set `{option}` on the "
                                 "`inner_optimizer`.")
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`.")
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(f"`inner_optimizer` must be a keras Optimizer. Received: {inner_optimizer!r}")
        super().__init__(0.0, name or "loss_scale_optimizer")
        self.inner_optimizer = inner_optimizer
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        self.inner_optimizer.loss_scale_factor = None
        self._scale_variables: tuple[Variable, Variable] | None = None  # (step_counter, dynamic_scale)
        self._build_scale()  # now, in the scope of construction: never lazily inside a replica

    # ---- state ----
    def _build_scale(self) -> None:
        if self._scale_variables is None:
            with self._variable_scope():
                self._scale_variables = (
                    Variable(0, dtype=_core.tensor.int64, trainable=False, name="step_counter"),
                    Variable(self.initial_scale, dtype=_core.tensor.float32, trainable=False, name="dynamic_scale"))

    @property
    def step_counter(self) -> Variable:
        """Finite steps since the scale last changed (an int64 variable)."""
        self._build_scale()
        assert self._scale_variables is not None  # built just above
        return self._scale_variables[0]

    @property
    def dynamic_scale(self) -> Variable:
        """The current loss scale (a float32 variable, a power of two times ``initial_scale``)."""
        self._build_scale()
        assert self._scale_variables is not None  # built just above
        return self._scale_variables[1]

    @property
    def iterations(self) -> Variable:
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self) -> Any:
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        if hasattr(self, "inner_optimizer"):  # the base constructor sets the (unused) outer rate first
            self.inner_optimizer.learning_rate = value

    @property
    def variables(self) -> list[Any]:
        return [self.step_counter, self.dynamic_scale]

    def _trackable_children(self) -> list[tuple[str, Any]]:
        return [("inner_optimizer", self.inner_optimizer), ("step_counter", self.step_counter),
                ("dynamic_scale", self.dynamic_scale)]

    # ---- the step ----
    def scale_loss(self, loss: Any) -> Any:
        scale = float(self.dynamic_scale.numpy())
        return loss * _core.tensor.constant(scale, loss.dtype)

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None, skip_gradients_aggregation: bool = False,
                        **kwargs: Any) -> Variable:
        """Unscales, clips as the inner optimizer would, sums across replicas, then applies or skips."""
        aggregate = _aggregate_option(skip_gradients_aggregation, kwargs)
        kept = self._given_gradients(grads_and_vars)
        scale = float(self.dynamic_scale.numpy())
        kept = self.inner_optimizer._clip([(sparse_math.divide(g, scale), v) for g, v in kept])
        if ds_context.has_strategy():
            apply_across_replicas(kept, self._apply_or_skip, aggregate, keep_sparse=True)
        else:
            self._apply_or_skip(None, kept)
        return self.iterations

    def _apply_or_skip(self, strategy: StrategyBase | None, grads_and_vars: list[tuple[Any, Any]]) -> None:
        counter, scale = self.step_counter, self.dynamic_scale
        if not all(_all_finite(strategy, g) for g, _ in grads_and_vars):
            counter.assign(0)
            scale.assign(scale.value() * _core.tensor.constant(0.5, _core.tensor.float32))
            return
        if strategy is None:
            self.inner_optimizer._local_apply(grads_and_vars)
        else:
            self.inner_optimizer._distributed_apply(strategy, grads_and_vars)
        if int(counter.numpy()) == self.dynamic_growth_steps - 1:
            counter.assign(0)
            scale.assign(scale.value() * _core.tensor.constant(2.0, _core.tensor.float32))
        else:
            counter.assign_add(1)

    # ---- config ----
    def get_config(self) -> dict[str, Any]:
        # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
        from tpustrategy.keras.saving.serialization_lib import serialize_keras_object

        return {"name": self.name, "inner_optimizer": serialize_keras_object(self.inner_optimizer),
                "initial_scale": self.initial_scale, "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> LossScaleOptimizer:
        """Builds the wrapper and its serialized inner optimizer from a ``get_config`` dict."""
        # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
        from tpustrategy.keras.saving.serialization_lib import deserialize_keras_object

        config = dict(config)
        inner = deserialize_keras_object(config.pop("inner_optimizer"))
        return cls(inner, **config)


def _all_finite(strategy: StrategyBase | None, gradient: Any) -> bool:
    parts = strategy.experimental_local_results(gradient) if strategy is not None else (gradient,)
    return all(bool(_core.ops.reduce_all(is_finite(part.values if sparse_math.is_sparse(part) else part)).numpy())
               for part in parts)


__all__ = ["LossScaleOptimizer"]
