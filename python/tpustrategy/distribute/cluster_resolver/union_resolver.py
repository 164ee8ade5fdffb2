"""``UnionResolver``: the merged cluster of several resolvers; the first one answers everything else."""

from __future__ import annotations

from typing import Any

from tpustrategy.distribute.cluster_resolver.cluster_resolver import ClusterResolver, format_master_url
from tpustrategy.train.cluster_spec import ClusterSpec


class UnionResolver(ClusterResolver):
    """Merges the cluster specs of ``*resolvers`` job by job.

    A job given as lists by every resolver is concatenated; otherwise the tasks are merged by index and a duplicate
    index raises KeyError. ``master``, ``environment``, ``num_accelerators`` and defaults for ``task_type`` /
    ``task_id`` / ``rpc_layer`` come from the first resolver.

    Raises:
      ValueError: no resolver, or unexpected keyword arguments.
      TypeError: an argument that is not a ClusterResolver.
    """

    def __init__(self, *args: ClusterResolver, **kwargs: Any) -> None:
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        for resolver in args:
            if not isinstance(resolver, ClusterResolver):
                raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._cluster_resolvers = args

    def cluster_spec(self) -> ClusterSpec:
        specs = [resolver.cluster_spec().as_dict() for resolver in self._cluster_resolvers]
        # A job stays a list only if every resolver lists it densely; one dict makes it a dict.
        merged: dict[str, Any] = {}
        for spec in specs:
            for job, tasks in spec.items():
                if job not in merged or isinstance(tasks, dict):
                    merged[job] = [] if isinstance(tasks, list) and job not in merged else {}
        for spec in specs:
            for job, tasks in spec.items():
                if isinstance(merged[job], list):
                    merged[job].extend(tasks)
                    continue
                task_dict = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                duplicates = set(task_dict) & set(merged[job])
                if duplicates:
                    raise KeyError(f"Duplicate keys detected when merging two ClusterSpecs: {duplicates!r}")
                merged[job].update(task_dict)
        return ClusterSpec(merged)

    def master(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None) -> str:
        if task_type is not None and task_id is not None:
            master = self.cluster_spec().task_address(task_type, task_id)
            return format_master_url(master, rpc_layer or self._rpc_layer)
        return self._cluster_resolvers[0].master(rpc_layer=rpc_layer)

    @property
    def task_type(self) -> str | None:
        """The task type given or set, else the first resolver's."""
        task_type: str | None = self._task_type
        return task_type if task_type is not None else self._cluster_resolvers[0].task_type

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:
        """The task id given or set, else the first resolver's."""
        task_id: int | None = self._task_id
        return task_id if task_id is not None else self._cluster_resolvers[0].task_id

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def environment(self) -> str:
        """The first resolver's environment."""
        return self._cluster_resolvers[0].environment

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: object = None) -> dict[str, int]:
        return self._cluster_resolvers[0].num_accelerators(task_type, task_id, config_proto)

    @property
    def rpc_layer(self) -> str | None:
        """The rpc layer given or set, else the first resolver's (None if it has none)."""
        rpc_layer: str | None = self._rpc_layer or getattr(self._cluster_resolvers[0], "rpc_layer", None)
        return rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer
