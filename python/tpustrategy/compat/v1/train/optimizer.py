"""``tf.compat.v1.train.Optimizer``: the r1.15-era base class, in its eager form (TF 2.21's compat.v1).

``minimize`` = ``compute_gradients`` (a callable loss, recorded on a GradientTape: eager execution requires a
callable) + ``apply_gradients`` (slots created on first use, then one update per variable, then ``_finish``,
then ``global_step += 1``). Slots are kept per slot name and variable, named ``<var>/<optimizer name>`` as TF.

Under a strategy, ``apply_gradients`` must be called in replica context (TF: RuntimeError otherwise); the
gradients are SUMMED across replicas (TF's v1 optimizers reduce with SUM, they never average) through the
path the Keras optimizers use, and the update runs once per component of each mirrored variable. Slot and
non-slot variables are created in the strategy's scope, so they are mirrored like the variables they serve.

IndexedSlices gradients (from ``gather``): duplicate indices are summed, then GradientDescent and Adam update
as their dense kernels do and Momentum only the rows present, as TF. Under a strategy they stay sparse: their
values and indices are all-gathered across replicas (as TF's cross-device ops reduce IndexedSlices), then the
duplicates summed, so sparse Momentum moves only the rows some replica touched.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tpustrategy import _core, errors
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute.gradient_aggregation import apply_across_replicas
from tpustrategy.distribute.gradient_aggregation import distributed_container as container
from tpustrategy.eager.backprop import GradientTape
from tpustrategy.framework.indexed_slices import IndexedSlices
from tpustrategy.ops._args import TensorLike
from tpustrategy.ops.array_ops import reshape, zeros
from tpustrategy.ops.gather_scatter_ops import tensor_scatter_nd_add
from tpustrategy.ops.numpy_backed_ops import unique, unsorted_segment_sum
from tpustrategy.variables import Variable

if TYPE_CHECKING:
    from tpustrategy.distribute.distribute_lib import StrategyBase
    from tpustrategy.distribute.distributed_variables import DistributedVariable

    # a slot or non-slot variable: mirrored when created in a strategy's scope
    _OptimizerVariable = Variable | DistributedVariable


def component_for(distributed: Any, var: Any) -> Any:
    """The component of `distributed` on `var`'s replica when `var` is a component of a mirrored variable
    (an update inside ``extended.update``), else `distributed` itself."""
    owner = container(var)
    if owner is not var and hasattr(distributed, "values") and hasattr(owner, "values"):
        for index, component in enumerate(owner.values):
            if component is var:
                return distributed.values[index]
    return distributed


def _is_variable(value: object) -> bool:
    return bool(getattr(value, "_is_variable", False))


def _check_target(variable: object) -> None:
    """TF's `_get_processor`: only variables can be optimized."""
    if _is_variable(variable):
        return
    if isinstance(variable, _core.tensor.Tensor):
        raise NotImplementedError("Trying to update a Tensor ", variable)
    raise NotImplementedError("Trying to optimize unsupported type ", variable)


def _as_gradient(gradient: TensorLike) -> _core.tensor.Tensor | IndexedSlices:
    if isinstance(gradient, IndexedSlices):
        return gradient
    try:
        converted: _core.tensor.Tensor = _core.tensor.convert_to_tensor(gradient)
        return converted
    except (TypeError, ValueError) as error:
        raise TypeError(f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {gradient}") from error


def _base_name(variable: Any) -> str:
    name: str = container(variable).name
    return name.split(":")[0]


class Optimizer:
    """Base class: subclasses define ``_create_slots(var_list)``, ``_prepare()``, ``_apply_dense(grad, var)``
    and optionally ``_finish()`` (run once per step after every variable's update)."""

    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2

    def __init__(self, use_locking: bool, name: str) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = bool(use_locking)
        self._name = name
        self._slots: dict[str, dict[int, _OptimizerVariable]] = {}  # slot name -> id(variable) -> slot
        self._non_slots: dict[str, _OptimizerVariable] = {}
        self._slot_names_used: set[str] = set()
        self._distribution_strategy = ds_context.get_strategy() if ds_context.has_strategy() else None

    def get_name(self) -> str:
        """The optimizer's name, as given to its constructor."""
        return self._name

    # ---- gradients ----
    def compute_gradients(self, loss: Callable[[], Any], var_list: Any = None, gate_gradients: int = GATE_OP,
                          aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list[tuple[Any, Any]]:
        """``[(gradient, variable)]`` of the callable `loss` with respect to `var_list` (default: the trainable
        variables the loss reads). A gradient is None where the loss does not depend on the variable."""
        if not callable(loss):
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a function when eager "
                               "execution is enabled.")
        with GradientTape() as tape:
            if var_list is not None:
                tape.watch(var_list)
            loss_value = loss()
        if var_list is None:
            var_list = tape.watched_variables()
        var_list = list(var_list)
        grads = tape.gradient(loss_value, var_list, output_gradients=grad_loss)
        return list(zip(grads, var_list, strict=True))

    def minimize(self, loss: Callable[[], Any], global_step: Any = None, var_list: Any = None,
                 gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: str | None = None, grad_loss: Any = None) -> Any:
        """``compute_gradients`` then ``apply_gradients``; ValueError when no variable gets a gradient."""
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, grad_loss=grad_loss)
        if not any(g is not None for g, _ in grads_and_vars):
            raise ValueError("No gradients provided for any variable, check your graph for ops that do not support "
                             f"gradients, between variables {[str(v) for _, v in grads_and_vars]} and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Any]], global_step: Any = None,
                        name: str | None = None) -> Any:
        """Applies ``(gradient, variable)`` pairs (None gradients skipped) and increments `global_step`.

        Returns None, or under a strategy (in replica context) the new value of `global_step` if given.

        Raises:
          ValueError: no pairs, or every gradient None.
          TypeError: a gradient that is not a tensor.
          NotImplementedError: a target that is not a variable.
          RuntimeError: called in cross-replica context under a strategy.
        """
        if ds_context.has_strategy() and ds_context.in_cross_replica_context():
            raise RuntimeError("Use `_distributed_apply()` instead of `apply_gradients()` in a cross-replica "
                               "context.")
        pairs = tuple(grads_and_vars)
        if not pairs:
            raise ValueError("No variables provided.")
        converted = []
        for gradient, variable in pairs:
            if gradient is not None:
                gradient = _as_gradient(gradient)
            _check_target(variable)
            converted.append((gradient, variable))
        kept = [(g, v) for g, v in converted if g is not None]
        if not kept:
            raise ValueError(f"No gradients provided for any variable: {[str(v) for _, v in converted]}.")
        for gradient, variable in kept:
            self._check_compatible(gradient, variable)
        if ds_context.has_strategy():
            return apply_across_replicas(kept, self._distributed_apply, args=(global_step,), keep_sparse=True)
        self._create_slots_in_scope([v for _, v in kept], None)
        self._prepare()
        for gradient, variable in kept:
            if isinstance(gradient, IndexedSlices):
                self._apply_sparse_duplicate_indices(gradient, variable)
            else:
                self._apply_dense(gradient, variable)
        self._finish_step(None)
        if global_step is not None:
            global_step.assign_add(1)
        return None

    def _distributed_apply(self, strategy: StrategyBase, grads_and_vars: list[tuple[Any, Any]],
                           global_step: Any = None) -> Any:
        """Cross-replica: the (already summed) gradients applied to every component of each variable."""
        self._create_slots_in_scope([v for _, v in grads_and_vars], strategy)
        self._prepare()
        for gradient, variable in grads_and_vars:
            # Gathered IndexedSlices arrive as one per replica (the same on each).
            sparse = isinstance(strategy.experimental_local_results(gradient)[0], IndexedSlices)
            apply = self._apply_sparse_duplicate_indices if sparse else self._apply_dense
            strategy.extended.update(variable, lambda component, g, apply=apply: apply(g, component),
                                     args=(gradient,), group=False)
        self._finish_step(strategy)
        if global_step is None:
            return None
        strategy.extended.update(global_step, lambda component: component.assign_add(1), group=False)
        return global_step.value()

    def _finish_step(self, strategy: StrategyBase | None) -> None:
        for variable, fn in self._finish():
            if strategy is None:
                fn(variable)
            else:
                strategy.extended.update(variable, fn, group=False)

    @staticmethod
    def _check_compatible(gradient: Any, variable: Any) -> None:
        sparse = isinstance(gradient, IndexedSlices)
        gradient = gradient.values if sparse else gradient
        if gradient.dtype != variable.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"apply_gradients: the gradient of {variable.name} has dtype {gradient.dtype.name}, "
                f"the variable {variable.dtype.name}")
        if gradient.shape.as_list()[sparse:] != variable.shape.as_list()[sparse:]:  # sparse: the rows' shape
            raise errors.InvalidArgumentError(
                None, None, f"var and delta do not have the same shape{variable.shape.as_list()} "
                f"{gradient.shape.as_list()}: the gradient of {variable.name}")

    # ---- hooks for subclasses ----
    def _create_slots(self, var_list: list[Any]) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_dense(self, grad: _core.tensor.Tensor, var: Any) -> None:
        raise NotImplementedError

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> None:
        """An IndexedSlices gradient: duplicate indices summed first (as TF), then ``_apply_sparse``."""
        rows, positions = unique(grad.indices)
        values = unsorted_segment_sum(grad.values, positions, int(rows.shape[0]))
        self._apply_sparse(values, rows, var)

    def _apply_sparse(self, values: _core.tensor.Tensor, rows: _core.tensor.Tensor, var: Any) -> None:
        """Default: the rows scattered into a dense gradient (exact for TF's GradientDescent and Adam, whose
        sparse kernels update every row the same way as the dense ones)."""
        dense = zeros(var.shape.as_list(), var.dtype)
        self._apply_dense(tensor_scatter_nd_add(dense, reshape(rows, [-1, 1]), values), var)

    def _finish(self) -> list[tuple[Any, Callable[[Any], Any]]]:
        """``[(non-slot variable, update fn)]`` applied once per step after the variables' updates."""
        return []

    @staticmethod
    def _hyper_tensor(param: Any) -> _core.tensor.Tensor:
        """A hyperparameter as TF's v1 optimizers hold it (``convert_to_tensor``): a Python float becomes float32
        and is cast to each variable's dtype where used, so a float64 variable sees float32(0.05), as in TF."""
        param = param() if callable(param) else param
        tensor: _core.tensor.Tensor = param if isinstance(param, _core.tensor.Tensor) else \
            _core.tensor.convert_to_tensor(param)
        return tensor

    @staticmethod
    def _cast(tensor: TensorLike, dtype: _core.tensor.DType) -> _core.tensor.Tensor:
        return _core.ops.cast(tensor, dtype)

    # ---- slots ----
    def _variable_scope(self, strategy: StrategyBase | None) -> contextlib.AbstractContextManager[Any]:
        strategy = strategy or self._distribution_strategy
        return strategy.scope() if strategy is not None else contextlib.nullcontext()

    def _create_slots_in_scope(self, var_list: Iterable[Any], strategy: StrategyBase | None) -> None:
        if strategy is not None and self._distribution_strategy is None:
            self._distribution_strategy = strategy
        with self._variable_scope(strategy):
            self._create_slots([container(v) for v in var_list])

    def _unique_name(self, name: str) -> str:
        candidate, suffix = name, 0
        while candidate in self._slot_names_used:
            suffix += 1
            candidate = f"{name}_{suffix}"
        self._slot_names_used.add(candidate)
        return candidate

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> None:
        """A zero slot for `var` (a container), created once, named ``<var>/<op_name>`` made unique."""
        named = self._slots.setdefault(slot_name, {})
        if id(var) in named:
            return
        shape = var.shape.as_list()
        named[id(var)] = Variable(zeros(shape, var.dtype), trainable=False,
                                  name=self._unique_name(f"{_base_name(var)}/{op_name}"))

    def _create_non_slot_variable(self, initial_value: Any, name: str) -> _OptimizerVariable:
        """A variable shared by all slots (TF: a Python float initial value makes it float32)."""
        if name not in self._non_slots:
            self._non_slots[name] = Variable(self._hyper_tensor(initial_value), trainable=False, name=name)
        return self._non_slots[name]

    def _get_non_slot_variable(self, name: str) -> _OptimizerVariable | None:
        return self._non_slots.get(name)

    def get_slot_names(self) -> list[str]:
        """The names of the slots this optimizer creates (sorted)."""
        return sorted(self._slots)

    def get_slot(self, var: Any, name: str) -> Any:
        """The slot `name` of `var`, or None. A component of a mirrored variable (inside ``strategy.run``) gets
        its own component of the slot, as TF."""
        slot = self._slots.get(name, {}).get(id(container(var)))
        return None if slot is None else component_for(slot, var)

    def _slot(self, var: Any, name: str) -> Any:
        """The slot of the variable or component `var` being updated (its own component)."""
        return self.get_slot(var, name)

    def variables(self) -> list[_OptimizerVariable]:
        """The optimizer's variables (non-slot ones and slots), sorted by name."""
        found = list(self._non_slots.values()) + [slot for named in self._slots.values() for slot in named.values()]
        return sorted(found, key=lambda v: v.name)
