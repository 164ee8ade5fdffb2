"""Small types (InputContext, ValueContext, options, ReduceOp), nest, and the benchmark smoke run."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tpustrategy as tf

ds = tf.distribute


def test_case_d_input_context():
    context = ds.InputContext(num_replicas_in_sync=4)
    assert context.get_per_replica_batch_size(16) == 4
    with pytest.raises(ValueError):
        context.get_per_replica_batch_size(10)
    two_hosts = [ds.InputContext(2, i, 8) for i in range(2)]
    assert [(c.num_input_pipelines, c.input_pipeline_id, c.num_replicas_in_sync) for c in two_hosts] == [
        (2, 0, 8), (2, 1, 8)]
    assert str(two_hosts[1]).endswith("InputContext(input pipeline id 1, total: 2)")
    default = ds.InputContext()
    assert (default.num_input_pipelines, default.input_pipeline_id, default.num_replicas_in_sync) == (1, 0, 1)


def test_options_and_enums():
    assert ds.RunOptions() == (True, False, None)
    options = ds.InputOptions()
    assert options.experimental_replication_mode is ds.InputReplicationMode.PER_WORKER
    assert options.experimental_per_replica_buffer_size == 1
    assert options.experimental_fetch_to_device is True  # TF resolves None to True
    assert options.experimental_place_dataset_on_device is False
    assert ds.ReduceOp("SUM") is ds.ReduceOp.SUM and ds.ReduceOp.MEAN.value == "MEAN"
    context = ds.ValueContext()
    assert (context.replica_id_in_sync_group, context.num_replicas_in_sync) == (0, 1)


def test_nest_round_trips():
    Point = collections.namedtuple("Point", ["x", "y"])
    structure = {"b": [1, (2, 3)], "a": Point(4, None)}
    flat = tf.nest.flatten(structure)
    assert flat == [4, None, 1, 2, 3]  # dict keys sorted
    rebuilt = tf.nest.pack_sequence_as(structure, [x * 10 if x else x for x in flat])
    assert rebuilt == {"b": [10, (20, 30)], "a": Point(40, None)} and list(rebuilt) == ["b", "a"]
    assert tf.nest.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)]) == [11, (22,)]
    with pytest.raises(ValueError):
        tf.nest.map_structure(lambda a, b: a, [1], [1, 2])
    with pytest.raises(ValueError):
        tf.nest.pack_sequence_as([1, 2], [1])


def test_benchmark_tiny_smoke():
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root / "python"))
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_run_overhead.py"), "--tiny"],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["replicas"] == 8 and result["tpustrategy"]["trivial_us"] > 0
