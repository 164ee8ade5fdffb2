"""``tf.einsum`` over the dispatched ops (transpose, reduce_sum, batched matmul), so it is differentiable.

Operands are contracted left to right in pairs: labels in both operands and the output are batch axes
(they broadcast, as in matmul), labels in both but not needed later are contracted by one matmul, labels
of one operand that appear nowhere else are summed first. ``...`` is supported. A label repeated inside one
operand (``ii`` a trace, ``ii->i`` a diagonal) first takes that operand's diagonal, as a product with an identity
mask summed over the second axis (differentiable like the rest).
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import static_shape
from tpustrategy.ops import _spmd_hook
from tpustrategy.ops._args import Tensor, TensorLike

_ops = _core.ops
# The `ops` argument below: the _core.ops module or _FacadeOps (same four functions); operands are Tensors, or
# ShardedTensors on the SPMD path, hence Any.


class _FacadeOps:
    """The same four ops through the facade, which hands operands split over logical cores (SPMD) to the
    partitioner: an einsum of split tensors runs partitioned (a batched one as a partitioned batched matmul)."""

    @staticmethod
    def transpose(t: Any, perm: Any) -> Any:
        from tpustrategy.ops import array_ops

        return array_ops.transpose(t, perm)

    @staticmethod
    def reshape(t: Any, shape: Any) -> Any:
        from tpustrategy.ops import array_ops

        return array_ops.reshape(t, shape)

    @staticmethod
    def matmul(a: Any, b: Any, transpose_a: Any, transpose_b: Any) -> Any:
        from tpustrategy.ops import math_ops

        return math_ops.matmul(a, b, transpose_a, transpose_b)

    @staticmethod
    def reduce_sum(t: Any, axes: Any, keepdims: bool) -> Any:
        from tpustrategy.ops import math_ops

        return math_ops.reduce_sum(t, axes, keepdims)


def _tensor(value: TensorLike) -> Tensor:
    return value if isinstance(value, _core.tensor.Tensor) else _core.tensor.convert_to_tensor(value)


def _parse(equation: str, tensors: Sequence[Any]) -> tuple[list[str], str]:
    if not isinstance(equation, str):
        raise TypeError(f"einsum equation must be a string, got {type(equation).__name__}")
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->")
        explicit = True
    else:
        lhs, out, explicit = eq, None, False
    terms = lhs.split(",")
    if len(terms) != len(tensors):
        raise ValueError(f"Input equation '{equation}' has {len(terms)} operands but {len(tensors)} were given")
    used = set(eq) - set(",->.")
    spare = [c for c in string.ascii_letters if c not in used]
    ell_rank = max((t.ndim - (len(term) - 3) for term, t in zip(terms, tensors, strict=True) if "..." in term),
                   default=0)
    ell = "".join(spare[:ell_rank])
    subs = []
    for term, t in zip(terms, tensors, strict=True):
        if "..." in term:
            n = t.ndim - (len(term) - 3)
            term = term.replace("...", ell[ell_rank - n:] if n else "")
        if len(term) != t.ndim:
            raise ValueError(f"einsum term '{term}' has {len(term)} labels for an operand of rank {t.ndim} "
                             f"(equation '{equation}')")
        if not all(c.isalpha() for c in term):
            raise ValueError(f"einsum labels must be letters, got '{term}' in '{equation}'")
        subs.append(term)
    if explicit:
        assert out is not None  # set from the "->" split
        out = out.replace("...", ell)
        if len(set(out)) != len(out):
            raise ValueError(f"einsum output '{out}' repeats a label")
        for c in out:
            if not any(c in s for s in subs):
                raise ValueError(f"einsum output label '{c}' appears in no input of '{equation}'")
    else:
        counts: dict[str, int] = {}
        for s in subs:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return subs, out


def _diagonal(t: Any, sub: str, ops: Any = _ops) -> tuple[Any, str]:
    """`t` reduced to its diagonal over each label repeated in `sub` (one axis per label remains).

    Raises:
      InvalidArgumentError: a repeated label's axes differ in size (TF's message).
    """
    while len(set(sub)) != len(sub):
        first = next(i for i, c in enumerate(sub) if sub.index(c) != i)
        kept = sub.index(sub[first])
        shape = list(t._shape_tuple)
        if shape[first] != shape[kept]:
            raise errors.InvalidArgumentError(None, None, f"Expected dimension {shape[kept]} at axis {first} of the "
                                              f"input shaped {shape} but got dimension {shape[first]}")
        mask_shape = [1] * len(shape)
        mask_shape[kept] = mask_shape[first] = shape[kept]
        eye = np.eye(shape[kept], dtype=t.dtype.as_numpy_dtype).reshape(mask_shape)
        t = ops.reduce_sum(_core.ops.multiply(t, _core.tensor.constant(eye, t.dtype)), [first], keepdims=False)
        sub = sub[:first] + sub[first + 1:]
    return t, sub


def _sum_out(t: Any, sub: str, keep: set[str], ops: Any = _ops) -> tuple[Any, str]:
    """Sums the axes of `t` whose labels are not in `keep`."""
    axes = [i for i, c in enumerate(sub) if c not in keep]
    if not axes:
        return t, sub
    return ops.reduce_sum(t, axes, keepdims=False), "".join(c for c in sub if c in keep)


def _permute(t: Any, sub: str, order: str, ops: Any = _ops) -> Any:
    if sub == order:
        return t
    return ops.transpose(t, [sub.index(c) for c in order])


def _size(dims: dict[str, int], labels: Iterable[str]) -> int:
    return int(math.prod(dims[c] for c in labels))


def _contract(a: Any, sa: str, b: Any, sb: str, keep: set[str], ops: Any = _ops) -> tuple[Any, str]:
    """a (labels sa) times b (labels sb), keeping the labels in `keep`; returns (tensor, labels)."""
    a, sa = _sum_out(a, sa, keep | set(sb), ops)
    b, sb = _sum_out(b, sb, keep | set(sa), ops)
    batch = [c for c in sa if c in sb and c in keep]
    contract = [c for c in sa if c in sb and c not in keep]
    free_a = [c for c in sa if c not in sb]
    free_b = [c for c in sb if c not in sa]
    da = dict(zip(sa, a._shape_tuple, strict=True))
    db = dict(zip(sb, b._shape_tuple, strict=True))
    for c in contract:
        if da[c] != db[c]:
            raise errors.InvalidArgumentError(None, None, f"einsum: label '{c}' has sizes {da[c]} and {db[c]}")
    a3 = ops.reshape(_permute(a, sa, "".join(batch + free_a + contract), ops),
                     [da[c] for c in batch] + [_size(da, free_a), _size(da, contract)])
    b3 = ops.reshape(_permute(b, sb, "".join(batch + contract + free_b), ops),
                     [db[c] for c in batch] + [_size(db, contract), _size(db, free_b)])
    y = ops.matmul(a3, b3, transpose_a=False, transpose_b=False)
    batch_sizes = list(y._shape_tuple[:len(batch)])
    y = ops.reshape(y, batch_sizes + [da[c] for c in free_a] + [db[c] for c in free_b])
    return y, "".join(batch + free_a + free_b)


def einsum(equation: str, *inputs: TensorLike, **kwargs: Any) -> Any:
    """Einstein summation (tf.einsum): e.g. 'ij,jk->ik', 'bij,bjk->bik', 'ij->ji', 'ij->', '...ij,jk->...ik',
    'bhqd,bhkd->bhqk'. Differentiable through the ops it is built from.

    Raises:
      ValueError: a malformed equation.
      InvalidArgumentError: mismatched label sizes.
    """
    split = _spmd_hook.active and _spmd_hook.sharded(*inputs)
    ops = _FacadeOps if split else _ops
    tensors = [t if split and _spmd_hook.sharded(t) else _tensor(t) for t in inputs]
    if not tensors:
        raise ValueError("einsum needs at least one operand")
    subs, out = _parse(equation, tensors)
    for i, term in enumerate(subs):
        tensors[i], subs[i] = _diagonal(tensors[i], term, ops)
    current, cs = tensors[0], subs[0]
    for i in range(1, len(tensors)):
        later = set(out).union(*subs[i + 1:])
        current, cs = _contract(current, cs, tensors[i], subs[i], later, ops)
    current, cs = _sum_out(current, cs, set(out), ops)
    result = _permute(current, cs, out, ops)
    _note_static_shape(result, tensors, subs, out)
    return result


def _note_static_shape(result: Any, tensors: Sequence[Any], subs: Sequence[str], out: str) -> None:
    """In a Dataset function, TF's einsum shape: each output label's size as any input states it (the reshapes
    above use the real sizes, so the static ones are worked out from the labels)."""
    statics = [static_shape.lookup(t) for t in tensors] if static_shape.active() else []
    if all(s is None for s in statics):
        return
    if any(s is not None and s.rank is None for s in statics):
        static_shape.note_shape(result, None)
        return
    sizes: dict[str, int] = {}
    for t, static, sub in zip(tensors, statics, subs, strict=True):
        dims = t._shape_tuple if static is None else static.as_list()
        sizes.update({label: size for label, size in zip(sub, dims, strict=True) if size is not None})
    static_shape.note_shape(result, [sizes.get(label) for label in out])
