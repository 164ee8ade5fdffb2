"""The client of a multi-host slice, as TF 2.21 names it: the program is the client of the slice's worker tasks
(TF: experimental_connect_to_cluster), so what it makes outside any device scope lives on its own CPU,
/job:localhost/replica:0/task:0/device:CPU:0, and the hosts' CPUs stay /job:worker/replica:0/task:T/device:CPU:0.

The expected names are TF's (tests_py/data/tf_client_device_names.json, written by
tools/crosscheck/client_devices_tf.py: a client of two CPU worker tasks); the slice here is v4-32 (4 hosts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from crosscheck_helpers import reference

TF = reference("tf_client_device_names.json")

_PROGRAM = """
import json
import sys
import numpy as np
import tpustrategy as tf

resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
tf.config.experimental_connect_to_cluster(resolver)
strategy = tf.distribute.TPUStrategy(resolver)
plain = tf.constant(1.0)
with strategy.scope():
    mirrored = tf.Variable(1.0)
out = {"plain": plain.device, "backing": plain.backing_device, "op_result": (plain + 1.0).device,
       "from_numpy": tf.convert_to_tensor(np.ones(2)).device, "string": tf.constant("s").device,
       "variable": tf.Variable(1.0).device, "dataset_element": next(iter(tf.data.Dataset.range(3))).device,
       "logical_cpus": [d.name for d in tf.config.list_logical_devices("CPU")],
       "logical": [[d.name, d.device_type] for d in tf.config.list_logical_devices()],
       "physical": [[d.name, d.device_type] for d in tf.config.list_physical_devices()],
       "mirrored_default": list(tf.distribute.MirroredStrategy().extended.worker_devices),
       "workers": list(strategy.extended.worker_devices), "mirrored": [v.device for v in mirrored.values],
       "reduce": strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None).device,
       "input": [t.device for t in strategy.experimental_local_results(
           next(iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(32).batch(16)))))]}
for key, spec in json.loads(sys.argv[1]).items():  # TF's specs, from the reference
    with tf.device(spec):
        out[key] = tf.constant(1.0).device
out["unknown_task"] = {}
for spec in json.loads(sys.argv[2]):
    try:
        with tf.device(spec):
            out["unknown_task"][spec] = ["", tf.constant(1.0).device]
    except Exception as e:
        out["unknown_task"][spec] = [type(e).__name__, str(e)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def names() -> dict:
    env = {**os.environ, "TPUSTRATEGY_SLICE": "v4-32"}
    out = subprocess.run([sys.executable, "-c", _PROGRAM, json.dumps(TF["specs"]),
                          json.dumps(list(TF["unknown_task_client"]))], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("key", ["plain", "backing", "op_result", "from_numpy", "string", "variable",
                                 "dataset_element", *TF["specs"]])
def test_placement_is_tfs(names, key):
    assert names[key] == TF[key]


def test_logical_cpus_are_the_clients_then_each_workers(names):
    def worker_cpus(count):
        return [f"/job:worker/replica:0/task:{t}/device:CPU:0" for t in range(count)]

    assert TF["logical_cpus"] == ["/device:CPU:0", *worker_cpus(TF["workers"])]  # the pattern TF shows
    assert names["logical_cpus"] == ["/device:CPU:0", *worker_cpus(4)]


def test_replicas_and_their_input_stay_on_the_workers(names):
    tpus = [f"/job:worker/replica:0/task:{t}/device:TPU:{k}" for t in range(4) for k in range(4)]
    assert names["workers"] == names["mirrored"] == names["input"] == tpus
    assert names["reduce"] == TF["plain"]  # reduced to the current device: the client's CPU


def test_logical_devices_are_the_clients_then_each_task_cpu_first(names):
    # TF: the local device manager first, then each connected task's devices (CPU before accelerators).
    assert TF["logical"][0][0] == "/device:CPU:0"
    assert [n for n, kind in TF["logical"] if kind == "CPU"] == TF["logical_cpus"]
    expected = [["/device:CPU:0", "CPU"]]
    for t in range(4):
        expected += [[f"/job:worker/replica:0/task:{t}/device:CPU:0", "CPU"],
                     *([f"/job:worker/replica:0/task:{t}/device:TPU:{k}", "TPU"] for k in range(4))]
    assert names["logical"] == expected


def test_physical_devices_are_the_clients_own_hardware(names):
    # A client of remote workers owns only its CPU; the workers' CPUs and cores are not its physical devices.
    assert names["physical"] == TF["physical"] == [["/physical_device:CPU:0", "CPU"]]


def test_mirrored_strategy_default_devices_are_every_logical_cpu(names):
    # TF 2.21 (mirrored_strategy.all_local_devices): the logical GPUs, else list_logical_devices("CPU"), which
    # on a connected client holds the client's CPU and every worker task's.
    assert TF["mirrored_default"] == ["/job:localhost/replica:0/task:0/device:CPU:0",
                                      *(f"/job:worker/replica:0/task:{t}/device:CPU:0" for t in range(TF["workers"]))]
    assert names["mirrored_default"] == ["/job:localhost/replica:0/task:0/device:CPU:0",
                                         *(f"/job:worker/replica:0/task:{t}/device:CPU:0" for t in range(4))]


def test_a_task_without_a_job_is_the_clients_job_not_a_workers(names):
    # "/task:1/device:CPU:0" on a client is task 1 of job localhost, which does not exist: TF raises
    # InvalidArgumentError "<full name> unknown device." rather than placing on worker task 1.
    assert names["unknown_task"] == TF["unknown_task_client"]
