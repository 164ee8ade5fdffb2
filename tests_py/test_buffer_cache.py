"""The tensor-buffer cache seen from Python: reuse keeps HBM accounting exact; memory can be released."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core


def test_freed_tensors_are_cached_and_released_without_touching_hbm_accounting():
    device = _core.devices.find_device("CPU:0")
    before = device.memory_info()["current"]
    t = tf.constant(np.ones((256, 256), np.float32))
    assert device.memory_info()["current"] == before + 256 * 256 * 4
    del t
    gc.collect()
    assert device.memory_info()["current"] == before  # returned to the cache: no longer charged
    assert _core.devices.cached_memory_bytes() >= 256 * 256 * 4
    freed = _core.devices.release_cached_memory()
    assert freed >= 256 * 256 * 4
    assert _core.devices.cached_memory_bytes() == 0
    assert device.memory_info()["current"] == before


def test_a_repeated_step_reuses_its_buffers():
    x = tf.constant(np.ones((128, 128), np.float32))
    np.testing.assert_array_equal(np.asarray(tf.matmul(x, x)), np.full((128, 128), 128, np.float32))
    cached = _core.devices.cached_memory_bytes()
    for _ in range(5):
        tf.matmul(x, x)  # each result freed at once: the same cached block comes back every time
    assert _core.devices.cached_memory_bytes() == cached


def test_the_limit_is_validated_and_zero_disables_caching():
    limit = _core.devices.buffer_cache_limit()
    with pytest.raises(ValueError, match="-1"):
        _core.devices.set_buffer_cache_limit(-1)
    assert _core.devices.buffer_cache_limit() == limit
    try:
        _core.devices.set_buffer_cache_limit(0)
        assert _core.devices.cached_memory_bytes() == 0
        tf.constant(np.ones(1024, np.float32))
        assert _core.devices.cached_memory_bytes() == 0
    finally:
        _core.devices.set_buffer_cache_limit(limit)
