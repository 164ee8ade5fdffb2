"""Cross-replica reductions, gathers and broadcasts used by Strategy and StrategyExtended."""

from __future__ import annotations

from tpustrategy import _core
from tpustrategy.distribute import _host_math
from tpustrategy.distribute.reduce_util import ReduceOp
from tpustrategy.distribute.values import DistributedValues, Mirrored
from tpustrategy.framework import device_scope


def current_device():
    """Where cross-replica results go by default: the current device, else host CPU 0."""
    return device_scope.current_device() or _core.host_cpu()


def _device_of(value):
    name = getattr(value, "device", "")
    return _core.find_device(name) if isinstance(name, str) and name else None


def destination_devices(destinations) -> list:
    """A device string, Device, tensor, variable or DistributedValues → the devices results go to."""
    if isinstance(destinations, str):
        if not destinations:
            raise ValueError("destinations can not be empty")
        return [device_scope.resolve_device(destinations)]
    if isinstance(destinations, _core.Device):
        return [destinations]
    if isinstance(destinations, DistributedValues):
        devices = [_device_of(v) or current_device() for v in destinations.values]
        if not devices:
            raise ValueError("destinations can not be empty")
        return devices
    if isinstance(destinations, _core.Tensor) or getattr(destinations, "_is_variable", False):
        return [_device_of(destinations) or current_device()]
    raise ValueError("destinations must be one of a `DistributedValues` object, a tf.Variable object, or a "
                     f"device string; got {destinations!r}")


def _deliver(results: list):
    return results[0] if len(results) == 1 else Mirrored(results)


def reduce_to(reduce_op: ReduceOp, value, devices: list, num_replicas: int):
    """Reduces the components of `value` onto `devices` (one Tensor, or Mirrored over several)."""
    if isinstance(value, DistributedValues):
        components = [_core.convert_to_tensor(v) for v in value.values]
        return _deliver(_core.all_reduce(components, reduce_op.value, devices))
    return reduce_non_distributed_value(reduce_op, value, num_replicas)


def reduce_non_distributed_value(reduce_op: ReduceOp, value, num_replicas: int):
    """A plain value "reduced" across replicas: 0 stays 0, MEAN keeps it, SUM only makes sense on one replica."""
    if not isinstance(value, _core.Tensor) and isinstance(value, (int, float)) and value == 0:
        return 0
    if reduce_op == ReduceOp.MEAN or num_replicas == 1:
        return value
    raise ValueError(f"A non-DistributedValues value {value!r} cannot be reduced with the given reduce op "
                     f"{reduce_op}. (On {num_replicas} replicas a plain value has no per-replica components to sum.)")


def reduce_with_axis(reduce_op: ReduceOp, value, axis, num_replicas: int):
    """Strategy.reduce with an axis: reduce within each replica along `axis`, then across replicas.

    MEAN divides by the true global number of elements along `axis` (partial batches weigh correctly).
    """
    components = list(value.values) if isinstance(value, DistributedValues) else [value] * num_replicas
    tensors = [_core.convert_to_tensor(v) for v in components]
    axes = [_host_math.normalize_axes(axis, t.ndim) for t in tensors]
    destination = [current_device()]
    sums = [_host_math.reduce_sum(t, a) for t, a in zip(tensors, axes, strict=True)]
    total = _core.all_reduce(sums, "SUM", destination)[0]
    if reduce_op == ReduceOp.SUM:
        return total
    counts = [_host_math.count_along(t, a) for t, a in zip(tensors, axes, strict=True)]
    count = _core.all_reduce(counts, "SUM", destination)[0]
    with device_scope.device_scope(destination[0]):
        return _host_math.true_divide(total, count)


def gather_to(value, axis, devices: list):
    """Concatenates the components of `value` along `axis` onto `devices`; plain values are returned as is."""
    if not isinstance(value, DistributedValues):
        return value
    components = [_core.convert_to_tensor(v) for v in value.values]
    return _deliver(_core.all_gather(components, axis, devices))


def broadcast_to(value, devices: list):
    """The same tensor on each of `devices` (one shared buffer)."""
    return _deliver(_core.broadcast(_core.convert_to_tensor(value), devices))
