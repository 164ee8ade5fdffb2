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
        """
        A counter with no counts; counting starts when it is entered.
        """
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
        """
        A context for one replica (or the cross-replica caller).
        
        Args:
          device: the device new tensors land on (None: the default device).
          replica_id: the replica's id in its sync group (-1: not a replica).
          num_replicas: replicas in the sync group.
          mode: "cross_replica", "replica" or "merge".
        """
    def clear_modes(self) -> None:
        """
        Empties this context's mode stack (after a failed run).
        """
    def unwind_mode(self, frame: typing.Any) -> None:
        """
        Pops this context's mode stack down to and including `frame`, if it is on it.
        
        Args:
          frame: a frame pushed earlier (push_mode).
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
        The synchronisation points of a run of `num_replicas` replicas.
        
        Args:
          num_replicas: replicas of the run in this process.
          communicator: the group the replicas belong to (None: all of them, in this process); the run's
            positions are its local ranks.
        """
    def arrive(self, replica: typing.SupportsInt | typing.SupportsIndex, kind: str, tensors: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], op: str = '', axis: typing.SupportsInt | typing.SupportsIndex = 0, structure: str = '', ragged: bool = True, groups: collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]] = [], split_axis: typing.SupportsInt | typing.SupportsIndex = 0, pairs: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]] = []) -> bool:
        """
        Replica `replica` reaches a synchronisation point.
        
        Args:
          replica: the replica's position in the run.
          kind: the collective ("all_reduce", "all_gather", "merge_call", ...).
          tensors: the replica's flattened tensors.
          op: the reduction of a reducing collective ("SUM", "MEAN", ...).
          axis: all_gather's concat axis; all_to_all's concat dimension.
          structure: the nest's structure, compared across replicas.
          ragged: an all_gather's tensors may differ in size along `axis`.
          groups: TF's group_assignment (the collective runs within each group).
          split_axis: all_to_all's split dimension.
          pairs: collective_permute's (source, target) replica ids.
        
        Returns:
          True when every replica has arrived.
        
        Raises:
          InvalidArgumentError: it does not match what the others do (naming the replicas).
          ValueError: nests of different structure.
          FailedPreconditionError: a replica it waits for has finished.
        """
    def arrived(self) -> list[int]:
        """
        How many replicas are at the current synchronisation point.
        """
    def cancel(self, reason: str) -> None:
        """
        Fails the current synchronisation point, so that every replica waiting at it raises.
        
        Args:
          reason: the error message the waiting replicas raise.
        """
    def complete(self, devices: collections.abc.Sequence[tpustrategy._core.devices.Device] = []) -> list[list[tpustrategy._core.tensor.Tensor] | None]:
        """
        Runs the full synchronisation point, with the GIL released.
        
        Args:
          devices: where the results go (empty: each replica's own device).
        
        Returns:
          One list of result tensors per replica (None for merge_call).
        """
    def depart(self, replica: typing.SupportsInt | typing.SupportsIndex) -> bool:
        """
        Replica `replica` finished its function.
        
        Args:
          replica: the replica's position in the run.
        
        Returns:
          True if that failed a synchronisation point others wait at.
        """
    def park(self, replica: typing.SupportsInt | typing.SupportsIndex, kind: str, tensors: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], op: str, axis: typing.SupportsInt | typing.SupportsIndex, structure: str, ragged: bool, devices: typing.Any, driver: typing.Any, parked: typing.Any, groups: collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]] = [], split_axis: typing.SupportsInt | typing.SupportsIndex = 0, pairs: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]] = []) -> typing.Any:
        """
        arrive(), then hands over to the next replica of the round.
        
        Args:
          replica, kind, tensors, op, axis, structure, ragged, groups, split_axis, pairs: as arrive().
          devices: where the results go (None: each replica's own device).
          driver: the driver greenlet, switched to outside drive().
          parked: the marker handed to `driver` outside drive().
        
        Returns:
          What this replica is resumed with: its results.
        """
    def park_all_reduce(self, replica: int, op: str, tensor: tpustrategy._core.tensor.Tensor, devices: typing.Any, driver: typing.Any, parked: typing.Any) -> typing.Any:
        """
        park() for an all_reduce of one tensor (positional arguments only).
        
        Args:
          replica: the replica's position in the run.
          op: the reduction ("SUM", "MEAN", ...).
          tensor: the replica's tensor.
          devices, driver, parked: as park().
        
        Returns:
          The reduced tensor, or None (without arriving) for a dtype or op the general path must handle.
        """
    def raise_if_failed(self) -> None:
        """
        Raises the error that failed the current synchronisation point, if one did.
        """
    def reset(self) -> None:
        """
        Forgets the current synchronisation point (after a failed run).
        """
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
    The replica scheduler's driver loop (scheduler.py): rounds of the replicas, each with its context
    current, handing over to each other, and the collectives they park in, run with the GIL released.
    
    Args:
      workers: one greenlet per replica.
      contexts: each replica's ExecutionContext.
      values: what each replica is handed when it starts or resumes.
      fresh: the jobs are new (started in a copy of the caller's contextvars).
      modes: the mode frame each new job pushes.
      suspended: whether each replica is parked.
      rendezvous: the run's ReplicaRendezvous.
      driver_context: the driver's ExecutionContext.
      parked, merged, done, failed: the markers replicas hand back.
      driver: the driver greenlet (required).
      round_over: the marker the last replica of a round switches back with (required).
    
    Returns:
      (i, what it handed back, finished so far) when replica i failed or switched out by itself, else
      (n, `merged` or None, how many finished) at the end of a round in which replicas finished or every
      replica is in merge_call.
    
    Raises:
      InvalidArgumentError: lists of different lengths, or no `driver` / `round_over`.
    """
def finish_job(position: int, handed: typing.Any, driver: typing.Any) -> typing.Any:
    """
    The end of a replica's job in its worker: hands over to the next replica, or to `driver` (positional arguments only).
    
    Args:
      position: the replica's position in the run.
      handed: `done` (its value is in the run's results) or `failed` (its error is).
      driver: the driver greenlet.
    
    Returns:
      This worker's next job (the next replica's new job, run here without a switch).
    """
def pop_mode(frame: typing.Any) -> None:
    """
    Pops `frame` off the current context's mode stack.
    
    Args:
      frame: the frame on top of the stack.
    
    Raises:
      RuntimeError: `frame` is not on top.
    """
def push_mode(frame: typing.Any) -> None:
    """
    Pushes a frame onto the current context's tf.distribute mode stack.
    
    Args:
      frame: the Python object that stands for the mode (scope, replica or merge frame).
    """
def set_current_context(context: ExecutionContext) -> None:
    """
    Makes `context` this thread's current context.
    
    Args:
      context: an ExecutionContext, or None for the thread's default.
    """
def unwind_mode(frame: typing.Any) -> None:
    """
    Pops the current context's mode stack down to and including `frame`, if it is on it.
    
    Args:
      frame: a frame pushed earlier (push_mode).
    """
