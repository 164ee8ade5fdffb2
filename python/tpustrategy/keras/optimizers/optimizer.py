"""The optimizer base: slot variables per model variable, ``iterations``, ``apply_gradients``.

Keras 3 semantics: None gradients are skipped (all None is a ValueError), ``iterations`` counts applied steps,
and IndexedSlices gradients (embedding lookups) stay sparse as far as Keras' TF backend keeps them: each
optimizer's step uses sparse_math, whose operations follow Keras' rules for slices, and the slices are
scatter-applied to the variables they touch.

Under a tf.distribute strategy, as Keras' TF backend: in replica context the (clipped) gradients are
summed across replicas by one batched ``all_reduce(SUM)`` (IndexedSlices are all-gathered: every replica's rows
concatenated in replica order, as TF reduces them) (skipped with ``skip_gradients_aggregation`` /
``experimental_aggregate_gradients=False``), then one ``merge_call`` applies the same update to every
component of each variable through ``extended.update``; in cross-replica context the update is applied
to every component directly. Slot variables and ``iterations`` are created in the strategy's scope, so
they are the strategy's (mirrored) variables, one component per replica.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

from tpustrategy import _core
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute.gradient_aggregation import apply_across_replicas, distributed_container
from tpustrategy.eager.backprop import GradientTape
from tpustrategy.framework import deferred_restoration
from tpustrategy.keras.backend import unique_name
from tpustrategy.keras.naming import snake_case
from tpustrategy.keras.optimizers import sparse_math
from tpustrategy.ops.array_ops import zeros
from tpustrategy.ops.clip_ops import clip_by_norm
from tpustrategy.variables import Variable

if TYPE_CHECKING:
    import numpy as np

    from tpustrategy.distribute.distribute_lib import StrategyBase

_logger = logging.getLogger("tpustrategy")
# (gradient, variable): a gradient is a Tensor or IndexedSlices; a variable a Variable or a distributed one
_Pairs = list[tuple[Any, Any]]


def as_dtype(value: Any, dtype: Any) -> Any:
    """`value` (a Python number or a tensor) as a tensor of `dtype`, without a float32 round trip."""
    if isinstance(value, _core.tensor.Tensor):
        return _core.ops.cast(value, dtype)
    if hasattr(value, "_as_tensor"):
        return _core.ops.cast(value._as_tensor(), dtype)
    return _core.tensor.constant(value, dtype)



class Optimizer:
    """Base class: subclasses define ``build_slots(variable)`` and ``update_step(gradient, variable, lr)``."""

    def __init__(self, learning_rate: float | Callable[[Any], Any], name: str | None, clipnorm: float | None = None,
                 clipvalue: float | None = None, global_clipnorm: float | None = None,
                 loss_scale_factor: float | None = None, **kwargs: Any) -> None:
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                             f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}")
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.loss_scale_factor = loss_scale_factor
        self._learning_rate = learning_rate
        # Keras 3: no name -> the class name in snake case, made unique (sgd, sgd_1, rm_sprop, adam_w ...)
        self.name = name if name is not None else unique_name(snake_case(type(self).__name__))
        self._slots: dict[int, dict[str, Variable]] = {}
        self._slot_owners: list[Any] = []  # the variables with slots, in the order their slots were built
        self._iterations: Variable | None = None
        # As Keras' TF optimizer: the strategy in scope at construction owns the optimizer's variables.
        self._distribution_strategy = ds_context.get_strategy() if ds_context.has_strategy() else None

    def get_config(self) -> dict[str, Any]:
        """Keras 3's optimizer config (see optimizer_config.py)."""
        from tpustrategy.keras.optimizers.optimizer_config import optimizer_config

        return optimizer_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Optimizer:
        """Builds the optimizer from a ``get_config`` dict (a serialized schedule as learning rate is rebuilt).

        Args:
            config: The dict ``get_config`` returned (or Keras 3 wrote).
            custom_objects: Accepted for Keras' signature and ignored.

        Raises:
            ValueError: If the config sets an option this package does not build (EMA, gradient accumulation ...)
                to anything but its default.
        """
        from tpustrategy.keras.optimizers.optimizer_config import optimizer_from_config

        return optimizer_from_config(cls, config)

    @property
    def iterations(self) -> Variable:
        """The number of steps applied (an int64 variable, as Keras)."""
        if self._iterations is None:
            with self._variable_scope():
                self._iterations = Variable(0, dtype=_core.tensor.int64, trainable=False, name="iteration")
            self._iterations._name, self._iterations.path = "iteration", f"{self.name}/iteration"  # Keras 3's names
        return self._iterations

    def _variable_scope(self, strategy: StrategyBase | None = None) -> contextlib.AbstractContextManager[Any]:
        """The scope the optimizer's own variables are created in: the owning strategy's, if any."""
        strategy = strategy or self._distribution_strategy
        return strategy.scope() if strategy is not None else contextlib.nullcontext()

    @property
    def learning_rate(self) -> Any:
        """The current rate: a schedule's value at ``iterations``, else the number (with ``.numpy()``, as
        Keras 3's learning-rate variable reads)."""
        lr = self._learning_rate
        if callable(lr):
            return lr(self.iterations)
        return _LearningRate(lr) if isinstance(lr, float | int) and not isinstance(lr, bool) else lr

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self._learning_rate = value

    @property
    def variables(self) -> list[Any]:
        """Keras' order: ``iterations``, the learning rate (unless a schedule; a float32 value holder here, not
        a variable), then the slot variables."""
        lr = [] if callable(self._learning_rate) else [self._learning_rate_value()]
        return [self.iterations, *lr, *self._ordered_slots()]

    def _ordered_slots(self) -> list[Variable]:
        slots = [self._slots[id(owner)] for owner in self._slot_owners]
        return [slot[name] for group in self._keras_slot_groups() for slot in slots for name in group if name in slot]

    def build(self, var_list: Any) -> None:
        """Creates the slot variables of `var_list` now (Keras 3; otherwise the first step creates them)."""
        self._build_slots_for(list(var_list))

    # Keras' optimizer.assign / assign_add / assign_sub: IndexedSlices are scattered into the variable.
    assign = staticmethod(sparse_math.assign)
    assign_add = staticmethod(sparse_math.assign_add)
    assign_sub = staticmethod(sparse_math.assign_sub)

    def _slot(self, variable: Any, slot_name: str) -> Variable:
        return self._slots[_var_key(variable)][slot_name]

    def _build_slots_for(self, variables: Iterable[Any], strategy: StrategyBase | None = None) -> None:
        built = False
        for variable in variables:
            key = _var_key(variable)
            if key not in self._slots:
                with self._variable_scope(strategy):
                    self._slots[key] = self.build_slots(_container(variable))
                self._slot_owners.append(_container(variable))
                built = True
        if built:  # a checkpoint restored before the first step may hold these slots' values
            deferred_restoration.notify(self)

    # Keras 3's attribute per slot kind, and how its `_variables` list orders slots: each group is built by one
    # add_optimizer_variables call, interleaving the group's slots per model variable.
    _KERAS_SLOT_ATTRIBUTES = {"momentum": "_momentums", "velocity": "_velocities", "velocity_hat": "_velocity_hats",
                              "average_gradient": "_average_gradients", "accumulator": "_accumulators"}

    def _keras_slot_groups(self) -> list[list[str]]:
        names = list(next(iter(self._slots.values()), {}))
        return [names] if names else []

    def _trackable_children(self) -> list[tuple[str, Any]]:
        """The checkpoint children, named as Keras 3's optimizer so that TF-written checkpoints restore:
        ``_variables`` (iterations, learning rate, then the slots), ``_trainable_variables``, ``_iterations``,
        ``_learning_rate`` and one list per slot kind (``_momentums``, ``_velocities``, ...)."""
        slots = [self._slots[id(owner)] for owner in self._slot_owners]
        ordered = self._ordered_slots()
        lr = None if callable(self._learning_rate) else self._learning_rate_value()
        children: list[tuple[str, Any]] = [
            ("_variables", [self.iterations] + ([lr] if lr is not None else []) + ordered),
            ("_trainable_variables", list(self._slot_owners)), ("_iterations", self.iterations)]
        if lr is not None:
            children.append(("_learning_rate", lr))
        for name in (n for group in self._keras_slot_groups() for n in group):
            attribute = self._KERAS_SLOT_ATTRIBUTES.get(name, f"_{name}s")
            children.append((attribute, [slot[name] for slot in slots if name in slot]))
        return children

    def _learning_rate_value(self) -> _LearningRateValue:
        holder: _LearningRateValue | None = getattr(self, "_learning_rate_holder", None)
        if holder is None:
            holder = self._learning_rate_holder = _LearningRateValue(self)
        return holder

    def _zeros_like_variable(self, variable: Any, slot_name: str) -> Variable:
        base = (getattr(variable, "path", None) or variable.name.split(":")[0]).replace("/", "_")
        slot = Variable(zeros(variable.shape.as_list() if hasattr(variable.shape, "as_list") else
                              list(variable.numpy().shape), variable.dtype),
                        trainable=False, name=f"{self.name}/{base}_{slot_name}")
        slot._name, slot.path = f"{base}_{slot_name}", f"{self.name}/{base}_{slot_name}"  # Keras 3's names
        return slot

    def build_slots(self, variable: Any) -> dict[str, Variable]:
        """Creates the slot variables `variable` needs (momentum, velocity ...); the base class needs none.

        Called once per model variable, in the owning strategy's scope, before its first update (or by ``build``).

        Returns:
            Slot name -> new zero-filled Variable.
        """
        return {}

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        """Applies one gradient to one variable (or one component of a distributed variable).

        By then the base optimizer has divided the gradient by ``loss_scale_factor`` (if set), clipped it,
        summed it across replicas (under a strategy, unless aggregation is skipped) and cast it and the rate
        to the variable's dtype; ``iterations`` still counts the steps before this one.

        Args:
            gradient: A Tensor, or IndexedSlices (use sparse_math so rows stay sparse).
            variable: The variable to update in place.
            learning_rate: The rate for this step, a scalar tensor.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def minimize(self, loss: Any, var_list: Any, tape: GradientTape | None = None) -> Variable:
        """Computes the gradients of `loss` (a tensor with its `tape`, or a callable) and applies them."""
        if not callable(loss) and tape is None:
            raise ValueError(f"`tape` is required when a `Tensor` loss is passed. Received: loss={loss}, tape={tape}.")
        if tape is None:
            tape = GradientTape()
        if callable(loss):
            with tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
                if callable(var_list):
                    var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list, strict=True))

    def _clip(self, pairs: _Pairs) -> _Pairs:
        """Keras 3's gradient clipping (before the replicas' gradients are summed): per-gradient norm, global
        norm, or value, whichever is set and positive; IndexedSlices stay sparse, clipped occurrence by
        occurrence as Keras does."""
        grads = [g for g, _ in pairs]
        if self.clipnorm and self.clipnorm > 0:
            grads = [clip_by_norm(g, self.clipnorm) for g in grads]
        elif self.global_clipnorm and self.global_clipnorm > 0:
            grads = sparse_math.clip_by_global_norm(grads, self.global_clipnorm)
        elif self.clipvalue and self.clipvalue > 0:
            grads = [sparse_math.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return [(g, v) for g, (_, v) in zip(grads, pairs, strict=True)]

    def scale_loss(self, loss: Any) -> Any:
        """`loss` times ``loss_scale_factor`` (the trainer scales the loss it differentiates; the gradients are
        divided back before the update), or `loss` itself."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None, skip_gradients_aggregation: bool = False,
                        **kwargs: Any) -> Variable:
        """Applies ``(gradient, variable)`` pairs; returns ``iterations``.

        Under a strategy, in replica context, gradients are first summed across replicas (one batched
        all-reduce) unless ``skip_gradients_aggregation`` (or ``experimental_aggregate_gradients=False``).
        """
        aggregate = _aggregate_option(skip_gradients_aggregation, kwargs)
        kept = self._given_gradients(grads_and_vars)
        if self.loss_scale_factor is not None:  # Keras divides with `/`: IndexedSlices raise its TypeError
            kept = [(g / self.loss_scale_factor, v) for g, v in kept]
        kept = self._clip(kept)
        if ds_context.has_strategy():
            apply_across_replicas(kept, self._distributed_apply, aggregate, keep_sparse=True)
        else:
            self._local_apply(kept)
        return self.iterations

    @staticmethod
    def _given_gradients(grads_and_vars: Iterable[tuple[Any, Any]]) -> _Pairs:
        """The pairs with a gradient (Keras 3 warns about the others; none at all is a ValueError)."""
        pairs = list(grads_and_vars)
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            names = [v.name for _, v in pairs]
            raise ValueError(f"No gradients provided for any variable: {names}.")
        if len(kept) < len(pairs):
            _logger.warning("Gradients do not exist for variables %s when minimizing the loss.",
                            [v.name for g, v in pairs if g is None])
        return kept

    def _local_apply(self, grads_and_vars: _Pairs) -> None:
        """Without a strategy: the update of each variable, then ``iterations`` + 1."""
        lr = self.learning_rate
        self._build_slots_for([v for _, v in grads_and_vars])
        for gradient, variable in grads_and_vars:
            self.update_step(sparse_math.cast(gradient, variable.dtype), variable, as_dtype(lr, variable.dtype))
            _apply_constraint(variable, variable)
        self.iterations.assign_add(1)

    def _distributed_apply(self, strategy: StrategyBase, grads_and_vars: _Pairs) -> None:
        """Cross-replica: the same update on every component of each variable (Keras' extended.update)."""
        if self._distribution_strategy is None:
            self._distribution_strategy = strategy
        self._build_slots_for([v for _, v in grads_and_vars], strategy)
        lr = self.learning_rate

        def apply_to_component(component: Any, gradient: Any, container: Any) -> None:
            self.update_step(sparse_math.cast(gradient, component.dtype), component, as_dtype(lr, component.dtype))
            _apply_constraint(container, component)

        for gradient, variable in grads_and_vars:
            strategy.extended.update(variable, apply_to_component, args=(gradient, _container(variable)), group=False)
        self.iterations.assign_add(1)


def _aggregate_option(skip_gradients_aggregation: bool, kwargs: dict[str, Any]) -> bool:
    aggregate = not skip_gradients_aggregation and kwargs.pop("experimental_aggregate_gradients", True)
    if kwargs:
        raise TypeError(f"apply_gradients() got unexpected keyword argument(s): {sorted(kwargs)}")
    return bool(aggregate)


def _apply_constraint(owner: Any, variable: Any) -> None:
    """Keras 3: a variable's ``constraint`` (set by the layer that made it) is applied after each update."""
    constraint = getattr(owner, "constraint", None)
    if constraint is not None:
        variable.assign(constraint(variable.value()))


class _LearningRate(float):
    """A float that also answers ``.numpy()`` (code written for Keras' learning-rate variable calls it)."""

    def numpy(self) -> Any:
        import numpy as np

        return np.float32(self)


class _LearningRateValue:
    """The learning rate as a checkpoint value (Keras 3 keeps it in a float32 variable; here it is a float)."""

    name = "learning_rate"
    shape = ()

    def __init__(self, optimizer: Optimizer) -> None:
        self._optimizer = optimizer
        self._checkpoint_full_name = self.path = f"{optimizer.name}/learning_rate"

    @property
    def dtype(self) -> Any:
        return _core.tensor.float32

    def numpy(self) -> Any:
        return self._checkpoint_read()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        import numpy as np

        return np.asarray(self._checkpoint_read(), dtype=dtype)

    def assign(self, value: Any) -> None:
        """Sets the rate (Keras' ``learning_rate.assign``); the rate is kept as float32 reads it."""
        import numpy as np

        self._checkpoint_assign(float(np.float32(np.asarray(value))))

    def _checkpoint_read(self) -> np.float32:
        import numpy as np

        # a holder is made only for a fixed rate, not a schedule (see Optimizer.variables)
        rate: np.float32 = np.float32(cast(float, self._optimizer._learning_rate))
        return rate

    def _checkpoint_assign(self, value: Any) -> None:
        if not callable(self._optimizer._learning_rate):
            self._optimizer._learning_rate = float(value)


_container = distributed_container


def _var_key(variable: Any) -> int:
    """Slots are shared by every component of one distributed variable."""
    return id(_container(variable))
