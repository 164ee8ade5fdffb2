"""``tpustrategy.function``: accepted so that TensorFlow code runs unchanged.

The simulator executes eagerly, so the decorated function is simply called. Every ``tf.function``
keyword (autograph, jit_compile, reduce_retracing, experimental_*) is accepted and ignored; there is no
tracing, so Python side effects run on every call (once per replica in ``run``). ``input_signature`` is
enforced as TF does: positional inputs are converted to the specs' dtypes and must match their shapes.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from tpustrategy import _core, errors, nest
from tpustrategy.distribute.values import DistributedValues
from tpustrategy.framework.tensor import TensorSpec


def _check_against_spec(value: Any, spec: Any, path: str) -> Any:
    """`value` converted as TF converts an input of a function with `spec` in its input_signature.

    Raises:
      TypeError: structure, dtype or shape does not match `spec`.
    """
    if isinstance(spec, TensorSpec):
        if isinstance(value, DistributedValues) or getattr(value, "_is_variable", False):
            tensor = _core.tensor.convert_to_tensor(value)  # read for the check; the value itself is passed on
        else:
            try:
                tensor = value = _core.tensor.convert_to_tensor(value, spec.dtype)
            except (TypeError, ValueError) as error:
                raise TypeError(f"input {path} is incompatible with input_signature {spec}: {error}") from None
        if not spec.is_compatible_with(tensor):
            raise TypeError(f"input {path} ({tensor.dtype.name}, shape {tensor.shape}) is incompatible with "
                            f"input_signature {spec}")
        return value
    component_specs = getattr(spec, "_component_specs", None)
    if component_specs is not None:  # PerReplicaSpec: one spec per replica component
        components = value.values if isinstance(value, DistributedValues) else None
        if components is None or len(components) != len(component_specs):
            raise TypeError(f"input {path} does not match input_signature {spec}")
        for i, (component, component_spec) in enumerate(zip(components, component_specs, strict=True)):
            _check_against_spec(component, component_spec, f"{path}[replica {i}]")
        return value
    if nest.is_nested(spec):
        try:
            nest.assert_same_structure(spec, value, check_types=False)
            nest._assert_same_mapping_keys(spec, value)
        except (TypeError, ValueError):
            raise TypeError(f"input {path} does not have the structure of input_signature {spec}") from None
        flat = [_check_against_spec(v, s, path) for v, s in zip(nest.flatten(value), nest.flatten(spec), strict=True)]
        return nest.pack_sequence_as(value, flat)
    return value


def _bind_to_signature(fn: Callable[..., Any], input_signature: Sequence[Any], given: Sequence[Any],
                       kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Positional inputs checked against `input_signature`; keyword inputs naming those parameters are moved
    into place, as TF binds them. A leading ``self`` (a decorated method) is not part of the signature."""
    names = list(inspect.signature(fn).parameters)
    prefix: tuple[Any, ...] = ()
    if names and names[0] == "self" and given:
        prefix, given, names = tuple(given[:1]), given[1:], names[1:]
    args = list(given)
    for name in names[len(args):len(input_signature)]:
        if name in kwargs:
            args.append(kwargs.pop(name))
    if kwargs:
        raise TypeError(f"unexpected keyword arguments {sorted(kwargs)} for a tf.function with an input_signature")
    if len(args) != len(input_signature):
        raise TypeError(f"the function takes {len(input_signature)} arguments per its input_signature, "
                        f"got {len(args)}")
    checked = (_check_against_spec(a, s, f"#{i}") for i, (a, s) in enumerate(zip(args, input_signature, strict=True)))
    return prefix + tuple(checked)


def function(func: Callable[..., Any] | None = None, input_signature: Sequence[Any] | None = None,
             autograph: bool = True, jit_compile: bool | None = None, reduce_retracing: bool = False,
             experimental_implements: str | None = None, experimental_autograph_options: object = None,
             experimental_attributes: dict[str, Any] | None = None, experimental_relax_shapes: bool | None = None,
             experimental_compile: bool | None = None, experimental_follow_type_hints: bool | None = None) -> Any:
    """Decorator mirroring ``tf.function``; usable as ``@function`` or ``@function(jit_compile=True)``."""
    signature = None if input_signature is None else list(input_signature)

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                if signature is not None:
                    return fn(*_bind_to_signature(fn, signature, args, dict(kwargs)))
                return fn(*args, **kwargs)
            except errors.EndOfSequence:
                # TF's traced next(iterator) past the end raises OutOfRangeError out of the function.
                raise errors.OutOfRangeError(None, None, "End of sequence") from None

        wrapper.python_function = fn  # type: ignore[attr-defined]  # as TF's Function has them
        wrapper.input_signature = None if signature is None else tuple(signature)  # type: ignore[attr-defined]
        return wrapper

    return decorate if func is None else decorate(func)
