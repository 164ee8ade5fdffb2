"""TF's DataTypeString, the dtype names its kernels put in error messages ("float" for float32)."""

from __future__ import annotations

from typing import Any

import numpy as np

# Where DataTypeString differs from the Python name (numpy's object arrays hold TF's strings).
_TYPE_STRINGS = {"float32": "float", "float64": "double", "float16": "half", "object": "string"}


def type_string(dtype: Any) -> str:
    """TF's DataTypeString of `dtype`: a numpy dtype (or anything np.dtype takes) or a TF dtype name."""
    name: str = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    return _TYPE_STRINGS.get(name, name)
