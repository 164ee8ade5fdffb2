"""Static shapes TF would give the tensors of a dataset function, kept while the function runs to find its
element_spec.

Eager tensors here always have their full shape, which is also what TF's shape inference gives almost every op
in a traced ``Dataset.map`` function. The exception real pipelines meet is ``tf.py_function`` /
``tf.numpy_function``: TF cannot see into the Python function, so their outputs have an unknown shape until
``Tensor.set_shape`` or ``tf.ensure_shape`` states one, and so has what TF computes from them where its shape
functions cannot tell (``out + 1`` is unknown too; ``tf.reduce_sum(out)`` is a scalar; ``tf.reshape(out, [-1, 4])``
is ``[None, 4]``). While ``recording()`` is active (``Dataset.map`` computing its spec), those ops register their
outputs (``mark_unknown``), ``set_shape`` / ``ensure_shape`` refine them (``refine``), the ops of the C++ op set
give their outputs TF's static shape (cpp/tpustrategy/autodiff/static_shapes.h, keyed by tensor id) and the spec
takes a registered tensor's shape from there (``lookup``). String tensors live in Python: their entries are kept
here, by identity.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tpustrategy import _core
from tpustrategy.framework.tensor_shape import ShapeLike, TensorShape, as_shape

_state = threading.local()
_autodiff = _core.autodiff


def _strings() -> dict[int, tuple[object, TensorShape]] | None:
    return getattr(_state, "strings", None)


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Keeps, for the duration, the static shapes TF would give (nests: the inner one wins)."""
    saved = _strings()
    _state.strings = {}
    _autodiff.push_static_shapes()
    try:
        yield
    finally:
        _autodiff.pop_static_shapes()
        _state.strings = saved


def active() -> bool:
    """Whether a Dataset function's spec is being found (``recording()``)."""
    return _strings() is not None


def _get(tensor: object) -> TensorShape | None:
    if isinstance(tensor, _core.tensor.Tensor):
        entry = _autodiff.static_shape(tensor)
        return None if entry is None else TensorShape(entry[1] if entry[0] else None)
    strings = _strings()
    found = None if strings is None else strings.get(id(tensor))
    return found[1] if found is not None and found[0] is tensor else None


def _set(tensor: object, shape: TensorShape) -> None:
    if isinstance(tensor, _core.tensor.Tensor):
        _autodiff.set_static_shape(tensor, None if shape.rank is None else shape.as_list())
        return
    strings = _strings()
    if strings is not None:
        strings[id(tensor)] = (tensor, shape)  # the tensor is kept alive, so its id stays its own


def mark_unknown(tensor: object) -> None:
    """`tensor` has an unknown static shape (the output of an opaque Python function)."""
    if active():
        _set(tensor, TensorShape(None))


def refine(tensor: object, shape: ShapeLike) -> None:
    """``set_shape`` / ``ensure_shape`` on `tensor`: its static shape merges with `shape`."""
    current = _get(tensor) if active() else None
    if current is not None:
        _set(tensor, current.merge_with(as_shape(shape)))


def lookup(value: object) -> TensorShape | None:
    """The static shape recorded for `value`, or None when TF would know its full shape."""
    return _get(value) if active() else None


def note_shape_of(result: object, tensor: object) -> None:
    """``tf.shape(tensor)`` gave `result`: a vector as long as `tensor`'s static rank (unknown when that is)."""
    if active():
        static = _get(tensor)
        if static is not None:
            _set(result, TensorShape([static.rank]))


def note_like(result: object, tensor: object) -> None:
    """An op computed in Python (``zeros_like``, ``sort``, ``cumsum``, ``reverse``, ...) gave `result` of
    `tensor`'s shape: `tensor`'s static shape."""
    if active():
        static = _get(tensor)
        if static is not None:
            _set(result, static)


def note_top_k(results: Iterable[object], tensor: object, k: int) -> None:
    """``top_k(tensor, k)`` gave `results` (values, indices): `tensor`'s static shape with the last size k."""
    static = _get(tensor) if active() else None
    if static is not None:
        shape = static if static.rank is None else TensorShape([*static.as_list()[:-1], k])
        for result in results:
            _set(result, shape)


def note_data_dependent(result: object, tensor: Any, axis: int, mask_rank: int) -> None:
    """An op whose output size depends on values (``boolean_mask``, ``unique``) gave `result`: `tensor`'s
    static shape with its sizes ``axis .. axis + mask_rank`` replaced by one unknown size, whatever `tensor` is."""
    if active():
        static = _get(tensor)
        if static is None:
            static = tensor.shape
        if static.rank is None:
            _set(result, TensorShape(None))
        else:
            dims = static.as_list()
            _set(result, TensorShape([*dims[:axis], None, *dims[axis + mask_rank:]]))


def note_sorted_segments(result: Any, data: Any, data_shape: Sequence[int | None], ids_rank: int) -> None:
    """A sorted segment reduction (``segment_sum`` …) gave `result`: its row count is the last id + 1, a value,
    so TF's shape function leaves it unknown even for constant ids; the rest is `data`'s static shape."""
    if active():
        static = _get(data) if isinstance(data, _core.tensor.Tensor) else None
        if static is None:
            static = TensorShape(list(data_shape))
        _set(result, TensorShape(None) if static.rank is None else TensorShape([None, *static.as_list()[ids_rank:]]))


def note_split(result: Any) -> None:
    """``strings.split`` / ``bytes_split`` gave `result`: TF builds it from a sparse result whose dense shape is a
    value, so every size is unknown (a scalar's pieces: [None]; a rank-k input's: k + 1 unknown sizes)."""
    if active():
        _set(result, TensorShape([None] * len(result.shape)))


def note_shape(result: Any, shape: Any) -> None:
    """An op worked out in Python gave `result` the static shape `shape` (dims or None for an unknown rank)."""
    if active():
        _set(result, as_shape(shape) if shape is not None else TensorShape(None))
