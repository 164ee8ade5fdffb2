"""tf.profiler.experimental over the simulated slice: start / stop / Trace / Profile.

While the profiler runs, every op and collective the program runs is recorded per replica and logical core
(tpustrategy.experimental.record_step's recorder). stop() estimates the recorded steps on the active slice with the
cost model and writes a Chrome / Perfetto trace, ``<logdir>/plugins/profile/<run>/<host>.trace.json.gz`` (one
process per simulated host, one track per simulated TPU core, each op and collective with its shapes, bytes, FLOPs,
group and simulated duration). Open it in https://ui.perfetto.dev or chrome://tracing.

Steps: each outermost ``Trace(name, step_num=...)`` delimits one step; what runs outside any Trace between two of
them forms an unnamed step. Steps are laid end to end in simulated time. stop() returns None as in TF;
``last_trace_path()`` (not in TF) and ``Profile.path`` give the file written.
"""

from __future__ import annotations

from tpustrategy.profiler.experimental._profiler import (
    Profile,
    ProfilerOptions,
    Trace,
    last_trace_path,
    start,
    stop,
)

__all__ = ["Profile", "ProfilerOptions", "Trace", "last_trace_path", "start", "stop"]
