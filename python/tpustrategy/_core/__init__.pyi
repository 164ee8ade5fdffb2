"""
tpustrategy C++ core (private; use the tpustrategy package)
"""
from __future__ import annotations
from . import tensor
from . import ops
from . import autodiff
from . import devices
from . import slice
from . import topology
from . import collectives
from . import data
from . import example
from . import summary
from . import checkpoint
from . import spmd
from . import runtime
from . import sim
from . import mpi
__all__: list[str] = ['autodiff', 'checkpoint', 'collectives', 'data', 'devices', 'example', 'mpi', 'ops', 'runtime', 'sim', 'slice', 'spmd', 'summary', 'tensor', 'topology']
