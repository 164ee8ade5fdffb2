"""The TensorFlow top-level ops (``tf.<name>``), implemented in array_ops / math_ops / nn_ops over the
C++ kernels in ``tpustrategy._core.ops``.

The imports below are the one list of the top-level op names: ``__all__`` is derived from them and
``tpustrategy/__init__.py`` re-exports ``__all__``. The other namespaces re-export from the
implementation modules what TF has there (``tpustrategy.math``, ``nn``, ``linalg``).
"""

from __future__ import annotations

from types import ModuleType as _ModuleType

from tpustrategy.ops import string_dispatch as _string_dispatch
from tpustrategy.ops.array_ops import (  # noqa: F401  (re-exported through __all__ below)
    broadcast_to,
    concat,
    expand_dims,
    fill,
    identity,
    one_hot,
    ones,
    ones_like,
    pad,
    range,  # noqa: A004
    rank,
    reshape,
    shape,
    size,
    slice,  # noqa: A004
    split,
    squeeze,
    stack,
    stop_gradient,
    tile,
    transpose,
    unstack,
    where,
    zeros,
    zeros_like,
)
from tpustrategy.ops.complex_ops import complex  # noqa: F401, A004
from tpustrategy.ops.einsum_op import einsum  # noqa: F401
from tpustrategy.ops.gather_scatter_ops import (  # noqa: F401
    gather,
    gather_nd,
    scatter_nd,
    tensor_scatter_nd_add,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
)
from tpustrategy.ops.logging_ops import print_v2 as print  # noqa: F401, A004
from tpustrategy.ops.math_ops import (  # noqa: F401
    abs,  # noqa: A004
    add,
    add_n,
    argmax,
    argmin,
    cast,
    clip_by_value,
    divide,
    equal,
    exp,
    floor,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    maximum,
    minimum,
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
    sigmoid,
    sign,
    sqrt,
    square,
    subtract,
    tanh,
    truediv,
)

# tf.string tensors take a host (numpy) path through the layout ops TF also defines for strings.
for _name in _string_dispatch.NAMES:
    if _name in globals():
        globals()[_name] = _string_dispatch.wrap(_name, globals()[_name])

# Everything imported above, except the implementation modules (importing them binds their names here).
__all__ = sorted(name for name, value in globals().items()
                 if not name.startswith("_") and name != "annotations" and not isinstance(value, _ModuleType))
