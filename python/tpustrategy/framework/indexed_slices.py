"""``tf.IndexedSlices``: a sparse gradient — rows ``indices`` of a ``dense_shape`` tensor hold ``values``.

The gradient of ``gather`` along axis 0 is one, as in TF. Rows may repeat (they add). Converting to a
tensor (``tf.convert_to_tensor``, any op) gives the dense sum.
"""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.framework.tensor_shape import TensorShape

Tensor = _core.tensor.Tensor


class IndexedSlices:
    """Sparse representation of a tensor: ``values[i]`` is row ``indices[i]`` of a ``dense_shape`` tensor."""

    def __init__(self, values: Tensor, indices: Tensor, dense_shape: Tensor | None = None) -> None:
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self) -> Tensor:
        """The slices: ``values[i]`` is row ``indices[i]`` of the dense tensor."""
        return self._values

    # tf.nest(expand_composites=True): TF's component order (dense_shape only when known).
    def _composite_components(self) -> list[Tensor]:
        return [self._values, self._indices] + ([] if self._dense_shape is None else [self._dense_shape])

    def _from_composite_components(self, components: list[Tensor]) -> IndexedSlices:
        return IndexedSlices(*components)

    @property
    def indices(self) -> Tensor:
        """The 1-D row indices, one per slice of ``values`` (a row may repeat)."""
        return self._indices

    @property
    def dense_shape(self) -> Tensor | None:
        """The dense tensor's shape as a 1-D tensor, None when not given."""
        return self._dense_shape

    @property
    def dtype(self) -> _core.tensor.DType:
        """The dtype of the values."""
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """``dense_shape`` as a TensorShape; unknown rank when it is None."""
        return TensorShape(None if self._dense_shape is None else [int(d) for d in _core.ops.identity(
            self._dense_shape).numpy()])

    @property
    def device(self) -> str:
        """The device of the values."""
        return self._values.device

    def _as_tensor(self) -> Tensor:
        """The dense tensor (segment sum of the rows), as TF converts IndexedSlices."""
        if self._dense_shape is None:
            raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape: "
                             f"{self!r}")
        rows = int(self._dense_shape.numpy()[0])
        dense: Tensor = _core.ops.unsorted_segment_sum(self._values, self._indices, rows)
        return dense

    def numpy(self) -> Any:
        """The dense tensor as a NumPy array: rows of repeated indices are summed, missing rows are 0.

        Raises:
          ValueError: ``dense_shape`` is None.
        """
        return self._as_tensor().numpy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        import numpy as np

        array = np.asarray(self._as_tensor())
        return array.astype(dtype) if dtype is not None else array

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        shape = "None" if self._dense_shape is None else repr(self._dense_shape)
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}, dense_shape={shape})"
