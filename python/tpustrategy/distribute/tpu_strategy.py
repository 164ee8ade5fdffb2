"""TPU strategies: ``tf.distribute.TPUStrategy``, the r1.15 ``experimental.TPUStrategy`` and compat.v1's.

Simulator deviation (SEMANTICS.md §2.2): TensorFlow traces `fn` once with XLA; here `run` accepts any callable and
executes it once per replica on that replica's simulated core, in replica order, so Python side effects happen once
per replica. Outputs are converted to tensors, so with more than one replica `run` always returns PerReplica.
"""

from __future__ import annotations

import collections
import logging

from tpustrategy import _core
from tpustrategy.distribute import distribute_lib
from tpustrategy.distribute.tpu_extended import TPUExtended
from tpustrategy.tpu.sharding import Sharding

_logger = logging.getLogger("tpustrategy")


# _core.Tensor takes no Python attributes (nor weak references), so annotations live in a side table keyed by
# id(tensor) that also holds the tensor (ids stay valid); the oldest entries are dropped past the limit.
# TODO: move the annotation into the C++ tensor with the spmd/ Sharding type.
_ANNOTATION_LIMIT = 4096
_annotations: collections.OrderedDict[int, tuple] = collections.OrderedDict()


def _annotate(tensor, sharding: Sharding):
    """The same value as a tensor carrying `sharding` (TF adds an XLA sharding attribute)."""
    annotated = _core.convert_to_tensor(tensor)
    _annotations[id(annotated)] = (annotated, sharding)
    _annotations.move_to_end(id(annotated))
    while len(_annotations) > _ANNOTATION_LIMIT:
        _annotations.popitem(last=False)
    return annotated


def sharding_of(tensor) -> Sharding | None:
    """The sharding annotation a TPU strategy attached to `tensor` (the latest one), if any."""
    entry = _annotations.get(id(tensor))
    return entry[1] if entry is not None and entry[0] is tensor else None


class _TPUStrategyMethods:
    """What every TPU strategy adds to its base: the resolver and the logical-device API (SEMANTICS.md §4)."""

    @property
    def cluster_resolver(self):
        return self._extended._tpu_cluster_resolver

    def experimental_assign_to_logical_device(self, tensor, logical_device_id: int):
        """Places `tensor` on logical core `logical_device_id` of the replica (a maximal sharding)."""
        extended = self._extended
        if extended._spmd:
            raise ValueError(
                "Cannot assign a tensor to a logical device in SPMD mode. To disable SPMD, please "
                "construct the TPUStrategy with `experimental_spmd_xla_partitioning=False`"
            )
        count = extended._num_logical_devices
        if not 0 <= logical_device_id < count:
            raise ValueError(
                "`logical_core_id` to assign must be lower than the number of logical devices per replica "
                f"(got {logical_device_id}, there are {count})."
            )
        return _annotate(tensor, Sharding.maximal(logical_device_id, count))

    def experimental_split_to_logical_devices(self, tensor, partition_dimensions):
        """Splits `tensor` into tiles over the logical cores: ``partition_dimensions[i]`` pieces along axis i."""
        tensor = _core.convert_to_tensor(tensor)
        partition_dimensions = [int(p) for p in partition_dimensions]
        shape = list(tensor._shape_tuple)
        count = self._extended._num_logical_devices
        if len(partition_dimensions) != len(shape):
            raise ValueError(
                f"Length of `partition_dimensions` must equal the rank of `tensor.shape` ({len(shape)}). "
                f"Received len(partition_dimensions)={len(partition_dimensions)}."
            )
        for index, (size, parts) in enumerate(zip(shape, partition_dimensions, strict=True)):
            if size is not None and (parts <= 0 or size % parts != 0):
                raise ValueError(
                    f"Tensor shape at `partition_dimensions[{index}]` must be divisible by corresponding value "
                    f"specified by `partition_dimensions` ({parts}). Received: {size}."
                )
        product = 1
        for parts in partition_dimensions:
            product *= parts
        if product != count:
            raise ValueError(
                f"The product of `partition_dimensions` should be the same as the number of logical devices "
                f"(={count}). Received `partition_dimensions`={partition_dimensions}, and number of logical "
                f"devices per replica={count}."
            )
        return _annotate(tensor, Sharding.tiled(partition_dimensions, count))

    def experimental_replicate_to_logical_devices(self, tensor):
        """A full copy of `tensor` on every logical core of the replica."""
        return _annotate(tensor, Sharding.replicated(self._extended._num_logical_devices))


class TPUStrategyV2(_TPUStrategyMethods, distribute_lib.Strategy):
    """``tf.distribute.TPUStrategy``: synchronous training on the cores of a (simulated) TPU slice.

    Args:
      tpu_cluster_resolver: a TPUClusterResolver naming the slice (default: the local slice).
      experimental_device_assignment: a DeviceAssignment; one replica per assignment replica, with
        ``num_cores_per_replica`` logical devices each. Default: one replica per TPU core.
      experimental_spmd_xla_partitioning: partition each replica's program over its logical devices from the
        sharding annotations (``assign_to_logical_device`` becomes an error).
    """

    def __init__(
        self, tpu_cluster_resolver=None, experimental_device_assignment=None, experimental_spmd_xla_partitioning=False
    ):
        super().__init__(
            TPUExtended(
                self, tpu_cluster_resolver, experimental_device_assignment, spmd=experimental_spmd_xla_partitioning
            )
        )


class TPUStrategy(_TPUStrategyMethods, distribute_lib.Strategy):
    """``tf.distribute.experimental.TPUStrategy`` (r1.15 / TF 2.0); deprecated in favour of TPUStrategy."""

    def __init__(self, tpu_cluster_resolver=None, device_assignment=None):
        _logger.warning(
            "`tf.distribute.experimental.TPUStrategy` is deprecated, please use the non-experimental "
            "symbol `tf.distribute.TPUStrategy` instead."
        )
        super().__init__(TPUExtended(self, tpu_cluster_resolver, device_assignment))


class TPUStrategyV1(_TPUStrategyMethods, distribute_lib.StrategyV1):
    """``tf.compat.v1.distribute.experimental.TPUStrategy``: adds ``steps_per_run`` (None → 1)."""

    def __init__(self, tpu_cluster_resolver=None, steps_per_run=None, device_assignment=None):
        super().__init__(TPUExtended(self, tpu_cluster_resolver, device_assignment, steps_per_run=steps_per_run))

    @property
    def steps_per_run(self) -> int:
        """Deprecated alias of ``extended.steps_per_run``."""
        return self._extended.steps_per_run
