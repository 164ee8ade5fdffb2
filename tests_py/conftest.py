"""Shared fixtures: a fresh default slice for every test, so device state never leaks."""

from __future__ import annotations

import pytest

import tpustrategy as tps
from tpustrategy import _core


@pytest.fixture(autouse=True)
def default_slice():
    """Every test starts on the default v3-8 slice with fresh devices (HBM at zero, default capacity)."""
    _core.activate_slice("v3-8")
    _core.set_current_device(None)
    yield
    _core.set_current_device(None)
    _core.activate_slice("v3-8")


@pytest.fixture
def tpu0():
    return tps.config.list_logical_devices("TPU")[0].name
