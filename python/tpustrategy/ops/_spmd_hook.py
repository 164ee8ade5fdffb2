"""The one seam between the op facade and the SPMD partitioner (tpustrategy/tpu/spmd_partitioner.py).

Ops check ``active`` first (False until a TPUStrategy with ``experimental_spmd_xla_partitioning=True`` and more
than one logical core per replica exists), so programs without SPMD pay one global load per op. When an operand
is a partitioned ShardedTensor the op runs through ``partitioner`` instead of assembling the global tensor.
"""

from __future__ import annotations

from typing import Any

active = False
# Any: ops call it only after checking `active` (hot paths: no None test per op).
partitioner: Any = None  # the tpustrategy.tpu.spmd_partitioner module, set when it activates


def sharded(*values: object) -> bool:
    """Whether any of `values` is a ShardedTensor produced in SPMD mode."""
    return any(getattr(v, "_spmd_partitioned", False) for v in values)
