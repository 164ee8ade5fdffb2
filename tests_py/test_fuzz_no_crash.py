"""Malformed input never crashes the interpreter: every public op, fed random junk, raises a typed error.

The fuzz loop runs in a child process so that a crash (segfault, abort) fails this test instead of
killing the whole pytest run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

FUZZ_PROGRAM = textwrap.dedent(
    """
    import inspect, random
    import numpy as np
    import tpustrategy as tps

    rng = random.Random(1234)
    junk = [
        None, 0, -1, 2**40, -(2**70), 1.5, float("nan"), float("inf"), True, "abc", b"xy", [], [[]], [1, [2]],
        [[1, 2], [3]], (), {}, {"a": 1}, object(), np.zeros((0, 3)), np.ones((2, 3), np.float32),
        np.arange(6, dtype=np.int64).reshape(3, 2), np.array([1, 2], np.uint8), np.array(["a"]),
        np.zeros((1, 0, 2), np.float16), slice(None), Ellipsis, (1, 2), [0, -5], [2**31, 1],
        tps.constant([1.0, 2.0]), tps.constant([[1, 2], [3, 4]]), tps.constant(True), tps.constant(np.zeros((0,))),
        tps.float32, tps.int64, "float32", -2**31, [2**31, 2**31], [2**62, 4],
    ]
    allowed = (TypeError, ValueError, tps.errors.OpError, IndexError, KeyError, NotImplementedError,
               OverflowError, RuntimeError, AttributeError, ZeroDivisionError)
    names = sorted(n for n in tps.__all__ if callable(getattr(tps, n)) and not inspect.isclass(getattr(tps, n)))
    names = [n for n in names if n not in ("device", "function")]
    calls = 0
    for name in names:
        fn = getattr(tps, name)
        for _ in range(120):
            args = [rng.choice(junk) for _ in range(rng.randint(0, 4))]
            try:
                fn(*args)
            except allowed:
                pass
            calls += 1
    t = tps.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    for _ in range(2000):
        key = rng.choice(junk)
        other = rng.choice(junk)
        for op in (lambda: t[key], lambda: t + other, lambda: t @ other, lambda: t ** other, lambda: other // t,
                   lambda: t < other, lambda: bool(t == other)):
            try:
                op()
            except allowed:
                pass
            calls += 1
    print("calls", calls)
    """
)


def test_random_junk_never_crashes_any_op():
    out = subprocess.run([sys.executable, "-c", FUZZ_PROGRAM], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"child died with {out.returncode}:\\n{out.stderr[-3000:]}"
    assert int(out.stdout.split()[-1]) > 10000
