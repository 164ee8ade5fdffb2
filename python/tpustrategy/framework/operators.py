"""Tensor operators for tensor-like objects (variables, distributed variables, Mirrored values).

TF overloads every Tensor operator on ``tf.Variable`` and on distributed values that stand for one tensor,
by reading the value and applying the Tensor operator. ``_as_tensor()`` gives that value here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or")
_COMPARISONS = ("__lt__", "__le__", "__gt__", "__ge__")  # == and != keep identity semantics (hashable objects)
_UNARY = ("__neg__", "__pos__", "__abs__", "__invert__")
# No __bool__: truth-testing stays identity-based (``component or primary``), like a hashable Python object.
_CONVERSIONS = ("__float__", "__int__", "__index__")


def _operand(value: object) -> Any:
    as_tensor = getattr(value, "_as_tensor", None)
    return as_tensor() if as_tensor is not None else value


def _forward(name: str) -> Callable[..., Any]:
    def method(self: TensorOperators, *args: object) -> Any:
        return getattr(self._as_tensor(), name)(*(_operand(a) for a in args))

    method.__name__ = name
    return method


class TensorOperators:
    """Mixin: the Tensor operators applied to ``self._as_tensor()``."""

    __array_priority__ = 100  # numpy defers to our reflected operators (ndarray + variable)
    _as_tensor: Callable[[], Any]  # what the class it is mixed into provides (declared only: no attribute here)

    def __getitem__(self, key: Any) -> Any:
        return self._as_tensor()[key]


for _name in _BINARY:
    setattr(TensorOperators, f"__{_name}__", _forward(f"__{_name}__"))
    setattr(TensorOperators, f"__r{_name}__", _forward(f"__r{_name}__"))
for _name in _COMPARISONS + _UNARY + _CONVERSIONS:
    setattr(TensorOperators, _name, _forward(_name))
del _name
