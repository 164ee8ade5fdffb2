"""TPU system: connect, initialize, shutdown (SEMANTICS.md §1.8, §2.8)."""

from __future__ import annotations

import logging

import pytest

import tpustrategy as tf
from tpustrategy import _core
from tpustrategy.distribute.cluster_resolver import SimpleClusterResolver, TPUClusterResolver
from tpustrategy.tpu import tpu_system
from tpustrategy.tpu.experimental import Topology, TPUSystemMetadata, initialize_tpu_system, shutdown_tpu_system


@pytest.fixture(autouse=True)
def fresh_tpu_system():
    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()


def test_initialize_returns_topology_of_default_slice():
    topology = initialize_tpu_system()
    assert isinstance(topology, Topology)
    assert topology.mesh_shape.tolist() == [2, 2, 1, 2]
    assert tpu_system.current_topology() is topology


def test_reinitializing_warns_through_logging(caplog):
    resolver = TPUClusterResolver("")
    initialize_tpu_system(resolver)
    with caplog.at_level(logging.WARNING, logger="tpustrategy"):
        initialize_tpu_system(resolver)
    assert any("already been initialized" in r.getMessage() for r in caplog.records)


def test_shutdown_forgets_the_system(caplog):
    resolver = TPUClusterResolver()
    initialize_tpu_system(resolver)
    shutdown_tpu_system(resolver)
    assert tpu_system.get_initialized_tpu_systems() == {}
    with caplog.at_level(logging.WARNING, logger="tpustrategy"):
        initialize_tpu_system(resolver)
    assert not any("already been initialized" in r.getMessage() for r in caplog.records)
    shutdown_tpu_system()
    assert tpu_system.get_initialized_tpu_systems() == {}


def test_initialize_named_slice_activates_it():
    topology = initialize_tpu_system(TPUClusterResolver("v4-32"))
    assert topology.num_tasks == 4 and topology.mesh_shape.tolist() == [2, 2, 4, 1]
    assert _core.slice.active_slice().name == "v4-32"
    assert len(tf.config.list_logical_devices("TPU")) == 16


def test_connect_to_cluster_selects_slice_and_keeps_same_slice():
    tf.config.experimental_connect_to_cluster(TPUClusterResolver("v5e-8"))
    assert _core.slice.active_slice().name == "v5e-8"
    tensor = tf.constant([1.0, 2.0])
    tf.config.experimental_connect_to_cluster(TPUClusterResolver("v5e-8"))  # same slice: devices kept
    assert tensor.numpy().tolist() == [1.0, 2.0]


def test_connect_with_non_tpu_resolver_keeps_local_slice():
    tf.config.experimental_connect_to_cluster(SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["a"]})))
    assert _core.slice.active_slice().name == "v3-8"


def test_initialize_with_non_tpu_resolver_is_value_error():
    with pytest.raises(ValueError, match="TPUClusterResolver"):
        initialize_tpu_system(SimpleClusterResolver(tf.train.ClusterSpec({})))
    with pytest.raises(ValueError, match="TPUClusterResolver"):
        shutdown_tpu_system(SimpleClusterResolver(tf.train.ClusterSpec({})))


def test_switching_slice_forgets_initialization():
    initialize_tpu_system()
    initialize_tpu_system(TPUClusterResolver("v4-8"))
    assert list(tpu_system.get_initialized_tpu_systems()) == ["v4-8"]


def test_tpu_system_metadata_is_a_namedtuple():
    metadata = TPUSystemMetadata(8, 1, 8, None, [])
    assert metadata._fields == ("num_cores", "num_hosts", "num_of_cores_per_host", "topology", "devices")
    assert metadata.num_of_cores_per_host == 8


def test_current_topology_without_initialization():
    assert tpu_system.current_topology().num_tpus_per_task == 8


def test_seed_connect_initialize_sequence():
    # The modern TPUStrategy page's setup, with tf -> tpustrategy.
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    tf.config.experimental_connect_to_cluster(resolver)
    topology = tf.tpu.experimental.initialize_tpu_system(resolver)
    device_assignment = tf.tpu.experimental.DeviceAssignment.build(topology, num_replicas=2)
    assert device_assignment.num_replicas == 2
