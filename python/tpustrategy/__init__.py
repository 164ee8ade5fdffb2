"""tpustrategy: run tf.distribute programs on a simulated TPU slice.

Write ``import tpustrategy as tf``-style code against the same names TensorFlow
uses (``tpustrategy.constant``, ``tpustrategy.distribute.TPUStrategy``, ...). The
C++ core simulates the slice (chips, cores, hosts, per-core HBM) and executes
every replica and every collective for real. The default slice is ``v3-8``;
set ``TPUSTRATEGY_SLICE`` (e.g. ``v4-32``) to start with another preset.

Import cost: the package imports the tensor, its dtypes and the top-level ops; every other namespace
(``tf.distribute``, ``tf.keras``, ``tf.compat``, ``tf.data``, ...) and the names that live in them load on
first attribute access (PEP 562, as TensorFlow loads ``tf.keras`` lazily), so ``import tpustrategy`` stays
within its budget (benchmarks/bench_import.py). ``dir(tpustrategy)``, ``from tpustrategy import X`` and
``__all__`` see every name, loaded or not.
"""

from __future__ import annotations

import importlib as _importlib
import os as _os
from typing import TYPE_CHECKING, Any

from tpustrategy import _core, errors
from tpustrategy._core.tensor import (
    DType,
    bfloat16,
    bool,  # noqa: A004
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from tpustrategy.framework.device_scope import device
from tpustrategy.framework.tensor import Tensor, TensorSpec, is_tensor
from tpustrategy.framework.tensor_shape import TensorShape

try:
    _core.slice.activate_slice(_os.environ.get("TPUSTRATEGY_SLICE", "v3-8"))
except ValueError as _error:
    # The command line (`python -m tpustrategy`, the `tpustrategy` script) imports this package before its
    # main() can catch anything: report a bad TPUSTRATEGY_SLICE there as one line and exit 2, like bad arguments.
    import sys as _sys

    _argv0 = _os.path.basename(getattr(_sys, "argv", [""])[0] if getattr(_sys, "argv", None) else "")
    if _argv0 in ("-m", "tpustrategy"):
        print(f"tpustrategy: error: TPUSTRATEGY_SLICE: {str(_error).splitlines()[0]}", file=_sys.stderr)
        raise SystemExit(2) from None
    raise

from tpustrategy.framework.constant import constant, convert_to_tensor  # noqa: E402, I001

half = float16
double = float64
newaxis = None
__version__ = "0.1.0"

# ---- tensor ops (C++ kernels in _core.ops; TF names and signatures): loaded with the package, since they
# also give Tensor its indexing (ops/numpy_backed_ops.py) ----
from tpustrategy import ops  # noqa: E402
from tpustrategy.ops import *  # noqa: E402, F403  (the tf.<op> names: ops.__all__)

# ---- everything else loads on first use: namespace -> the module it is, name -> the module defining it ----
_LAZY_SUBMODULES = (
    "bitwise", "compat", "config", "data", "debugging", "distribute", "experimental", "image", "io", "keras",
    "linalg", "math", "nest", "nn", "profiler", "ragged", "random", "raw_ops", "runner", "sparse", "strings",
    "summary", "tpu", "train",
)
_LAZY_NAMES = {
    "tpustrategy.eager.backprop": ("GradientTape",),
    "tpustrategy.framework.control_dependencies": ("control_dependencies",),
    "tpustrategy.framework.function": ("function",),
    "tpustrategy.framework.indexed_slices": ("IndexedSlices",),
    "tpustrategy.framework.name_scope": ("name_scope",),
    "tpustrategy.framework.sparse_tensor": ("SparseTensor", "SparseTensorSpec"),
    "tpustrategy.framework.string_tensor": ("string",),  # tf.string tensors live on the host
    "tpustrategy.module": ("Module",),
    "tpustrategy.ops.check_ops": (
        "Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank", "ensure_shape"),
    "tpustrategy.ops.clip_ops": ("clip_by_global_norm", "clip_by_norm", "norm"),
    "tpustrategy.ops.custom_gradient": ("custom_gradient",),
    "tpustrategy.ops.numpy_backed_ops": (  # numpy-backed until they get C++ kernels
        "argsort", "boolean_mask", "cumprod", "cumsum", "histogram_fixed_width", "linspace", "meshgrid", "reverse",
        "searchsorted", "sort", "unique"),
    "tpustrategy.ops.ragged.ragged_tensor": ("RaggedTensor", "RaggedTensorSpec"),
    "tpustrategy.ops.script_ops": ("numpy_function", "py_function"),
    "tpustrategy.ops.unconnected_gradients": ("UnconnectedGradients",),
    "tpustrategy.variables": ("Variable", "VariableAggregation", "VariableSynchronization"),
}
_LAZY_HOME = {name: module for module, names in _LAZY_NAMES.items() for name in names}

if TYPE_CHECKING:  # what type checkers and IDEs see; tests_py/test_lazy_import.py keeps it equal to the tables
    # `name as name`: an explicit re-export, which mypy --strict (no implicit re-export) needs to see tf.<name>
    from tpustrategy import (
        bitwise,  # noqa: F401
        compat,  # noqa: F401
        config,  # noqa: F401
        data,  # noqa: F401
        debugging,  # noqa: F401
        distribute,  # noqa: F401
        experimental,  # noqa: F401
        image,  # noqa: F401
        io,  # noqa: F401
        keras,  # noqa: F401
        linalg,  # noqa: F401
        math,  # noqa: F401
        nest,  # noqa: F401
        nn,  # noqa: F401
        profiler,  # noqa: F401
        ragged,  # noqa: F401
        random,  # noqa: F401
        raw_ops,  # noqa: F401
        runner,  # noqa: F401
        sparse,  # noqa: F401
        strings,  # noqa: F401
        summary,  # noqa: F401
        tpu,  # noqa: F401
        train,  # noqa: F401
    )
    from tpustrategy.eager.backprop import GradientTape as GradientTape
    from tpustrategy.framework.control_dependencies import control_dependencies as control_dependencies
    from tpustrategy.framework.function import function as function
    from tpustrategy.framework.indexed_slices import IndexedSlices as IndexedSlices
    from tpustrategy.framework.name_scope import name_scope as name_scope
    from tpustrategy.framework.sparse_tensor import SparseTensor as SparseTensor
    from tpustrategy.framework.sparse_tensor import SparseTensorSpec as SparseTensorSpec
    from tpustrategy.framework.string_tensor import string as string
    from tpustrategy.module import Module as Module
    from tpustrategy.ops.check_ops import Assert as Assert
    from tpustrategy.ops.check_ops import assert_equal as assert_equal
    from tpustrategy.ops.check_ops import assert_greater as assert_greater
    from tpustrategy.ops.check_ops import assert_less as assert_less
    from tpustrategy.ops.check_ops import assert_rank as assert_rank
    from tpustrategy.ops.check_ops import ensure_shape as ensure_shape
    from tpustrategy.ops.clip_ops import clip_by_global_norm as clip_by_global_norm
    from tpustrategy.ops.clip_ops import clip_by_norm as clip_by_norm
    from tpustrategy.ops.clip_ops import norm as norm
    from tpustrategy.ops.custom_gradient import custom_gradient as custom_gradient
    from tpustrategy.ops.numpy_backed_ops import argsort as argsort
    from tpustrategy.ops.numpy_backed_ops import boolean_mask as boolean_mask
    from tpustrategy.ops.numpy_backed_ops import cumprod as cumprod
    from tpustrategy.ops.numpy_backed_ops import cumsum as cumsum
    from tpustrategy.ops.numpy_backed_ops import histogram_fixed_width as histogram_fixed_width
    from tpustrategy.ops.numpy_backed_ops import linspace as linspace
    from tpustrategy.ops.numpy_backed_ops import meshgrid as meshgrid
    from tpustrategy.ops.numpy_backed_ops import reverse as reverse
    from tpustrategy.ops.numpy_backed_ops import searchsorted as searchsorted
    from tpustrategy.ops.numpy_backed_ops import sort as sort
    from tpustrategy.ops.numpy_backed_ops import unique as unique
    from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor as RaggedTensor
    from tpustrategy.ops.ragged.ragged_tensor import RaggedTensorSpec as RaggedTensorSpec
    from tpustrategy.ops.script_ops import numpy_function as numpy_function
    from tpustrategy.ops.script_ops import py_function as py_function
    from tpustrategy.ops.unconnected_gradients import UnconnectedGradients as UnconnectedGradients
    from tpustrategy.variables import Variable as Variable
    from tpustrategy.variables import VariableAggregation as VariableAggregation
    from tpustrategy.variables import VariableSynchronization as VariableSynchronization


def __getattr__(name: str) -> Any:
    """Loads a lazy namespace or name on first access and binds it here, so later reads are plain lookups."""
    if name in _LAZY_SUBMODULES:
        value = _importlib.import_module(f"{__name__}.{name}")
    elif name in _LAZY_HOME:
        value = getattr(_importlib.import_module(_LAZY_HOME[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_SUBMODULES) | set(_LAZY_HOME))


__all__ = [
    "DType",
    "Tensor",
    "TensorShape",
    "TensorSpec",
    "bfloat16",
    "bool",
    "complex64",
    "complex128",
    "constant",
    "convert_to_tensor",
    "device",
    "double",
    "errors",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_tensor",
    "newaxis",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
__all__ += _LAZY_SUBMODULES
__all__ += _LAZY_HOME
__all__ += ops.__all__  # the tf.<op> names, listed once in tpustrategy/ops/__init__.py
