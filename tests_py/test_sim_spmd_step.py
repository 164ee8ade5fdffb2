"""SPMD steps in simulated time (issue 16 with issue 13's partitioner): recorded inside ``strategy.run``, each logical
core's partitioned ops and the collectives the partitioner inserts over logical-core subgroups are timed on the
cores they ran on — the seed page's ``[1, 2, 4, 1]`` conv model shows one timeline per logical core with the halo
collective-permutes — and the report carries each core's HBM peak during the step."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core
from tpustrategy import experimental as tpx
from tpustrategy.tpu.device_assignment import DeviceAssignment

RNG = np.random.default_rng(1)
IMAGES = RNG.standard_normal((4, 8, 16, 3)).astype(np.float32)
LABELS = RNG.integers(0, 10, 4).astype(np.int32)
FILTER = (RNG.standard_normal((3, 3, 3, 8)) * 0.3).astype(np.float32)
DENSE = (RNG.standard_normal((8, 10)) * 0.3).astype(np.float32)


@pytest.fixture(autouse=True)
def _fresh_system():
    from tpustrategy.tpu import tpu_system

    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()


def _seed_conv_step():
    """The seed page's example: images split [1, 2, 4, 1] over 8 logical cores of one v3-8 replica."""
    topology = tf.tpu.experimental.initialize_tpu_system()
    da = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 2], num_replicas=1)
    strategy = tf.distribute.TPUStrategy(experimental_device_assignment=da, experimental_spmd_xla_partitioning=True)
    with strategy.scope():
        kernel, dense = tf.Variable(FILTER), tf.Variable(DENSE)

    def step(images, labels):
        images = strategy.experimental_split_to_logical_devices(images, [1, 2, 4, 1])
        with tf.GradientTape() as tape:
            features = tf.nn.relu(tf.nn.conv2d(images, kernel, strides=1, padding="SAME"))
            logits = tf.matmul(tf.reduce_mean(features, axis=[1, 2]), dense)
            logits = strategy.experimental_replicate_to_logical_devices(logits)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        return (loss, *tape.gradient(loss, [kernel, dense]))

    with tpx.record_step("seed") as rec:
        strategy.run(step, args=(tf.constant(IMAGES), tf.constant(LABELS)))
    return rec.record, da


def test_seed_conv_model_is_recorded_per_logical_core_with_its_halo_permutes():
    record, _ = _seed_conv_step()
    assert record.num_replicas == 1
    assert record.logical_cores_per_replica == 8
    convolutions = [e for e in record.events if not e.collective and e.name == "convolution"]
    # The forward convolution runs on each of the 8 logical cores on its 1/8 of the images, with its own FLOPs.
    assert sorted({e.slot for e in convolutions}) == [(0, k) for k in range(8)]
    forward = [e for e in convolutions if e.output_shapes and list(e.output_shapes[0]) == [4, 4, 4, 8]]
    assert len(forward) == 8 and all(e.unit == "mxu" and e.flops > 0 for e in forward)
    permutes = [e for e in record.events if e.collective and e.name == "collective_permute"]
    assert len(permutes) >= 4 and all(e.spmd for e in permutes)
    # The first halo goes from the top tile to the bottom one: logical cores 0..3 -> 4..7 of replica 0.
    assert permutes[0].group == [(0, k) for k in range(8)]
    # Every collective's members are logical cores of replica 0: none is attributed to other replicas any more.
    for e in record.events:
        if e.collective:
            assert {r for r, _ in e.group} == {0}, e
    # The partitioner's plan and the record agree on the inserted collectives.
    plan_collectives = [c for c in tpx.spmd_plan().collectives() if c.name != "collective-permute" or
                        any(s != t for s, t in c.pairs)]
    spmd_events = [e for e in record.events if e.collective and e.spmd]
    assert len(spmd_events) >= len([c for c in plan_collectives if c.pairs or any(len(g) > 1 for g in c.groups)])


def test_seed_conv_model_timeline_has_one_track_per_logical_core():
    record, da = _seed_conv_step()
    report = tpx.estimate_step(record, device_assignment=da, keep_timeline=True)
    assert report.num_replicas == 1 and report.cores_per_replica == 8 and report.num_cores == 8
    per_core: dict[int, list[str]] = {}
    for event, core, start, end in report.timeline:
        assert end >= start >= 0
        per_core.setdefault(core, []).append(record.events[event].name)
    assert sorted(per_core) == list(range(8))
    for names in per_core.values():
        assert "convolution" in names and "collective_permute" in names
    # Every core computes and communicates; the halo permutes appear among the timed collectives.
    assert all(c > 0 for c in report.compute) and all(c > 0 for c in report.communication)
    kinds = {c.kind for c in report.collectives}
    assert "collective_permute" in kinds
    permute = next(c for c in report.collectives if c.kind == "collective_permute")
    assert permute.group_size == 8 and permute.instances == 1 and permute.seconds > 0
    # what-if: two replicas of 8 logical cores on v4-32; each replica runs its own permutes.
    bigger = report.what_if("v4-32")
    assert bigger.num_replicas == 2
    assert next(c for c in bigger.collectives if c.kind == "collective_permute").instances == 2


def test_seed_conv_model_report_has_each_cores_hbm_peak():
    record, da = _seed_conv_step()
    assert sorted(slot for slot, _, _ in record.hbm) == [(0, k) for k in range(8)]
    report = tpx.estimate_step(record, device_assignment=da)
    assert all(b is not None and b > 0 for b in report.hbm_peak)
    # Each core holds its 1/8 of the conv activations at least: 4 x 8 x 16 x 8 floats / 8.
    assert report.max_hbm_peak >= 4 * 8 * 16 * 8 * 4 // 8
    assert report.hbm_capacity == 16 << 30 and report.hbm_fits
    html = report._repr_html_()
    assert "HBM peak" in html and "of 17.18 GB per core" in html  # 16 GiB
    assert "max_hbm_peak" in repr(report)


def test_hbm_peak_per_core_during_the_step_and_what_does_not_fit():
    from distribute_helpers import tpu_v3_8

    strategy = tpu_v3_8()
    big = tf.constant(np.ones((256, 1024), np.float32))  # 1 MiB, created outside the step

    def step(x):
        y = x * 2.0  # 1 MiB more per replica while it lives
        return tf.reduce_sum(y)

    with tpx.record_step() as rec:
        strategy.run(step, args=(big,))
    slots = sorted(slot for slot, _, _ in rec.record.hbm)
    assert slots == [(r, 0) for r in range(8)]
    report = tpx.estimate_step(rec.record)
    assert all(b >= 1 << 20 for b in report.hbm_peak)
    # A hand-made record has no HBM figures.
    empty = tpx.estimate_step(_core.sim.StepRecord(), "v5e-4")
    assert empty.max_hbm_peak is None and empty.hbm_fits is None and "not recorded" in empty._repr_html_()
    # what-if on v5e: the capacity is one v5e core's; the step's few MiB fit; a peak above it is flagged.
    v5e = report.what_if("v5e-8")
    assert v5e.hbm_capacity == _core.slice.find_slice_preset("v5e-8").chip.hbm_bytes_per_device
    assert v5e.hbm_fits and v5e.hbm_peak == report.hbm_peak
    v5e.hbm_peak[3] = v5e.hbm_capacity + 1
    assert not v5e.hbm_fits and "does not fit" in v5e._repr_html_()


def test_spmd_records_added_by_hand_from_a_plan():
    _seed_conv_step()
    plan = tpx.spmd_plan()
    record = _core.sim.StepRecord()
    record.add_spmd(plan.records[0], replica=0)
    assert record.logical_cores_per_replica == 8
    assert any(e.spmd and e.name == "collective_permute" for e in record.events)
    with pytest.raises(ValueError, match="replica must be >= 0"):
        record.add_spmd(plan.records[0], replica=-1)


def test_profiler_trace_of_the_seed_model_has_a_track_per_logical_core(tmp_path):
    import gzip
    import json

    topology = tf.tpu.experimental.initialize_tpu_system()
    da = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 2], num_replicas=1)
    strategy = tf.distribute.TPUStrategy(experimental_device_assignment=da, experimental_spmd_xla_partitioning=True)
    with strategy.scope():
        kernel = tf.Variable(FILTER)

    def step(images):
        images = strategy.experimental_split_to_logical_devices(images, [1, 2, 4, 1])
        return tf.reduce_sum(tf.nn.relu(tf.nn.conv2d(images, kernel, strides=1, padding="SAME")))

    with tf.profiler.experimental.Profile(str(tmp_path)) as profile:
        with tf.profiler.experimental.Trace("train", step_num=1):
            strategy.run(step, args=(tf.constant(IMAGES),))
    with gzip.open(profile.path, "rt") as f:
        events = json.load(f)["traceEvents"]
    permutes = [e for e in events if e.get("ph") == "X" and e["name"] == "collective_permute"]
    assert {e["tid"] for e in permutes} == set(range(8))  # v3-8: one host, logical core k on TPU:k
    assert all(e["args"]["inserted_by"] == "spmd_partitioner" for e in permutes)
    assert permutes[0]["args"]["group_logical_cores"] == str(list(range(8)))
    convolutions = [e for e in events if e.get("ph") == "X" and e["name"] == "convolution"]
    assert {e["args"]["logical_core"] for e in convolutions} == set(range(8))
