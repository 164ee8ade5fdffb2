"""``tpustrategy.math``: elementwise math, comparisons and reductions (mirrors ``tf.math``)."""

from __future__ import annotations

from tpustrategy.ops.complex_ops import angle, conj, imag, real  # noqa: F401
from tpustrategy.ops.math_ops import (  # noqa: F401
    abs,  # noqa: A004
    add,
    add_n,
    argmax,
    argmin,
    ceil,
    count_nonzero,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    is_finite,
    is_nan,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,  # noqa: A004
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_std,
    reduce_sum,
    reduce_variance,
    rsqrt,
    sigmoid,
    sign,
    sqrt,
    square,
    squared_difference,
    subtract,
    tanh,
    truediv,
)
from tpustrategy.ops.nn_impl_ops import l2_normalize  # noqa: F401
from tpustrategy.ops.nn_ops import log_softmax, softmax  # noqa: F401
from tpustrategy.ops.numpy_backed_ops import (  # noqa: E402, F401
    cumprod,
    cumsum,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sum,
)
from tpustrategy.ops.top_k_ops import in_top_k, top_k  # noqa: F401
