"""``tpustrategy.function``: accepted so that TensorFlow code runs unchanged.

The simulator executes eagerly, so the decorated function is simply called. Every ``tf.function``
keyword (input_signature, autograph, jit_compile, reduce_retracing, experimental_*) is accepted and
ignored; there is no tracing, so Python side effects run on every call (once per replica in ``run``).
"""

from __future__ import annotations

import functools


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """Decorator mirroring ``tf.function``; usable as ``@function`` or ``@function(jit_compile=True)``."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)

        wrapper.python_function = fn
        return wrapper

    return decorate if func is None else decorate(func)
