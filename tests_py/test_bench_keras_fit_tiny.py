"""Runs benchmarks/bench_keras_fit.py once with --tiny so the benchmark never rots (the CNN when this
build has tf.nn.conv2d, else its Dense variant)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tpustrategy as tf

ROOT = Path(__file__).resolve().parents[1]


def test_bench_keras_fit_tiny_prints_json_results():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    model = "cnn" if hasattr(tf.nn, "conv2d") else "mlp"
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_keras_fit.py"), "--tiny", "--model", model],
                         capture_output=True, text=True, env=env, timeout=300, check=True).stdout
    result = [json.loads(line) for line in out.splitlines() if line.startswith("{")][-1]
    assert result["bench"] == "keras_fit" and result["replicas"] == 8 and result["model"] == model
    assert result["tpustrategy_examples_per_s"] > 0 and result["tpustrategy_final_loss"] > 0
