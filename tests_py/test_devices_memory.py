"""Simulated devices, placement with tps.device and HBM accounting through tps.config."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import tpustrategy as tf

MIB = 1 << 20


def test_default_slice_is_v3_8_with_canonical_names():
    # As TF: list_logical_devices drops job/replica/task of the process's own (job "localhost") devices, whose
    # full names are what placed tensors report.
    names = [d.name for d in tf.config.list_logical_devices("TPU")]
    assert names == [f"/device:TPU:{i}" for i in range(8)]
    assert [d.name for d in tf._core.devices.list_devices("TPU")] == [
        f"/job:localhost/replica:0/task:0/device:TPU:{i}" for i in range(8)]
    assert [d.device_type for d in tf.config.list_logical_devices("CPU")] == ["CPU"]
    assert len(tf.config.list_physical_devices("TPU")) == 8
    assert tf.config.list_physical_devices("TPU")[0].name == "/physical_device:TPU:0"


def test_core_device_compares_unequal_to_other_types_instead_of_raising():
    core0, core1 = tf._core.devices.list_devices("TPU")[:2]
    assert core0 == tf._core.devices.list_devices("TPU")[0] and core0 != core1
    assert core0 != "TPU:0" and not (core0 == None)  # noqa: E711 - the operator itself is under test
    assert core0 in [None, "x", core0]


def test_slice_env_var_selects_preset():
    code = ("import tpustrategy as t; "
            "print(len(t.config.list_logical_devices('TPU')), t._core.slice.active_slice().name)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TPUSTRATEGY_SLICE": "v4-32"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["16", "v4-32"]
    bad = subprocess.run([sys.executable, "-c", "import tpustrategy"], env={**os.environ, "TPUSTRATEGY_SLICE": "v9"},
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "v3-8" in bad.stderr


def test_device_scope_places_tensors_and_charges_hbm():
    assert tf.config.experimental.get_memory_info("TPU:3") == {"current": 0, "peak": 0}
    with tf.device("/job:localhost/replica:0/task:0/device:TPU:3"):
        t = tf.constant(np.zeros((256, 1024), np.float32))
        with tf.device("TPU:1"):
            inner = tf.constant([1.0])
        after_inner = tf.constant([2.0])
    assert t.device.endswith("device:TPU:3")
    assert inner.device.endswith("device:TPU:1")
    assert after_inner.device.endswith("device:TPU:3")
    assert tf.config.experimental.get_memory_info("TPU:3")["current"] == MIB + 4
    del t
    info = tf.config.experimental.get_memory_info("TPU:3")
    assert info == {"current": 4, "peak": MIB + 4}
    tf.config.experimental.reset_memory_stats("TPU:3")
    assert tf.config.experimental.get_memory_info("TPU:3")["peak"] == 4
    outside = tf.constant(1.0)
    assert outside.device.endswith("device:CPU:0")


def test_unknown_device_names_raise_value_error_naming_them():
    with pytest.raises(ValueError, match="TPU:8"):
        with tf.device("TPU:8"):
            pass
    with pytest.raises(ValueError, match="XPU"):
        tf.config.experimental.get_memory_info("XPU:0")


def test_memory_limit_makes_a_model_not_fit_without_changing_state():
    tpu0 = tf.config.list_physical_devices("TPU")[0]
    tf.config.set_logical_device_configuration(tpu0, [tf.config.LogicalDeviceConfiguration(memory_limit=2)])
    with tf.device("TPU:0"):
        keep = tf.constant(np.ones(MIB // 4, np.float32))  # 1 MiB fits
        with pytest.raises(tf.errors.ResourceExhaustedError, match=r"TPU:0.*2097152|TPU:0") as info:
            tf.constant(np.ones(2 * MIB // 4, np.float32))  # 2 MiB does not
    assert "1.00 MiB" in str(info.value) and "2.00 MiB" in str(info.value)
    assert isinstance(info.value, tf.errors.OpError)
    assert tf.config.experimental.get_memory_info("TPU:0") == {"current": MIB, "peak": MIB}
    assert keep.numpy().sum() == MIB // 4
    tf.config.set_logical_device_configuration(tpu0, [tf.config.LogicalDeviceConfiguration()])
    with tf.device("TPU:0"):
        tf.constant(np.ones(2 * MIB // 4, np.float32))


def test_logical_cpu_split_like_tensorflow():
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)
    cpus = tf.config.list_logical_devices("CPU")
    assert [c.name.rsplit("/", 1)[1] for c in cpus] == [f"device:CPU:{i}" for i in range(4)]
    with tf.device("CPU:2"):
        assert tf.constant(1).device.endswith("CPU:2")
    with pytest.raises(ValueError, match="memory limit"):
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration(memory_limit=10)])


def test_errors_mirror_tf_errors():
    assert issubclass(tf.errors.InvalidArgumentError, ValueError)
    assert issubclass(tf.errors.ResourceExhaustedError, tf.errors.OpError)
    for name in ["OutOfRangeError", "NotFoundError", "FailedPreconditionError", "CancelledError",
                 "UnimplementedError", "DataLossError", "AbortedError", "InternalError", "UnknownError"]:
        cls = getattr(tf.errors, name)
        assert issubclass(cls, tf.errors.OpError)
        err = cls(None, None, "message")
        assert err.message == "message" and str(err) == "message"
    assert tf.errors.RESOURCE_EXHAUSTED == 8 and tf.errors.ResourceExhaustedError.error_code == 8


def test_all_reduce_result_charges_each_core_only_while_its_own_result_lives():
    # Regression: the shared result buffer was charged to core 0 for as long as any replica's result
    # lived, so keeping replica 3's result kept core 0 charged too.
    strategy = tf.distribute.TPUStrategy()

    def step():
        return tf.distribute.get_replica_context().all_reduce("sum", tf.constant(np.ones(250, np.float32)))

    kept = strategy.run(step).values[3]
    used = [tf.config.experimental.get_memory_info(f"TPU:{i}")["current"] for i in range(8)]
    assert used == [0, 0, 0, 1000, 0, 0, 0, 0]
    del kept
    assert tf.config.experimental.get_memory_info("TPU:3")["current"] == 0


def test_broadcast_of_a_value_charges_its_own_core_once():
    from tpustrategy import _core

    devices = [_core.devices.find_device(f"TPU:{i}") for i in range(2)]
    _core.devices.set_current_device(devices[1])
    value = tf.constant(np.ones(250, np.float32))
    _core.devices.set_current_device(None)
    out = _core.collectives.broadcast(value, devices)
    assert [d.memory_info()["current"] for d in devices] == [1000, 1000]
    del out, value
    assert [d.memory_info()["current"] for d in devices] == [0, 0]
