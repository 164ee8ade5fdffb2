"""tpustrategy.profiler.experimental (issue 16): start / stop / Trace / Profile as in tf.profiler.experimental,
writing a Chrome / Perfetto trace that this test validates against the Trace Event Format."""

from __future__ import annotations

import collections
import glob
import gzip
import json
import os

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core, errors


def _strategy(tpu=""):
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return tf.distribute.TPUStrategy(resolver)


def _step(strategy):
    w = tf.constant(np.ones((16, 16), np.float32))

    def fn(x):
        y = tf.matmul(x, w)
        return tf.distribute.get_replica_context().all_reduce("sum", y)

    return strategy.run(fn, args=(tf.ones([4, 16]),))


def _load(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _validate_trace_event_format(document):
    """The Trace Event Format's JSON object form: required keys per phase, known phases, µs timestamps, metadata
    naming every process and thread used, monotonic ts per (pid, tid) track."""
    assert isinstance(document, dict) and isinstance(document["traceEvents"], list)
    named_processes, named_threads = set(), set()
    last_ts = {}
    for event in document["traceEvents"]:
        assert event["ph"] in {"X", "M"}, event
        assert isinstance(event["name"], str) and event["name"]
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int)
        if event["ph"] == "M":
            assert event["name"] in {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}
            assert isinstance(event["args"], dict)
            if event["name"] == "process_name":
                named_processes.add(event["pid"])
            if event["name"] == "thread_name":
                named_threads.add((event["pid"], event["tid"]))
            continue
        assert isinstance(event["ts"], (int, float)) and event["ts"] >= 0
        assert isinstance(event["dur"], (int, float)) and event["dur"] >= 0
        assert isinstance(event.get("args", {}), dict)
        track = (event["pid"], event["tid"])
        assert event["ts"] >= last_ts.get(track, 0), f"ts goes back on track {track}"
        last_ts[track] = event["ts"]
    assert {pid for pid, _ in last_ts} <= named_processes
    assert set(last_ts) <= named_threads
    return last_ts


def test_profile_writes_a_valid_trace_with_ops_and_collectives(tmp_path):
    strategy = _strategy()
    tf.profiler.experimental.start(str(tmp_path))
    for step in range(2):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            _step(strategy)
    assert tf.profiler.experimental.stop() is None  # as TF
    path = tf.profiler.experimental.last_trace_path()
    assert path is not None and os.path.exists(path)
    (found,) = glob.glob(str(tmp_path / "plugins" / "profile" / "*" / "*.trace.json.gz"))
    assert found == path
    document = _load(path)
    tracks = _validate_trace_event_format(document)
    events = [e for e in document["traceEvents"] if e["ph"] == "X"]
    # v3-8: one host (pid 0), eight core tracks plus the steps track.
    assert {pid for pid, _ in tracks} == {0}
    assert {tid for _, tid in tracks} >= set(range(8))
    matmuls = [e for e in events if e["name"] == "BatchMatMulV2"]
    assert len(matmuls) == 16  # 2 steps x 8 replicas
    args = matmuls[0]["args"]
    assert args["input_shapes"] == "[[4, 16], [16, 16]]" and args["flops"] == 2 * 4 * 16 * 16
    assert args["bytes"] > 0 and matmuls[0]["dur"] > 0
    collectives = [e for e in events if e["cat"] == "collective"]
    assert len(collectives) == 2 * 8  # one all-reduce per step, on each member's track
    assert collectives[0]["args"]["group_size"] == 8 and collectives[0]["args"]["busbw_GBps"] > 0
    steps = [e for e in events if e["cat"] == "step"]
    assert [s["name"] for s in steps] == ["train 0", "train 1"]
    assert steps[1]["ts"] == pytest.approx(steps[0]["ts"] + steps[0]["dur"])
    # The second step's events start after the first step ends.
    per_step = collections.Counter(e["ts"] >= steps[1]["ts"] for e in matmuls)
    assert per_step[True] == 8 and per_step[False] == 8


def test_one_process_per_host(tmp_path):
    strategy = _strategy("v4-32")  # 4 hosts of 4 chips
    with tf.profiler.experimental.Profile(str(tmp_path)) as profile:
        _step(strategy)
    document = _load(profile.path)
    tracks = _validate_trace_event_format(document)
    assert {pid for pid, _ in tracks} == {0, 1, 2, 3}
    names = {e["args"]["name"] for e in document["traceEvents"] if e["name"] == "process_name"}
    assert len(names) == 4 and all("task:" in n for n in names)


def test_errors_as_tf():
    with pytest.raises(errors.UnavailableError, match="No profiler is running"):
        tf.profiler.experimental.stop()
    tf.profiler.experimental.start("unused_logdir")
    try:
        with pytest.raises(errors.AlreadyExistsError, match="Another profiler is running"):
            tf.profiler.experimental.start("other")
    finally:
        assert tf.profiler.experimental.stop(save=False) is None
    with pytest.raises(ValueError, match="logdir"):
        tf.profiler.experimental.start("")
    with pytest.raises(TypeError, match="ProfilerOptions"):
        tf.profiler.experimental.start("x", options={"host_tracer_level": 2})
    # A Trace without a running profiler does nothing.
    with tf.profiler.experimental.Trace("idle", step_num=1):
        pass
    assert not _core.sim.record_active()


def test_profiler_options_and_untraced_runs(tmp_path):
    strategy = _strategy()
    options = tf.profiler.experimental.ProfilerOptions(host_tracer_level=3)
    tf.profiler.experimental.start(str(tmp_path), options=options)
    _step(strategy)  # outside any Trace: an unnamed step
    with tf.profiler.experimental.Trace("outer", step_num=5):
        with tf.profiler.experimental.Trace("inner"):  # nested: part of the outer step
            _step(strategy)
    tf.profiler.experimental.stop()
    path = tf.profiler.experimental.last_trace_path()
    events = [e for e in _load(path)["traceEvents"] if e["ph"] == "X" and e["cat"] == "step"]
    assert [e["name"] for e in events] == ["step", "outer 5"]
