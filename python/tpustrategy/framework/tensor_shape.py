"""``TensorShape``: a possibly partially known shape, as ``tf.TensorShape``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, SupportsIndex, overload


class TensorShape:
    """The shape of a tensor; ``None`` marks an unknown dimension (or an unknown rank)."""

    __slots__ = ("_dims",)
    _dims: tuple[int | None, ...] | None

    def __init__(self, dims: ShapeLike) -> None:
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        else:
            out: list[int | None] = []
            for d in dims:
                if d is None:
                    out.append(None)
                else:
                    value = int(d)
                    if value < 0:
                        raise ValueError(f"Dimension {value} must be >= 0")
                    out.append(value)
            self._dims = tuple(out)

    @property
    def rank(self) -> int | None:
        """The number of dimensions, None when the rank is unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self) -> list[int | None] | None:
        """The dimensions as a list (None for an unknown one), None when the rank is unknown."""
        return None if self._dims is None else list(self._dims)

    def as_list(self) -> list[int | None]:
        """The dimensions as a list of ints, None for an unknown dimension.

        Raises:
          ValueError: the rank is unknown.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        """Whether the rank and every dimension are known."""
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self) -> int | None:
        """The product of the dimensions (1 for a scalar), None unless fully defined."""
        if self._dims is None:
            return None
        n = 1
        for d in self._dims:
            if d is None:
                return None
            n *= d
        return n

    def is_compatible_with(self, other: ShapeLike) -> bool:
        """Whether `other` could describe the same tensor: an unknown rank or dimension matches anything."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims, strict=True))

    def merge_with(self, other: ShapeLike) -> TensorShape:
        """The shape that knows what either of `self` and `other` knows.

        Raises:
          ValueError: the shapes are not compatible.
        """
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims, strict=True)])

    def most_specific_compatible_shape(self, other: ShapeLike) -> TensorShape:
        """The most specific shape compatible with both: differing dimensions become None, differing ranks unknown."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims, strict=True)])

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self) -> Iterator[int | None]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    @overload
    def __getitem__(self, key: SupportsIndex) -> int | None: ...

    @overload
    def __getitem__(self, key: slice) -> TensorShape: ...

    def __getitem__(self, key: SupportsIndex | slice) -> int | None | TensorShape:
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other: Any) -> bool:  # Any: whatever as_shape takes compares; anything else is NotImplemented
        try:
            shape = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == shape._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __add__(self, other: ShapeLike) -> TensorShape:
        return self.concatenate(other)

    def concatenate(self, other: ShapeLike) -> TensorShape:
        """The dimensions of `self` followed by those of `other`; unknown rank if either rank is unknown."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join("None" if d is None else str(d) for d in self._dims) + ")"


# What a shape argument takes: a TensorShape, dims (None: unknown), or None (unknown rank).
ShapeLike = TensorShape | Iterable[int | None] | None


def as_shape(shape: ShapeLike) -> TensorShape:
    """`shape` as a TensorShape (returned as is if it already is one)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)
