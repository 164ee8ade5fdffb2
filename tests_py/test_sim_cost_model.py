"""tpustrategy.experimental's cost model (issue 16): estimates on slice presets, the anchors through the Python
surface, the new presets, bad input, and the 4096-chip timing."""

from __future__ import annotations

import time

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core
from tpustrategy import experimental as tpx


def test_public_names():
    assert tf.experimental is tpx
    memory = {"CoreMemory", "MemoryReport", "memory_report"}  # tpx.memory_report (tests_py/test_pictures.py)
    # tests_py/test_spmd_*.py
    spmd = {"SpmdPlan", "spmd_plan", "get_windowed_einsum_threshold_mib", "set_windowed_einsum_threshold_mib"}
    assert set(tpx.__all__) - memory - spmd == {
        "CollectiveEstimate", "CollectiveTime", "CostParams", "OpTime", "StepRecord", "StepReport", "StepTimeline",
        "estimate_collective", "estimate_collective_time", "estimate_op_time", "estimate_step", "record_step",
        "slice_bandwidths"}


def test_scaling_book_v5e_all_gather_anchor():
    # "How to Scale Your Model" part 3, pop quiz 2: v5e mesh {X: 8, Y: 4}; AllGather over the 4-axis (v5e-32 is
    # 4x8 here, so its x axis) of bf16[2048, 8192] measured 680 us; bf16[256, 256] ~8 us.
    big = tpx.estimate_collective("all_gather", 2048 * 8192 * 2, slice="v5e-32", axes="x")
    assert big.group_size == 4 and big.hops == 3 and not big.latency_bound
    assert abs(big.seconds - 680e-6) / 680e-6 < 0.10
    small = tpx.estimate_collective("all_gather", 256 * 256 * 2, slice="v5e-32", axes="x")
    assert small.latency_bound
    assert abs(small.seconds - 8e-6) / 8e-6 < 0.10


def test_pod_bandwidths_match_the_cloud_pages():
    # cloud.google.com/tpu/docs/{v4,v5e,v6e}: all-reduce and bisection bandwidth per pod.
    for name, all_reduce, bisection in [("v4-8192", 1.1e15, 24e12), ("v5e-256", 51.2e12, 1.6e12),
                                        ("v6e-256", 102.4e12, 3.2e12)]:
        figures = tpx.slice_bandwidths(name)
        assert abs(figures["all_reduce"] - all_reduce) / all_reduce < 0.10, name
        assert abs(figures["bisection"] - bisection) / bisection < 0.10, name


def test_wraparound_halves_the_time_and_default_axes_cover_the_slice():
    ring = tpx.estimate_collective("all_gather", 1e9, slice="v5p-128", axes="z")   # one whole cube: wraps
    line = tpx.estimate_collective("all_gather", 1e9, slice="v5p-64", axes="z")    # 2x4x4: no wraparound
    assert line.bandwidth_seconds == pytest.approx(2 * ring.bandwidth_seconds)
    everything = tpx.estimate_collective("all_reduce", 1e6, slice="v3-32")
    assert everything.group_size == 32  # 4 x 4 chips x 2 cores
    # nccl-tests: busbw = algbw x 2(n-1)/n for all-reduce.
    assert everything.busbw == pytest.approx(everything.algbw * 2 * 31 / 32)
    # The active slice is the default.
    assert tpx.estimate_collective("all_reduce", 1e6).group_size == 8  # v3-8


def test_group_coordinates():
    row = [[x, 1, 0, 0] for x in range(16)]
    ring = tpx.estimate_collective("all_gather", 1e8, slice="v6e-256", group=row)
    line = tpx.estimate_collective("all_gather", 1e8, slice="v6e-128", group=[[x, 1, 0, 0] for x in range(8)])
    assert ring.group_size == 16 and ring.hops == 8
    assert line.hops == 7


def test_op_time_roofline():
    n = 8192
    t = tpx.estimate_op_time(2 * n**3, 3 * n * n * 2, slice="v6e-8", params=tpx.CostParams.nominal())
    assert t == pytest.approx(2 * n**3 / 918e12)
    int8 = tpx.estimate_op_time(2 * n**3, 3 * n * n, dtype="int8", generation="v6e", params=tpx.CostParams.nominal())
    assert int8 == pytest.approx(t / 2)
    add = tpx.estimate_op_time(bytes=3 * 4e6, unit="vector", generation="v3")
    assert add == pytest.approx(12e6 / 450e9 + 1e-6)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: tpx.estimate_collective_time("all_sum", 1, slice="v4-8"), "all_sum"),
        (lambda: tpx.estimate_collective_time("all_reduce", -1, slice="v4-8"), "-1"),
        (lambda: tpx.estimate_collective_time("all_reduce", 1, slice="v9-8"), "v9-8"),
        (lambda: tpx.estimate_collective_time("all_reduce", 1, slice="v4-8", axes="xq"), "xq"),
        (lambda: tpx.estimate_collective_time("all_reduce", 1, slice="v4-8", group=[[5, 0, 0, 0]]), "outside"),
        (lambda: tpx.estimate_collective_time("all_reduce", 1, slice="v4-8", axes="x", group=[[0, 0, 0, 0]]),
         "not both"),
        (lambda: tpx.estimate_op_time(1, 1, dtype="complex64", generation="v4"), "complex64"),
        (lambda: tpx.estimate_op_time(1, 1, unit="gpu", generation="v4"), "gpu"),
        (lambda: tpx.estimate_op_time(float("nan"), 1, generation="v4"), "nan"),
        (lambda: tpx.CostParams(ici_efficiency=0), "ici_efficiency"),
    ],
)
def test_bad_input_is_a_value_error(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


def test_new_presets_and_chip_figures():
    names = {p.name for p in _core.slice.slice_presets()}
    assert {"v5p-8", "v5p-12288", "v5p-17920", "v6e-1", "v6e-256", "v4-8192", "v5e-256"} <= names
    pod = _core.slice.find_slice_preset("v5p-17920")
    assert (pod.num_chips, pod.num_hosts, list(pod.mesh_shape)) == (8960, 2240, [16, 20, 28, 1])
    assert list(pod.wraparound) == [True, True, True] and not pod.twisted
    assert _core.slice.find_slice_preset("v4-4096").twisted
    assert list(_core.slice.find_slice_preset("v5e-128").wraparound) == [False, True, False]
    v6e = _core.slice.find_slice_preset("v6e-256").chip
    assert (v6e.bf16_tflops_per_chip, v6e.int8_tops_per_chip, v6e.pcie_gbps) == (918.0, 1836.0, 32.0)
    assert [c.name for c in _core.slice.chip_specs()] == ["v2", "v3", "v4", "v5e", "v5p", "v6e"]


def test_step_timeline_from_python():
    t = tpx.StepTimeline("v5e-4", params=tpx.CostParams.nominal())
    t.add_ops(np.arange(4), np.array([1, 1, 3, 1]) * 197e9, np.zeros(4), name="matmul")
    ar = t.add_collective("grads", "all_reduce", [0, 1, 2, 3], 1e6)
    assert t.record_start(ar) == pytest.approx(3e-3)
    summary = t.summarize()
    assert summary.step_time == pytest.approx(3e-3 + 1.5e-5)
    assert [s.record for s in summary.critical_path] == [2, ar]
    with pytest.raises(ValueError, match="differ in length"):
        t.add_ops(np.arange(2), np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="twice"):
        t.add_collective("bad", "all_reduce", [1, 1], 1.0)
    assert t.num_records == 5


def test_estimating_on_a_4096_chip_slice_takes_under_a_second():
    start = time.perf_counter()
    for kind in ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "collective_permute"]:
        for axes in ["x", "xy", "xyz"]:
            assert tpx.estimate_collective_time(kind, 1 << 30, slice="v4-8192", axes=axes) > 0
    everyone = [[x, y, z, 0] for z in range(16) for y in range(16) for x in range(16)]
    assert tpx.estimate_collective("all_reduce", 1 << 30, slice="v4-8192", group=everyone).group_size == 4096
    t = tpx.StepTimeline("v4-8192")
    for _ in range(10):
        t.add_ops(np.arange(4096), np.full(4096, 1e12), np.full(4096, 1e8))
        t.add_collective("grads", "all_reduce", list(range(4096)), 1 << 28)
    assert t.summarize().step_time > 0
    assert time.perf_counter() - start < 1.0
