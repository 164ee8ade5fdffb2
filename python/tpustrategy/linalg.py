"""``tpustrategy.linalg``: matrix ops (mirrors ``tf.linalg``)."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.ops.array_ops import transpose
from tpustrategy.ops.clip_ops import global_norm, norm
from tpustrategy.ops.einsum_op import einsum
from tpustrategy.ops.math_ops import matmul

__all__ = ["einsum", "global_norm", "matmul", "matrix_transpose", "norm"]


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Any:
    """Swaps the last two axes (tf.linalg.matrix_transpose)."""
    t = a if isinstance(a, _core.tensor.Tensor) else _core.tensor.convert_to_tensor(a)
    if t.ndim < 2:
        raise ValueError(f"matrix_transpose needs a tensor of rank >= 2, got rank {t.ndim}")
    return transpose(t, list(range(t.ndim - 2)) + [t.ndim - 1, t.ndim - 2])
