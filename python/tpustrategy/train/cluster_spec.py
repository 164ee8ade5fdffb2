"""``tf.train.ClusterSpec``: job name → task index → network address."""

from __future__ import annotations

from typing import Any

from tpustrategy.train.cluster_def import ClusterDef, JobDef


def _no_such_job(job_name: object) -> ValueError:
    return ValueError(f"No such job in cluster: {job_name!r}")


class ClusterSpec:
    """A cluster as a set of jobs, each a set of tasks with addresses (mirrors ``tf.train.ClusterSpec``).

    Args:
      cluster: a dict mapping each job name to a list of addresses (task i = element i) or to a dict of
        task index → address; or another ClusterSpec (copied).

    Raises:
      TypeError: anything else, a job whose tasks are neither a list nor a dict, a job name or address that is not
        a string.
    """

    def __init__(self, cluster: Any) -> None:
        if isinstance(cluster, ClusterSpec):
            self._cluster_spec: dict[str, dict[int, str]] = {
                job: dict(tasks) for job, tasks in cluster._cluster_spec.items()}
            return
        if isinstance(cluster, ClusterDef):
            self._cluster_spec = {job.name: dict(job.tasks) for job in cluster.job}
            return
        if not isinstance(cluster, dict):
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more job names to lists of network addresses, "
                "or a `ClusterDef` protocol buffer"
            )
        self._cluster_spec = {}
        for job_name, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                job_tasks = dict(enumerate(tasks))
            elif isinstance(tasks, dict):
                job_tasks = {int(index): address for index, address in tasks.items()}
            else:
                raise TypeError(
                    f"The tasks for job {job_name!r} must be a list or a dictionary from integers to strings."
                )
            self._cluster_spec[job_name] = job_tasks
        self._validate()

    def _validate(self) -> None:
        # TF checks these while building the ClusterDef proto; bytes are decoded like protobuf string fields.
        for job_name, tasks in list(self._cluster_spec.items()):
            if isinstance(job_name, bytes):
                self._cluster_spec[job_name.decode()] = self._cluster_spec.pop(job_name)
            elif not isinstance(job_name, str):
                raise TypeError(f"Job name {job_name!r} must be bytes or unicode")
            for index, address in tasks.items():
                if isinstance(address, bytes):
                    tasks[index] = address.decode()
                elif not isinstance(address, str):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")

    def __bool__(self) -> bool:
        return bool(self._cluster_spec)

    __nonzero__ = __bool__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ClusterSpec):
            return self._cluster_spec == other._cluster_spec
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # mutable mapping semantics, like TF's

    def __repr__(self) -> str:
        as_dict = self.as_dict()
        items = ", ".join(f"{job!r}: {as_dict[job]!r}" for job in sorted(as_dict))
        return "ClusterSpec({" + items + "})"

    def as_dict(self) -> dict[str, list[str | None] | dict[int, str]]:
        """job → list of addresses when its task indices are dense (0..n-1), else job → {index: address}."""
        result: dict[str, list[str | None] | dict[int, str]] = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                result[job] = {}
            elif max(indices) + 1 == len(indices):
                result[job] = self.job_tasks(job)
            else:
                result[job] = {i: self.task_address(job, i) for i in indices}
        return result

    def as_cluster_def(self) -> ClusterDef:
        """The ``ClusterDef`` protocol buffer of this cluster (jobs sorted by name, tasks by index)."""
        return ClusterDef([JobDef(job, tasks) for job, tasks in self._cluster_spec.items()])

    @property
    def jobs(self) -> list[str]:
        """The names of the cluster's jobs."""
        return list(self._cluster_spec.keys())

    def _job(self, job_name: str) -> dict[int, str]:
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise _no_such_job(job_name) from None

    def num_tasks(self, job_name: str) -> int:
        """The number of tasks in job `job_name`.

        Raises:
          ValueError: no such job.
        """
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> list[int]:
        """The task indices of job `job_name`, ascending (a sparse job has gaps).

        Raises:
          ValueError: no such job.
        """
        return sorted(self._job(job_name).keys())

    def task_address(self, job_name: str, task_index: int) -> str:
        """The network address of task `task_index` of job `job_name`.

        Raises:
          ValueError: no such job, or no such task in it.
        """
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name: str) -> list[str | None]:
        """Addresses indexed by task; gaps in sparse jobs are None."""
        job = self._job(job_name)
        tasks: list[str | None] = [None] * (max(job.keys()) + 1 if job else 0)
        for index, address in job.items():
            tasks[index] = address
        return tasks
