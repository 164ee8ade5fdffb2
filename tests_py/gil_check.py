"""Whether a kernel call releases the GIL: run it in a thread while this thread keeps stamping the clock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _one_attempt(fn: Callable[[], Any]) -> tuple[float, int, float]:
    stamps: list[float] = []
    done = threading.Event()
    span = [0.0, 0.0]  # the call's start and end, read in the other thread

    def work() -> None:
        span[0] = time.perf_counter()
        fn()
        span[1] = time.perf_counter()
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
    thread.join()
    # Only stamps inside the call count, and its two ends bound the gaps: a thread that takes the GIL as it starts
    # and holds it through the kernel leaves no stamp inside, so its gap is the whole call.
    inside = [t for t in stamps if span[0] < t < span[1]]
    gaps = np.diff([span[0], *inside, span[1]])
    return span[1] - span[0], len(inside), float(gaps.max())


def stall_during(fn: Callable[[], Any], attempts: int = 3) -> tuple[float, int, float]:
    """(time of the fn() call in the other thread, number of this thread's clock stamps inside it, longest gap
    between them, the call's ends included), for the attempt whose longest gap is the smallest part of its call.
    With the GIL held through the kernel the longest gap is the whole call in every attempt; with it released, gaps
    come only from the OS scheduler, and on a loaded machine one attempt of a few usually shows that."""
    fn()  # warm up: first-call allocations and pool start-up are not the kernel
    results = [_one_attempt(fn) for _ in range(attempts)]
    return min(results, key=lambda r: r[2] / max(r[0], 1e-9))
