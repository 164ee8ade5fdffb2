"""``tf.keras.metrics.Metric``: the base of every metric (state in SyncOnRead SUM variables).

State lives in float32 variables created ON_READ with SUM aggregation, so under a strategy each replica
updates its own component inside ``run`` and ``result()`` (cross-replica) reads the sum over replicas, as
Keras does with tf.distribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from tpustrategy import _core
from tpustrategy.keras._tensors import tensor
from tpustrategy.ops._args import TensorLike
from tpustrategy.variables import Variable, VariableAggregation, VariableSynchronization


def _tensor(value: TensorLike, dtype: Any = None) -> _core.tensor.Tensor:
    return tensor(value, dtype)


class Metric:
    """Base class: ``update_state``, ``result``, ``reset_state``; calling the metric updates and returns result."""

    def __init__(self, name: str | None = None, dtype: Any = None) -> None:
        self.name = name or type(self).__name__.lower()
        self.dtype = _core.tensor.DType(dtype) if dtype is not None else _core.tensor.float32
        self._variables: list[Variable] = []

    def add_variable(self, name: str, shape: Sequence[int] = ()) -> Variable:
        """Creates a zero-filled state variable of the metric's dtype and tracks it.

        The variable is non-trainable, ON_READ with SUM aggregation, named ``"<metric name>/<name>"``.

        Args:
            name: The variable's name within the metric.
            shape: Its (fully defined) shape; a scalar by default.

        Returns:
            The new Variable.
        """
        variable = Variable(_core.ops.zeros(list(shape), self.dtype), trainable=False, name=f"{self.name}/{name}",
                            synchronization=VariableSynchronization.ON_READ,
                            aggregation=VariableAggregation.SUM)
        self._variables.append(variable)
        return variable

    @property
    def variables(self) -> list[Variable]:
        """The metric's state variables, in creation order (a new list)."""
        return list(self._variables)

    def reset_state(self) -> None:
        """Sets every state variable back to zeros."""
        for variable in self._variables:
            # metric state is created with a fully defined shape
            variable.assign(_core.ops.zeros(cast("list[int]", list(variable.shape)), self.dtype))

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulates a batch into the state variables (subclasses implement it).

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def result(self) -> Any:
        """The metric's value computed from the state, as a tensor (subclasses implement it).

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls ``update_state`` with the arguments, then returns ``result()``."""
        self.update_state(*args, **kwargs)
        return self.result()
