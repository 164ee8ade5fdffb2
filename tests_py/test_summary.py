"""tf.summary: event files read back with TensorBoard's own readers (the `tensorboard` package)."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator, event_file_loader
from tensorboard.util import tensor_util

import tpustrategy as tf


def _events(logdir):
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    return list(event_file_loader.EventFileLoader(path).Load())


def _values(logdir):
    return [(e.step, v) for e in _events(logdir) for v in e.summary.value]


def test_file_name_and_version_event(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))
    writer.close()
    (path,) = glob.glob(str(tmp_path / "logs" / "*"))
    name = os.path.basename(path)
    parts = name.split(".")
    assert name.startswith("events.out.tfevents.") and name.endswith(".v2")
    assert len(parts[3]) == 10 and parts[3].isdigit() and str(os.getpid()) in parts
    (event,) = _events(str(tmp_path / "logs"))
    assert event.file_version == "brain.Event:2" and event.wall_time > 0
    assert event.source_metadata.writer == "tensorflow.core.util.events_writer"


def test_scalar_round_trip_through_event_accumulator(tmp_path):
    logdir = str(tmp_path)
    writer = tf.summary.create_file_writer(logdir)
    with writer.as_default():
        for step in range(3):
            assert bool(tf.summary.scalar("loss", 1.0 / (step + 1), step=step).numpy())
    writer.close()
    acc = event_accumulator.EventAccumulator(logdir, size_guidance={event_accumulator.TENSORS: 0})
    acc.Reload()
    assert acc.Tags()["tensors"] == ["loss"]
    events = acc.Tensors("loss")
    assert [e.step for e in events] == [0, 1, 2]
    np.testing.assert_allclose([tensor_util.make_ndarray(e.tensor_proto) for e in events], [1.0, 0.5, 1 / 3],
                               rtol=1e-6)
    assert acc.SummaryMetadata("loss").plugin_data.plugin_name == "scalars"
    assert events[0].tensor_proto.dtype == 1  # DT_FLOAT


def test_histogram_buckets_match_tensorflow(tmp_path):
    # Values written by TF 2.21 + TensorBoard 2.21 for the same calls.
    with tf.summary.create_file_writer(str(tmp_path)).as_default(step=3):
        tf.summary.histogram("h", np.array([1.0, 2.0, 2.0, 5.0, 7.0]), buckets=4)
        tf.summary.histogram("same", np.array([3.0, 3.0]), buckets=3)
        tf.summary.histogram("empty", np.array([]), buckets=3)
        tf.summary.histogram("default", np.arange(100.0))
    values = {v.tag: (step, v) for step, v in _values(str(tmp_path))}
    assert values["h"][0] == 3
    h = tensor_util.make_ndarray(values["h"][1].tensor)
    np.testing.assert_array_equal(h, [[1, 2.5, 3], [2.5, 4, 0], [4, 5.5, 1], [5.5, 7, 1]])
    assert h.dtype == np.float64 and values["h"][1].metadata.plugin_data.plugin_name == "histograms"
    np.testing.assert_array_equal(tensor_util.make_ndarray(values["same"][1].tensor), [[3, 3, 0], [3, 3, 0], [3, 3, 2]])
    np.testing.assert_array_equal(tensor_util.make_ndarray(values["empty"][1].tensor), np.zeros((3, 3)))
    default = tensor_util.make_ndarray(values["default"][1].tensor)
    assert default.shape == (30, 3) and default[:, 2].sum() == 100 and default[-1, 1] == 99


def test_text_and_image(tmp_path):
    with tf.summary.create_file_writer(str(tmp_path)).as_default(step=1):
        tf.summary.text("note", "hello **world**")
        tf.summary.image("img", np.linspace(0, 1, 2 * 3 * 4 * 3).reshape(2, 3, 4, 3), max_outputs=1)
    values = {v.tag: v for _, v in _values(str(tmp_path))}
    assert tensor_util.make_ndarray(values["note"].tensor) == b"hello **world**"
    assert values["note"].metadata.plugin_data.plugin_name == "text"
    img = tensor_util.make_ndarray(values["img"].tensor)
    assert img.shape == (3,) and img[0] == b"4" and img[1] == b"3" and img[2].startswith(b"\x89PNG")
    # TensorBoard's image plugin decodes the PNG with its own decoder only in the server; decode here with zlib.
    import zlib

    png = img[2]
    idat = png[png.index(b"IDAT") + 4:png.index(b"IEND") - 8]
    rows = zlib.decompress(idat)
    expected = np.clip(np.linspace(0, 1, 72).reshape(2, 3, 4, 3)[0] * 255.5, 0, 255).astype(np.uint8)
    assert rows == b"".join(b"\x00" + expected[y].tobytes() for y in range(3))


def test_name_scope_prefixes_the_tag_and_invalid_characters_are_replaced(tmp_path):
    with tf.summary.create_file_writer(str(tmp_path)).as_default(step=0):
        with tf.name_scope("train"):
            tf.summary.scalar("loss rate", 1.0)
    assert [v.tag for _, v in _values(str(tmp_path))] == ["train/loss_rate"]


def test_step_resolution(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    assert tf.summary.experimental.get_step() is None
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("x", 1.0)
        step = tf.Variable(7, dtype=tf.int64)
        tf.summary.experimental.set_step(step)
        tf.summary.scalar("x", 1.0)
        step.assign(8)
        tf.summary.scalar("x", 2.0)
        tf.summary.scalar("x", 3.0, step=100)
    assert tf.summary.experimental.get_step() is None  # as_default restores the step it found, as TF
    tf.summary.experimental.set_step(step)
    with writer.as_default(step=5):
        assert tf.summary.experimental.get_step() == 5
    assert tf.summary.experimental.get_step() is step
    tf.summary.experimental.set_step(None)
    writer.close()
    assert [s for s, _ in _values(str(tmp_path))] == [7, 8, 100]


def test_without_writer_and_record_if(tmp_path):
    assert not bool(tf.summary.scalar("x", 1.0, step=0).numpy())
    assert not bool(tf.summary.should_record_summaries().numpy())
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        assert bool(tf.summary.should_record_summaries().numpy())
        with tf.summary.record_if(False):
            assert not bool(tf.summary.scalar("off", 1.0).numpy())
            assert not bool(tf.summary.should_record_summaries().numpy())
        with tf.summary.record_if(lambda: True):
            tf.summary.scalar("on", 1.0)
        with tf.summary.create_noop_writer().as_default():
            tf.summary.scalar("still_file_writer", 1.0)
    writer.close()
    assert [v.tag for _, v in _values(str(tmp_path))] == ["on", "still_file_writer"]


def test_set_as_default_and_closed_writer(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    writer.set_as_default(step=2)
    tf.summary.scalar("a", 1.0)
    tf.summary.flush()
    assert [(s, v.tag) for s, v in _values(str(tmp_path))] == [(2, "a")]
    writer.close()
    writer.close()
    with pytest.raises(RuntimeError, match="already closed"):
        with writer.as_default():
            pass
    assert not bool(tf.summary.scalar("b", 1.0).numpy())  # close() cleared the default
    tf.summary.experimental.set_step(None)


def test_max_queue_controls_when_events_reach_the_file(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path), max_queue=3, flush_millis=10**9)
    with writer.as_default(step=0):
        tf.summary.scalar("a", 1.0)
        tf.summary.scalar("b", 1.0)
        assert len(_events(str(tmp_path))) == 1  # only the file_version event is on disk
        tf.summary.scalar("c", 1.0)
        assert len(_events(str(tmp_path))) == 4
        tf.summary.scalar("d", 1.0)
    assert len(_events(str(tmp_path))) == 5  # as_default flushes on exit
    writer.close()


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="cannot be None"):
        tf.summary.create_file_writer(None)
    (tmp_path / "file").write_text("x")
    with pytest.raises((FileExistsError, NotADirectoryError)):
        tf.summary.create_file_writer(str(tmp_path / "file"))
    with tf.summary.create_file_writer(str(tmp_path / "d")).as_default(step=0):
        with pytest.raises(ValueError, match="scalar shape"):
            tf.summary.scalar("v", [1.0, 2.0])
        with pytest.raises(TypeError, match="string"):
            tf.summary.text("t", 3.0)
        with pytest.raises(ValueError, match="shape"):
            tf.summary.image("i", np.zeros((2, 2)))
        with pytest.raises(ValueError, match="step must be"):
            tf.summary.scalar("v", 1.0, step="seven")


@pytest.mark.parametrize("strategy_name", ["mirrored", "tpu"])
def test_only_replica_zero_writes_under_a_strategy(tmp_path, strategy_name):
    if strategy_name == "mirrored":
        strategy = tf.distribute.MirroredStrategy([f"/gpu:{i}" for i in range(4)])
    else:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
        tf.tpu.experimental.initialize_tpu_system(resolver)
        strategy = tf.distribute.TPUStrategy(resolver)
    writer = tf.summary.create_file_writer(str(tmp_path))

    def step_fn(x):
        ctx = tf.distribute.get_replica_context()
        recorded = tf.summary.scalar("replica_value", x, step=0)
        return tf.cast(recorded, tf.int32) + 0 * ctx.replica_id_in_sync_group

    with writer.as_default():
        per_replica = strategy.run(step_fn, args=(tf.constant(2.0),))
        with strategy.scope():
            tf.summary.scalar("cross_replica", 1.0, step=1)
    writer.close()
    flags = [int(np.asarray(v)) for v in strategy.experimental_local_results(per_replica)]
    assert flags[0] == 1 and sum(flags) == 1 and len(flags) == strategy.num_replicas_in_sync
    assert [v.tag for _, v in _values(str(tmp_path))] == ["replica_value", "cross_replica"]
