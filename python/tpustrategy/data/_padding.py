"""``Dataset.padded_batch``: batches of elements padded to a common shape (see dataset_ops.py).

The static shapes follow TensorFlow: each component's spec is ``[batch, *padded_shape]`` where the
padded shape is the one given (``None`` / ``-1`` dims stay unknown) or, without ``padded_shapes``,
the input component's own shape; the batch dim is known only with ``drop_remainder``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.data import _structure
from tpustrategy.data._structure import Leaf, Nest, Spec
from tpustrategy.data._transforms import _int_arg, _invalid, _UnaryDataset
from tpustrategy.data.dataset_ops import Dataset
from tpustrategy.framework.tensor import Tensor, TensorSpec
from tpustrategy.framework.tensor_shape import TensorShape


def _as_padded_shape(value: Any, component: int) -> TensorShape:
    if isinstance(value, TensorShape):
        return value
    if isinstance(value, Tensor):
        if value.dtype not in (_core.tensor.int32, _core.tensor.int64):
            raise TypeError(f"Padded shape {value.numpy()} must be a `tf.int64` vector tensor, but its element type "
                            f"was {value.dtype.name}.")
        value = value.numpy()
    array = np.asarray(value if value is not None else [], dtype=object)
    if array.ndim != 1 and not (array.ndim == 0 and value is None):
        raise ValueError(f"Invalid `padded_shapes`. Padded shape for component {component} must be a 1-D tensor "
                         f"of tf.int64 values, but its shape was {TensorShape(array.shape)}.")
    dims: list[int | None] = []
    for d in array.reshape(-1):
        if d is None or int(d) == -1:
            dims.append(None)
        elif int(d) < -1:
            raise ValueError(f"Invalid `padded_shapes`. Padded shape dimensions for component {component} "
                             f"must be >= -1, got {list(array)}.")
        else:
            dims.append(int(d))
    return TensorShape(dims)


def _padded_shapes(padded_shapes: Any, input_spec: Nest) -> list[TensorShape]:
    specs = _structure.flatten(input_spec)
    if padded_shapes is None:
        for i, spec in enumerate(specs):
            if spec.shape.rank is None:
                raise ValueError(f"You must provide `padded_shapes` argument because component {i} has unknown rank.")
        return [spec.shape for spec in specs]
    if isinstance(padded_shapes, list) and _structure.is_structure(input_spec):
        padded_shapes = tuple(padded_shapes)
    # A shape is itself a list, so flatten padded_shapes along the input's structure.
    flat = _flatten_up_to(input_spec, padded_shapes)
    shapes = []
    for i, (value, spec) in enumerate(zip(flat, specs, strict=True)):
        shape = _as_padded_shape(value, i)
        if not _padded_shape_compatible(shape, spec.shape):
            raise ValueError(f"The padded shape {shape} is not compatible with the shape {spec.shape} of the "
                             f"corresponding input component.")
        shapes.append(shape)
    return shapes


def _flatten_up_to(structure: Nest, value: Any, none_is_default: bool = False) -> list[Any]:
    if none_is_default and value is None:  # padding_values: None stands for the defaults of a whole sub-structure
        return [None] * len(_structure.flatten(structure))
    if isinstance(structure, dict):
        if not isinstance(value, dict) or sorted(value) != sorted(structure):
            raise ValueError(f"The structure of `padded_shapes` / `padding_values` ({value!r}) does not match the "
                             f"dataset's element structure.")
        return [v for k in sorted(structure) for v in _flatten_up_to(structure[k], value[k], none_is_default)]
    if isinstance(structure, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise ValueError(f"The structure of `padded_shapes` / `padding_values` ({value!r}) does not match the "
                             f"dataset's element structure.")
        return [v for s, x in zip(structure, value, strict=True) for v in _flatten_up_to(s, x, none_is_default)]
    return [value]


def _padded_shape_compatible(padded: TensorShape, input_shape: TensorShape) -> bool:
    if input_shape.rank is None:
        return True
    if padded.rank != input_shape.rank:
        return False
    return all(p is None or d is None or p >= d for p, d in zip(padded, input_shape, strict=True))


def _padding_values(padding_values: Any, input_spec: Nest) -> list[Any]:
    specs = _structure.flatten(input_spec)
    if padding_values is None:
        values = [None] * len(specs)
    elif _structure.is_structure(input_spec) and not _structure.is_structure(padding_values):
        values = [padding_values] * len(specs)  # one scalar for every component
    else:
        values = _flatten_up_to(input_spec, padding_values, none_is_default=True)
    out = []
    for value, spec in zip(values, specs, strict=True):
        is_string = _structure.is_string_spec(spec)
        if value is None:
            out.append(b"" if is_string else np.zeros((), spec.dtype.as_numpy_dtype))
            continue
        if isinstance(value, Tensor):
            if is_string or value.dtype != spec.dtype:
                raise TypeError(f"Invalid `padding_values`. `padding_values` values should have the same dtype as "
                                f"the corresponding input component, but got {value.dtype!r} for {spec}.")
            value = value.numpy()
        array = np.asarray(value)
        if array.ndim != 0:
            raise ValueError(f"Invalid `padding_values`. `padding_values` values should be scalars, but got "
                             f"{value!r} of shape {TensorShape(array.shape)}.")
        if is_string != (array.dtype.kind in "SUO"):
            raise TypeError(f"Invalid `padding_values`. `padding_values` values should have the same dtype as the "
                            f"corresponding input component, but got {value!r} for {spec}.")
        out.append(_structure._to_bytes(array.item()) if is_string else array.astype(spec.dtype.as_numpy_dtype))
    return out


class PaddedBatchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, batch_size: Any, padded_shapes: Any, padding_values: Any,
                 drop_remainder: bool) -> None:
        super().__init__(input_dataset)
        self._batch_size = _int_arg(batch_size, "batch_size")
        if self._batch_size <= 0:
            raise _invalid("Batch size must be greater than zero.")
        self._drop_remainder = bool(drop_remainder)
        spec = input_dataset.element_spec
        for component in _structure.flatten(spec):
            if not isinstance(component, TensorSpec):
                raise TypeError("`padded_batch` is only supported for datasets that produce tensor elements but type "
                                "spec of elements in the input dataset is not a subclass of TensorSpec: "
                                f"`{component!r}`.")
        self._shapes = _padded_shapes(padded_shapes, spec)
        self._values = _padding_values(padding_values, spec)

    def _iterate(self) -> Iterator[Nest]:
        pending: list[Nest] = []
        for element in self._input._iterate():
            pending.append(element)
            if len(pending) == self._batch_size:
                yield self._pad_and_stack(pending)
                pending = []
        if pending and not self._drop_remainder:
            yield self._pad_and_stack(pending)

    def _pad_and_stack(self, elements: list[Nest]) -> Nest:
        columns = zip(*[_structure.flatten(e) for e in elements], strict=True)
        leaves = [self._pad_column(list(column), i) for i, column in enumerate(columns)]
        return _structure.pack_as(elements[0], leaves)

    def _pad_column(self, column: list[Leaf], i: int) -> Tensor | np.ndarray[Any, Any]:
        first = column[0]
        arrays = [leaf.numpy() if isinstance(leaf, Tensor) else np.asarray(leaf, dtype=object) for leaf in column]
        wanted = self._shapes[i]
        rank = arrays[0].ndim
        if any(a.ndim != rank for a in arrays) or (wanted.rank is not None and wanted.rank != rank):
            raise _invalid(f"All elements in a batch must have the same rank as the padded shape for component {i}: "
                           f"expected rank {wanted.rank}, got {[a.ndim for a in arrays]}.")
        target: list[int] = []
        for axis, dim in enumerate(wanted):
            longest = max(a.shape[axis] for a in arrays)
            if dim is not None and longest > dim:
                raise errors.DataLossError(None, None, "Attempted to pad to a smaller size than the input element.")
            target.append(longest if dim is None else dim)
        out = np.empty((len(arrays), *target), dtype=arrays[0].dtype if isinstance(first, Tensor) else object)
        out[...] = self._values[i]
        for row, a in enumerate(arrays):
            where: tuple[int | slice, ...] = (row, *[slice(0, n) for n in a.shape])  # (not out[row, *...]: py3.10)
            out[where] = a
        if isinstance(first, Tensor):
            padded: Tensor = _core.tensor.constant(out, first.dtype)
            return padded
        return out

    def _compute_element_spec(self) -> Spec:
        dim = self._batch_size if self._drop_remainder else None
        specs = _structure.flatten(self._input.element_spec)
        out = [_structure.with_shape(spec, TensorShape([dim]).concatenate(shape))
               for spec, shape in zip(specs, self._shapes, strict=True)]
        return _structure.pack_as(self._input.element_spec, out)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop_remainder else -(-n // self._batch_size)
