"""``tf.debugging``: eager assertions (implemented in ops/check_ops.py)."""

from __future__ import annotations

from tpustrategy.ops.check_ops import (  # noqa: F401  (re-exported)
    Assert,
    assert_all_finite,
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_scalar,
    assert_shapes,
    assert_type,
    check_numerics,
    is_numeric_tensor,
)

__all__ = sorted(name for name in dir() if not name.startswith("_") and name != "annotations")
