"""How a strategy cuts one dataset into per-host, per-replica inputs (SEMANTICS.md §2.5).

There is one input worker per simulated host spanned by the strategy's replicas. Each worker owns a
pipeline that produces, per step, one element for each of its replicas, already copied into that
replica's device memory:

* ``SplitPipeline`` — TF's legacy rebatching: every global batch of B rows is cut into `num_slices`
  slices of ceil(B / num_slices) rows (trailing slices may be empty) and the worker keeps the slices
  listed for its replicas. Used by the DATA policy (N slices, worker i keeps every W-th one) and when no
  batch size can be found statically.
* ``StreamPipeline`` — each replica of the worker dequeues the next element of a dataset in turn
  (round robin). Used after V2 rebatching (OFF / FILE / HINT policies), for
  ``distribute_datasets_from_function`` and for single-replica strategies.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

from tpustrategy import _core
from tpustrategy.data import _structure, _transforms
from tpustrategy.data.dataset_ops import Dataset, replace_shard_hints, shard_files, source_files
from tpustrategy.data.options import AutoShardPolicy
from tpustrategy.framework import device_scope
from tpustrategy.framework.sparse_tensor import SparseTensor
from tpustrategy.framework.tensor import Tensor
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor


class InputWorkers:
    """The strategy's replicas grouped by host: worker w feeds ``replica_ids[w]`` (in replica order)."""

    def __init__(self, replica_devices: Sequence[_core.devices.Device]) -> None:
        by_host: dict[int, list[int]] = {}  # hosts in order of their first replica
        for replica_id, device in enumerate(replica_devices):
            by_host.setdefault(device.task, []).append(replica_id)
        self.replica_devices = list(replica_devices)
        self.hosts = list(by_host)
        self.replica_ids = [by_host[h] for h in self.hosts]
        self.host_devices = [_core.devices.host_cpu(h) for h in self.hosts]  # where each host's pipeline runs
        num_replicas, num_workers = len(self.replica_devices), len(self.hosts)
        if num_replicas % num_workers != 0 or len({len(ids) for ids in self.replica_ids}) != 1:
            raise ValueError(
                "tf.distribute expects every worker to have the same number of replicas. However, encountered "
                f"`num_replicas` ({num_replicas}) that cannot be divided evenly over `num_workers` ({num_workers}).")

    @property
    def num_workers(self) -> int:
        return len(self.hosts)

    @property
    def num_replicas(self) -> int:
        return len(self.replica_devices)

    def devices_of(self, worker: int) -> list[_core.devices.Device]:
        return [self.replica_devices[r] for r in self.replica_ids[worker]]


def batch_sizes_for_worker(global_batch_size: int, num_workers: int, num_replicas_per_worker: int,
                           worker_index: int) -> list[int]:
    """V2 rebatching sizes of one worker: S = W·R sub-batches, the first G mod S one row larger, the list
    rotated left by worker_index·R so that the workers' sub-batches tile each global batch."""
    num_subbatches = num_workers * num_replicas_per_worker
    floor, num_ceil = divmod(global_batch_size, num_subbatches)
    worker_0 = [floor + 1] * num_ceil + [floor] * (num_subbatches - num_ceil)
    offset = worker_index * num_replicas_per_worker
    return worker_0[offset:] + worker_0[:offset]


# Transformations that keep the batch size of their input (so compute_batch_size may look through them).
_KEEPS_BATCH_SIZE = (_transforms.PrefetchDataset, _transforms.OptionsDataset, _transforms.MapDataset,
                     _transforms.FilterDataset, _transforms.ShardDataset, _transforms.TakeDataset,
                     _transforms.SkipDataset, _transforms.RepeatDataset, _transforms.ShuffleDataset,
                     _transforms.CacheDataset)


def compute_batch_size(dataset: Dataset) -> int:
    """The batch size of the last ``batch`` of the pipeline, or -1 when it cannot be known statically."""
    node = dataset
    while True:
        if isinstance(node, _transforms.BatchDataset):
            return node._batch_size
        if not isinstance(node, _KEEPS_BATCH_SIZE):
            return -1
        node = node._input


def check_batched(dataset: Dataset, num_replicas: int) -> None:
    for spec in _structure.flatten(dataset.element_spec):
        if spec.shape.rank == 0:
            raise ValueError(
                f"Cannot split unbatched (scalar) elements: call batch on the input dataset so that it can be split "
                f"across {num_replicas} replicas. (See the tf.distribute.Strategy guide.)")


def effective_policy(dataset: Dataset) -> AutoShardPolicy:
    """The auto-shard policy in force: AUTO means FILE for a pipeline reading files, else DATA."""
    policy = AutoShardPolicy(dataset.options().experimental_distribute.auto_shard_policy)
    if policy == AutoShardPolicy.AUTO:
        return AutoShardPolicy.FILE if source_files(dataset) is not None else AutoShardPolicy.DATA
    return policy


def build_pipelines(dataset: Dataset, workers: InputWorkers) -> list[StreamPipeline | SplitPipeline]:
    """One pipeline per worker for ``experimental_distribute_dataset`` (rebatching + auto-sharding)."""
    n, w = workers.num_replicas, workers.num_workers
    r = n // w
    if n == 1:
        return [StreamPipeline([dataset], workers.devices_of(0), workers.host_devices[0])]
    check_batched(dataset, n)
    policy = effective_policy(dataset)
    pipelines: list[StreamPipeline | SplitPipeline] = []
    for i in range(w):
        devices, host = workers.devices_of(i), workers.host_devices[i]
        if policy == AutoShardPolicy.DATA:
            # Legacy rebatching into N slices, then every worker keeps every W-th slice.
            pipelines.append(SplitPipeline(dataset, n, [i + k * w for k in range(r)], devices, host))
            continue
        sharded = dataset
        if w > 1 and policy == AutoShardPolicy.FILE:
            sharded = shard_files(dataset, w, i)
        elif policy == AutoShardPolicy.HINT:  # even one worker: shard(SHARD_HINT) must become concrete
            sharded = replace_shard_hints(dataset, w, i)
        global_batch = compute_batch_size(sharded)
        if global_batch < 0:  # no static batch size: split each batch over this worker's replicas
            pipelines.append(SplitPipeline(sharded, r, list(range(r)), devices, host))
            continue
        rebatched = sharded.rebatch(batch_sizes_for_worker(global_batch, w, r, i)).prefetch(r)
        pipelines.append(StreamPipeline([rebatched], devices, host))
    return pipelines


def place(element: Any, device: _core.devices.Device | None) -> Any:
    """`element` with every tensor copied onto `device` (charged to its memory); bytes stay on the host."""
    if device is None:
        return element
    name = device.name
    leaves = [_core.tensor.copy_to_device(leaf, name) if isinstance(leaf, Tensor) else
              _place_sparse(leaf, name) if isinstance(leaf, SparseTensor) else
              _place_ragged(leaf, device) if isinstance(leaf, RaggedTensor) else leaf
              for leaf in _structure.flatten(element)]
    return _structure.pack_as(element, leaves)


def _place_ragged(rt: RaggedTensor, device: _core.devices.Device | None) -> RaggedTensor:
    """`rt` with its flat values on `device` (strings and the row partition stay on the host, as in TF)."""
    if device is None or not isinstance(rt.flat_values, Tensor):
        return rt
    return rt.with_flat_values(_core.tensor.copy_to_device(rt.flat_values, device.name))


def _place_sparse(sp: SparseTensor, name: str) -> SparseTensor:
    values = sp._values if not isinstance(sp._values, Tensor) else _core.tensor.copy_to_device(sp._values, name)
    copy = _core.tensor.copy_to_device
    return SparseTensor(copy(sp.indices, name), values, copy(sp.dense_shape, name))


class StreamPipeline:
    """Replicas take turns dequeuing elements; `sources[k]` feeds replica k (one shared dataset per host by
    default, or one dataset per replica in PER_REPLICA mode)."""

    def __init__(self, datasets: list[Dataset], devices: Sequence[_core.devices.Device],
                 host_device: _core.devices.Device | None = None, per_replica: bool = False) -> None:
        self.datasets = list(datasets)
        self.devices = list(devices)
        self.host_device = host_device
        self._per_replica = per_replica
        self.element_spec = self.datasets[0].element_spec

    def steps(self) -> Iterator[list[Any]]:
        """Yields, per step, one placed element per replica (None for a replica whose input is exhausted)."""
        with device_scope.device_scope(self.host_device):
            iterators = [d._iterate() for d in self.datasets]
        exhausted = [False] * len(iterators)
        count = len(self.devices)
        while True:
            out: list[Any] = [None] * count
            for k in range(count):
                source = k if self._per_replica else 0
                if exhausted[source]:
                    continue
                with device_scope.device_scope(self.host_device):
                    element = next(iterators[source], _END)
                if element is _END:
                    exhausted[source] = True
                    continue
                out[k] = place(element, self.devices[k])
            yield out


class SplitPipeline:
    """Cuts every batch into `num_slices` slices of ceil(B / num_slices) rows and hands slice
    ``keep[k]`` to replica k, copying it straight into that replica's memory."""

    def __init__(self, dataset: Dataset, num_slices: int, keep: list[int], devices: Sequence[_core.devices.Device],
                 host_device: _core.devices.Device | None = None) -> None:
        check_batched(dataset, num_slices)
        self.dataset = dataset
        self.num_slices = num_slices
        self.keep = keep
        self.devices = list(devices)
        self.host_device = host_device
        self._range_cache: dict[int, tuple[list[int], list[int]]] = {}

        def split_spec(spec: Any) -> Any:
            batch = spec.shape[0] if spec.shape.rank else None
            dim = batch // num_slices if batch is not None and batch % num_slices == 0 else None
            return _structure.with_shape(spec, [dim, *spec.shape[1:]]) if spec.shape.rank is not None else spec

        self.element_spec = _structure.map_structure(split_spec, dataset.element_spec)

    def _ranges(self, rows: int) -> tuple[list[int], list[int]]:
        cached = self._range_cache.get(rows)  # batches mostly share one size: compute the cut once
        if cached is None:
            cached = self._range_cache[rows] = self._compute_ranges(rows)
        return cached

    def _compute_ranges(self, rows: int) -> tuple[list[int], list[int]]:
        per_slice = -(-rows // self.num_slices)
        begins = [min(j * per_slice, rows) for j in self.keep]
        counts = [min((j + 1) * per_slice, rows) - b for j, b in zip(self.keep, begins, strict=True)]
        return begins, counts

    def steps(self) -> Iterator[list[Any]]:
        fused = _sliced_source(self.dataset)
        if fused is not None:
            yield from self._steps_from_source(*fused)
            return
        devices = self.devices
        with device_scope.device_scope(self.host_device):
            iterator = self.dataset._iterate()
        while True:
            with device_scope.device_scope(self.host_device):
                element = next(iterator, _END)
            if element is _END:
                return
            leaves = _structure.flatten(element)
            rows = {_structure.leaf_shape(leaf)[0] if _structure.leaf_shape(leaf) else None
                    for leaf in leaves if leaf is not None}  # a None component is None on every replica
            if None in rows:
                raise ValueError(f"Cannot split a scalar component: call batch on the input dataset so that it "
                                 f"can be split across {self.num_slices} replicas.")
            if len(rows) != 1:
                raise _structure._invalid_argument(
                    "Cannot split a batch whose components have different batch sizes: "
                    f"{sorted(cast('set[int]', rows))}")
            begins, counts = self._ranges(cast(int, rows.pop()))  # None is not in rows (above)
            columns = [_split_leaf(leaf, begins, counts, devices) for leaf in leaves]
            yield _per_replica_elements(element, columns, len(devices))


    def _steps_from_source(self, source: Any, batch_size: int, drop_remainder: bool) -> Iterator[list[Any]]:
        """``from_tensor_slices(x).batch(n)``: each replica's rows are copied straight from x to its device,
        skipping the intermediate global batch (one copy instead of two, and no large host allocation)."""
        structure = source._element
        leaves = _structure.flatten(structure)
        for first_row, rows in source._batch_bounds(batch_size, drop_remainder):
            begins, counts = self._ranges(rows)
            begins = [first_row + b for b in begins] if first_row else begins
            columns = [_split_leaf(leaf, begins, counts, self.devices) for leaf in leaves]
            yield _per_replica_elements(structure, columns, len(self.devices))


def _sliced_source(dataset: Dataset) -> tuple[Any, int, bool] | None:
    """(source, batch_size, drop_remainder) when `dataset` is ``from_tensor_slices(...).batch(...)`` (seen
    through prefetch / with_options), else None."""
    node = dataset
    while isinstance(node, (_transforms.PrefetchDataset, _transforms.OptionsDataset)):
        node = node._input
    if isinstance(node, _transforms.BatchDataset) and hasattr(node._input, "_batch_bounds"):
        return node._input, node._batch_size, node._drop_remainder
    return None


def _per_replica_elements(structure: Any, columns: list[list[Any]], count: int) -> list[Any]:
    """Replica k's element: the k-th piece of every leaf, packed like `structure`."""
    if len(columns) == 1 and not _structure.is_structure(structure):
        return columns[0]  # a bare tensor element: nothing to pack
    return [_structure.pack_as(structure, [c[k] for c in columns]) for k in range(count)]


def _split_leaf(leaf: Any, begins: list[int], counts: list[int],
                devices: Sequence[_core.devices.Device]) -> list[Any]:
    if leaf is None:
        return [None] * len(begins)
    if isinstance(leaf, RaggedTensor):  # rows of a ragged batch; values placed on each replica's device
        return [_place_ragged(cast(RaggedTensor, _structure.slice_leaf_rows(leaf, b, c)), d)
                for b, c, d in zip(begins, counts, devices, strict=True)]
    if isinstance(leaf, SparseTensor):  # rows of a sparse batch, placed on each replica's device
        return [place(_structure.slice_leaf_rows(leaf, b, c), d) for b, c, d in zip(begins, counts, devices,
                                                                                       strict=True)]
    if isinstance(leaf, Tensor):
        return _core.data.slice_rows_to_devices(leaf, begins, counts, devices)
    return [leaf[b:b + c].copy() for b, c in zip(begins, counts, strict=True)]  # strings stay on the host


_END = object()
