"""A replica's variable component in SPMD mode (SEMANTICS.md §4): a full copy on each of the replica's L
logical cores, so its bytes are charged L times — once per core — as XLA's SPMD partitioner replicates
un-annotated variables. Without SPMD a component is a plain Variable on logical core 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tpustrategy import _core
from tpustrategy.distribute.distribution_strategy_context import current_logical_device
from tpustrategy.framework.tensor import Tensor
from tpustrategy.variables import Variable

_REPLICATED = _core.spmd.Sharding.replicated()


class LogicallyReplicatedVariable(Variable):
    """A Variable whose value is a replicated ``_core.spmd.ShardedTensor`` over `logical_cores`.

    Every write (``Variable`` assigns ``self._value``) re-lays the copies; reads return the copy on the current
    logical core (``experimental_logical_device``), logical core 0 by default.

    Args:
      logical_cores: the replica's cores, logical core k at index k.
      **kwargs: as for ``Variable``.
    """

    def __init__(self, logical_cores: Iterable[_core.devices.Device], **kwargs: Any) -> None:
        self._logical_cores = list(logical_cores)
        super().__init__(**kwargs)

    @property
    def _value(self) -> Tensor:
        copy: Tensor = self._copies.shards[current_logical_device.get()]  # replicated: a copy on every core
        return copy

    @_value.setter
    def _value(self, tensor: Tensor) -> None:
        self._copies = _core.spmd.ShardedTensor.shard(tensor, _REPLICATED, self._logical_cores)

    @property
    def logical_devices(self) -> list[str]:
        """The cores holding a copy, logical core k at index k."""
        return [core.name for core in self._logical_cores]
