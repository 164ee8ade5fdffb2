"""``tf.custom_gradient``: a function whose gradient is given by the user rather than derived.

``f(*args)`` returns ``(outputs, grad_fn)``; the outputs are re-identified (new tensor ids) and
recorded on the active tapes as one op with ``args`` as inputs and ``grad_fn`` as its gradient, so
the ops inside ``f`` do not contribute to gradients through the outputs. ``grad_fn(*output_grads)``
returns one gradient per argument (None allowed). When ``f`` reads trainable variables, ``grad_fn``
must take a ``variables`` keyword and return ``(argument_gradients, variable_gradients)``, as in TF.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from tpustrategy import _core, nest
from tpustrategy.eager import backprop


def custom_gradient(f: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """Decorator: ``f(*args) -> (outputs, grad_fn)`` with ``grad_fn(*dy) -> gradients for args``."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        with backprop.VariableWatcher() as watcher:
            result, grad_fn = f(*args, **kwargs)
        variables = [v for v in watcher.watched_variables() if v.trainable]
        takes_variables = "variables" in inspect.signature(grad_fn).parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(grad_fn).parameters.values())
        if variables and not takes_variables:
            raise TypeError("If using @custom_gradient with a function that uses variables, then grad_fn must "
                            "accept a keyword argument 'variables'.")
        inputs = [_core.tensor.convert_to_tensor(a) if not isinstance(a, _core.tensor.Tensor) else a for a in args]
        inputs += [watcher.value_read(v) for v in variables]
        flat = [_core.ops.stop_gradient(_core.tensor.convert_to_tensor(r)) for r in nest.flatten(result)]

        def actual_grad_fn(*output_grads: Any) -> Any:
            if variables:
                grads, variable_grads = grad_fn(*output_grads, variables=variables)
                variable_grads = list(variable_grads)
                if len(variable_grads) != len(variables):
                    raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
            else:
                grads, variable_grads = grad_fn(*output_grads), []
            flat_grads = list(grads) if isinstance(grads, list | tuple) else [grads]
            if len(flat_grads) != len(args):
                raise ValueError(f"custom_gradient function expected to return {len(args)} gradients but returned "
                                 f"{len(flat_grads)} instead.")
            return flat_grads + variable_grads

        if _core.autodiff.recording():
            flat = _core.autodiff.record_custom_gradient(inputs, flat, actual_grad_fn)
        return nest.pack_sequence_as(result, flat)

    return decorated
