"""``tpustrategy.math``: elementwise math, comparisons and reductions (mirrors ``tf.math``)."""

from __future__ import annotations

from tpustrategy.ops.math_ops import (  # noqa: F401
    abs,  # noqa: A004
    add,
    add_n,
    argmax,
    argmin,
    ceil,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
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
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    rsqrt,
    sigmoid,
    sign,
    sqrt,
    square,
    subtract,
    tanh,
    truediv,
)
from tpustrategy.ops.nn_ops import log_softmax, softmax  # noqa: F401
