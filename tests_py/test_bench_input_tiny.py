"""benchmarks/bench_input_pipeline.py runs once, tiny, so that it never rots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_input_pipeline_benchmark_tiny():
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root / "python"))
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_input_pipeline.py"), "--tiny"],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["benchmark"] == "input_pipeline" and result["replicas"] == 8
    assert result["tpustrategy_rows_per_s"] > 0 and result["numpy_rows_per_s"] > 0
