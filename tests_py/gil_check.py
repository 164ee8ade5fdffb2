"""Whether a kernel call releases the GIL: run it in a thread while this thread keeps stamping the clock."""

from __future__ import annotations

import threading
import time

import numpy as np


def stall_during(fn):
    """(time of one fn() call alone, number of stamps, longest gap between this thread's stamps while another
    thread ran fn()). With the GIL held for the whole kernel the longest gap is about the kernel's time."""
    start = time.perf_counter()
    fn()
    kernel = time.perf_counter() - start
    stamps, done = [], threading.Event()

    def work():
        fn()
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
    thread.join()
    gaps = np.diff(stamps) if len(stamps) > 1 else np.array([kernel])
    return kernel, len(stamps), float(gaps.max())
