"""Static shapes TF would give some tensors, recorded while a dataset function runs to find its element_spec.

Eager tensors here always have their full shape, which is also what TF's shape inference gives almost every op
in a traced ``Dataset.map`` function. The exception real pipelines meet is ``tf.py_function`` /
``tf.numpy_function``: TF cannot see into the Python function, so their outputs have an unknown shape in
``element_spec`` until ``Tensor.set_shape`` or ``tf.ensure_shape`` states one. While ``recording()`` is active
(``Dataset.map`` computing its spec), those ops register their outputs here (``mark_unknown``), ``set_shape`` /
``ensure_shape`` refine them (``refine``) and the spec takes a registered tensor's shape from here
(``lookup``). Tensors are keyed by identity: a value computed from such an output (``x + 1``) shows its real
shape, where TF's inference would still say unknown.
"""

from __future__ import annotations

import contextlib
import threading

from tpustrategy.framework.tensor_shape import TensorShape, as_shape

_state = threading.local()


def _shapes() -> dict | None:
    return getattr(_state, "shapes", None)


@contextlib.contextmanager
def recording():
    """Registers, for the duration, the static shapes TF would give py_function outputs (nests: inner wins)."""
    saved = _shapes()
    _state.shapes = {}
    try:
        yield
    finally:
        _state.shapes = saved


def active() -> bool:
    """Whether a Dataset function's spec is being found (``recording()``)."""
    return _shapes() is not None


def mark_unknown(tensor) -> None:
    """`tensor` has an unknown static shape (the output of an opaque Python function)."""
    shapes = _shapes()
    if shapes is not None:
        shapes[id(tensor)] = (tensor, TensorShape(None))  # the tensor is kept alive, so its id stays its own


def refine(tensor, shape) -> None:
    """``set_shape`` / ``ensure_shape`` on `tensor`: its static shape merges with `shape`."""
    shapes = _shapes()
    entry = None if shapes is None else shapes.get(id(tensor))
    if entry is not None and entry[0] is tensor:
        shapes[id(tensor)] = (tensor, entry[1].merge_with(as_shape(shape)))


def lookup(value) -> TensorShape | None:
    """The static shape recorded for `value`, or None when TF would know its full shape."""
    shapes = _shapes()
    entry = None if shapes is None else shapes.get(id(value))
    return entry[1] if entry is not None and entry[0] is value else None
