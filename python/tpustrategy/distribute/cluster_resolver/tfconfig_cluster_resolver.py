"""``TFConfigClusterResolver``: the cluster described by the ``TF_CONFIG`` environment variable.

``TF_CONFIG`` is JSON: ``{"cluster": {job: [addresses]}, "task": {"type": ..., "index": ...}, "rpc_layer": ...,
"session_master": ...}``. It is re-read on every call, so changing the variable changes the answers.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tpustrategy.distribute.cluster_resolver.cluster_resolver import ClusterResolver, format_master_url
from tpustrategy.train.cluster_spec import ClusterSpec

_TF_CONFIG_ENV = "TF_CONFIG"


def _load_tf_config() -> dict[str, Any]:
    config: dict[str, Any] = json.loads(os.environ.get(_TF_CONFIG_ENV) or "{}")
    return config


def _tf_config_value(key: str, default: Any = None) -> Any:
    return _load_tf_config().get(key, default)


class TFConfigClusterResolver(ClusterResolver):
    """Reads the cluster, task and rpc layer from ``TF_CONFIG``; explicit constructor arguments win."""

    def __init__(
        self,
        task_type: str | None = None,
        task_id: int | None = None,
        rpc_layer: str | None = None,
        environment: str | None = None,
    ) -> None:
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self) -> str | None:
        """The task type given or set, else ``TF_CONFIG["task"]["type"]``, else None."""
        if self._task_type is None:
            task = _tf_config_value("task", {})
            return str(task["type"]) if "type" in task else None
        return str(self._task_type)

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:
        """The task id given or set, else ``TF_CONFIG["task"]["index"]``, else None."""
        if self._task_id is None:
            task = _tf_config_value("task", {})
            return int(task["index"]) if "index" in task else None
        return int(self._task_id)

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id

    @property
    def environment(self) -> str | None:  # type: ignore[override]  # None unless given, as TF's
        """The ``environment`` given to the constructor (None if not given)."""
        return self._environment

    @property
    def rpc_layer(self) -> str | None:
        """The rpc layer given or set, else ``TF_CONFIG["rpc_layer"]``, else None."""
        return _tf_config_value("rpc_layer") if self._rpc_layer is None else self._rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: object = None) -> dict[str, int]:
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        return super().num_accelerators(task_type, task_id, config_proto)

    def cluster_spec(self) -> ClusterSpec:
        """``TF_CONFIG["cluster"]``, or an empty ClusterSpec."""
        config = _load_tf_config()
        return ClusterSpec(config["cluster"]) if "cluster" in config else ClusterSpec({})

    def master(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None) -> str:
        """``session_master`` if set; "" for an empty or one-task cluster; else the task's address.

        The task defaults to this resolver's (task_type, task_id) and the prefix to its rpc layer.
        """
        session_master = _tf_config_value("session_master")
        if session_master is not None:
            master: str = session_master
            return master
        cluster = self.cluster_spec()
        if not cluster.jobs or (len(cluster.jobs) == 1 and len(cluster.job_tasks(cluster.jobs[0])) == 1):
            return ""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        rpc_layer = self.rpc_layer if rpc_layer is None else rpc_layer
        # No task known (None): task_address raises, naming it.
        return format_master_url(cluster.task_address(task_type, task_id), rpc_layer)  # type: ignore[arg-type]
