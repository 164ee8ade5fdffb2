"""tpustrategy: run tf.distribute programs on a simulated TPU slice.

Write ``import tpustrategy as tf``-style code against the same names TensorFlow
uses (``tpustrategy.constant``, ``tpustrategy.distribute.TPUStrategy``, ...). The
C++ core simulates the slice (chips, cores, hosts, per-core HBM) and executes
every replica and every collective for real. The default slice is ``v3-8``;
set ``TPUSTRATEGY_SLICE`` (e.g. ``v4-32``) to start with another preset.
"""

from __future__ import annotations

import os as _os

from tpustrategy import _core, errors
from tpustrategy._core import DType, bfloat16, bool, float16, float32, float64, int32, int64  # noqa: A004
from tpustrategy.framework.device_scope import device
from tpustrategy.framework.tensor import Tensor, TensorSpec, is_tensor
from tpustrategy.framework.tensor_shape import TensorShape

_core.activate_slice(_os.environ.get("TPUSTRATEGY_SLICE", "v3-8"))

from tpustrategy import config  # noqa: E402
from tpustrategy.framework.constant import constant, convert_to_tensor  # noqa: E402

half = float16
double = float64

__version__ = "0.1.0"

__all__ = [
    "DType",
    "Tensor",
    "TensorShape",
    "TensorSpec",
    "bfloat16",
    "bool",
    "config",
    "constant",
    "convert_to_tensor",
    "device",
    "double",
    "errors",
    "float16",
    "float32",
    "float64",
    "half",
    "int32",
    "int64",
    "is_tensor",
]
