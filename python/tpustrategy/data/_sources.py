"""Source datasets: range, from_tensors, from_tensor_slices, from_generator."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.data import _structure
from tpustrategy.data._structure import Leaf, Nest, Spec
from tpustrategy.data.dataset_ops import INFINITE, UNKNOWN, Dataset
from tpustrategy.framework.sparse_tensor import SparseTensor, SparseTensorSpec
from tpustrategy.framework.string_tensor import string
from tpustrategy.framework.tensor import Tensor, TensorSpec
from tpustrategy.framework.tensor_shape import TensorShape
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from tpustrategy.ops.script_ops import tf_error_of


class RangeDataset(Dataset):
    def __init__(self, *args: Any, output_type: object = "int64") -> None:
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range() takes 1 to 3 positional arguments ({len(args)} given)")
        bounds = [int(np.asarray(a)) for a in args]
        start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
        if step == 0:
            raise _structure._invalid_argument("step must be a non-zero integer.")
        self._range = range(start, stop, step)
        self._dtype = _core.tensor.DType(output_type)

    def _iterate(self) -> Iterator[Tensor]:
        dtype = self._dtype
        for value in self._range:
            yield _core.tensor.constant(value, dtype)

    def _compute_element_spec(self) -> Spec:
        return TensorSpec([], self._dtype)

    def _compute_cardinality(self) -> int:
        return len(self._range)


class TensorDataset(Dataset):
    def __init__(self, tensors: Nest) -> None:
        self._element = _structure.normalize_element(tensors)
        _structure.check_has_component(_structure.spec_of(self._element), "from_tensors")

    def _iterate(self) -> Iterator[Nest]:
        yield self._element

    def _compute_element_spec(self) -> Spec:
        return _structure.spec_of(self._element)

    def _compute_cardinality(self) -> int:
        return 1


class TensorSliceDataset(Dataset):
    def __init__(self, tensors: Nest) -> None:
        element = _structure.normalize_element(tensors)
        leaves = _structure.flatten(element)
        if not leaves:
            raise ValueError("Invalid `tensors`: an empty structure cannot be sliced.")
        sizes: set[int] = set()
        for leaf in leaves:
            if leaf is None:  # a None component: None in every row
                continue
            shape = _structure.leaf_shape(leaf)
            if not shape:
                raise _structure._invalid_argument(
                    f"Unbatching a tensor is only supported for rank >= 1, got a value of shape {shape}.")
            sizes.add(shape[0])
        if len(sizes) > 1:
            raise _structure._invalid_argument(
                f"Dimensions of all components should match: got leading dimensions {sorted(sizes)}.")
        if not sizes:
            raise ValueError(f"Invalid `tensors`: {tensors!r} has no tensor component to slice.")
        self._element = element
        self._size = sizes.pop()
        self._rows: list[Nest] | None = None  # unstacked lazily, once

    def _iterate(self) -> Iterator[Nest]:
        if self._rows is None:
            self._rows = _structure.unstack_element(self._element)
        return iter(self._rows)

    def _batch_bounds(self, batch_size: int, drop_remainder: bool) -> list[tuple[int, int]]:
        """(first row, row count) of each batch ``batch(batch_size, drop_remainder)`` makes of this source."""
        stop = self._size - self._size % batch_size if drop_remainder else self._size
        return [(begin, min(batch_size, stop - begin)) for begin in range(0, stop, batch_size)]

    def _iterate_row_ranges(self, batch_size: int, drop_remainder: bool) -> Iterator[Nest]:
        """What ``batch(batch_size, drop_remainder)`` yields, cut straight from the source (one copy per batch)."""
        leaves = _structure.flatten(self._element)
        for begin, count in self._batch_bounds(batch_size, drop_remainder):
            yield _structure.pack_as(self._element, [
                _core.data.slice_rows(leaf, begin, count) if isinstance(leaf, _core.tensor.Tensor)
                else _structure.slice_leaf_rows(leaf, begin, count) if isinstance(leaf, (SparseTensor, RaggedTensor))
                else None if leaf is None else leaf[begin:begin + count].copy() for leaf in leaves])

    def _compute_element_spec(self) -> Spec:
        return _structure.map_structure(
            lambda spec: _structure.drop_leading_dim(spec), _structure.spec_of(self._element))

    def _compute_cardinality(self) -> int:
        return self._size


def _signature_from_types(output_types: Any, output_shapes: Any) -> Spec:
    if output_shapes is None:
        return _structure.map_structure(lambda t: _spec_for(TensorShape(None), t), _as_nest(output_types))
    types = _as_nest(output_types)
    shapes = output_shapes
    if not _structure.is_structure(types):
        return _spec_for(TensorShape(shapes), types)
    shape_leaves = _flatten_shapes(shapes, types)
    type_leaves = _structure.flatten(types)
    specs = [_spec_for(TensorShape(s), t) for s, t in zip(shape_leaves, type_leaves, strict=True)]
    return _structure.pack_as(types, specs)


def _as_nest(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _flatten_shapes(shapes: Any, types: Any) -> list[Any]:
    # Shapes are lists themselves, so flatten them along the structure of `types`.
    if isinstance(types, dict):
        if not isinstance(shapes, dict) or sorted(shapes) != sorted(types):
            raise _shapes_mismatch(shapes, types)
        return [s for k in sorted(types) for s in _flatten_shapes(shapes[k], types[k])]
    if isinstance(types, tuple):
        if not isinstance(shapes, (tuple, list)) or len(shapes) != len(types):
            raise _shapes_mismatch(shapes, types)
        return [s for t, s in zip(types, shapes, strict=True) for s in _flatten_shapes(s, t)]
    return [shapes]


def _shapes_mismatch(shapes: object, types: object) -> TypeError:
    return TypeError(f"`output_shapes` {shapes!r} does not match the structure of `output_types` {types!r}.")


def _spec_for(shape: TensorShape, dtype: Any) -> TensorSpec:
    if dtype == "string" or dtype is string:
        return _structure.StringSpec(shape)
    return TensorSpec(shape, dtype)


class GeneratorDataset(Dataset):
    _tf_name = "_FlatMapDataset"  # TF flat_maps a from_tensors(0) into the generator's elements

    def __init__(self, generator: Callable[..., Any], output_types: Any, output_shapes: Any, args: Any,
                 output_signature: Any) -> None:
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("The `output_types` and `output_shapes` arguments must not be used when "
                                "`output_signature` is set.")
            signature = _as_nest(output_signature)
            for spec in _structure.flatten(signature):
                if not isinstance(spec, (TensorSpec, _structure.StringSpec, RaggedTensorSpec, SparseTensorSpec)):
                    raise TypeError(f"`output_signature` must contain objects that are subclass of "
                                    f"`tf.TypeSpec` but found {type(spec)} which is not.")
        else:
            if output_types is None:
                raise TypeError("To specify the output signature you need to provide either the "
                                "`output_signature` argument or the `output_types` argument.")
            signature = _signature_from_types(output_types, output_shapes)
        self._generator = generator
        self._args = tuple(_structure.to_leaf(a) for a in (args or ()))
        self._signature = signature

    def _iterate(self) -> Iterator[Nest]:
        # TF evaluates `args` and passes them to the generator as numpy values. The generator runs inside TF's
        # py_func kernel, so a Python exception (its own or a conversion's) leaves as the TF error that kernel
        # raises (TypeError / ValueError -> InvalidArgumentError, ...).
        try:
            values = iter(self._generator(*[_structure.to_numpy(a) for a in self._args]))
        except Exception as e:  # noqa: BLE001
            raise tf_error_of(e) from e
        while True:
            try:
                value = next(values)
            except StopIteration:
                return
            except Exception as e:  # noqa: BLE001
                raise tf_error_of(e) from e
            try:
                converted = self._convert(value)
            except Exception as e:  # noqa: BLE001
                raise tf_error_of(e) from e
            yield converted

    def _convert(self, value: Any) -> Nest:
        if isinstance(value, list) and _structure.is_structure(self._signature):
            value = tuple(value)
        if not _structure.same_structure(self._signature, value):
            raise TypeError(f"`generator` yielded an element that did not match the expected structure. The "
                            f"expected structure was {self._signature}, but the yielded element was {value!r}.")
        specs = _structure.flatten(self._signature)
        leaves: list[Leaf] = []
        for spec, leaf in zip(specs, _structure.flatten(value), strict=True):
            dtype = string if _structure.is_string_spec(spec) else spec.dtype
            try:  # exact: a value the dtype cannot hold (1.5 as int64) is refused, as TF's py_func does
                converted = _structure.to_leaf(leaf, dtype) if dtype is string or isinstance(
                    leaf, (Tensor, SparseTensor, RaggedTensor)) else _core.tensor.convert_to_tensor(leaf, dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(f"`generator` yielded an element that could not be converted to the expected "
                                f"type. The expected type was {dtype!r}, but the yielded element was {leaf!r}.") from e
            shape = _structure.leaf_shape(converted)
            if not spec.shape.is_compatible_with(shape):
                raise _structure._invalid_argument(
                    f"`generator` yielded an element of shape {TensorShape(shape)} where an element of shape "
                    f"{spec.shape} was expected.")
            leaves.append(converted)
        return _structure.pack_as(self._signature, leaves)

    def _compute_element_spec(self) -> Spec:
        return self._signature

    def _compute_cardinality(self) -> int:
        return UNKNOWN


__all__ = ["RangeDataset", "TensorDataset", "TensorSliceDataset", "GeneratorDataset", "INFINITE"]
