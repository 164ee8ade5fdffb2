"""
Multi-process collectives over MPI (Open MPI).
"""
from __future__ import annotations
import collections.abc
import numpy
import typing
__all__: list[str] = ['Communicator', 'MpiCommunicator', 'available', 'default_timeout_seconds', 'finalize', 'initialize', 'initialized', 'make_communicator', 'world_rank', 'world_size']
class Communicator:
    """
    A group of participants (see collectives/communicator.h).
    """
    def all_gather(self, inputs: collections.abc.Sequence[numpy.ndarray]) -> numpy.ndarray:
        """
        Every participant's array flattened and concatenated in rank order.
        
        Args:
          inputs: this process's participants' arrays, in local_ranks order, same dtype and shape.
        
        Returns:
          One flat array.
        """
    def all_reduce(self, inputs: collections.abc.Sequence[numpy.ndarray], op: str) -> numpy.ndarray:
        """
        Reduces every participant's array element-wise across all processes.
        
        Args:
          inputs: this process's participants' arrays, in local_ranks order, same dtype and shape.
          op: "SUM", "MEAN", "MAX", "MIN" or "PROD".
        
        Returns:
          One array (the result every participant shares).
        
        Raises:
          InvalidArgumentError: bad local arguments, or processes in different collectives.
          AbortedError: another process failed (the message names the process and rank).
          DeadlineExceededError: a process did not arrive within the timeout.
        """
    def all_to_all(self, inputs: collections.abc.Sequence[numpy.ndarray]) -> list[numpy.ndarray]:
        """
        Rank t's output chunk s = rank s's input chunk t (flat).
        
        Args:
          inputs: this process's participants' arrays, in local_ranks order; element count divisible by size.
        
        Returns:
          One flat array per local participant.
        """
    def barrier(self) -> None:
        """
        Returns when every process of the group has called it.
        """
    def broadcast(self, inputs: collections.abc.Sequence[numpy.ndarray], root: typing.SupportsInt | typing.SupportsIndex) -> list[numpy.ndarray]:
        """
        Rank `root`'s array, for every local participant.
        
        Args:
          inputs: this process's participants' arrays, in local_ranks order.
          root: the group rank whose array is sent.
        
        Returns:
          One array per local participant.
        """
    def collective_permute(self, inputs: collections.abc.Sequence[numpy.ndarray], source_target_pairs: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]]) -> list[numpy.ndarray]:
        """
        Target's output = source's input.
        
        Args:
          inputs: this process's participants' arrays, in local_ranks order.
          source_target_pairs: (source rank, target rank) pairs; outputs no pair targets are zeros.
        
        Returns:
          One array per local participant.
        """
    def reduce_scatter(self, inputs: collections.abc.Sequence[numpy.ndarray], op: str) -> list[numpy.ndarray]:
        """
        Local participant j (rank r) gets chunk r of the reduction (flat).
        
        Args:
          inputs: this process's participants' arrays, in local_ranks order; element count divisible by size.
          op: "SUM", "MEAN", "MAX", "MIN" or "PROD".
        
        Returns:
          One flat array per local participant.
        """
    def split(self, color_of_rank: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], key_of_rank: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> dict[int, Communicator]:
        """
        Subgroups as MPI_Comm_split; every process must call it.
        
        Args:
          color_of_rank: per group rank, its subgroup's colour.
          key_of_rank: per group rank, its order key within the subgroup.
        
        Returns:
          {colour: Communicator} for the colours of this process's participants.
        """
    @property
    def backend(self) -> str:
        ...
    @property
    def local_ranks(self) -> list[int]:
        ...
    @property
    def process_count(self) -> int:
        ...
    @property
    def process_index(self) -> int:
        ...
    @property
    def size(self) -> int:
        ...
class MpiCommunicator(Communicator):
    """
    A Communicator over MPI processes (make_communicator).
    """
    def abort(self, rank: typing.SupportsInt | typing.SupportsIndex, message: str) -> bool:
        """
        Tells every other process that participant `rank` failed with `message`.
        
        Their current or next collective raises AbortedError naming this process and the rank.
        
        Args:
          rank: the failed participant's group rank.
          message: what went wrong.
        
        Returns:
          False if the other processes did not take notice within the timeout.
        """
    def world_rank_of_process(self, process_index: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        The MPI_COMM_WORLD rank of a process of the group.
        
        Args:
          process_index: the process's index in the group.
        """
    @property
    def timeout_seconds(self) -> float:
        ...
    @timeout_seconds.setter
    def timeout_seconds(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
def available() -> bool:
    """
    True when the core was built with MPI.
    """
def default_timeout_seconds() -> float:
    """
    TPUSTRATEGY_MPI_TIMEOUT_SECONDS, or 60 (ValueError for a value that is not a positive number).
    """
def finalize() -> None:
    """
    Finalises MPI if tpustrategy initialised it (idempotent).
    """
def initialize() -> None:
    """
    Initialises MPI (idempotent).
    """
def initialized() -> bool:
    """
    True between initialize() and finalize().
    """
def make_communicator(local_size: typing.SupportsInt | typing.SupportsIndex) -> MpiCommunicator:
    """
    The group over MPI_COMM_WORLD in which this process hosts `local_size` participants.
    
    Ranks are numbered process by process. Every process must call it.
    
    Args:
      local_size: this process's number of participants.
    
    Returns:
      An MpiCommunicator.
    
    Raises:
      UnimplementedError: the core was built without MPI.
    """
def world_rank() -> int:
    """
    This process's MPI_COMM_WORLD rank.
    """
def world_size() -> int:
    """
    The number of processes in MPI_COMM_WORLD.
    """
