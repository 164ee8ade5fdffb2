"""One TPUStrategy program, run either by ``mpirun -n P`` (the slice split over the processes) or alone
(``--single``: the single-process reference). Writes ``<out>/result_<process>.json`` with every local replica's results
(files, since mpirun may interleave long lines of different processes)."""

import json
import pathlib
import sys

import numpy as np

import tpustrategy as tf
from tpustrategy import _core
from tpustrategy.tpu import tpu_ops


def step(context, scale):
    rid = context.replica_id_in_sync_group
    x = tf.constant([float(rid), 1.0, 2.0 * rid]) * scale
    return {
        "sum": context.all_reduce("SUM", x),
        "mean": context.all_reduce("MEAN", x),
        "int_sum": context.all_reduce("SUM", tf.constant([rid, -rid])),
        "int_mean": context.all_reduce("MEAN", tf.constant([rid, 1])),
        "gather": context.all_gather(tf.reshape(x, [1, 3]), axis=0),
        "id": tf.constant(rid),
    }


def value_for_reduce(replica_id, axis):
    """Replica r's value for Strategy.reduce (int64): [r, 1]; with an axis, (r % 3 + 1) rows of it, so that
    MEAN along axis 0 weighs replicas by their rows."""
    r = int(replica_id)
    return tf.constant(np.array([[r, 1]] * (r % 3 + 1) if axis is not None else [r, 1], dtype=np.int64))


def dataset():
    return tf.data.Dataset.range(40).batch(16)  # 3 global batches: 16, 16, 8 rows over 16 replicas


def as_lists(results):
    return [{k: np.asarray(v).tolist() for k, v in r.items()} for r in results]


def program(strategy):
    """The program every process runs (and the single process): per replica, this process's results."""
    results = strategy.run(lambda: step(tf.distribute.get_replica_context(), 2.0))
    local = as_lists(strategy.experimental_local_results(results))
    tpu = strategy.run(tpu_step)
    for mine, extra in zip(local, strategy.experimental_local_results(tpu), strict=True):
        mine.update({k: np.asarray(v).tolist() for k, v in extra.items()})
    per_replica = {axis: strategy.run(lambda axis=axis: value_for_reduce(
        tf.distribute.get_replica_context().replica_id_in_sync_group, axis)) for axis in (None, 0)}
    reduced = {f"{op}_{axis}": np.asarray(strategy.reduce(op, per_replica[axis], axis=axis)).tolist()
               for op in ("SUM", "MEAN") for axis in (None, 0)}
    reduced["gather"] = np.asarray(strategy.gather(per_replica[None], axis=0)).tolist()
    with strategy.scope():
        total = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
        mean = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)

    def update():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        total.assign_add(tf.cast(rid, tf.float32))
        mean.assign(tf.cast(rid, tf.float32))

    strategy.run(update)
    variables = [[float(np.asarray(v)) for v in strategy.experimental_local_results(var)] for var in (total, mean)]
    steps = [[np.asarray(v).tolist() for v in strategy.experimental_local_results(batch)]
             for batch in strategy.experimental_distribute_dataset(dataset())]
    with _core.runtime.CollectiveCounter() as counter:  # the hook point sees the run's one all-reduce (MPI or not)
        strategy.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0)))
    return {"results": local, "input": steps, "reduced": reduced, "variables": variables,
            "num_replicas": strategy.num_replicas_in_sync, "observed": counter.counts}


GROUPS = [list(range(8)), list(range(15, 7, -1))]  # two groups of 8 (with 4 processes each spans two), one backwards


def tpu_step():
    rid = tf.distribute.get_replica_context().replica_id_in_sync_group
    x = tf.constant([float(rid), 1.0])
    rows = tf.constant([[100.0 * rid + k, k] for k in range(16)])  # [16, 2]: row k goes to replica k
    return {
        "cross_replica_sum": tf.tpu.cross_replica_sum(x),
        "grouped_sum": tf.tpu.cross_replica_sum(x, group_assignment=GROUPS),
        "all_to_all": tf.tpu.all_to_all(rows, concat_dimension=1, split_dimension=0, split_count=16),
        "grouped_all_to_all": tf.tpu.all_to_all(rows, concat_dimension=0, split_dimension=0, split_count=8,
                                                group_assignment=GROUPS),
        "ring_permute": tf.tpu.collective_permute(x, [[r, (r + 1) % 16] for r in range(16)]),
        "partial_permute": tf.tpu.collective_permute(x, [[0, 15], [15, 1], [5, 9]]),
        # TF has no public replica-context reduce_scatter: the engine's own synchronisation point, as the
        # strategy runs it (the Rendezvous, then the Communicator).
        "reduce_scatter": tpu_ops._run_collective(
            "reduce_scatter", tf.constant([[float(rid + k)] for k in range(32)]), "reduce_scatter", op="SUM"),
    }


def main():
    out = pathlib.Path(sys.argv[1])
    strategy = tf.distribute.TPUStrategy()
    result = program(strategy)
    if sys.argv[2:] == ["--single"]:
        (out / "result_single.json").write_text(json.dumps(result))
        return
    process_slice = strategy.extended._process_slice
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    result.update({
        "process": process_slice.process_index,
        "mpi_rank": _core.mpi.world_rank(),
        "task_id": resolver.task_id,
        "strategy_task_id": strategy.cluster_resolver.task_id,
        "hosts": process_slice.hosts,
        "replicas": process_slice.replica_ids,
    })
    (out / f"result_{process_slice.process_index}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main()
