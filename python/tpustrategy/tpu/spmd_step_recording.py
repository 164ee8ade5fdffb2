"""The SPMD partitioner's calls as the step recorder sees them (issue 16: simulated time per logical core).

``recorded(_core.spmd)`` is the partitioner's view of ``_core.spmd``: while a step is recorded (record_step or the
profiler), each partitioned call (``_spmd.matmul(ctx, ...)``, ``_spmd.conv2d(ctx, ...)`` ...) runs through
``_core.sim.record_spmd_call``, which records the ops and collectives the call appended to ``ctx``'s SpmdRecord on
the logical cores they ran on (cpp/tpustrategy/sim/spmd_step_events.h) instead of the per-core kernels and
subgroup collectives underneath. While nothing records, a call costs one extra Python frame.
"""

from __future__ import annotations

import types
from typing import Any

from tpustrategy import _core

_sim = _core.sim


class _Recorded:
    """A module proxy: every function whose first argument is an SpmdContext is recorded per logical core."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module
        self._context_type = module.SpmdContext

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._module, name)
        if not callable(attr) or isinstance(attr, type):
            return attr
        context_type = self._context_type

        def call(*args: Any, **kwargs: Any) -> Any:
            if args and isinstance(args[0], context_type) and _sim.record_active():
                return _sim.record_spmd_call(args[0], attr, *args, **kwargs)
            return attr(*args, **kwargs)

        call.__name__ = name
        call.__doc__ = attr.__doc__
        setattr(self, name, call)  # found directly from now on
        return call


def recorded(module: types.ModuleType) -> _Recorded:
    """`module` (``_core.spmd``) with its partitioned calls recorded per logical core while a step is recorded."""
    return _Recorded(module)
