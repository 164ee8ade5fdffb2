"""Device names as TF 2.21 gives them (measured on TF 2.21): a local program's devices are in job "localhost"
("/job:localhost/replica:0/task:0/device:CPU:0"), list_logical_devices drops job/replica/task of those
("/device:CPU:0"), and only a cluster (here: a slice of several hosts) names its devices "/job:worker/task:N/...".
Device strings are accepted in either job and in TF's short forms."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from crosscheck_helpers import reference

import tpustrategy as tf

LOCAL_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_eager_tensors_and_backing_device_are_localhost():
    t = tf.constant([1.0])
    assert t.device == LOCAL_CPU0 and t.backing_device == LOCAL_CPU0


@pytest.mark.parametrize("spec", ["/device:TPU:3", "TPU:3", "/tpu:3", "tpu:3",
                                  "/job:localhost/replica:0/task:0/device:TPU:3", "/job:localhost/device:TPU:3"])
def test_device_strings_in_every_form_resolve_to_the_same_core(spec):
    with tf.device(spec):
        assert tf.constant(1.0).device == "/job:localhost/replica:0/task:0/device:TPU:3"


@pytest.mark.parametrize("spec,full", [("/job:worker/replica:0/task:0/device:CPU:0", None),
                                       ("/job:worker/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"),
                                       ("/job:worker", "/job:worker/replica:0/task:0/device:CPU:0"),
                                       ("/job:worker/replica:0/task:0/device:TPU:3", None)])
def test_a_job_the_single_host_lacks_is_an_unknown_device(spec, full):
    # TF 2.21 (measured for CPU; its TPU-less host words the TPU case as unsatisfiable): one host's job is
    # localhost, so "/job:worker/..." is InvalidArgumentError "<full name> unknown device.".
    with pytest.raises(tf.errors.InvalidArgumentError) as raised, tf.device(spec):
        tf.constant(1.0)
    assert raised.value.message == f"{full or spec} unknown device."


def test_list_logical_devices_drops_the_localhost_job_as_tf():
    assert [d.name for d in tf.config.list_logical_devices("CPU")] == ["/device:CPU:0"]
    tpus = tf.config.list_logical_devices("TPU")
    assert [d.name for d in tpus] == [f"/device:TPU:{i}" for i in range(8)]
    with tf.device(tpus[5].name):  # a listed name places as TF's does
        assert tf.constant(1.0).device.endswith("/task:0/device:TPU:5")


def test_tpu_strategy_devices_on_one_host_are_localhost():
    strategy = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver())
    expected = tuple(f"/job:localhost/replica:0/task:0/device:TPU:{i}" for i in range(8))
    assert strategy.extended.worker_devices == expected
    with strategy.scope():
        v = tf.Variable(1.0)
    assert [c.device for c in v.values] == list(expected)
    result = strategy.run(lambda: tf.constant(2.0))
    assert [c.device for c in strategy.experimental_local_results(result)] == list(expected)
    item = next(iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(16).batch(8))))
    assert [c.device for c in strategy.experimental_local_results(item)] == list(expected)


_MULTI_HOST = """
import json, tpustrategy as tf
strategy = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver())
print(json.dumps({"logical": [d.name for d in tf.config.list_logical_devices()],
                  "tensor": tf.constant(1.0).device, "workers": list(strategy.extended.worker_devices),
                  "local": tf.constant(1.0).device}))
"""


def test_multi_host_slice_is_a_cluster_of_worker_tasks():
    env = {**os.environ, "TPUSTRATEGY_SLICE": "v4-32"}
    out = subprocess.run([sys.executable, "-c", _MULTI_HOST], env=env, capture_output=True, text=True, check=True)
    names = json.loads(out.stdout.strip().splitlines()[-1])
    assert names["tensor"] == LOCAL_CPU0  # the program is the cluster's client (test_tf_fidelity_client_device.py)
    assert names["workers"][:5] == [*(f"/job:worker/replica:0/task:0/device:TPU:{i}" for i in range(4)),
                                    "/job:worker/replica:0/task:1/device:TPU:0"]
    assert "/job:worker/replica:0/task:3/device:CPU:0" in names["logical"]
    assert all(n.startswith("/job:worker/replica:0/task:") for n in names["logical"] if n != "/device:CPU:0")


@pytest.mark.parametrize("spec", list(reference("tf_client_device_names.json")["unknown_task_alone"]))
def test_a_task_or_replica_the_process_lacks_is_an_unknown_device_as_tf(spec):
    # TF completes "/task:1/device:CPU:0" with the process's job (localhost) and replica 0: no such task.
    kind, message = reference("tf_client_device_names.json")["unknown_task_alone"][spec]
    with pytest.raises(getattr(tf.errors, kind)) as raised, tf.device(spec):
        tf.constant(1.0)
    assert str(raised.value) == message


def test_unknown_device_names_the_available_ones():
    with pytest.raises(ValueError, match="TPU:0"), tf.device("/job:localhost/replica:0/task:0/device:TPU:9"):
        tf.constant(1.0)


_TF_CONFIG_WORKER = """
import json, os
os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["localhost:12345"]},
                                      "task": {"type": "worker", "index": 0}})
import tpustrategy as tf
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    v = tf.Variable(1.0)
print(json.dumps({"workers": list(strategy.extended.worker_devices), "tensor": tf.constant(1.0).device,
                  "variable": v.device, "logical": [d.name for d in tf.config.list_logical_devices("CPU")],
                  "run": strategy.run(lambda: tf.constant(2.0)).device}))
"""


def test_multi_worker_strategy_with_a_tf_config_names_devices_as_a_worker():
    # TF 2.21 (measured): one worker of a TF_CONFIG cluster names every device, plain eager tensors' too,
    # /job:worker/replica:0/task:0/..., and list_logical_devices keeps the full names.
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    out = subprocess.run([sys.executable, "-c", _TF_CONFIG_WORKER], env=env, capture_output=True, text=True,
                         check=True)
    names = json.loads(out.stdout.strip().splitlines()[-1])
    worker_cpu = "/job:worker/replica:0/task:0/device:CPU:0"
    assert names["tensor"] == names["variable"] == names["run"] == worker_cpu
    assert names["workers"] == [worker_cpu] and names["logical"][0] == worker_cpu


@pytest.mark.parametrize("index", [0, 1])
def test_a_cluster_of_several_workers_without_mpirun_is_a_value_error(monkeypatch, index):
    # TF would start worker `index` and wait for the others to join; no other process can join this one.
    from tpustrategy.distribute import multi_process

    if multi_process.launched_by_mpirun():
        pytest.skip("this process was itself started by mpirun")
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["h1:2222", "h2:2222"]},
                                                "task": {"type": "worker", "index": index}}))
    with pytest.raises(ValueError, match=rf"has 2 workers and this process is worker {index}.*mpirun -n 2 python"):
        tf.distribute.MultiWorkerMirroredStrategy()
    assert tf.constant(1.0).device == LOCAL_CPU0  # refused before renaming any device
