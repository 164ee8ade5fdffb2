"""
Gradient tapes (private; use tpustrategy.GradientTape).
"""
from __future__ import annotations
import collections.abc
import tpustrategy._core.tensor
import typing
__all__: list[str] = ['Tape', 'current_tapes', 'is_active', 'ops_with_gradients', 'pop_static_shapes', 'pop_tape', 'push_static_shapes', 'push_tape', 'record_custom_gradient', 'recording', 'set_static_shape', 'static_shape', 'static_shapes_active', 'tensor_id', 'variable_accessed']
class Tape:
    """
    A C++ gradient tape; records while it is on the tape stack.
    """
    def __init__(self, *, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        """
        A new tape, not yet on the tape stack.
        
        Args:
          persistent: whether gradient() may be called more than once.
          watch_accessed_variables: whether reads of trainable variables are watched automatically.
        """
    def batch_jacobian(self, target: tpustrategy._core.tensor.Tensor, source: tpustrategy._core.tensor.Tensor, *, unconnected_zero: bool = False) -> tpustrategy._core.tensor.Tensor | None:
        """
        The per-example Jacobian of shape [B] + target.shape[1:] + source.shape[1:].
        
        Args:
          target: a Tensor of shape [B, ...]; row b depends only on row b of `source`.
          source: a Tensor of shape [B, ...].
          unconnected_zero: give zeros instead of None when the target does not depend on the source.
        
        Returns:
          A Tensor, or None when unconnected.
        """
    def gradient(self, targets: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], sources: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], output_gradients: collections.abc.Sequence[tpustrategy._core.tensor.Tensor | None], *, unconnected_zero: bool = False) -> list:
        """
        Gradients of the targets with respect to each source.
        
        Args:
          targets: the Tensors to differentiate (their gradients are summed).
          sources: the Tensors to differentiate with respect to.
          output_gradients: per target, its initial gradient, or None for ones.
          unconnected_zero: give zeros instead of None for a source the targets do not depend on.
        
        Returns:
          One entry per source: None, a Tensor, or (values, indices, dense_shape) for a sparse gradient.
        
        Raises:
          RuntimeError: a non-persistent tape was already used.
        """
    def is_tracked(self, tensor: tpustrategy._core.tensor.Tensor) -> bool:
        """
        Whether the tape records ops reading `tensor`.
        
        Args:
          tensor: a Tensor (watched, or computed from a watched one).
        """
    def jacobian(self, target: tpustrategy._core.tensor.Tensor, sources: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], *, unconnected_zero: bool = False) -> list[tpustrategy._core.tensor.Tensor | None]:
        """
        Per source, the Jacobian of shape target.shape + source.shape.
        
        Args:
          target: the Tensor to differentiate.
          sources: the Tensors to differentiate with respect to.
          unconnected_zero: give zeros instead of None for a source the target does not depend on.
        
        Returns:
          One Tensor (or None when unconnected) per source.
        """
    def reset(self) -> None:
        """
        Forgets every record and watched tensor.
        """
    def watch(self, tensor: tpustrategy._core.tensor.Tensor) -> None:
        """
        Records ops reading `tensor` from now on.
        
        Args:
          tensor: the Tensor to watch.
        """
    @property
    def num_records(self) -> int:
        ...
    @property
    def persistent(self) -> bool:
        ...
    @property
    def spent(self) -> bool:
        ...
    @property
    def watch_accessed_variables(self) -> bool:
        ...
def current_tapes() -> list[Tape]:
    """
    The tapes on the current replica's stack, innermost last.
    """
def is_active(tape: Tape) -> bool:
    """
    Whether `tape` is on the current replica's tape stack.
    
    Args:
      tape: a Tape.
    """
def ops_with_gradients() -> list[str]:
    """
    TF op type names with a registered gradient function.
    """
def pop_static_shapes() -> None:
    """
    Ends this thread's innermost static-shape table.
    """
def pop_tape(tape: Tape) -> bool:
    """
    Takes `tape` off the current replica's tape stack.
    
    Args:
      tape: the Tape to stop recording on.
    
    Returns:
      False when it was not on the stack.
    """
def push_static_shapes() -> None:
    """
    Starts a table of static shapes for this thread (nests; framework/static_shape.py's recording()).
    """
def push_tape(tape: Tape) -> None:
    """
    Puts `tape` on the current replica's tape stack.
    
    Args:
      tape: the Tape to start recording on.
    """
def record_custom_gradient(inputs: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], outputs: collections.abc.Sequence[tpustrategy._core.tensor.Tensor], grad_fn: typing.Any) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Records outputs = f(inputs) on the active tapes with a Python gradient (tf.custom_gradient).
    
    Args:
      inputs: the Tensors f read.
      outputs: the Tensors f returned.
      grad_fn: called as grad_fn(*output_grads); returns one gradient (or None) per input.
    
    Raises:
      ValueError: at backprop, when grad_fn returns another number of gradients than there are inputs.
    """
def recording() -> bool:
    """
    Whether any tape is on the current stack.
    """
def set_static_shape(tensor: tpustrategy._core.tensor.Tensor, dims: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex | None] | None) -> None:
    """
    Gives `tensor` a static shape in this thread's table.
    
    Args:
      tensor: the Tensor.
      dims: the sizes, None for an unknown one; None for an unknown rank.
    """
def static_shape(tensor: tpustrategy._core.tensor.Tensor) -> typing.Any:
    """
    The static shape this thread's table gives `tensor`.
    
    Args:
      tensor: the Tensor.
    
    Returns:
      None when it has no entry (its full shape is its static shape), else (rank_known, dims with None for unknown).
    """
def static_shapes_active() -> bool:
    """
    Whether this thread has a static-shape table.
    """
def tensor_id(tensor: tpustrategy._core.tensor.Tensor) -> int:
    """
    The identity tapes key on (copies of one tensor share it).
    
    Args:
      tensor: a Tensor.
    """
def variable_accessed(value: tpustrategy._core.tensor.Tensor) -> list:
    """
    Watches a trainable variable's value on every tape that watches accessed variables.
    
    Args:
      value: the variable's current value.
    
    Returns:
      The tapes that now watch it.
    """
