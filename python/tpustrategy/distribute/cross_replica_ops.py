"""Cross-replica reductions, gathers and broadcasts used by Strategy and StrategyExtended."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tpustrategy import _core, errors, nest
from tpustrategy.distribute.reduce_util import ReduceOp
from tpustrategy.distribute.values import DistributedValues, Mirrored
from tpustrategy.framework import device_scope
from tpustrategy.framework.indexed_slices import IndexedSlices
from tpustrategy.ops import math_ops

Device = _core.devices.Device
Tensor = _core.tensor.Tensor
# describe(i, shape of replica 0, shape of replica i, axis): the error text of a gather whose shapes differ.
ShapeMismatch = Callable[[int, tuple[int, ...], tuple[int, ...], int], str]


def current_device() -> _core.devices.Device:
    """Where cross-replica results go by default: the current device, else the default CPU (the client's)."""
    return device_scope.current_device() or _core.devices.default_cpu()


def _device_of(value: object) -> Device | None:
    name = getattr(value, "device", "")
    return _core.devices.find_device(name) if isinstance(name, str) and name else None


def destination_devices(destinations: Any) -> list[Device]:
    """A device string, Device, tensor, variable or DistributedValues → the devices results go to."""
    if isinstance(destinations, str):
        if not destinations:
            raise ValueError("destinations can not be empty")
        return [device_scope.resolve_device(destinations)]  # type: ignore[list-item]  # a name resolves or raises
    if isinstance(destinations, _core.devices.Device):
        return [destinations]
    if isinstance(destinations, DistributedValues):
        devices = [_device_of(v) or current_device() for v in destinations.values]
        if not devices:
            raise ValueError("destinations can not be empty")
        return devices
    if isinstance(destinations, _core.tensor.Tensor) or getattr(destinations, "_is_variable", False):
        return [_device_of(destinations) or current_device()]
    raise ValueError("destinations must be one of a `DistributedValues` object, a tf.Variable object, or a "
                     f"device string; got {destinations!r}")


def _deliver(results: list[Tensor]) -> Tensor | Mirrored:
    return results[0] if len(results) == 1 else Mirrored(results)


def all_reduce(tensors: list[Tensor], reduce_op: ReduceOp, devices: list[Device]) -> list[Tensor]:
    """The collective all-reduce of `tensors` onto each of `devices`.

    The MEAN of integer tensors is TF's ``sum / n`` (truediv: float64), not an integer division.
    """
    if reduce_op == ReduceOp.MEAN and tensors and tensors[0].dtype.is_integer:
        results: list[Tensor] = []
        for device, total in zip(devices, _core.collectives.all_reduce(tensors, "SUM", devices=devices), strict=True):
            with device_scope.device_scope(device):
                results.append(math_ops.divide(total, len(tensors)))
        return results
    return _core.collectives.all_reduce(tensors, reduce_op.value, devices=devices)


def reduce_to(reduce_op: ReduceOp, value: Any, devices: list[Device], num_replicas: int) -> Any:
    """Reduces the components of `value` onto `devices` (one Tensor, or Mirrored over several)."""
    if isinstance(value, DistributedValues):
        components = [_core.tensor.convert_to_tensor(v) for v in value.values]
        return _deliver(all_reduce(components, reduce_op, devices))
    return reduce_non_distributed_value(reduce_op, value, num_replicas)


def reduce_non_distributed_value(reduce_op: ReduceOp, value: Any, num_replicas: int) -> Any:
    """A plain value "reduced" across replicas: 0 stays 0, MEAN keeps it, SUM only makes sense on one replica."""
    if not isinstance(value, _core.tensor.Tensor) and isinstance(value, (int, float)) and value == 0:
        return 0
    if reduce_op == ReduceOp.MEAN or num_replicas == 1:
        return value
    raise ValueError(f"A non-DistributedValues value {value!r} cannot be reduced with the given reduce op "
                     f"{reduce_op}. (On {num_replicas} replicas a plain value has no per-replica components to sum.)")


def normalize_axes(axis: Any, rank: int) -> list[int]:
    """An int or a list/tuple of ints → non-negative axes; out of range → ValueError; other types → TypeError."""
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    normalized = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"axis must be an int or a list/tuple of ints, got {axis!r}")
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of range for a value of rank {rank}")
        normalized.append(int(a) % rank)
    return normalized


def _sum_and_count(tensor: Tensor, axis: Any) -> tuple[Any, Tensor]:
    """One replica's share of a MEAN along `axis`: (reduce_sum over the axes, int64 element count along them).

    Computed on the component's own device, as TF does inside ``run``.
    """
    axes = normalize_axes(axis, tensor.ndim)
    shape = tensor._shape_tuple
    count = 1
    for a in axes:
        count *= shape[a]
    with device_scope.device_scope(_device_of(tensor) or current_device()):
        count_tensor: Tensor = _core.tensor.constant(np.int64(count))
        return math_ops.reduce_sum(tensor, axis=axes), count_tensor


def reduce_with_axis(reduce_op: ReduceOp, value: Any, axis: Any, num_replicas: int) -> Any:
    """Strategy.reduce with an axis: reduce within each replica along `axis`, then across replicas.

    MEAN divides by the true global number of elements along `axis` (partial batches weigh correctly, empty
    replica batches add 0 to both); the count is cast to the sum's dtype and divided with TF's truediv, so
    integer inputs give floats.
    """
    components = list(value.values) if isinstance(value, DistributedValues) else [value] * num_replicas
    shares = [_sum_and_count(_core.tensor.convert_to_tensor(v), axis) for v in components]
    destination = [current_device()]
    total = _core.collectives.all_reduce([s for s, _ in shares], "SUM", devices=destination)[0]
    if reduce_op == ReduceOp.SUM:
        return total
    count = _core.collectives.all_reduce([c for _, c in shares], "SUM", devices=destination)[0]
    with device_scope.device_scope(destination[0]):
        return math_ops.divide(total, math_ops.cast(count, total.dtype))


def _dims(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def collective_shape_mismatch(i: int, first: tuple[int, ...], other: tuple[int, ...], axis: int) -> str:
    """TF's collective gather wording (MirroredStrategy, MultiWorkerMirroredStrategy)."""
    return (f"Shape mismatch in the collective: replica {i} has shape {_dims(other)} but replica 0 has shape "
            f"{_dims(first)}; gathering along axis {axis} needs equal ranks and equal sizes along every other axis. "
            "This is likely due to different input shapes at different members of the collective op.")


def concat_shape_mismatch(i: int, first: tuple[int, ...], other: tuple[int, ...], axis: int) -> str:
    """TF's concat wording (TPUStrategy.gather concatenates the components)."""
    if len(first) != len(other):
        return f"ConcatOp : Ranks of all input tensors should match: shape[0] = {_dims(first)} vs. shape[{i}] = " \
               f"{_dims(other)}"
    d = next(d for d in range(len(first)) if d != axis and first[d] != other[d])
    return f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = {_dims(first)} vs. shape[{i}] = " \
           f"{_dims(other)}"


def check_gather_shapes(tensors: list[Tensor], axis: int, describe: ShapeMismatch) -> None:
    """Components gathered along `axis` must agree in rank and in every other size (InvalidArgumentError, with
    the wording `describe(i, shape0, shape_i, axis)` gives); scalars cannot be concatenated (ValueError)."""
    if not tensors:
        return
    first = tuple(tensors[0]._shape_tuple)
    for i, t in enumerate(tensors[1:], start=1):
        shape = tuple(t._shape_tuple)
        if len(shape) != len(first) or any(a != b for d, (a, b) in enumerate(zip(first, shape, strict=True))
                                           if d != axis % max(len(first), 1)):
            raise errors.InvalidArgumentError(None, None, describe(i, first, shape, axis % max(len(first), 1)))


def reject_indexed_slices(value: Any, method: str) -> None:
    """TF's gathers take dense tensors only (NotImplementedError, as TF words it)."""
    components = value.values if isinstance(value, DistributedValues) else nest.flatten(value)
    if any(isinstance(v, IndexedSlices) for v in components):
        raise NotImplementedError(f"{method} does not support IndexedSlices")


def gather_to(value: Any, axis: int, devices: list[Device]) -> Any:
    """Concatenates the components of `value` along `axis` onto `devices`; plain values are returned as is."""
    if not isinstance(value, DistributedValues):
        return value
    components = [_core.tensor.convert_to_tensor(v) for v in value.values]
    if any(len(c.shape) == 0 for c in components):
        # TF concatenates the components, and its concat rejects scalars with ValueError (observed with TF 2.21).
        raise ValueError("Can't concatenate scalars (use tf.stack instead): Strategy.gather needs components of "
                         "rank >= 1")
    return _deliver(_core.collectives.all_gather(components, axis, devices=devices))


def broadcast_to(value: Any, devices: list[Device]) -> Tensor | Mirrored:
    """The same tensor on each of `devices` (one shared buffer)."""
    return _deliver(_core.collectives.broadcast(_core.tensor.convert_to_tensor(value), devices))
