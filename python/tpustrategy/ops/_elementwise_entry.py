"""The public functions of the elementwise ops (tf.add, tf.exp, tf.nn.relu, ...) as C entry points.

``elementwise_entry(fallback)`` gives a builtin function with `fallback`'s name, signature (as a text signature,
so ``inspect.signature`` and ``help()`` show it), docstring and module. Called with Tensor operands (or a Tensor
and a Python number) it runs the op in C++ with no Python frame in between; every other call, including any
that could involve a ShardedTensor, runs `fallback`, so conversions, errors and the SPMD partitioner behave as
`fallback` does. (_core.ops' _elementwise_entry; issue #11: a Python wrapper cost a fifth of a small add.)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from tpustrategy import _core

_F = TypeVar("_F", bound=Callable[..., Any])


def _text_signature(function: Callable[..., Any]) -> str:
    """``name(x, y, name=None)``: CPython's text signatures hold no annotations."""
    signature = inspect.signature(function)
    plain = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
    return f"{function.__name__}{signature.replace(parameters=plain, return_annotation=inspect.Signature.empty)}"


def elementwise_entry(fallback: _F) -> _F:
    """The C entry point of the elementwise op named ``fallback.__name__``, falling back to `fallback`."""
    doc = f"{_text_signature(fallback)}\n--\n\n{inspect.cleandoc(fallback.__doc__ or '')}"
    entry: _F = _core.ops._elementwise_entry(fallback.__name__, fallback, module=fallback.__module__, doc=doc)
    return entry
