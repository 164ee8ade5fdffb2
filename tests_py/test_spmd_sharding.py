"""Logical-device annotations as real layouts (SEMANTICS.md §4): sharded tensors on the replica's cores, per-core
HBM, SPMD vs non-SPMD results, variables' placement in both modes, and the layout reprs."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy.tpu import tpu_system
from tpustrategy.tpu.experimental import DeviceAssignment
from tpustrategy.tpu.sharded_tensor import ShardedTensor

FLOAT32 = 4


@pytest.fixture(autouse=True)
def fresh_tpu_system():
    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()


def strategy_on(slice_name: str, computation_shape, num_replicas: int, spmd: bool = False):
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=slice_name)
    topology = tf.tpu.experimental.initialize_tpu_system(resolver)
    da = DeviceAssignment.build(topology, computation_shape=computation_shape, num_replicas=num_replicas)
    return tf.distribute.TPUStrategy(
        resolver, experimental_device_assignment=da, experimental_spmd_xla_partitioning=spmd
    )


def eight_cores(spmd: bool = False):
    """v3-8 as one replica of 8 logical cores."""
    return strategy_on("v3-8", [2, 2, 1, 2], 1, spmd)


def current_bytes(device) -> int:
    name = device if isinstance(device, str) else device.name
    return tf.config.experimental.get_memory_info(name)["current"]


def replica_cores(strategy, replica: int = 0):
    return strategy.extended._logical_grid[replica]


def test_split_divides_per_core_memory():
    strategy = eight_cores()
    cores = replica_cores(strategy)
    value = np.arange(2 * 4 * 8 * 3, dtype=np.float32).reshape(2, 4, 8, 3)
    before = [current_bytes(c) for c in cores]
    split = strategy.experimental_split_to_logical_devices(tf.constant(value), [1, 2, 4, 1])
    assert isinstance(split, ShardedTensor)
    per_core = value.nbytes // 8
    assert [current_bytes(c) - b for c, b in zip(cores, before, strict=True)] == [per_core] * 8
    assert split.bytes_per_device == [per_core] * 8
    # Device 6 holds width half 1, height quarter 2.
    assert np.array_equal(split.shards[6].numpy(), value[:, 2:4, 4:6, :])
    assert split.shards[6].device == cores[6].name
    del split
    assert [current_bytes(c) for c in cores] == before


def test_replicate_multiplies_and_assign_places_on_one_core():
    strategy = eight_cores()
    cores = replica_cores(strategy)
    value = tf.constant(np.ones((16, 16), np.float32))
    before = [current_bytes(c) for c in cores]
    replicated = strategy.experimental_replicate_to_logical_devices(value)
    assert [current_bytes(c) - b for c, b in zip(cores, before, strict=True)] == [16 * 16 * FLOAT32] * 8
    del replicated
    assigned = strategy.experimental_assign_to_logical_device(value, 3)
    deltas = [current_bytes(c) - b for c, b in zip(cores, before, strict=True)]
    assert deltas == [16 * 16 * FLOAT32 if k == 3 else 0 for k in range(8)]
    assert assigned.shards[3] is not None and assigned.shards[0] is None
    assert assigned.device == cores[3].name


def test_annotation_lives_on_the_running_replicas_cores():
    strategy = strategy_on("v3-8", [1, 1, 1, 2], 4)
    grid = strategy.extended._logical_grid

    def step():
        context = tf.distribute.get_replica_context()
        split = strategy.experimental_split_to_logical_devices(tf.constant([1.0, 2.0, 3.0, 4.0]), [2])
        cores = grid[context.replica_id_in_sync_group]
        assert [s.device for s in split.shards] == [c.name for c in cores]
        return split * 2.0

    result = strategy.run(step)
    assert [np.asarray(v).tolist() for v in result.values] == [[2.0, 4.0, 6.0, 8.0]] * 4


@pytest.mark.parametrize("spmd", [False, True])
def test_results_do_not_depend_on_spmd(spmd):
    strategy = strategy_on("v3-8", [1, 1, 1, 2], 4, spmd=spmd)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)

    def step():
        split = strategy.experimental_split_to_logical_devices(tf.constant(x), [2, 1])
        replicated = strategy.experimental_replicate_to_logical_devices(tf.constant(x))
        return tf.reduce_sum(tf.matmul(split, tf.transpose(replicated))) + split[0, 1]

    expected = float(np.sum(x @ x.T) + x[0, 1])
    values = strategy.run(step).values
    assert [float(v) for v in values] == [expected] * 4


def test_sharded_tensor_behaves_like_its_value():
    strategy = eight_cores()
    value = np.arange(16, dtype=np.float32).reshape(2, 8)
    split = strategy.experimental_split_to_logical_devices(value, [1, 8])
    assert split.shape == tf.TensorShape([2, 8]) and split.dtype == tf.float32 and split.ndim == 2
    assert np.array_equal(np.asarray(split), value) and np.array_equal(split.numpy(), value)
    assert np.array_equal((split + 1).numpy(), value + 1)
    assert np.array_equal((1 - split).numpy(), 1 - value)
    assert np.array_equal(tf.reduce_sum(split, axis=1).numpy(), value.sum(axis=1))
    assert float(split[1, 2]) == 10.0 and len(split) == 2
    # Annotating an annotated tensor re-lays the value.
    again = strategy.experimental_replicate_to_logical_devices(split)
    assert again.sharding.kind == "replicated" and np.array_equal(again.numpy(), value)


def test_sharding_math_from_python():
    sharding = tf._core.spmd.Sharding.tiled([2, 2], [3, 1, 2, 0])
    assert sharding.tile_index_for_device(1) == (0, 1)
    assert sharding.device_for_tile_index([1, 0]) == 2
    assert sharding.tile_shape([5, 7]) == (3, 4)
    assert sharding.tile_offset_for_device([5, 7], 0) == (3, 4)
    assert sharding.tile_limit_for_device([5, 7], 0) == (5, 7)
    assert not sharding.divides_evenly([5, 7])
    partial = tf._core.spmd.Sharding.iota_tiled([2, 2], last_tile_dim_replicate=True)
    assert partial.kind == "partially_tiled" and partial.devices_for_tile_index([1]) == [2, 3]
    assert str(tf._core.spmd.Sharding.maximal(3)) == "{maximal device=3}"
    assert tf._core.spmd.Sharding.replicated() == tf._core.spmd.Sharding.replicated()
    assert tf._core.spmd.Sharding.maximal(1) != tf._core.spmd.Sharding.maximal(2)
    import pickle

    assert pickle.loads(pickle.dumps(partial)) == partial
    assert pickle.loads(pickle.dumps(tf._core.spmd.Sharding.maximal(4))) == tf._core.spmd.Sharding.maximal(4)


def test_variables_on_logical_core_zero_without_spmd():
    strategy = strategy_on("v3-8", [1, 1, 1, 2], 4)
    grid = replica_cores(strategy, 0), strategy.extended._logical_grid
    before = {c.name: current_bytes(c) for cores in grid[1] for c in cores}
    with strategy.scope():
        variable = tf.Variable(np.zeros(256, np.float32))
    assert [v.device for v in variable.values] == [cores[0].name for cores in grid[1]]
    for cores in grid[1]:
        assert current_bytes(cores[0]) - before[cores[0].name] == 1024
        assert current_bytes(cores[1]) - before[cores[1].name] == 0


def test_variables_replicated_on_every_logical_core_in_spmd():
    strategy = strategy_on("v3-8", [1, 1, 1, 2], 4, spmd=True)
    grid = strategy.extended._logical_grid
    before = {c.name: current_bytes(c) for cores in grid for c in cores}
    with strategy.scope():
        variable = tf.Variable(np.zeros(256, np.float32))
    for cores in grid:
        for core in cores:
            assert current_bytes(core) - before[core.name] == 1024
    assert [v.device for v in variable.values] == [cores[0].name for cores in grid]
    assert variable.values[1].logical_devices == [c.name for c in grid[1]]
    # Writes keep every copy; reads inside a logical-device scope see that core's copy.
    variable.assign(np.full(256, 2.0, np.float32))
    with strategy.extended.experimental_logical_device(1):
        assert variable.values[2].value().device == grid[2][1].name
        assert float(variable.values[2].value()[0]) == 2.0

    def step():
        variable.assign_add(np.ones(256, np.float32))
        return tf.reduce_sum(variable)

    values = strategy.run(step).values
    assert [float(v) for v in values] == [3.0 * 256] * 4
    # Updates replace the copies rather than adding to them (logical core 0 also keeps the step's last output).
    for replica, cores in enumerate(grid):
        assert current_bytes(cores[1]) - before[cores[1].name] == 1024
        assert variable.values[replica]._copies.bytes_per_device == [1024, 1024]


def test_text_repr_lists_each_logical_core():
    strategy = strategy_on("v3-32", [2, 2, 1, 2], 4)
    split = strategy.experimental_split_to_logical_devices(np.zeros((2, 4, 8, 3), np.float32), [1, 2, 4, 1])
    text = repr(split)
    lines = text.splitlines()
    assert lines[0] == (
        "<ShardedTensor: shape=(2, 4, 8, 3), dtype=float32, sharding={devices=[1,2,4,1]0,1,2,3,4,5,6,7}>"
    )
    assert len(lines) == 9
    core6 = replica_cores(strategy)[6]
    x, y, z, c = core6.coordinates
    assert (
        f"  logical 6 -> TPU:{core6.index} chip ({x},{y},{z}) core {c} host {core6.task}: [0:2, 2:4, 4:6, 0:3] (96 B)"
    ) in lines
    assigned = strategy.experimental_assign_to_logical_device(tf.constant([1.0]), 2)
    assert repr(assigned).splitlines()[1].endswith(": -")


def test_html_draws_the_tile_grid():
    strategy = eight_cores()
    split = strategy.experimental_split_to_logical_devices(np.zeros((2, 4, 8, 3), np.float32), [1, 2, 4, 1])
    page = split._repr_html_()
    assert "<table" in page and "{devices=[1,2,4,1]0,1,2,3,4,5,6,7}" in page
    # Two rows (dim 1 halves) by four columns (dim 2 quarters), one cell per logical core.
    assert page.count("dim 1: tile") == 2 and page.count("dim 2: tile") == 4
    assert page.count("<b>logical ") == 8
    assert "chip (1,0,0) core 0" in page and "host 0" in page
    replicated = strategy.experimental_replicate_to_logical_devices(tf.constant(1.0))
    assert replicated._repr_html_().count("<b>logical ") == 8
    layout = split.layout()
    assert layout[5]["tile_index"] == (0, 1, 1, 0) and layout[5]["bytes"] == 96


def test_collective_groups_and_single_core_replicas():
    grid = tf._core.spmd.Sharding.iota_tiled([2, 4])
    assert grid.device_groups_along(0) == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert grid.device_groups_along(1) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    # Without a device assignment every replica has one logical core: annotations are trivial layouts.
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="v3-8")
    tf.tpu.experimental.initialize_tpu_system(resolver)
    strategy = tf.distribute.TPUStrategy(resolver)
    scalar = strategy.experimental_split_to_logical_devices(tf.constant(3.0), [])
    assert float(scalar) == 3.0 and scalar.sharding.num_tiles == 1
    matrix = strategy.experimental_split_to_logical_devices(tf.ones([2, 3]), [1, 1])
    assert matrix.bytes_per_device == [24] and matrix.shards[0].device == strategy.extended.worker_devices[0]
    with pytest.raises(ValueError, match=r"number of logical devices \(=1\)"):
        strategy.experimental_split_to_logical_devices(tf.ones([2, 4]), [1, 2])
