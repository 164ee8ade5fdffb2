"""experimental_distribute_dataset splits, distribute_datasets_from_function and dataset transformations."""

from __future__ import annotations

from crosscheck.describe import Repr, error_of
from crosscheck.registry import case


def _steps(s, dist):
    return [s.experimental_local_results(x) for x in dist]


def _split(tf, s, dataset, policy=None):
    if policy is not None:
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, policy)
        dataset = dataset.with_options(options)
    dist = s.experimental_distribute_dataset(dataset)
    return {"spec": Repr(repr(dist.element_spec)), "steps": _steps(s, dist)}


@case()
def distribute_dataset_splits(tf, strategy):
    return {"range(6).batch(4) over 2": _split(tf, strategy(2), tf.data.Dataset.range(6).batch(4)),
            "range(4).batch(4) over 5": _split(tf, strategy(5), tf.data.Dataset.range(4).batch(4)),
            "range(8).batch(4) over 3": _split(tf, strategy(3), tf.data.Dataset.range(8).batch(4)),
            "drop_remainder": _split(tf, strategy(2), tf.data.Dataset.range(7).batch(4, drop_remainder=True)),
            "tuples": _split(tf, strategy(2), tf.data.Dataset.from_tensor_slices(
                ([1.0, 2.0, 3.0], [[1], [2], [3]])).batch(3))}


@case()
def distribute_dataset_policy_off(tf, strategy):
    return {"range(6).batch(4) over 2": _split(tf, strategy(2), tf.data.Dataset.range(6).batch(4), "OFF"),
            "range(8).batch(4) over 3": _split(tf, strategy(3), tf.data.Dataset.range(8).batch(4), "OFF")}


@case()
def distribute_dataset_unbatched(tf, strategy):
    return error_of(lambda: strategy(2).experimental_distribute_dataset(tf.data.Dataset.range(4)))


@case()
def datasets_from_function(tf, strategy):
    s = strategy(2)
    contexts = []

    def dataset_fn(ctx):
        contexts.append({"pipelines": ctx.num_input_pipelines, "id": ctx.input_pipeline_id,
                         "replicas": ctx.num_replicas_in_sync, "per_replica_batch": ctx.get_per_replica_batch_size(8),
                         "str": Repr(str(ctx))})
        return tf.data.Dataset.range(6).batch(ctx.get_per_replica_batch_size(4))

    dist = s.distribute_datasets_from_function(dataset_fn)
    return {"contexts": contexts, "spec": Repr(repr(dist.element_spec)), "steps": _steps(s, dist),
            "bad batch": error_of(lambda: tf.distribute.InputContext(num_replicas_in_sync=4)
                                  .get_per_replica_batch_size(10))}


def _elements(ds):
    return {"spec": Repr(repr(ds.element_spec)), "cardinality": ds.cardinality(), "elements": list(ds)}


@case()
def dataset_transformations(tf):
    ds = tf.data.Dataset.range(10)
    return {"batch": _elements(ds.batch(4)),
            "batch drop": _elements(ds.batch(4, drop_remainder=True)),
            "unbatch": _elements(ds.batch(4).unbatch()),
            "rebatch": _elements(ds.batch(4).rebatch(3)),
            "rebatch list": error_of(lambda: _elements(ds.batch(4).rebatch([1, 2]))),
            "map batch": _elements(ds.map(lambda x: (x, tf.cast(x, tf.float32) / 2.0)).batch(3)),
            "slices dict": _elements(tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": [[1.0], [2.0], [3.0]]})
                                     .batch(2)),
            "take skip repeat": _elements(ds.take(3).repeat(2).skip(1)),
            "filter": _elements(ds.filter(lambda x: x % 3 == 0))}


@case()
def dataset_shuffle_shape_only(tf):
    # Shuffle orders differ between the implementations; cardinality and element_spec must not.
    ds = tf.data.Dataset.range(10).shuffle(4, seed=1).batch(4)
    return {"spec": Repr(repr(ds.element_spec)), "cardinality": ds.cardinality(),
            "sorted": sorted(int(v) for b in ds for v in b.numpy()),
            "infinite": tf.data.Dataset.range(3).shuffle(2).repeat().cardinality()}
