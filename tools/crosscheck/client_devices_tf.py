"""Writes tests_py/data/tf_client_device_names.json: where TF 2.21 places values when the program is the client of
a cluster of worker tasks, as a TPU pod's client is (run in the reference venv: it needs TensorFlow).

Two in-process CPU worker servers stand in for the pod's hosts; `experimental_connect_to_cluster` makes this
process their client, as `TPUClusterResolver` + `experimental_connect_to_cluster` do for a multi-host TPU slice.
tests_py/test_tf_fidelity_client_device.py compares a multi-host simulated slice with these names.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests_py" / "data" / "tf_client_device_names.json"
SPECS = {"spec_cpu0": "/cpu:0", "spec_device_cpu0": "/device:CPU:0",
         "spec_localhost": "/job:localhost/replica:0/task:0/device:CPU:0", "spec_worker_task1": "/job:worker/task:1",
         "spec_worker_task0_cpu": "/job:worker/replica:0/task:0/device:CPU:0"}


UNKNOWN_TASK_SPECS = [
    "/task:1/device:CPU:0", "/task:1", "/replica:1/device:CPU:0", "/job:localhost/task:1/device:CPU:0"]


def _placement_errors(tf) -> dict[str, list[str]]:
    """spec -> [error type, message] of creating a tensor there eagerly (["", device] when TF places it)."""
    out = {}
    for spec in UNKNOWN_TASK_SPECS:
        try:
            with tf.device(spec):
                out[spec] = ["", tf.constant(1.0).device]
        except Exception as e:  # noqa: BLE001 - the type is what is recorded
            out[spec] = [type(e).__name__, str(e)]
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def main() -> int:
    import numpy as np
    import tensorflow as tf

    alone = _placement_errors(tf)  # no cluster yet
    cluster = {"worker": [f"localhost:{_free_port()}" for _ in range(2)]}
    servers = [tf.distribute.Server(cluster, job_name="worker", task_index=i, start=True) for i in range(2)]
    tf.config.experimental_connect_to_cluster(tf.train.ClusterSpec(cluster))
    plain = tf.constant(1.0)
    out = {"workers": len(servers), "plain": plain.device, "backing": plain.backing_device,
           "op_result": (plain + 1.0).device, "from_numpy": tf.convert_to_tensor(np.ones(2)).device,
           "string": tf.constant("s").device, "variable": tf.Variable(1.0).device,
           "dataset_element": next(iter(tf.data.Dataset.range(3))).device}
    out["specs"] = SPECS  # the test places with the same specs
    for key, spec in SPECS.items():
        with tf.device(spec):
            out[key] = tf.constant(1.0).device
    out["logical_cpus"] = [d.name for d in tf.config.list_logical_devices("CPU")]
    out["unknown_task_alone"] = alone
    out["unknown_task_client"] = _placement_errors(tf)
    out["logical"] = [[d.name, d.device_type] for d in tf.config.list_logical_devices()]
    out["physical"] = [[d.name, d.device_type] for d in tf.config.list_physical_devices()]
    out["mirrored_default"] = list(tf.distribute.MirroredStrategy().extended.worker_devices)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
