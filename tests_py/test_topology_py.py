"""tpu.experimental.Topology and DeviceAssignment through Python (SEMANTICS.md §3)."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy.tpu.experimental import DeviceAssignment, DeviceOrderMode, Topology


def slice_topology(name: str) -> Topology:
    return tf.distribute.cluster_resolver.TPUClusterResolver(name).get_tpu_system_metadata().topology


@pytest.fixture
def v38() -> Topology:
    return slice_topology("v3-8")


# ---- Topology ----


def test_v38_mesh_and_ordinal_order(v38):
    assert v38.mesh_shape.tolist() == [2, 2, 1, 2]
    assert v38.mesh_shape.dtype == np.int32
    assert v38.mesh_rank == 4
    assert v38.num_tasks == 1 and v38.num_tpus_per_task == 8
    coords = v38.device_coordinates
    assert coords.shape == (1, 8, 4) and coords.dtype == np.int32
    # Core fastest, then x, then y.
    assert coords[0, :5].tolist() == [[0, 0, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0], [1, 0, 0, 1], [0, 1, 0, 0]]
    assert v38.missing_devices.shape == (0, 4)


@pytest.mark.parametrize(
    ("name", "mesh", "tasks", "per_task"),
    [
        ("v2-8", [2, 2, 1, 2], 1, 8),
        ("v3-32", [4, 4, 1, 2], 4, 8),
        ("v4-8", [2, 2, 1, 1], 1, 4),
        ("v4-16", [2, 2, 2, 1], 2, 4),
        ("v4-32", [2, 2, 4, 1], 4, 4),
        ("v4-64", [2, 4, 4, 1], 8, 4),
        ("v4-128", [4, 4, 4, 1], 16, 4),
        ("v5e-8", [2, 4, 1, 1], 1, 8),
        ("v3-2048", [32, 32, 1, 2], 256, 8),
    ],
)
def test_slice_presets(name, mesh, tasks, per_task):
    topology = slice_topology(name)
    assert topology.mesh_shape.tolist() == mesh
    assert (topology.num_tasks, topology.num_tpus_per_task) == (tasks, per_task)


def test_v4_32_host_holds_its_z_tray():
    topology = slice_topology("v4-32")
    for task in range(4):
        assert set(topology.device_coordinates[task, :, 2].tolist()) == {task}


def test_lookups_at_coordinates(v38):
    assert v38.task_ordinal_at_coordinates([1, 0, 0, 1]) == 0
    assert v38.tpu_device_ordinal_at_coordinates((1, 0, 0, 1)) == 3
    assert v38.tpu_device_ordinal_at_coordinates(np.array([0, 1, 0, 0])) == 4
    assert v38.tpu_device_name_at_coordinates([1, 1, 0, 1]) == "/task:0/device:TPU:7"
    assert v38.tpu_device_name_at_coordinates([1, 1, 0, 1], job="worker") == "/job:worker/task:0/device:TPU:7"
    assert v38.cpu_device_name_at_coordinates([1, 1, 0, 1]) == "/task:0/device:CPU:0"
    assert v38.cpu_device_name_at_coordinates([0, 0, 0, 0], job="tpu_worker") == "/job:tpu_worker/task:0/device:CPU:0"
    with pytest.raises(ValueError):
        v38.task_ordinal_at_coordinates([2, 0, 0, 0])


def test_v3_32_second_host():
    topology = slice_topology("v3-32")
    assert topology.task_ordinal_at_coordinates([2, 0, 0, 0]) == 1
    assert topology.tpu_device_name_at_coordinates([2, 0, 0, 1], job="worker") == "/job:worker/task:1/device:TPU:1"


def test_construct_from_arrays_with_missing_devices():
    coords = [[[0, 0, 0, 0], [1, 0, 0, 0]], [[0, 1, 0, 0], [1, 1, 0, 0]]]
    topology = Topology(mesh_shape=[2, 3, 1, 1], device_coordinates=coords)
    assert topology.num_tasks == 2 and topology.num_tpus_per_task == 2
    assert topology.missing_devices.tolist() == [[0, 2, 0, 0], [1, 2, 0, 0]]
    assert topology.task_ordinal_at_coordinates([0, 2, 0, 0]) == -1
    assert topology.tpu_device_ordinal_at_coordinates([0, 2, 0, 0]) == -1
    assert topology.task_ordinal_at_coordinates([1, 1, 0, 0]) == 1
    assert "missing_devices=2" in repr(topology)


@pytest.mark.parametrize(
    ("mesh", "coords", "match"),
    [
        ([2, 2, 1], [[[0, 0, 0, 0]]], "mesh_shape"),
        ([2, 2, 1, 0], [[[0, 0, 0, 0]]], "mesh_shape"),
        ([[2, 2], [1, 1]], [[[0, 0, 0, 0]]], "mesh_shape"),
        ([2, 2, 1, 1], [[0, 0, 0, 0]], "rank 3"),
        ([2, 2, 1, 1], [[[0, 0, 0]]], "rank 3"),
        ([2, 2, 1, 1], [[[0, 0, 0, -1]]], ">= 0"),
        ([2, 2, 1, 1], [[[2, 0, 0, 0]]], "outside mesh_shape"),
    ],
)
def test_topology_validation(mesh, coords, match):
    with pytest.raises(ValueError, match=match):
        Topology(mesh_shape=mesh, device_coordinates=coords)


def test_topology_needs_an_argument():
    with pytest.raises(ValueError):
        Topology()


def test_serialized_round_trip_is_byte_identical(v38):
    data = v38.serialized()
    assert isinstance(data, bytes)
    parsed = Topology(serialized=data)
    assert parsed.serialized() == data
    assert parsed == v38
    assert parsed.mesh_shape.tolist() == [2, 2, 1, 2]
    np.testing.assert_array_equal(parsed.device_coordinates, v38.device_coordinates)
    # Field 1 (mesh_shape, packed) comes first, as protobuf writes it.
    assert data[:6] == bytes([0x0A, 4, 2, 2, 1, 2])


def test_serialized_of_constructed_topology_round_trips():
    topology = Topology(mesh_shape=[1, 1, 1, 2], device_coordinates=[[[0, 0, 0, 0], [0, 0, 0, 1]]])
    again = Topology(serialized=topology.serialized())
    assert again == topology and again.serialized() == topology.serialized()
    assert hash(again) == hash(topology)


def test_malformed_serialized_is_value_error():
    with pytest.raises(ValueError):
        Topology(serialized=b"\x0a\x09\x01")


def test_topology_repr_and_html(v38):
    assert repr(v38) == "Topology(mesh_shape=[2, 2, 1, 2], num_tasks=1, num_tpus_per_task=8)"
    page = v38._repr_html_()
    assert page.count("<svg xmlns") == 1 and "z = 0" in page  # one drawing per z-plane
    assert "h0 TPU:7" in page and "chip (1,1,0)" in page
    assert slice_topology("v4-32")._repr_html_().count("<svg xmlns") == 4


# ---- DeviceAssignment ----


def test_worked_example_ring_on_v38(v38):
    da = DeviceAssignment.build(v38, computation_shape=[1, 1, 1, 2], num_replicas=4)
    assert da.num_replicas == 4 and da.num_cores_per_replica == 2
    assert [da.tpu_ordinal(r, 0) for r in range(4)] == [0, 2, 6, 4]
    assert [da.tpu_ordinal(r, 1) for r in range(4)] == [1, 3, 7, 5]
    assert da.tpu_device(2, 1, job="worker") == "/job:worker/task:0/device:TPU:7"
    assert da.tpu_device(3) == "/task:0/device:TPU:4"
    assert da.host_device(3, job="worker") == "/job:worker/task:0/device:CPU:0"
    assert da.coordinates(2, 1) == (1, 1, 0, 1)
    assert da.core_assignment.shape == (4, 2, 4) and da.core_assignment.dtype == np.int32
    assert da.topology is v38


def test_worked_example_footprint_does_not_fit(v38):
    with pytest.raises(ValueError, match="does not fit in TPU topology shape"):
        DeviceAssignment.build(v38, computation_shape=[1, 2, 2, 2])


def test_default_build_is_one_single_core_replica(v38):
    da = DeviceAssignment.build(v38)
    assert da.num_replicas == 1 and da.num_cores_per_replica == 1
    assert da.coordinates(0, 0) == (0, 0, 0, 0)


def test_eight_replicas_one_core_each_follow_the_ring(v38):
    da = DeviceAssignment.build(v38, num_replicas=8)
    assert sorted(da.tpu_ordinal(r) for r in range(8)) == list(range(8))


def test_build_accepts_serialized_topology(v38):
    da = DeviceAssignment.build(v38.serialized(), computation_shape=[1, 1, 1, 2], num_replicas=4)
    assert [da.tpu_ordinal(r) for r in range(4)] == [0, 2, 6, 4]
    assert isinstance(da.topology, Topology)


def test_build_rejects_non_topology():
    with pytest.raises(ValueError, match="Topology"):
        DeviceAssignment.build("v3-8")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"computation_shape": [1, 1, 2]}, "computation_shape must have shape"),
        ({"computation_shape": [[1, 1], [1, 2]]}, "computation_shape must have shape"),
        ({"computation_stride": [1, 1, 1]}, "computation_stride must have shape"),
        ({"computation_shape": [1, 0, 1, 1]}, "must be positive"),
        ({"computation_shape": [1, 1, 1, 2], "num_replicas": 5}, "requested 5 replicas but only 4"),
        ({"computation_shape": [1, 1, 1, 2], "num_replicas": 2, "device_order_mode": DeviceOrderMode.RING}, "RING"),
        ({"device_order_mode": 7}, "DeviceOrderMode"),
    ],
)
def test_build_errors(v38, kwargs, match):
    with pytest.raises(ValueError, match=match):
        DeviceAssignment.build(v38, **kwargs)


def test_mesh_mode_orders_replicas_core_fastest(v38):
    da = DeviceAssignment.build(v38, num_replicas=4, device_order_mode=DeviceOrderMode.MESH)
    assert [da.coordinates(r, 0) for r in range(4)] == [(0, 0, 0, 0), (0, 0, 0, 1), (1, 0, 0, 0), (1, 0, 0, 1)]


def test_device_order_mode_values():
    assert (DeviceOrderMode.AUTO, DeviceOrderMode.RING, DeviceOrderMode.MESH) == (0, 1, 2)


def test_constructor_and_lookup_replicas(v38):
    core_assignment = [[[0, 0, 0, 0], [1, 0, 0, 0]], [[0, 1, 0, 0], [1, 1, 0, 0]]]
    da = DeviceAssignment(v38, core_assignment)
    assert da.num_replicas == 2 and da.num_cores_per_replica == 2
    assert [da.tpu_ordinal(1, c) for c in range(2)] == [4, 6]
    assert da.lookup_replicas(0, 1) == [0, 1]
    with pytest.raises(ValueError):
        da.lookup_replicas(1, 0)
    np.testing.assert_array_equal(da.core_assignment, np.array(core_assignment, dtype=np.int32))


@pytest.mark.parametrize(
    ("topology", "core_assignment", "match"),
    [
        ("not a topology", [[[0, 0, 0, 0]]], "Topology"),
        (None, [[0, 0, 0, 0]], "rank 3"),
        (None, [[[0, 0, 0]]], "shape\\[-1\\]"),
        (None, [[[5, 0, 0, 0]]], "outside the mesh"),
    ],
)
def test_constructor_errors(v38, topology, core_assignment, match):
    with pytest.raises(ValueError, match=match):
        DeviceAssignment(v38 if topology is None else topology, core_assignment)


def test_multi_host_assignment_names_hosts():
    topology = slice_topology("v3-32")
    da = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 2], num_replicas=4)
    assert {da.host_task(r) for r in range(4)} == {0, 1, 2, 3}
    replicas_on_task1 = da.lookup_replicas(1, 0)
    assert len(replicas_on_task1) == 1
    assert da.host_device(replicas_on_task1[0], job="worker") == "/job:worker/task:1/device:CPU:0"


def test_module_level_device_assignment_alias(v38):
    assert tf.tpu.device_assignment(v38, num_replicas=2).num_replicas == 2


def test_device_assignment_repr_and_html(v38):
    da = DeviceAssignment.build(v38, computation_shape=[1, 1, 1, 2], num_replicas=4)
    text = repr(da)
    assert text.splitlines()[0] == "DeviceAssignment(num_replicas=4, num_cores_per_replica=2, mesh_shape=[2, 2, 1, 2])"
    assert "replica 2: task:0/TPU:6 (1, 1, 0, 0), task:0/TPU:7 (1, 1, 0, 1)" in text
    page = da._repr_html_()
    assert "replica 2, logical core 1 on h0 TPU:7" in page
    assert "4 replica(s) x 2 logical core(s)" in page
    partial = DeviceAssignment.build(v38, num_replicas=2)._repr_html_()
    assert "unused" in partial


def test_long_repr_is_truncated():
    da = DeviceAssignment.build(slice_topology("v3-32"), num_replicas=32)
    assert "... 16 more replicas" in repr(da)


def test_coordinates_of_the_wrong_length_raise_a_type_error_naming_them(v38):
    # Every *_at_coordinates lookup takes exactly [x, y, z, core]; another count names the value it got.
    for lookup in (v38.cpu_device_name_at_coordinates, v38.tpu_device_name_at_coordinates,
                   v38.task_ordinal_at_coordinates, v38.tpu_device_ordinal_at_coordinates):
        with pytest.raises(TypeError, match=r"4 mesh coordinates .* got \[0, 0, 0\] \(3 values\)"):
            lookup([0, 0, 0])
        with pytest.raises(TypeError, match=r"got \(0, 0, 0, 0, 0\) \(5 values\)"):
            lookup((0, 0, 0, 0, 0))
    core_1 = v38.tpu_device_name_at_coordinates([0, 0, 0, 1])
    assert v38.tpu_device_name_at_coordinates(np.array([0, 0, 0, 1])) == core_1
