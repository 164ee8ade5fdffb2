"""Element structure of datasets: nests, leaf conversion, specs and batching of leaves.

A dataset element is a nest of tuples, namedtuples and dicts (dict keys in sorted order,
as ``tf.nest``) whose leaves are tpustrategy Tensors, SparseTensors, RaggedTensors or, for string data,
Python ``bytes`` / numpy object arrays of bytes inside the pipeline — user functions and iterators see them as
tf.string tensors (to_public). Lists are *values*, not structure:
``from_tensor_slices([1, 2])`` slices one tensor, as in TensorFlow. As in TF, a leaf may also be ``None``
(spec ``NoneTensorSpec()``: it stays None through every transformation, batched or not) or a dataset (spec
``DatasetSpec``: ``from_tensors(ds)``, a map returning datasets, ``window``; iterated it is a
``_VariantDataset``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeAlias

import numpy as np

from tpustrategy import _core
from tpustrategy.framework import sparse_tensor
from tpustrategy.framework.sparse_tensor import SparseTensor, SparseTensorSpec
from tpustrategy.framework.string_tensor import StringTensor, string
from tpustrategy.framework.string_tensor import to_bytes as _to_bytes
from tpustrategy.framework.tensor import Tensor, TensorSpec
from tpustrategy.framework.tensor_shape import TensorShape, as_shape
from tpustrategy.ops.ragged import ragged_tensor
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec

# A nest (tuples, namedtuples, dicts) of leaves or of user values, or a single one: an element, its spec, a map
# function's output. Its leaves are arbitrary by nature (tensors, bytes, None, datasets, specs, Python values), so
# the alias is Any; it names what the value is.
Nest: TypeAlias = Any
# A leaf of an element (see the module docstring) and the spec of one: several unrelated classes each, so Any.
Leaf: TypeAlias = Any
Spec: TypeAlias = Any


class NoneTensorSpec:
    """The spec of a None component (TF's ``NoneTensorSpec``): None batches and unbatches to None."""

    __slots__ = ()
    shape = TensorShape(None)  # not in TF's spec; lets the pipeline's rank checks pass over None components

    def __eq__(self, other: object) -> bool:
        return type(other) is NoneTensorSpec

    def __hash__(self) -> int:
        return hash(NoneTensorSpec)

    def __repr__(self) -> str:
        return "NoneTensorSpec()"


class DatasetSpec:
    """The spec of a dataset-valued component (``tf.data.DatasetSpec``)."""

    def __init__(self, element_spec: Nest, dataset_shape: TensorShape | Sequence[int | None] | None = ()) -> None:
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self) -> Nest:
        """The spec of one element of the described datasets."""
        return self._element_spec

    @property
    def shape(self) -> TensorShape:
        """The shape of the dataset value itself: () for one dataset, larger for a batch of datasets."""
        return self._dataset_shape

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DatasetSpec) and self._element_spec == other._element_spec
                and self._dataset_shape == other._dataset_shape)

    def __hash__(self) -> int:
        return hash(self._dataset_shape)

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec}, {self._dataset_shape!r})"


def is_dataset(value: object) -> bool:
    """A tf.data.Dataset (duck-typed on the class, so no element_spec is computed: dataset_ops builds on this
    module)."""
    cls = type(value)
    return hasattr(cls, "_iterate") and hasattr(cls, "_compute_element_spec") and hasattr(cls, "_clone_with_inputs")


class StringSpec(TensorSpec):
    """TensorSpec(dtype=tf.string): the spec of string leaves (bytes or an object array of bytes inside a
    pipeline, StringTensors where the user sees them)."""

    __slots__ = ()

    def __init__(self, shape: TensorShape | Sequence[int | None] | None = (), name: str | None = None) -> None:
        super().__init__(shape, string, name)


def is_string_spec(spec: object) -> bool:
    return isinstance(spec, TensorSpec) and spec.dtype is string


def to_public(element: Any) -> Any:
    """The element as the user sees it: string leaves (bytes / object arrays inside the pipeline) become
    tf.string tensors."""
    return map_structure(_public_leaf, element)


def _public_leaf(leaf: Leaf) -> Leaf:
    if isinstance(leaf, bytes) or (isinstance(leaf, np.ndarray) and leaf.dtype == object):
        return StringTensor(leaf if isinstance(leaf, np.ndarray) else np.asarray(leaf, dtype=object))
    return leaf


def is_namedtuple(value: object) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_structure(value: object) -> bool:
    return isinstance(value, (tuple, dict))


def flatten(nest: Nest) -> list[Leaf]:
    """Leaves of `nest` in tf.nest order (dict values by sorted key)."""
    if isinstance(nest, dict):
        return [leaf for key in sorted(nest) for leaf in flatten(nest[key])]
    if isinstance(nest, tuple):
        return [leaf for item in nest for leaf in flatten(item)]
    return [nest]


def pack_as(structure: Nest, leaves: Iterable[Any]) -> Nest:
    """The nest of `structure`'s shape holding `leaves` (in flatten order)."""
    iterator = iter(leaves)
    packed = _pack(structure, iterator)
    if next(iterator, _SENTINEL) is not _SENTINEL:
        raise ValueError("too many leaves for the structure")
    return packed


_SENTINEL = object()


def _pack(structure: Nest, iterator: Iterator[Any]) -> Nest:
    if isinstance(structure, dict):
        values = {key: _pack(structure[key], iterator) for key in sorted(structure)}
        return type(structure)((key, values[key]) for key in structure)
    if is_namedtuple(structure):
        return type(structure)(*[_pack(item, iterator) for item in structure])
    if isinstance(structure, tuple):
        return tuple(_pack(item, iterator) for item in structure)
    try:
        return next(iterator)
    except StopIteration:
        raise ValueError("too few leaves for the structure") from None


def map_structure(fn: Callable[[Any], Any], nest: Nest) -> Nest:
    return pack_as(nest, [fn(leaf) for leaf in flatten(nest)])


def assert_same_structure(a: Nest, b: Nest, what: str) -> None:
    if not same_structure(a, b):
        raise TypeError(f"{what}: the structures differ: {a!r} and {b!r}")


def same_structure(a: Nest, b: Nest) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b) and all(
            same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and is_namedtuple(a) == is_namedtuple(b)
                and len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b, strict=True)))
    return True


# ---- leaves ----

def _is_string_array(value: object) -> bool:
    return isinstance(value, np.ndarray) and (value.dtype.kind in "SU" or value.dtype == object)


def _contains_strings(value: object) -> bool:
    if isinstance(value, (bytes, str, StringTensor)):
        return True
    if isinstance(value, list):
        return len(value) > 0 and _contains_strings(value[0])
    return _is_string_array(value)


def to_leaf(value: Any, dtype: Any = None) -> Leaf:
    """A dataset leaf from a Python value: a Tensor, ``bytes``, an object array of bytes, None or a dataset."""
    if isinstance(value, Tensor) and dtype is None:
        return value
    if isinstance(value, (SparseTensor, RaggedTensor)):
        return value
    if dtype is None and value is None:
        return None
    if dtype is None and is_dataset(value):
        from tpustrategy.data.dataset_ops import as_variant  # lazy: dataset_ops builds on this module

        return as_variant(value)
    if isinstance(value, StringTensor):
        return value._array.item() if value.ndim == 0 else value._array
    if isinstance(value, list) and value and isinstance(value[0], StringTensor):
        value = np.asarray([v.numpy() for v in value], dtype=object) if value[0].ndim == 0 else \
            np.stack([v._array for v in value])
    if dtype is string or (dtype is None and _contains_strings(value)):
        array = np.asarray(value, dtype=object)
        if array.ndim == 0:
            return _to_bytes(array.item())
        flat = [_to_bytes(v) for v in array.reshape(-1)]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(array.shape)
    if isinstance(value, Tensor):
        if value.dtype == dtype:
            return value
        return _core.tensor.constant(np.asarray(value).astype(_core.tensor.DType(dtype).as_numpy_dtype), dtype)
    return _core.tensor.convert_to_tensor(value, dtype) if dtype is None else _convert_with_dtype(value, dtype)


def _convert_with_dtype(value: Any, dtype: Any) -> Tensor:
    tensor: Tensor
    try:
        tensor = _core.tensor.convert_to_tensor(value, dtype)
    except (TypeError, ValueError):
        tensor = _core.tensor.constant(np.asarray(value).astype(_core.tensor.DType(dtype).as_numpy_dtype), dtype)
    return tensor


def normalize_element(value: Nest) -> Nest:
    """Converts every leaf of a user-provided element; lists are tensor values, not structure."""
    if isinstance(value, dict):
        return type(value)((k, normalize_element(v)) for k, v in value.items())
    if is_namedtuple(value):
        return type(value)(*[normalize_element(v) for v in value])
    if isinstance(value, tuple):
        return tuple(normalize_element(v) for v in value)
    return to_leaf(value)


def normalize_function_output(value: Nest) -> Nest:
    """Like normalize_element, but a list returned by a map function becomes a tuple (TF does the same)."""
    if isinstance(value, list):
        value = tuple(value)
    if isinstance(value, dict):
        return type(value)((k, normalize_function_output(v)) for k, v in value.items())
    if is_namedtuple(value):
        return type(value)(*[normalize_function_output(v) for v in value])
    if isinstance(value, tuple):
        return tuple(normalize_function_output(v) for v in value)
    return to_leaf(value)


def function_output_leaves(value: Any) -> list[Any]:
    """The leaves of a function's output as returned, in the order of normalize_function_output's flattened
    result (lists are structure there)."""
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in function_output_leaves(value[key])]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in function_output_leaves(item)]
    return [value]


def leaf_shape(leaf: Leaf) -> tuple[int, ...]:
    """The shape of a tensor-like leaf (None and dataset leaves have no shape: ``()``)."""
    if isinstance(leaf, RaggedTensor):
        return tuple(int(d) for d in ragged_tensor._bounding(leaf))
    if isinstance(leaf, SparseTensor):
        return tuple(int(d) for d in np.asarray(leaf.dense_shape))
    if isinstance(leaf, Tensor):
        return tuple(leaf._shape_tuple)
    if isinstance(leaf, np.ndarray):
        shape: tuple[int, ...] = leaf.shape
        return shape
    return ()


def spec_of_leaf(leaf: Leaf) -> Spec:
    if leaf is None:
        return NoneTensorSpec()
    if is_dataset(leaf):
        return DatasetSpec(leaf.element_spec)
    if isinstance(leaf, RaggedTensor):
        return RaggedTensorSpec(leaf.shape, leaf.dtype, leaf.ragged_rank)
    if isinstance(leaf, SparseTensor):
        # A parsed VarLenFeature has dims TF cannot know statically (its spec shows None there).
        static = getattr(leaf, "_static_shape", None)
        return SparseTensorSpec(static if static is not None else leaf_shape(leaf), leaf.dtype)
    if isinstance(leaf, Tensor):
        return TensorSpec(leaf._shape_tuple, leaf.dtype)
    return StringSpec(leaf_shape(leaf))


def spec_of(element: Nest) -> Nest:
    return map_structure(spec_of_leaf, element)


def with_shape(spec: Nest, shape: TensorShape | Sequence[int | None] | None) -> Nest:
    """`spec` with another shape (keeps the dtype / string kind; a dataset's shape is its batch shape)."""
    if isinstance(spec, NoneTensorSpec):
        return spec
    if isinstance(spec, DatasetSpec):
        return DatasetSpec(spec.element_spec, shape)
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec(shape, spec.dtype, spec.ragged_rank)
    if is_string_spec(spec):
        return StringSpec(shape)
    if isinstance(spec, SparseTensorSpec):
        return SparseTensorSpec(shape, spec.dtype)
    return TensorSpec(shape, spec.dtype)


def relax_spec(a: Spec, b: Spec) -> Spec:
    """The most specific spec compatible with both (None where dims differ)."""
    if isinstance(a, DatasetSpec) and isinstance(b, DatasetSpec) and same_structure(a.element_spec, b.element_spec):
        inner = pack_as(a.element_spec, [relax_spec(x, y) for x, y in zip(flatten(a.element_spec),
                                                                        flatten(b.element_spec), strict=True)])
        return DatasetSpec(inner, a.shape.most_specific_compatible_shape(b.shape))
    if isinstance(a, (NoneTensorSpec, DatasetSpec)) or isinstance(b, (NoneTensorSpec, DatasetSpec)):
        if a != b:
            raise ValueError(f"No TypeSpec is compatible with both {a} and {b}")
        return a
    shape = as_shape(a.shape).most_specific_compatible_shape(b.shape)
    return with_shape(a, shape)


def specs_compatible(a: Spec, b: Spec) -> bool:
    if isinstance(a, (NoneTensorSpec, DatasetSpec)) or isinstance(b, (NoneTensorSpec, DatasetSpec)):
        return bool(a == b)
    if isinstance(a, RaggedTensorSpec) or isinstance(b, RaggedTensorSpec):
        return a == b or (isinstance(a, RaggedTensorSpec) and a.is_compatible_with(b))
    if is_string_spec(a) or is_string_spec(b):
        return is_string_spec(a) and is_string_spec(b)
    if isinstance(a, SparseTensorSpec) != isinstance(b, SparseTensorSpec):
        return False
    return bool(a.dtype == b.dtype)


def prepend_dim(spec: Spec, dim: int | None) -> Spec:
    if isinstance(spec, NoneTensorSpec):
        return spec
    shape = as_shape(spec.shape)
    if isinstance(spec, RaggedTensorSpec):  # batching a ragged element adds a ragged dimension (TF 2.21)
        return RaggedTensorSpec(TensorShape([dim]).concatenate(shape), spec.dtype, spec.ragged_rank + 1)
    return with_shape(spec, TensorShape([dim]).concatenate(shape))


def drop_leading_dim(spec: Spec) -> Spec:
    if isinstance(spec, NoneTensorSpec):
        return spec
    shape = as_shape(spec.shape)
    if isinstance(spec, RaggedTensorSpec):
        inner = shape[1:] if shape.rank is not None else TensorShape(None)
        # TF keeps a RaggedTensorSpec, of ragged_rank 0 for the rows of a ragged_rank-1 tensor (they come out as
        # dense tensors, and batching them gives ragged_rank 1 again).
        return RaggedTensorSpec(inner, spec.dtype, max(spec.ragged_rank - 1, 0))
    return with_shape(spec, shape[1:] if shape.rank is not None else TensorShape(None))


# ---- batching of leaves (tensors go through the C++ kernels) ----

def stack_leaves(leaves: list[Leaf], component: int) -> Leaf:
    first = leaves[0]
    if first is None:
        return None
    if is_dataset(first):
        raise _unimplemented(f"Batching a component whose elements are datasets (component {component}: "
                             f"{first!r}) is not supported; flat_map or interleave them first.")
    if isinstance(first, SparseTensor):
        return sparse_tensor.stack(leaves)
    if isinstance(first, RaggedTensor):
        return ragged_tensor.stack(leaves)
    if isinstance(first, Tensor):
        return _core.data.stack_batch(leaves, component=component)
    shapes = {leaf_shape(leaf) for leaf in leaves}
    if len(shapes) != 1:
        raise _invalid_argument(f"Cannot batch tensors with different shapes in component {component}.")
    out = np.empty((len(leaves), *leaf_shape(first)), dtype=object)
    for i, leaf in enumerate(leaves):
        out[i] = leaf
    return out


def unstack_leaf(leaf: Leaf) -> list[Leaf] | None:
    """The rows of a batched leaf; None for a None component (it stays None in every row)."""
    if leaf is None:
        return None
    if isinstance(leaf, RaggedTensor):
        return [to_leaf(row) for row in leaf]
    if isinstance(leaf, SparseTensor):
        return sparse_tensor.unstack(leaf)
    if isinstance(leaf, Tensor):
        if leaf.ndim == 0:
            raise _invalid_argument("Input element must have a non-scalar value in each component.")
        return _core.data.unstack_rows(leaf)
    if not isinstance(leaf, np.ndarray) or leaf.ndim == 0:
        raise _invalid_argument("Input element must have a non-scalar value in each component.")
    return [row if isinstance(row, np.ndarray) else _to_bytes(row) for row in leaf]


def _invalid_argument(message: str) -> Exception:
    from tpustrategy.errors import InvalidArgumentError

    error: Exception = InvalidArgumentError(None, None, message)
    return error


def _unimplemented(message: str) -> Exception:
    from tpustrategy.errors import UnimplementedError

    error: Exception = UnimplementedError(None, None, message)
    return error


def check_has_component(spec: Nest, what: str) -> Nest:
    """`spec`, unless it has no component but None ones (TF refuses such elements: its ops need an output type)."""
    if all(isinstance(s, NoneTensorSpec) for s in flatten(spec)):
        raise _invalid_argument(f"{what}: the element {spec} has no component but None (TF: Length for attr "
                                "'output_types' of 0 must be at least minimum 1).")
    return spec


def unstack_columns(element: Nest) -> list[list[Leaf]]:
    """The rows of each leaf of a batched element, in flatten order (a None component is None in every row);
    InvalidArgumentError if the components' batch sizes differ."""
    columns = [unstack_leaf(leaf) for leaf in flatten(element)]
    sizes = {len(c) for c in columns if c is not None}
    if len(sizes) > 1:
        raise _invalid_argument(f"Input element must have the same batch size in each component: {sorted(sizes)}")
    count = sizes.pop() if sizes else 0
    return [c if c is not None else [None] * count for c in columns]


def unstack_element(element: Nest) -> list[Nest]:
    """The rows of a batched element (see unstack_columns)."""
    return [pack_as(element, row) for row in zip(*unstack_columns(element), strict=True)]


def to_numpy(element: Nest) -> Nest:
    """as_numpy_iterator's view of an element: numpy values (bytes stay bytes)."""
    return map_structure(lambda leaf: leaf.numpy() if isinstance(leaf, Tensor) else leaf, element)


def ragged_stack_leaves(leaves: list[Leaf], component: int) -> Leaf:
    """``ragged_batch``'s stacking: dense leaves of rank >= 1 become ragged rows (their lengths may differ)."""
    first = leaves[0]
    if isinstance(first, RaggedTensor) or leaf_shape(first) == () or isinstance(first, SparseTensor):
        return stack_leaves(leaves, component)
    return ragged_tensor.stack([StringTensor(leaf) if isinstance(leaf, np.ndarray) else leaf for leaf in leaves])


def ragged_spec(spec: Spec) -> Spec:
    """The spec ``ragged_batch`` gives a component before its batch dim: dense rank >= 1 becomes ragged."""
    if isinstance(spec, (RaggedTensorSpec, SparseTensorSpec)) or spec.shape.rank in (0, None):
        return spec
    rank = spec.shape.rank
    return RaggedTensorSpec(TensorShape([None] * rank), spec.dtype, rank - 1)


def slice_leaf_rows(leaf: RaggedTensor | SparseTensor, begin: int, count: int) -> RaggedTensor | SparseTensor:
    """Rows [begin, begin + count) of a batched sparse or ragged leaf."""
    if isinstance(leaf, RaggedTensor):
        rows: RaggedTensor = leaf[begin:begin + count]
        return rows
    return sparse_tensor.slice_rows(leaf, begin, count)
