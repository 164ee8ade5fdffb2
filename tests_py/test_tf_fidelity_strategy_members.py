"""Strategy members TF programs call: group, update_non_slot / non_slot_devices, the CrossDeviceOps classes,
CollectiveHints and ClusterSpec's ClusterDef, as TF's tests check them (distribute/cross_device_ops_test.py,
mirrored_strategy_test.py testUpdateNonSlot-style cases, training/server_lib_test.py ClusterSpec cases);
expected values observed on TF 2.21.
"""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf


def _mirrored(cross_device_ops=None):
    return tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"], cross_device_ops=cross_device_ops)


STRATEGIES = {"mirrored2": _mirrored, "tpu_v3_8": lambda: tf.distribute.TPUStrategy()}


@pytest.fixture(params=sorted(STRATEGIES), ids=sorted(STRATEGIES))
def strategy(request):
    return STRATEGIES[request.param]()


def test_group_is_none_eagerly(strategy):
    assert strategy.group(strategy.run(lambda: tf.constant(1.0))) is None
    assert strategy.group([tf.constant(1.0)]) is None and strategy.group(None) is None


def test_update_non_slot_calls_fn_once_per_device_in_its_update_context(strategy):
    n = strategy.num_replicas_in_sync
    with strategy.scope():
        v = tf.Variable(1.0)
    devices = strategy.extended.non_slot_devices([v])
    assert devices == tuple(strategy.extended.worker_devices)
    result = strategy.extended.update_non_slot(devices, lambda: tf.constant(3.0))
    assert type(result).__name__ == "Mirrored" and [float(x) for x in result.values] == [3.0] * n
    per_device = strategy.extended.update_non_slot(devices, lambda x: x + 1.0, args=(tf.constant(2.0),), group=False)
    assert isinstance(per_device, tuple) and [float(x) for x in per_device] == [3.0] * n
    with strategy.scope():
        strategy.extended.update_non_slot(devices, lambda: v.assign_add(1.0))
    # Each call updated only its own device's component, so every component went 1 -> 2 once.
    assert [float(c.numpy()) for c in v.values] == [2.0] * n
    with pytest.raises(TypeError, match="must be what non_slot_devices returned"):  # TF: AssertionError
        strategy.extended.update_non_slot(v, lambda: None)
    with pytest.raises(RuntimeError, match="cross-replica"):
        strategy.run(lambda: strategy.extended.update_non_slot(devices, lambda: None))


@pytest.mark.parametrize("make", [tf.distribute.ReductionToOneDevice, tf.distribute.NcclAllReduce,
                                  tf.distribute.HierarchicalCopyAllReduce],
                         ids=["reduction_to_one_device", "nccl", "hierarchical_copy"])
def test_cross_device_ops_give_the_engines_results(make):
    ops = make()
    assert isinstance(ops, tf.distribute.CrossDeviceOps)
    strategy = _mirrored(cross_device_ops=ops)
    summed = strategy.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", tf.constant([1.0, 2.0])))
    assert [v.numpy().tolist() for v in summed.values] == [[2.0, 4.0]] * 2
    per_replica = strategy.run(lambda: tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group,
                                               tf.float32) + 3.0)
    assert float(ops.reduce(tf.distribute.ReduceOp.SUM, per_replica, destinations="TPU:0")) == 7.0
    means = ops.batch_reduce(tf.distribute.ReduceOp.MEAN, [(per_replica, "TPU:0"), (per_replica, "TPU:1")])
    assert [float(m) for m in means] == [3.5, 3.5] and means[1].device.endswith("TPU:1")
    mirrored = ops.reduce(tf.distribute.ReduceOp.SUM, per_replica, destinations=per_replica)
    assert [float(v) for v in mirrored.values] == [7.0, 7.0]
    assert float(ops.broadcast(tf.constant(1.0), "TPU:0")) == 1.0
    with pytest.raises(ValueError, match="must be Reduce.SUM or Reduce.MEAN"):
        ops.reduce("SUM", per_replica, destinations="TPU:0")


def test_cross_device_ops_arguments_are_checked():
    with pytest.raises(ValueError, match="NCCL all-reduce requires num_packs >= 0, but -1 is specified"):
        tf.distribute.NcclAllReduce(num_packs=-1)
    with pytest.raises(ValueError, match="HierarchicalCopy requires num_packs >= 0"):
        tf.distribute.HierarchicalCopyAllReduce(num_packs=-2)
    with pytest.raises(TypeError, match="accumulation_fn must be callable"):
        tf.distribute.ReductionToOneDevice(accumulation_fn=3)
    assert tf.distribute.ReductionToOneDevice(reduce_to_device="CPU:0").reduce_to_device == "CPU:0"


def test_collective_hints_and_communication_options():
    hints = tf.distribute.experimental.CollectiveHints(bytes_per_pack=32, timeout_seconds=10)
    assert (hints.bytes_per_pack, hints.timeout_seconds) == (32, 10)
    with pytest.raises(ValueError, match="bytes_per_pack must be non-negative"):
        tf.distribute.experimental.CollectiveHints(bytes_per_pack=-1)
    with pytest.raises(ValueError, match="timeout_seconds must be positive"):
        tf.distribute.experimental.CollectiveHints(timeout_seconds=0)
    options = tf.distribute.experimental.CommunicationOptions(
        bytes_per_pack=50 * 1024 * 1024, timeout_seconds=120.0,
        implementation=tf.distribute.experimental.CommunicationImplementation.NCCL)
    out = _mirrored().run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0),
                                                                                  options=options))
    assert [float(v) for v in out.values] == [2.0, 2.0]


def test_cluster_spec_cluster_def_round_trip():
    spec = tf.train.ClusterSpec({"worker": ["h1:1", "h2:2"], "ps": ["h3:3"], "chief": {300: "c:1"}})
    cluster_def = spec.as_cluster_def()
    assert [job.name for job in cluster_def.job] == ["chief", "ps", "worker"]
    assert cluster_def.job[2].tasks == {0: "h1:1", 1: "h2:2"}
    assert str(cluster_def).startswith('job {\n  name: "chief"\n  tasks {\n    key: 300\n    value: "c:1"\n  }\n}\n')
    # TF 2.21's bytes for the one-task jobs (map entry order of several tasks follows protobuf's hash map).
    single = tf.train.ClusterSpec({"chief": {300: "c:1"}, "ps": ["h3:3"]}).as_cluster_def().SerializeToString()
    assert single.hex() == "0a110a056368696566120808ac021203633a310a0e0a02707312080800120468333a33"
    rebuilt = tf.train.ClusterSpec(cluster_def)
    assert rebuilt == spec
    assert rebuilt.as_dict() == {"chief": {300: "c:1"}, "ps": ["h3:3"], "worker": ["h1:1", "h2:2"]}
    assert spec.jobs == ["worker", "ps", "chief"] and rebuilt.jobs == ["chief", "ps", "worker"]
    assert np.array_equal(spec.task_indices("chief"), [300])


def test_tpu_strategies_on_subsets_of_the_cores():
    # TF's tpu_strategy_test (computation on a subset of cores): strategies over core 0 and core 1 run a step
    # reading a variable of the all-core strategy, from a function and from inside the all-core strategy's scope.
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    topology = tf.tpu.experimental.initialize_tpu_system(resolver)
    all_cores = tf.distribute.TPUStrategy(resolver)
    with all_cores.scope():
        v = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)
    first = tf.distribute.TPUStrategy(
        resolver, experimental_device_assignment=tf.tpu.experimental.DeviceAssignment.build(topology, num_replicas=1))
    second = tf.distribute.TPUStrategy(
        resolver, experimental_device_assignment=tf.tpu.experimental.DeviceAssignment(topology, [[[0, 0, 0, 1]]]))

    @tf.function
    def train_step():
        def step_fn():
            return v + 1.0

        all_cores.run(step_fn)
        return first.run(step_fn) + second.run(step_fn)

    assert float(train_step()) == 2.0
    with all_cores.scope():
        seen = []

        def step_fn():
            seen.append(tf.distribute.get_strategy() is second)
            return v + 2.0

        result = second.run(step_fn)
        assert tf.distribute.get_strategy() is all_cores  # the scope is back
        assert float(result) == 2.0 and result.device.endswith("TPU:1") and seen == [True]
        with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy objects"):
            with second.scope():
                pass
