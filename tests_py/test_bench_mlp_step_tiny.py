"""benchmarks/bench_mlp_step.py runs once, tiny (tpustrategy and numpy sides, forward + backward), so that it never
rots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_mlp_step_benchmark_tiny():
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root / "python"))
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_mlp_step.py"), "--tiny"],
                         capture_output=True, text=True, env=env, timeout=300, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["benchmark"] == "mlp_step" and result["replicas"] == 8
    assert set(result["median_step_s"]) == {"tps", "numpy"}
    assert result["median_step_s"]["tps"] > 0 and result["speedup_of_tps"]["numpy"] > 0
    assert set(result["cpu_s_per_step"]) == {"tps", "numpy"} and result["cpu_s_per_step"]["tps"] > 0
    # The sides' all-reduced gradients were compared (the bench asserts <= 1e-4 of max |g| itself).
    assert 0 <= result["max_gradient_gap"] <= 1e-4
    summary = [line for line in out.stdout.splitlines() if line.startswith("summary mlp_step ")]
    assert len(summary) == 1 and "numpy" in summary[0] and "tf skipped" in summary[0] and "| load " in summary[0]
    # The GEMM floor: every side timed its own matmul on the step's GEMM shapes, and the verdict compares the lowest
    # floor with 1.2x faster than numpy's step (the stand-in for TF / JAX without the reference venv).
    assert set(result["gemm_floor_s"]) == {"tps", "numpy"} and min(result["gemm_floor_s"].values()) > 0
    assert result["step_gemm_flops"] == 8 * 5 * 2 * 16 * 32 * 32
    allowed = result["median_step_s"]["numpy"] / 1.2
    assert abs(result["target_step_s"] - allowed) <= 1e-12
    assert result["target_above_gemm_floor"] == (min(result["gemm_floor_s"].values()) <= allowed)
    assert any(line.startswith("gemm floor: 1.2x faster than numpy") for line in out.stdout.splitlines())
    # The step floor adds the least step time beyond a side's own GEMM floor.
    steps, floors = result["median_step_s"], result["gemm_floor_s"]
    rest = max(0.0, min(steps[s] - floors[s] for s in steps))
    assert abs(result["step_floor_s"] - (min(floors.values()) + rest)) <= 1e-12
    assert result["target_above_step_floor"] == (result["step_floor_s"] <= allowed)
    assert any(line.startswith("step floor: ") for line in out.stdout.splitlines())
