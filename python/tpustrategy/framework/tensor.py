"""Python-side conveniences of ``tpustrategy.Tensor`` (the class itself is C++).

Adds what TF's EagerTensor has in Python: ``shape`` as a TensorShape,
``get_shape``, ``ref()``, ``numpy`` interop priority and ``TensorSpec``.
"""

# No `from __future__ import annotations`: the functions patched onto Tensor below keep their annotations as
# classes, so the stub generator (tools/gen_stubs.sh) writes them fully qualified into _core/tensor.pyi.
from tpustrategy import _core
from tpustrategy.framework import static_shape
from tpustrategy.framework.string_tensor import StringDType, StringTensor, is_string_dtype, string
from tpustrategy.framework.tensor_shape import ShapeLike, TensorShape, as_shape

Tensor = _core.tensor.Tensor


class Reference:
    """A hashable wrapper around a tensor (``tensor.ref()``), compared by identity."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: object) -> None:
        self._tensor = tensor

    def deref(self) -> object:
        return self._tensor

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reference) and other._tensor is self._tensor

    def __hash__(self) -> int:
        return id(self._tensor)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._tensor!r}>"


def _shape(self: Tensor) -> TensorShape:
    return TensorShape(self._shape_tuple)


def _set_shape(self: Tensor | StringTensor, shape: ShapeLike) -> None:
    """TF's eager ``set_shape``: a ValueError unless `shape` is compatible with the tensor's (None dims match
    any size); the tensor is unchanged. A py_function output inside ``Dataset.map`` takes `shape` as its
    element_spec shape, as TF's static shape (framework/static_shape.py)."""
    if not self.shape.is_compatible_with(shape):
        raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape {as_shape(shape)}.")
    static_shape.refine(self, shape)


def _ref(self: object) -> Reference:
    """A hashable reference to this tensor, compared by identity (``tensor.ref()``)."""
    return Reference(self)


def _backing_device(self: Tensor) -> str:
    return self.device


# What TF's EagerTensor has in Python, added to the C++ class (set with setattr: the stubs already declare them).
_ADDITIONS: dict[str, object] = {
    "shape": property(_shape, doc="The shape of this tensor, a TensorShape."),
    "get_shape": _shape,
    "set_shape": _set_shape,
    "ref": _ref,
    "experimental_ref": _ref,
    # Where the buffer lives: an eager tensor's own device, as in TF.
    "backing_device": property(_backing_device, doc="The device of this tensor's buffer."),
    "__array_priority__": 100,
    "__module__": "tpustrategy",
}
for _name, _value in _ADDITIONS.items():
    setattr(Tensor, _name, _value)
for _name in ("set_shape", "ref", "experimental_ref"):  # tf.string tensors are shaped and referenced alike
    setattr(StringTensor, _name, _ADDITIONS[_name])


class TensorSpec:
    """Describes a tensor: shape (dims may be None), dtype and optional name (``tf.TensorSpec``)."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape: ShapeLike, dtype: object = _core.tensor.float32,
                 name: str | None = None) -> None:
        self._shape = as_shape(shape)
        self._dtype: _core.tensor.DType | StringDType = string if is_string_dtype(dtype) else _core.tensor.DType(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor: "Tensor | StringTensor", name: str | None = None) -> "TensorSpec":
        """The spec of `tensor`'s shape and dtype, named `name`."""
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self) -> TensorShape:
        """The described shape; None dimensions match any size."""
        return self._shape

    @property
    def dtype(self) -> "_core.tensor.DType | StringDType":
        """The described dtype."""
        return self._dtype

    @property
    def name(self) -> str | None:
        """The optional name given at construction."""
        return self._name

    def is_compatible_with(self, other: object) -> bool:
        """Whether `other` (a TensorSpec or a tensor) has this dtype and a compatible shape; False for anything else."""
        if isinstance(other, TensorSpec):
            return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)
        if isinstance(other, (Tensor, StringTensor)):
            return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)
        return False

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorSpec)
            and self._shape == other._shape
            and self._dtype == other._dtype
            and self._name == other._name
        )

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


def is_tensor(x: object) -> bool:
    """``tf.is_tensor``: True for tensors, variables (distributed ones too) and composite tensors (SparseTensor,
    IndexedSlices, RaggedTensor); False for numpy arrays, Python values and PerReplica/Mirrored values."""
    return isinstance(x, Tensor) or getattr(x, "_is_string_tensor", False) or getattr(x, "_is_variable", False) or \
        (hasattr(x, "_composite_components") and not isinstance(x, type))
