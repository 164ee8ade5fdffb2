"""Runs benchmarks/bench_sim_estimate.py once with --tiny so the benchmark never rots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_sim_estimate_tiny_prints_every_case():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_sim_estimate.py"), "--tiny"],
                         capture_output=True, text=True, env=env, timeout=120, check=True).stdout
    results = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r["case"] for r in results] == ["every_collective_x18", "group_by_coordinates", "step_timeline_2_layers",
                                               "recorded_step_what_if_2_layers"]
    for r in results:
        assert r["slice"] == "v4-32" and r["devices"] == 16
        assert r["median_s"] > 0 and r["baseline_topology_s"] > 0 and r["under_1s"]
