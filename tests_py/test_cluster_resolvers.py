"""Cluster resolvers and train.ClusterSpec (SEMANTICS.md §1.7, §2.8, §5 H)."""

from __future__ import annotations

import json

import pytest

import tpustrategy as tf
from tpustrategy.distribute.cluster_resolver import (
    ClusterResolver,
    SimpleClusterResolver,
    TFConfigClusterResolver,
    TPUClusterResolver,
    UnionResolver,
)
from tpustrategy.train import ClusterSpec

# ---- ClusterSpec ----


def test_cluster_spec_from_lists():
    spec = ClusterSpec({"worker": ["h1:1", "h2:1"], "ps": ["h3:1"]})
    assert spec.jobs == ["worker", "ps"]
    assert spec.num_tasks("worker") == 2
    assert spec.task_indices("worker") == [0, 1]
    assert spec.task_address("worker", 1) == "h2:1"
    assert spec.job_tasks("ps") == ["h3:1"]
    assert spec.as_dict() == {"worker": ["h1:1", "h2:1"], "ps": ["h3:1"]}
    assert repr(spec) == "ClusterSpec({'ps': ['h3:1'], 'worker': ['h1:1', 'h2:1']})"
    assert bool(spec) and not ClusterSpec({})


def test_cluster_spec_sparse_dict():
    spec = ClusterSpec({"worker": {1: "h1", 3: "h3"}, "chief": {"0": "c0"}})
    assert spec.task_indices("worker") == [1, 3]
    assert spec.job_tasks("worker") == [None, "h1", None, "h3"]
    assert spec.as_dict() == {"worker": {1: "h1", 3: "h3"}, "chief": ["c0"]}
    assert spec.task_address("chief", 0) == "c0"


def test_cluster_spec_copy_and_equality():
    spec = ClusterSpec({"worker": ["a", "b"]})
    copy = ClusterSpec(spec)
    assert copy == spec and copy is not spec
    assert spec != ClusterSpec({"worker": ["a"]})


def test_cluster_spec_empty_job():
    spec = ClusterSpec({"worker": []})
    assert spec.as_dict() == {"worker": {}}
    assert spec.num_tasks("worker") == 0


@pytest.mark.parametrize("bad", [["a"], "worker", None, 3])
def test_cluster_spec_rejects_non_dict(bad):
    with pytest.raises(TypeError, match="must be a dictionary"):
        ClusterSpec(bad)


def test_cluster_spec_type_errors():
    with pytest.raises(TypeError, match="must be a list or a dictionary"):
        ClusterSpec({"worker": "h1"})
    with pytest.raises(TypeError, match="Job name"):
        ClusterSpec({3: ["h1"]})
    with pytest.raises(TypeError, match="Task address"):
        ClusterSpec({"worker": [1]})


def test_cluster_spec_lookup_errors():
    spec = ClusterSpec({"worker": ["h1"]})
    with pytest.raises(ValueError, match="No such job in cluster: 'ps'"):
        spec.num_tasks("ps")
    with pytest.raises(ValueError, match="No such job"):
        spec.task_indices("ps")
    with pytest.raises(ValueError, match="No such job"):
        spec.job_tasks("ps")
    with pytest.raises(ValueError, match="No task with index 4 in job 'worker'"):
        spec.task_address("worker", 4)


# ---- ClusterResolver / SimpleClusterResolver ----


def test_cluster_resolver_is_abstract():
    with pytest.raises(TypeError):
        ClusterResolver()


def test_simple_cluster_resolver():
    spec = ClusterSpec({"worker": ["h1:2222", "h2:2222"]})
    resolver = SimpleClusterResolver(
        spec,
        master="m:1",
        task_type="worker",
        task_id=1,
        environment="google",
        num_accelerators={"GPU": 2},
        rpc_layer="grpc",
    )
    assert resolver.cluster_spec() is spec
    assert resolver.master() == "grpc://m:1"
    assert resolver.master("worker", 0) == "grpc://h1:2222"
    assert resolver.master("worker", 0, rpc_layer="http") == "http://h1:2222"
    assert resolver.master("worker") == "grpc://m:1"  # both type and id needed for a task address
    assert (resolver.task_type, resolver.task_id, resolver.environment) == ("worker", 1, "google")
    assert resolver.num_accelerators() == {"GPU": 2}
    resolver.task_type, resolver.task_id, resolver.rpc_layer = "ps", 0, None
    assert (resolver.task_type, resolver.task_id, resolver.master()) == ("ps", 0, "m:1")


def test_simple_cluster_resolver_defaults():
    resolver = SimpleClusterResolver(ClusterSpec({}))
    assert resolver.master() == "" and resolver.num_accelerators() == {}
    assert resolver.task_type is None and resolver.task_id is None and resolver.environment == ""


def test_simple_cluster_resolver_type_errors():
    with pytest.raises(TypeError, match="cluster_spec must be"):
        SimpleClusterResolver({"worker": ["h1"]})
    with pytest.raises(TypeError, match="master must be a string"):
        SimpleClusterResolver(ClusterSpec({}), master=3)


# ---- TFConfigClusterResolver ----


@pytest.fixture
def tf_config(monkeypatch):
    def set_config(config):
        monkeypatch.setenv("TF_CONFIG", json.dumps(config))

    monkeypatch.delenv("TF_CONFIG", raising=False)
    return set_config


CASE_H = {"cluster": {"worker": ["h1", "h2"], "ps": ["h3"]}, "task": {"type": "worker", "index": 0}}


def test_case_h(tf_config):
    tf_config(CASE_H)
    resolver = TFConfigClusterResolver()
    assert resolver.task_type == "worker" and resolver.task_id == 0
    assert resolver.master() == "h1"
    assert resolver.cluster_spec() == ClusterSpec(CASE_H["cluster"])
    assert TFConfigClusterResolver(rpc_layer="grpc").master() == "grpc://h1"
    assert resolver.master("ps", 0, rpc_layer="grpc") == "grpc://h3"


def test_tf_config_is_reread_on_every_call(tf_config):
    resolver = TFConfigClusterResolver()
    assert resolver.cluster_spec() == ClusterSpec({}) and resolver.task_type is None and resolver.task_id is None
    assert resolver.master() == ""
    tf_config(CASE_H)
    assert resolver.task_type == "worker" and resolver.master() == "h1"
    tf_config({**CASE_H, "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"})
    assert resolver.task_id == 1 and resolver.rpc_layer == "grpc"
    assert resolver.master() == "grpc://h2"


def test_tf_config_single_task_and_session_master(tf_config):
    tf_config({"cluster": {"worker": ["only"]}, "task": {"type": "worker", "index": 0}})
    assert TFConfigClusterResolver().master() == ""
    tf_config({**CASE_H, "session_master": "sm:1"})
    assert TFConfigClusterResolver().master() == "sm:1"


def test_tf_config_explicit_arguments_win(tf_config):
    tf_config({**CASE_H, "rpc_layer": "grpc"})
    resolver = TFConfigClusterResolver(task_type="ps", task_id="0", rpc_layer="http", environment="google")
    assert (resolver.task_type, resolver.task_id, resolver.rpc_layer) == ("ps", 0, "http")
    assert resolver.environment == "google"
    assert resolver.master() == "http://h3"
    resolver.task_type = None
    assert resolver.task_type == "worker"  # back to TF_CONFIG


def test_tf_config_unknown_task_is_value_error(tf_config):
    tf_config({**CASE_H, "task": {"type": "chief", "index": 0}})
    with pytest.raises(ValueError, match="No such job"):
        TFConfigClusterResolver().master()


# ---- UnionResolver ----


def test_union_resolver_merges_lists_and_dicts():
    a = SimpleClusterResolver(ClusterSpec({"worker": ["w0", "w1"]}), master="ma", task_type="worker", task_id=0)
    b = SimpleClusterResolver(ClusterSpec({"worker": ["w2"], "ps": ["p0"]}), master="mb")
    union = UnionResolver(a, b)
    assert union.cluster_spec().as_dict() == {"worker": ["w0", "w1", "w2"], "ps": ["p0"]}
    assert union.master() == "ma"
    assert union.master("ps", 0, rpc_layer="grpc") == "grpc://p0"
    assert (union.task_type, union.task_id) == ("worker", 0)
    c = SimpleClusterResolver(ClusterSpec({"worker": {5: "w5"}}))
    assert union.__class__(a, c).cluster_spec().as_dict() == {"worker": {0: "w0", 1: "w1", 5: "w5"}}


def test_union_resolver_errors():
    a = SimpleClusterResolver(ClusterSpec({"worker": {1: "w1"}}))  # sparse, so merged by index
    with pytest.raises(KeyError, match="Duplicate keys"):
        UnionResolver(a, SimpleClusterResolver(ClusterSpec({"worker": ["x", "y"]}))).cluster_spec()
    with pytest.raises(ValueError, match="At least one"):
        UnionResolver()
    with pytest.raises(ValueError, match="Unexpected kwargs"):
        UnionResolver(a, colour="red")
    with pytest.raises(TypeError, match="sub-class"):
        UnionResolver(a, "b")


def test_union_resolver_overrides():
    a = SimpleClusterResolver(ClusterSpec({"worker": ["w0"]}), task_type="worker", task_id=0, rpc_layer="grpc")
    union = UnionResolver(a, task_type="ps", task_id=2, rpc_layer="http")
    assert (union.task_type, union.task_id, union.rpc_layer) == ("ps", 2, "http")


# ---- TPUClusterResolver ----


@pytest.mark.parametrize("tpu", [None, "", "local", b""])
def test_tpu_resolver_local(tpu, monkeypatch):
    monkeypatch.delenv("TPUSTRATEGY_SLICE", raising=False)
    resolver = TPUClusterResolver(tpu=tpu)
    assert resolver.slice_preset.name == "v3-8"
    assert resolver.master() == "" and resolver.get_master() == ""
    assert resolver.cluster_spec() == ClusterSpec({})
    assert (resolver.task_type, resolver.task_id, resolver.get_job_name()) == ("worker", 0, "worker")
    assert resolver.num_accelerators() == {"TPU": 8}
    assert resolver.environment == ""


def test_tpu_resolver_local_follows_env(monkeypatch):
    monkeypatch.setenv("TPUSTRATEGY_SLICE", "v4-8")
    assert TPUClusterResolver().num_accelerators() == {"TPU": 4}


def test_tpu_resolver_named_slice():
    resolver = TPUClusterResolver("v3-32", zone="us-central1-a", project="p")
    assert resolver.num_accelerators() == {"TPU": 8}
    spec = resolver.cluster_spec()
    assert spec.num_tasks("worker") == 4
    assert resolver.master() == "grpc://" + spec.task_address("worker", 0)
    assert resolver.master("worker", 2, rpc_layer="http") == "http://" + spec.task_address("worker", 2)
    assert "v3-32" in repr(resolver)


def test_tpu_resolver_job_name_and_coordinator():
    resolver = TPUClusterResolver(
        "v4-16", job_name="tpu_worker", coordinator_name="coordinator", coordinator_address="localhost:1234"
    )
    assert resolver.get_job_name() == "tpu_worker"
    assert resolver.cluster_spec().as_dict() == {
        "tpu_worker": resolver.cluster_spec().job_tasks("tpu_worker"),
        "coordinator": ["localhost:1234"],
    }
    assert resolver.cluster_spec().num_tasks("tpu_worker") == 2


def test_tpu_resolver_unknown_slice_lists_presets():
    with pytest.raises(ValueError, match=r"v3-8.*v4-32"):
        TPUClusterResolver("v9-99")
    with pytest.raises(ValueError):
        TPUClusterResolver(["grpc://a", "grpc://b"])


@pytest.mark.parametrize(("name", "cores", "hosts", "per_host", "job"),
                         [("v3-8", 8, 1, 8, "localhost"), ("v4-32", 16, 4, 4, "worker")])
def test_tpu_system_metadata(name, cores, hosts, per_host, job):
    metadata = TPUClusterResolver(name).get_tpu_system_metadata()
    assert (metadata.num_cores, metadata.num_hosts, metadata.num_of_cores_per_host) == (cores, hosts, per_host)
    assert metadata.topology.num_tasks == hosts
    tpu_names = [d.name for d in metadata.devices if d.device_type == "TPU"]
    assert len(tpu_names) == cores
    assert tpu_names[0] == f"/job:{job}/replica:0/task:0/device:TPU:0"
    assert sum(d.device_type == "CPU" for d in metadata.devices) == hosts


def test_tpu_resolver_connect_initializes(caplog):
    from tpustrategy.tpu import tpu_system

    resolver = TPUClusterResolver.connect("v4-8")
    assert isinstance(resolver, TPUClusterResolver)
    assert tf._core.slice.active_slice().name == "v4-8"
    assert "v4-8" in tpu_system.get_initialized_tpu_systems()
    assert len(tf.config.list_logical_devices("TPU")) == 4


def test_base_num_accelerators_counts_local_tpus(tf_config):
    assert TFConfigClusterResolver().num_accelerators() == {"TPU": 8}
