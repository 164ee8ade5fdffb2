"""
Per-replica contexts and the Rendezvous (private; use tpustrategy.distribute).
"""
from __future__ import annotations
import collections.abc
import tpustrategy._core.devices
import tpustrategy._core.tensor
import typing
__all__: list[str] = ['CollectiveCounter', 'ExecutionContext', 'ReplicaRendezvous', 'current_context', 'current_mode', 'drive', 'finish_job', 'pop_mode', 'push_mode', 'set_current_context', 'unwind_mode']
class CollectiveCounter:
    """
    While entered, counts every collective that passes the Communicator hook point, by kind.
    """
    def __enter__(self) -> CollectiveCounter:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __init__(self) -> None:
        ...
    @property
    def counts(self) -> dict[str, int]:
        ...
class ExecutionContext:
    """
    The per-replica C++ context: the device new tensors land on, the mode and the replica id (and slots
    that later layers fill). One is current per thread; the scheduler switches it at every greenlet switch.
    """
    device: tpustrategy._core.devices.Device
    mode: str
    def __init__(self, device: tpustrategy._core.devices.Device = None, replica_id: typing.SupportsInt | typing.SupportsIndex = -1, num_replicas: typing.SupportsInt | typing.SupportsIndex = 1, mode: str = 'cross_replica') -> None:
        ...
    def clear_modes(self) -> None:
        """
        Empties this context's mode stack (after a failed run).
        """
    def unwind_mode(self, frame: typing.Any) -> None:
        """
        Pops this context's mode stack down to and including `frame`, if it is on it.
        """
    @property
    def logical_core(self) -> int:
        ...
    @logical_core.setter
    def logical_core(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def mode_depth(self) -> int:
        """
        Frames on this context's tf.distribute mode stack.
        """
    @property
    def num_replicas(self) -> int:
        ...
    @num_replicas.setter
    def num_replicas(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def replica_id(self) -> int:
        ...
    @replica_id.setter
    def replica_id(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class ReplicaRendezvous:
    """
    The synchronisation points of one Strategy.run (the cooperative front end of the C++ Rendezvous).
    """
    def __init__(self, num_replicas: typing.SupportsInt | typing.SupportsIndex, communicator: ... = None) -> None:
        """
        `communicator`: the group the replicas belong to (default: all of them, in process); the run's positions are its local ranks.
        """
    def arrive(self, replica: typing.SupportsInt | typing.SupportsIndex, kind: str, tensors: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], op: str = '', axis: typing.SupportsInt | typing.SupportsIndex = 0, structure: str = '', ragged: bool = True, groups: collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]] = [], split_axis: typing.SupportsInt | typing.SupportsIndex = 0, pairs: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]] = []) -> bool:
        """
        Replica `replica` reaches a synchronisation point; True when every replica has. `ragged`: an
        all_gather's tensors may differ in size along `axis`; `groups`: TF's group_assignment (the collective
        runs within each group); `split_axis`: all_to_all's split dimension (`axis` its concat dimension);
        `pairs`: collective_permute's (source, target) replica ids. Raises at once,
        naming the replicas, when it does not match what the others do (InvalidArgumentError; ValueError
        for nests of different structure), or when a replica it waits for has finished.
        """
    def arrived(self) -> list[int]:
        ...
    def cancel(self, reason: str) -> None:
        ...
    def complete(self, devices: collections.abc.Sequence[tpustrategy._core.devices.Device] = []) -> list[list[tpustrategy._core.tensor.Tensor] | None]:
        """
        Runs the full synchronisation point; one list of result tensors per replica (None for merge_call).
        """
    def depart(self, replica: typing.SupportsInt | typing.SupportsIndex) -> bool:
        """
        Replica `replica` finished; True if that failed a synchronisation point others wait at.
        """
    def park(self, replica: typing.SupportsInt | typing.SupportsIndex, kind: str, tensors: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], op: str, axis: typing.SupportsInt | typing.SupportsIndex, structure: str, ragged: bool, devices: typing.Any, driver: typing.Any, parked: typing.Any, groups: collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]] = [], split_axis: typing.SupportsInt | typing.SupportsIndex = 0, pairs: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]] = []) -> typing.Any:
        """
        arrive(), then hand over to the next replica of the round (outside drive(): switch to `driver` handing it `parked`); returns what this replica is resumed with (its results). `devices`: where the results go.
        """
    def park_all_reduce(self, replica: typing.SupportsInt | typing.SupportsIndex, op: str, tensor: tpustrategy._core.tensor.Tensor, devices: typing.Any, driver: typing.Any, parked: typing.Any) -> typing.Any:
        """
        park() for an all_reduce of one tensor: returns the reduced tensor, or None (without arriving) for a dtype or op the general path must handle.
        """
    def raise_if_failed(self) -> None:
        ...
    def reset(self) -> None:
        ...
    @property
    def num_replicas(self) -> int:
        ...
    @property
    def replica_ids(self) -> list[int]:
        ...
def current_context() -> ExecutionContext:
    """
    This thread's current context.
    """
def current_mode() -> typing.Any:
    """
    The top frame of the current context's mode stack, or None when it is empty.
    """
def drive(workers: list, contexts: list, values: list, fresh: bool, modes: list, suspended: list, rendezvous: ReplicaRendezvous, driver_context: ExecutionContext, parked: typing.Any, merged: typing.Any, done: typing.Any, failed: typing.Any, driver: typing.Any = None, round_over: typing.Any = None) -> tuple:
    """
    The replica scheduler's driver loop: rounds of the replicas, each with its context current, handing over to each other, and the collectives they park in (scheduler.py).
    """
def finish_job(position: typing.SupportsInt | typing.SupportsIndex, handed: typing.Any, driver: typing.Any) -> typing.Any:
    """
    The end of a replica's job in its worker: hands over to the next replica (or runs its new job here, returned) or to `driver`; returns this worker's next job (scheduler.py).
    """
def pop_mode(frame: typing.Any) -> None:
    """
    Pops `frame` off the current context's mode stack (RuntimeError unless it is on top).
    """
def push_mode(frame: typing.Any) -> None:
    """
    Pushes a frame onto the current context's tf.distribute mode stack.
    """
def set_current_context(context: ExecutionContext) -> None:
    """
    Makes `context` this thread's current context (None: the thread's default).
    """
def unwind_mode(frame: typing.Any) -> None:
    """
    Pops the current context's mode stack down to and including `frame`, if it is on it.
    """
