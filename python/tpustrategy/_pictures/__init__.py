"""Pictures of the simulated slice and of distributed values, for terminals (text) and Jupyter (HTML).

Private: the public objects (Topology, DeviceAssignment, ShardedTensor, strategies, PerReplica values,
distributed datasets, ``experimental.memory_report()``) call these from ``__repr__`` / ``_repr_html_``.
Every HTML picture carries a legend (``class="tps-legend"``) that says what its colours mean.
"""
