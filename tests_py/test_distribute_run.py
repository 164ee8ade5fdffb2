"""Strategy.run, regrouping, local results and values from a function (§2.2, §2.4; cases B and E)."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from distribute_helpers import ms2, times, values_of

import tpustrategy as tps

ds = tps.distribute


def test_case_b_run_multiplies_on_each_replica():
    result = ms2().run(lambda x: times(x, 2.0), args=(tps.constant(3.0),))
    assert isinstance(result, ds.PerReplica)
    assert values_of(result) == [6.0, 6.0]


def test_case_b_all_reduce_of_replica_id_and_ids():
    strategy = ms2()
    total = strategy.run(lambda: ds.get_replica_context().all_reduce("sum", ds.get_replica_context()
                                                                     .replica_id_in_sync_group))
    assert values_of(total) == [1, 1]
    ids = strategy.run(lambda: ds.get_replica_context().replica_id_in_sync_group)
    assert ids.values == (0, 1)


def test_replicas_run_on_their_devices_in_order():
    strategy = ms2()
    order = []

    def fn():
        order.append(ds.get_replica_context().replica_id_in_sync_group)
        return tps.constant(1.0)

    result = strategy.run(fn)
    assert order == [0, 1]
    assert [v.device for v in result.values] == list(strategy.extended.worker_devices)
    assert result.values[1].device.endswith("GPU:1")


def test_args_must_be_list_or_tuple():
    with pytest.raises(ValueError, match="positional args must be a list or tuple"):
        ms2().run(lambda x: x, args=tps.constant(1.0))


def test_per_replica_args_are_selected_and_kwargs_work():
    strategy = ms2()
    per_replica = ds.PerReplica([tps.constant(1.0), tps.constant(2.0)])
    result = strategy.run(lambda x, scale=1.0: times(x, scale), args=[per_replica], kwargs={"scale": 10.0})
    assert values_of(result) == [10.0, 20.0]


def test_regroup_structures_and_identity():
    strategy = ms2()
    shared = tps.constant(5.0)
    Pair = collections.namedtuple("Pair", ["a", "b"])

    def fn():
        rid = ds.get_replica_context().replica_id_in_sync_group
        return {"same": shared, "pair": Pair(rid, [rid * 10, "x"]), "none": None}

    result = strategy.run(fn)
    assert result["same"] is shared
    assert result["none"] is None
    assert isinstance(result["pair"], Pair)
    assert result["pair"].a.values == (0, 1)
    assert result["pair"].b[0].values == (0, 10)
    assert result["pair"].b[1] == "x"


def test_fn_returning_none_and_one_replica_unwrapped():
    assert ms2().run(lambda: None) is None
    one = tps.distribute.MirroredStrategy(["GPU:0"])
    result = one.run(lambda: tps.constant(2.0))
    assert isinstance(result, tps.Tensor)


def test_mismatched_result_structures_raise_tf_assertion_errors():
    # TF's regroup asserts: replicas returning nests that differ raise AssertionError (lists, tuples, mappings).
    def rid():
        return int(ds.get_replica_context().replica_id_in_sync_group)

    with pytest.raises(AssertionError, match=r"len\(v\) == 2, len\(v0\) == 1"):
        ms2().run(lambda: [1] if rid() == 0 else [1, 2])
    with pytest.raises(AssertionError, match="Values to regroup had different lengths"):
        ms2().run(lambda: (1,) if rid() == 0 else (1, 2))
    with pytest.raises(AssertionError, match=r"v\[0\].keys: \{'a'\}  v\[i\].keys: \{'b'\}"):
        ms2().run(lambda: {"a": 1} if rid() == 0 else {"b": 1})
    with pytest.raises(AssertionError):
        ms2().run(lambda: [1] if rid() == 0 else (1,))
    with pytest.raises(AssertionError):
        ds.TPUStrategy().run(lambda: [tps.constant(1)] if rid() == 0 else [tps.constant(1)] * 2)
    # A leaf that is a nest on one replica only is not walked (TF regroups from replica 0's structure).
    mixed = ms2().run(lambda: None if rid() == 0 else [1])
    assert mixed.values == (None, [1])


def test_per_replica_repr_matches_tensorflow():
    result = ms2().run(lambda: tps.constant([ds.get_replica_context().replica_id_in_sync_group * 2]))
    assert repr(result) == ("PerReplica:{\n"
                            "  0: <tf.Tensor: shape=(1,), dtype=int32, numpy=array([0], dtype=int32)>,\n"
                            "  1: <tf.Tensor: shape=(1,), dtype=int32, numpy=array([2], dtype=int32)>\n}")
    assert str(ds.PerReplica([1, 2])) == "PerReplica:{\n  0: 1,\n  1: 2\n}"


def test_local_results():
    strategy = ms2()
    result = strategy.run(lambda: ds.get_replica_context().replica_id_in_sync_group)
    assert strategy.experimental_local_results(result) == (0, 1)
    plain = tps.constant(1.0)
    assert strategy.experimental_local_results(plain) == (plain,)
    nested = strategy.experimental_local_results({"a": result, "b": 3})
    assert nested == ({"a": 0, "b": 3}, {"a": 1, "b": 3})


def test_local_results_follow_replica_order_not_device_names():
    devices = [f"TPU:{i}" for i in (0, 1, 2, 3, 4, 5, 6, 7)]
    strategy = ds.MirroredStrategy(devices)
    result = strategy.run(lambda: ds.get_replica_context().replica_id_in_sync_group)
    assert strategy.experimental_local_results(result) == tuple(range(8))


def test_case_e_value_context_and_values_from_function():
    context = ds.ValueContext(2, 4)
    assert context.replica_id_in_sync_group / context.num_replicas_in_sync == 0.5
    strategy = ms2()
    values = strategy.experimental_distribute_values_from_function(lambda ctx: ctx.num_replicas_in_sync)
    assert isinstance(values, ds.PerReplica)  # always wrapped, even when equal
    assert strategy.experimental_local_results(values) == (2, 2)
    array_value = np.array([3.0, 2.0, 1.0])
    values = strategy.experimental_distribute_values_from_function(
        lambda ctx: array_value[ctx.replica_id_in_sync_group])
    assert strategy.experimental_local_results(values) == (3.0, 2.0)


def test_seed_values_from_function_constant_and_placement():
    strategy = ms2()
    values = strategy.experimental_distribute_values_from_function(lambda ctx: tps.constant(1.0))
    local = strategy.experimental_local_results(values)
    assert repr(local) == ("(<tf.Tensor: shape=(), dtype=float32, numpy=1.0>, "
                           "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>)")
    assert [t.device for t in local] == list(strategy.extended.worker_devices)


def test_seed_run_with_distributed_values_from_function():
    strategy = ds.MirroredStrategy(["TPU:0", "TPU:1"])

    @tps.function
    def run():
        distributed_values = strategy.experimental_distribute_values_from_function(
            lambda value_context: value_context.num_replicas_in_sync)
        return strategy.run(lambda value: times(value, 2), args=(distributed_values,))

    assert values_of(run()) == [4, 4]


def test_default_strategy_runs_inline():
    default = ds.get_strategy()
    assert default.run(lambda x: x, args=(3,)) == 3
    assert default.experimental_distribute_values_from_function(lambda ctx: ctx.num_replicas_in_sync) == 1
    assert default.reduce("SUM", 5.0, axis=None) == 5.0


def test_one_device_strategy():
    strategy = ds.OneDeviceStrategy("GPU:0")
    result = strategy.run(lambda: tps.constant(1.0))
    assert result.device.endswith("GPU:0")
    assert strategy.num_replicas_in_sync == 1
    assert strategy.reduce("SUM", result, axis=None) is result
    with strategy.scope():
        variable = tps.Variable(2.0)
    assert type(variable) is tps.Variable and variable.device.endswith("GPU:0")
    assert strategy.extended.variable_created_in_scope(variable)


def test_mirrored_default_devices(monkeypatch):
    assert ds.MirroredStrategy().num_replicas_in_sync == 1
    cpu = tps.config.list_physical_devices("CPU")[0]
    tps.config.set_logical_device_configuration(cpu, [tps.config.LogicalDeviceConfiguration()] * 4)
    try:
        strategy = ds.MirroredStrategy()
        assert strategy.num_replicas_in_sync == 4
        assert strategy.extended.worker_devices[3].endswith("CPU:3")
    finally:
        tps.config.set_logical_device_configuration(cpu, [tps.config.LogicalDeviceConfiguration()])


def test_mirrored_rejects_bad_device_lists():
    with pytest.raises(ValueError):
        ds.MirroredStrategy([])
    with pytest.raises(ValueError, match="duplicates"):
        ds.MirroredStrategy(["GPU:0", "GPU:0"])


def test_function_decorator_accepts_tf_function_kwargs():
    @tps.function(jit_compile=True, reduce_retracing=True)
    def double(x):
        return x * 2

    assert double(3) == 6
    assert tps.function(lambda: 1)() == 1


def test_flat_per_replica_arguments_positional_and_keyword_reach_their_replicas():
    # The flat-argument fast path selects each replica's components once per step: same as select_replica.
    strategy = ms2()
    seen = []

    def fn(a, b, *, k, z):
        seen.append((a, b, k, z))
        return a + b + k + z

    result = strategy.run(fn, args=(ds.PerReplica([1, 2]), 5), kwargs={"k": ds.PerReplica([7, 8]), "z": 0})
    assert seen == [(1, 5, 7, 0), (2, 5, 8, 0)] and result.values == (13, 15)
    # Components beyond the replicas are ignored, as select_replica does; a nest takes the general path.
    assert strategy.run(lambda x: x, args=(ds.PerReplica([1, 2, 3]),)).values == (1, 2)
    assert strategy.run(lambda xs: xs[0], args=([ds.PerReplica([4, 6])],)).values == (4, 6)


def test_flat_per_replica_argument_missing_a_component_raises_in_that_replica():
    with pytest.raises(IndexError) as raised:
        ms2().run(lambda x: x, args=(ds.PerReplica([1]),))
    assert any("replica 1 of 2" in note for note in getattr(raised.value, "__notes__", []))


def test_drive_rejects_lists_of_different_lengths():
    rendezvous = tps._core.runtime.ReplicaRendezvous(2)
    context = tps._core.runtime.current_context()
    with pytest.raises(tps.errors.InvalidArgumentError,
                       match="2 workers, but 1 contexts, 2 values, 2 modes and 2 suspended flags"):
        tps._core.runtime.drive([object(), object()], [None], [None, None], False, [None, None], [False, False],
                                rendezvous, context, None, None, None, None)
