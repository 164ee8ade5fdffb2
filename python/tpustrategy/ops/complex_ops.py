"""complex64 / complex128 construction and parts (``tf.complex``, ``tf.math.real`` / ``imag`` / ``conj`` / ``angle``).

The kernels are C++ (``_core.ops``). As in TF, ``real`` / ``conj`` of a real tensor return it,
``imag`` gives zeros of its dtype, and ``abs`` of a complex tensor is its real modulus (float32 for
complex64, float64 for complex128).
"""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.ops._args import TensorLike

_ops = _core.ops


def complex(real: TensorLike, imag: TensorLike, name: str | None = None) -> Any:  # noqa: A001
    """Returns real + 1j * imag: complex64 of float32 parts, complex128 of float64 parts (tf.complex)."""
    return _ops.complex(real, imag)


def real(input: TensorLike, name: str | None = None) -> Any:  # noqa: A002
    """Returns the real part of a complex tensor (float32 / float64); a real tensor unchanged (tf.math.real)."""
    return _ops.real(input)


def imag(input: TensorLike, name: str | None = None) -> Any:  # noqa: A002
    """Returns the imaginary part of a complex tensor; zeros for a real tensor (tf.math.imag)."""
    return _ops.imag(input)


def conj(x: TensorLike, name: str | None = None) -> Any:
    """Returns the complex conjugate; a real tensor unchanged (tf.math.conj)."""
    return _ops.conj(x)


def angle(input: TensorLike, name: str | None = None) -> Any:  # noqa: A002
    """Returns atan2(imag, real) in the real part dtype; pi or 0 for a real floating tensor (tf.math.angle)."""
    return _ops.angle(input)
