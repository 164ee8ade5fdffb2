"""Recorded steps and their report (issue 16): record_step around strategy.run records every op per replica and
every collective with its group; estimate_step / StepReport on the active slice and what_if on other presets."""

from __future__ import annotations

import time

import numpy as np
import pytest
from distribute_helpers import tpu_v3_8

import tpustrategy as tf
from tpustrategy import _core, errors
from tpustrategy import experimental as tpx


def _mlp_step(strategy, width=64):
    w = tf.constant(np.ones((width, width), np.float32) / width)

    def step(x):
        h = tf.nn.relu(tf.matmul(x, w))
        y = tf.matmul(h, w)
        grads = tf.distribute.get_replica_context().all_reduce("sum", y)
        return tf.reduce_sum(grads)

    x = tf.constant(np.ones((32, width), np.float32))
    return strategy.run(step, args=(x,))


def test_record_step_records_ops_per_replica_and_collectives_with_groups():
    strategy = tpu_v3_8()
    with tpx.record_step("train", step_num=3) as rec:
        _mlp_step(strategy)
    record = rec.record
    assert record.name == "train" and record.step_num == 3
    assert record.num_replicas == 8
    events = record.events
    matmuls = [e for e in events if not e.collective and e.name == "BatchMatMulV2"]
    assert sorted({e.slot[0] for e in matmuls}) == list(range(8))
    assert len(matmuls) == 16  # two per replica
    m = matmuls[0]
    assert [list(s) for s in m.input_shapes] == [[32, 64], [64, 64]] and m.unit == "mxu"
    assert m.flops == 2 * 32 * 64 * 64
    collectives = [e for e in events if e.collective]
    assert len(collectives) == 1
    c = collectives[0]
    assert c.name == "all_reduce" and sorted(r for r, _ in c.group) == list(range(8))
    assert c.bytes == 32 * 64 * 4 and c.count == 32 * 64
    # Nothing is recorded outside the context.
    _mlp_step(strategy)
    assert _core.sim.record_num_events() == 0 and not _core.sim.record_active()


def test_group_assignment_records_each_subgroup_with_its_replicas():
    strategy = tpu_v3_8()

    def step():
        ctx = tf.distribute.get_replica_context()
        return tf.tpu.cross_replica_sum(tf.ones([4]) * float(ctx.replica_id_in_sync_group),
                                        group_assignment=[[0, 2, 4, 6], [1, 3, 5, 7]])

    with tpx.record_step() as rec:
        strategy.run(step)
    groups = sorted(sorted(r for r, _ in e.group) for e in rec.record.events if e.collective)
    assert groups == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_estimate_step_report_on_the_active_slice():
    strategy = tpu_v3_8()
    with tpx.record_step() as rec:
        _mlp_step(strategy)
    report = tpx.estimate_step(rec.record)
    assert report.slice == "v3-8" and report.num_cores == 8 and report.num_replicas == 8
    assert report.step_time > 0
    for core in range(8):
        assert report.compute[core] + report.communication[core] + report.idle[core] == pytest.approx(
            report.step_time)
    assert report.compute_share + report.communication_share + report.idle_share == pytest.approx(1.0)
    top = report.top_ops(2)
    assert top[0].name == "BatchMatMulV2" and top[0].count == 16
    assert top[0].seconds >= top[1].seconds
    (c,) = report.top_collectives()
    assert c.kind == "all_reduce" and c.group_size == 8
    # nccl-tests: algbw = bytes / time, busbw = algbw x 2 (n - 1) / n.
    assert c.algbw == pytest.approx(c.bytes / c.seconds)
    assert c.busbw == pytest.approx(c.algbw * 2 * 7 / 8)
    # The same figure as the collective estimate of the whole slice.
    assert c.seconds == pytest.approx(tpx.estimate_collective_time("all_reduce", c.bytes, slice="v3-8"))
    html = report._repr_html_()
    assert "Simulated step" in html and "BatchMatMulV2" in html and "busbw" in html and "<svg" in html
    assert "v3-8" in repr(report)


def test_what_if_on_other_presets_without_rerunning():
    strategy = tpu_v3_8()
    with tpx.record_step() as rec:
        _mlp_step(strategy, width=256)
    base = tpx.estimate_step(rec.record)
    v4 = base.what_if("v4-128")
    v5e = base.what_if("v5e-256")
    assert (v4.num_replicas, v5e.num_replicas) == (64, 256)
    assert v4.top_collectives()[0].group_size == 64 and v5e.top_collectives()[0].group_size == 256
    # Same per-replica work: the matmul time per instance follows the chips' peaks (v4 275 vs v5e 197 TFLOP/s).
    per_v4 = v4.top_ops(1)[0].seconds / v4.top_ops(1)[0].count
    per_v5e = v5e.top_ops(1)[0].seconds / v5e.top_ops(1)[0].count
    assert per_v5e > per_v4
    assert base.record is v4.record  # nothing re-ran
    fewer = base.what_if("v4-128", num_replicas=16)
    assert fewer.num_replicas == 16 and fewer.top_collectives()[0].group_size == 16
    with pytest.raises(ValueError, match="do not fit"):
        base.what_if("v5e-4", num_replicas=8)
    with pytest.raises(ValueError, match="unknown TPU slice"):
        base.what_if("v9-8")


def test_estimate_step_with_a_device_assignment_places_replicas():
    topology = tf.tpu.experimental.initialize_tpu_system()
    da = tf.tpu.experimental.DeviceAssignment.build(topology, num_replicas=8)
    record = tpx.StepRecord()
    record.add_op("BatchMatMulV2", [[128, 128], [128, 128]], [[128, 128]], replica=0)
    report = tpx.estimate_step(record, device_assignment=da, keep_timeline=True)
    (event, core, start, end) = report.timeline[0]
    coords = da.coordinates(0, 0)
    expected = (topology.task_ordinal_at_coordinates(coords) * topology.num_tpus_per_task
                + topology.tpu_device_ordinal_at_coordinates(coords))
    assert core == expected and end > start


def test_hand_built_records_and_bad_input():
    record = tpx.StepRecord(name="by hand")
    record.add_op("BatchMatMulV2", [[8, 16], [16, 4]], [[8, 4]], dtype="bfloat16", replica=1)
    record.add_collective("all_gather", [(0, 0), (1, 0)], 100, dtype="bfloat16")
    assert record.num_replicas == 2 and record.events[0].flops == 2 * 8 * 4 * 16
    assert record.events[1].bytes == 2 * 100 * 2
    with pytest.raises(ValueError, match="unknown collective"):
        record.add_collective("all_sum", [(0, 0)], 1)
    with pytest.raises(ValueError, match="empty group"):
        record.add_collective("all_reduce", [], 1)
    with pytest.raises(TypeError, match="StepRecord"):
        tpx.estimate_step("not a record")
    assert record.num_events == 2  # unchanged by the failed calls
    with pytest.raises(TypeError, match="estimate_step"):
        tpx.StepReport(record, "garbage", tpx.CostParams.calibrated())


def test_record_step_refuses_a_second_recording():
    with tpx.record_step():
        with pytest.raises(errors.FailedPreconditionError):
            with tpx.record_step():
                pass
    assert not _core.sim.record_active()


def test_estimating_on_a_4096_chip_preset_takes_under_a_second():
    strategy = tpu_v3_8()
    with tpx.record_step() as rec:
        for _ in range(5):
            _mlp_step(strategy)
    start = time.perf_counter()
    report = tpx.estimate_step(rec.record, "v4-8192")
    elapsed = time.perf_counter() - start
    assert report.num_replicas == 4096 and report.top_collectives()[0].group_size == 4096
    assert elapsed < 1.0
