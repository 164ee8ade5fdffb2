"""Shared fixtures: a fresh default slice for every test, so device state never leaks."""

from __future__ import annotations

import pytest

import tpustrategy as tf
from tpustrategy import _core


@pytest.fixture(autouse=True)
def default_slice():
    """Every test starts on the default v3-8 slice with fresh devices (HBM at zero, default capacity)."""
    _core.slice.activate_slice("v3-8")
    _core.devices.set_current_device(None)
    yield
    _core.devices.set_current_device(None)
    _core.slice.activate_slice("v3-8")


@pytest.fixture
def tpu0():
    return tf.config.list_logical_devices("TPU")[0].name


# Shared parameterisations with readable ids (``-k v4-32`` / ``-k 16-replicas`` select one), instead of copies of
# the same lists per test file. A test asks for ``slice_name`` or ``num_replicas`` and runs once per value.
SLICE_NAMES = ["v2-8", "v3-8", "v3-32", "v4-8", "v4-32", "v4-128", "v5e-16", "v5p-128"]
REPLICA_COUNTS = [1, 2, 8, 16, 32]


@pytest.fixture(params=SLICE_NAMES, ids=SLICE_NAMES)
def slice_name(request) -> str:
    """A slice preset: one per generation and host count (one host, several hosts, a wrapped torus)."""
    return request.param


@pytest.fixture(params=REPLICA_COUNTS, ids=[f"{n}-replicas" for n in REPLICA_COUNTS])
def num_replicas(request) -> int:
    return request.param


@pytest.fixture
def two_logical_cpus():
    """Host 0's CPU split into CPU:0 and CPU:1 for the test (as TF's side of a cross-check splits it)."""
    _core.devices.set_logical_cpu_count(2)
    yield
    _core.devices.set_logical_cpu_count(1)


@pytest.fixture
def fresh_keras_names():
    """Keras' layer-name counters reset before and after a test that checks names ("dense", "dense_1" ...)."""
    tf.keras.backend.clear_session()
    yield
    tf.keras.backend.clear_session()
