"""Options of the SPMD partitioner that XLA takes from SpmdPartitionerOptions (issue 13).

``windowed_einsum_threshold_mib``: XLA's ``threshold_for_windowed_einsum_mib``. A dot whose operand to all-gather
(or whose output to reduce-scatter) is at least this many MiB runs as XLA's windowed einsum loop instead: local
dots interleaved with ring collective-permutes, never holding the gathered operand (C++
cpp/tpustrategy/spmd/partitioned_windowed_dot.h). 256 MiB by default, as XLA's default; on TPU the compiler sets it
from libtpu flags that are not public. Read by every SPMD step started after the change.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tpustrategy import _core

_DEFAULT_MIB = 256
_threshold_mib: float = _DEFAULT_MIB


def set_windowed_einsum_threshold_mib(mib: float) -> None:
    """Sets the windowed einsum threshold in MiB (a number >= 0; 0 windows every dot the loop applies to)."""
    global _threshold_mib
    if isinstance(mib, bool) or not isinstance(mib, numbers.Real):
        raise TypeError(f"windowed_einsum_threshold_mib must be a number of MiB, got {mib!r}")
    if not mib >= 0:  # also NaN
        raise ValueError(f"windowed_einsum_threshold_mib must be >= 0, got {mib!r}")
    _threshold_mib = float(mib)


def get_windowed_einsum_threshold_mib() -> float:
    """The windowed einsum threshold in MiB (256 unless set)."""
    return _threshold_mib


def configure(ctx: _core.spmd.SpmdContext) -> None:
    """Applies the options to a new step's ``_core.spmd.SpmdContext``."""
    ctx.windowed_einsum_threshold_bytes = int(_threshold_mib * (1 << 20))
