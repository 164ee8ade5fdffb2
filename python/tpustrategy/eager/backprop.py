"""``tf.GradientTape``: a thin facade over the C++ tape (``_core.autodiff.Tape``).

The C++ tape records every op dispatched while it is on the current tape stack and has a watched
floating-point input; gradients are computed in C++ by gradient functions written with the same ops,
so nested tapes give higher-order derivatives. Variables are watched when read inside a tape: a
variable read hands its current value to ``_variable_accessed``, and the tape remembers which values
of which variable it saw, so the gradient with respect to a variable is the sum over its reads.

The C++ tape stack lives in the current per-replica context (core/placement.h), which the scheduler
switches with every greenlet switch: inside ``strategy.run`` each replica records on its own tapes.

SPMD: a partitioned ShardedTensor stands on the tape as a proxy tensor (cpp/tpustrategy/spmd/sharded_tape.h), and
partitioned ops record there with partitioned gradients, so one backward pass covers sharded and plain tensors;
the gradient of a partitioned value comes back as a partitioned ShardedTensor.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from tpustrategy import _core, nest
from tpustrategy.framework.indexed_slices import IndexedSlices
from tpustrategy.ops import _spmd_hook
from tpustrategy.ops.unconnected_gradients import UnconnectedGradients

if TYPE_CHECKING:
    from tpustrategy.framework.tensor import Tensor

    class _Tape(_core.autodiff.Tape):
        """The C++ tape with the Python attributes this module keeps on it (the binding takes dynamic attributes);
        every tape on the stack is made here, so every one has them."""

        _variable_reads: dict[int, tuple[Any, dict[int, Tensor]]]  # id(variable) -> (variable, {tensor id: value})
        _watched_variables: dict[int, Any]  # id(variable) -> variable (GradientTape.watch(variable))

_logger = logging.getLogger("tpustrategy")
_autodiff = _core.autodiff

# Tapes that watch variables read now regardless of watch_accessed_variables (GradientTape.watch(var)).
_explicit_watchers: list[_Tape] = []

# Set once some tape has watched a variable explicitly (GradientTape.watch(variable)): from then on a variable read
# also asks which tapes on the current stack watched that variable, so reads after the watch call (a variable's
# SPMD copies, a value assigned later) are watched on those tapes too, as TF's watch of the variable's handle.
_variables_watched = [False]

# How many tapes (of any thread) are recording, plus explicit watchers: a cheap pre-check for variable
# reads, which only ask the C++ tape stack when this is non-zero.
_active = [0]


def _is_variable(value: Any) -> bool:
    return getattr(value, "_is_variable", False) or hasattr(value, "_values") and hasattr(value, "_primary")


def _components(variable: Any) -> list[Any]:
    """The plain variables behind a (possibly distributed) variable."""
    values = getattr(variable, "_values", None)
    return list(values) if values is not None and not isinstance(variable, _core.tensor.Tensor) else [variable]


def _note_read(core_tape: _Tape, variable: Any, value: Tensor) -> None:
    """Remembers that `variable` was read as `value` (each distinct tensor once)."""
    reads = core_tape._variable_reads
    entry = reads.setdefault(id(variable), (variable, {}))
    entry[1].setdefault(_autodiff.tensor_id(value), value)


def _variable_accessed(variable: Any, value: Tensor) -> None:
    """Called by every variable read while a tape may be recording."""
    tapes: list[_Tape] = _autodiff.variable_accessed(value) if variable.trainable else []
    for core_tape in tapes:
        _note_read(core_tape, variable, value)
    for core_tape in _explicit_watchers:
        core_tape.watch(value)
        _note_read(core_tape, variable, value)
    if _variables_watched[0]:
        for core_tape in cast("list[_Tape]", _autodiff.current_tapes()):
            watched = getattr(core_tape, "_watched_variables", None)
            if watched and id(variable) in watched and not any(core_tape is t for t in tapes):
                core_tape.watch(value)
                _note_read(core_tape, variable, value)


def _as_tensor(value: Any) -> Tensor:
    if isinstance(value, _core.tensor.Tensor):
        return value
    if isinstance(value, IndexedSlices):
        return value._as_tensor()
    if hasattr(value, "_as_tensor"):
        return cast("Tensor", value._as_tensor())
    return cast("Tensor", _core.tensor.convert_to_tensor(value))


def _tape_tensor(value: Any) -> Tensor:
    """What stands for `value` on the tape: a partitioned ShardedTensor's proxy, else the tensor."""
    if _spmd_hook.active and _spmd_hook.sharded(value):
        return cast("Tensor", _spmd_hook.partitioner.tape_tensor(value))
    return _as_tensor(value)


def _from_core(grad: Any) -> Any:
    """A core gradient entry as the TF value: None, a Tensor, IndexedSlices or (for a partitioned value) a
    partitioned ShardedTensor."""
    if _spmd_hook.active and isinstance(grad, _core.tensor.Tensor):
        sharded = _spmd_hook.partitioner.from_tape_tensor(grad)
        if sharded is not None:
            return sharded
    if isinstance(grad, tuple):
        values, indices, dense_shape = grad
        return IndexedSlices(values, indices, _core.tensor.constant(list(dense_shape), _core.tensor.int64))
    return grad


def _sum_grads(grads: list[Any]) -> Any:
    """The sum of the gradients reaching one source through several tensors (TF's aggregation)."""
    present = [g for g in grads if g is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    if _spmd_hook.sharded(*present):  # partitioned pieces add partitioned (a sharded one first)
        present.sort(key=lambda g: not _spmd_hook.sharded(g))
        total = present[0]
        for g in present[1:]:
            total = total + (g._as_tensor() if isinstance(g, IndexedSlices) else g)
        return total
    if all(isinstance(g, IndexedSlices) for g in present):
        return IndexedSlices(_core.ops.concat([g.values for g in present], 0),
                             _core.ops.concat([_core.ops.cast(g.indices, _core.tensor.int64) for g in present], 0),
                             present[0].dense_shape)
    total = _as_tensor(present[0])
    for g in present[1:]:
        total = total + _as_tensor(g)
    return total


class VariableWatcher:
    """Collects the variables read inside its ``with`` block (for tf.custom_gradient), in read order."""

    def __enter__(self) -> VariableWatcher:
        self._tape = cast("_Tape", _autodiff.Tape(persistent=False, watch_accessed_variables=False))
        self._tape._variable_reads = {}
        _explicit_watchers.append(self._tape)
        _active[0] += 1
        return self

    def __exit__(self, typ: object, value: object, traceback: object) -> None:
        _explicit_watchers.remove(self._tape)
        _active[0] -= 1

    def watched_variables(self) -> list[Any]:
        return [variable for variable, _ in self._tape._variable_reads.values()]

    def value_read(self, variable: Any) -> Any:
        """The tensor the block read from `variable` (the last one, if it was assigned in between)."""
        return list(self._tape._variable_reads[id(variable)][1].values())[-1]


class GradientTape:
    """Records operations for automatic differentiation (mirrors ``tf.GradientTape``).

    Args:
      persistent: allow more than one ``gradient`` / ``jacobian`` call.
      watch_accessed_variables: watch the trainable variables read while the tape is active.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._watched_variables: tuple[Any, ...] = ()
        self._recording = False
        self._tape: _Tape | None = None

    # ---- context ----
    def __enter__(self) -> GradientTape:
        self._push_tape()
        return self

    def __exit__(self, typ: object, value: object, traceback: object) -> None:
        if self._recording:
            self._pop_tape()

    def _push_tape(self) -> None:
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active tape.")
        if self._tape is None:
            self._tape = cast("_Tape", _autodiff.Tape(persistent=self._persistent,
                                                      watch_accessed_variables=self._watch_accessed_variables))
            self._tape._variable_reads = {}
        _autodiff.push_tape(self._tape)
        _active[0] += 1
        self._recording = True

    def _pop_tape(self) -> None:
        if not self._recording:
            raise ValueError("Tape is not recording.")
        assert self._tape is not None  # recording: _push_tape made it
        _autodiff.pop_tape(self._tape)
        _active[0] -= 1
        self._recording = False

    # ---- watching ----
    def watch(self, tensor: Any) -> None:
        """Ensures ``tensor`` (a tensor, a variable, or a nest of them) is traced by this tape."""
        for t in nest.flatten(tensor):
            if _is_variable(t):
                self._watch_variable(t)
            elif _spmd_hook.active and _spmd_hook.sharded(t):
                self._ensure_tape().watch(_tape_tensor(t))
            elif isinstance(t, _core.tensor.Tensor):
                if not (t.dtype.is_floating or t.dtype.is_complex):
                    _logger.warning("The dtype of the watched tensor must be floating (e.g. tf.float32), got %r",
                                    t.dtype)
                self._ensure_tape().watch(t)
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                                 "tf.Variable or ExtensionType.")

    def _ensure_tape(self) -> _Tape:
        if self._tape is None:
            self._tape = cast("_Tape", _autodiff.Tape(persistent=self._persistent,
                                                      watch_accessed_variables=self._watch_accessed_variables))
            self._tape._variable_reads = {}
        return self._tape

    def _watch_variable(self, variable: Any) -> None:
        core_tape = self._ensure_tape()
        watched = getattr(core_tape, "_watched_variables", None)
        if watched is None:
            watched = core_tape._watched_variables = {}
        for component in _components(variable):
            watched[id(component)] = component  # kept alive with the tape, so the id stays its own
        _variables_watched[0] = True
        _explicit_watchers.append(core_tape)
        _active[0] += 1
        try:
            variable.value()
        finally:
            _explicit_watchers.remove(core_tape)
            _active[0] -= 1

    def watched_variables(self) -> tuple[Any, ...]:
        """The variables this tape has watched, in the order first seen."""
        if self._tape is not None:
            seen: list[Any] = []
            for variable, _ in self._tape._variable_reads.values():
                container = _container(variable)
                if not any(container is s for s in seen):
                    seen.append(container)
            self._watched_variables = tuple(seen)
        return self._watched_variables

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording operations on this tape."""
        if self._tape is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self) -> None:
        """Clears everything this tape recorded (it must be active, as in TF)."""
        self._pop_tape()
        self._tape = None
        self._push_tape()

    # ---- gradients ----
    def _begin_use(self, what: str) -> None:
        if self._tape is None or self._tape.spent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            else:
                _logger.warning("Calling GradientTape.%s on a persistent tape inside its context is significantly "
                                "less efficient than calling it outside the context (it causes the gradient ops to "
                                "be recorded on the tape, leading to increased CPU and memory usage). Only call "
                                "GradientTape.%s inside the context if you actually want to trace the gradient in "
                                "order to compute higher order derivatives.", what, what)

    def _end_use(self) -> None:
        if not self._persistent:
            self.watched_variables()
            self._tape = None

    def _source_tensors(self, source: Any) -> list[Tensor]:
        """The tensors standing for one source: every value of a variable read on this tape."""
        assert self._tape is not None  # after _begin_use
        if _is_variable(source):
            tensors: list[Tensor] = []
            for component in _components(source):
                entry = self._tape._variable_reads.get(id(component))
                if entry is not None:
                    tensors.extend(entry[1].values())
            if not tensors:  # never watched here: as TF, no gradient (a fresh id no recorded op read)
                tensors = [_core.ops.stop_gradient(_components(source)[0]._value)]
            return tensors
        return [_tape_tensor(source)]

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE) -> Any:
        """Gradients of ``target`` (a tensor or nest; summed) with respect to each of ``sources`` (a nest).

        Returns:
          A nest like ``sources``: Tensors, IndexedSlices (for gathered sources), or None (unconnected, or an
          integer source) — zeros instead of None with ``unconnected_gradients=ZERO``.

        Raises:
          RuntimeError: a non-persistent tape is used a second time.
          TypeError: ``target`` is None.
          ValueError: an unknown ``unconnected_gradients``, or mismatched ``output_gradients``.
        """
        self._begin_use("gradient")
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, Variables or "
                            "CompositeTensors to be differentiated, but received None.")
        zero = _unconnected_is_zero(unconnected_gradients)
        flat_target_values = nest.flatten(target)
        flat_targets = [_tape_tensor(t) for t in flat_target_values]
        flat_sources = nest.flatten(sources)
        expanded = [self._source_tensors(s) for s in flat_sources]
        core_sources = [t for group in expanded for t in group]
        flat_out: list[Tensor | None] = [None] * len(flat_targets)
        if output_gradients is not None:
            flat_out = nest.flatten(output_gradients)
            if len(flat_out) == len(flat_target_values):  # else the tape names the mismatch
                flat_out = [_output_gradient(t, g) for t, g in zip(flat_target_values, flat_out, strict=True)]
            else:
                flat_out = [None if g is None else _as_tensor(g) for g in flat_out]
        assert self._tape is not None  # after _begin_use
        raw = self._tape.gradient(flat_targets, core_sources, flat_out, unconnected_zero=zero)
        flat_grads, k = [], 0
        for group in expanded:
            flat_grads.append(_sum_grads([_from_core(g) for g in raw[k:k + len(group)]]))
            k += len(group)
        self._end_use()
        return nest.pack_sequence_as(sources, flat_grads)

    def jacobian(self, target: Any, sources: Any,
                 unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                 parallel_iterations: int | None = None, experimental_use_pfor: bool = True) -> Any:
        """Per source, d target[i...] / d source[j...] of shape ``target.shape + source.shape``."""
        self._begin_use("jacobian")
        zero = _unconnected_is_zero(unconnected_gradients)
        flat_sources = nest.flatten(sources)
        expanded = [self._source_tensors(s) for s in flat_sources]
        assert self._tape is not None  # after _begin_use
        raw = self._tape.jacobian(_target_tensor(target), [t for g in expanded for t in g], unconnected_zero=zero)
        flat, k = [], 0
        for group in expanded:
            flat.append(_sum_grads([_from_core(g) for g in raw[k:k + len(group)]]))
            k += len(group)
        self._end_use()
        return nest.pack_sequence_as(sources, flat)

    def batch_jacobian(self, target: Any, source: Any,
                       unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                       parallel_iterations: int | None = None, experimental_use_pfor: bool = True) -> Any:
        """d target[b, i...] / d source[b, j...]: shape ``[B] + target.shape[1:] + source.shape[1:]``."""
        self._begin_use("batch_jacobian")
        zero = _unconnected_is_zero(unconnected_gradients)
        group = self._source_tensors(source)
        if len(group) != 1:
            raise NotImplementedError("batch_jacobian with respect to a variable assigned between its reads")
        assert self._tape is not None  # after _begin_use
        result = self._tape.batch_jacobian(_target_tensor(target), group[0], unconnected_zero=zero)
        self._end_use()
        return _from_core(result)


def _container(variable: Any) -> Any:
    container = getattr(variable, "_distributed_container", None)
    if callable(container) and not _is_variable(container):
        container = container()
    return container if container is not None else variable


def _target_tensor(target: Any) -> Tensor:
    """A jacobian's target on the tape: a partitioned target's proxy (each pass seeds it partitioned), else the
    tensor."""
    return _tape_tensor(target)


def _output_gradient(target: Any, grad: Any) -> Tensor | None:
    """`grad` as the tape's seed for `target`: laid out like a partitioned target (a local slice per core)."""
    if grad is None:
        return None
    if _spmd_hook.active and _spmd_hook.sharded(target):
        return cast("Tensor", _spmd_hook.partitioner.seed_for(target, grad))
    return _as_tensor(grad)


def _unconnected_is_zero(value: UnconnectedGradients | str) -> bool:
    try:
        return UnconnectedGradients(value) is UnconnectedGradients.ZERO
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None
