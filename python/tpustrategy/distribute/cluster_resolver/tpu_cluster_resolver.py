"""``TPUClusterResolver``: names a simulated TPU slice instead of a Cloud TPU.

``tpu`` None, "" or "local" means the local default slice (``TPUSTRATEGY_SLICE``, else v3-8); a preset name such
as "v3-8", "v4-32" or "v5e-8" selects that slice. A local slice has no cluster (``master()`` is ""); a named slice
is a "remote" TPU whose hosts get made-up, stable gRPC addresses, one worker task per host.
"""

from __future__ import annotations

from tpustrategy import _core
from tpustrategy.config._devices import LogicalDevice
from tpustrategy.distribute.cluster_resolver.cluster_resolver import ClusterResolver, format_master_url
from tpustrategy.tpu import tpu_system
from tpustrategy.tpu.topology import Topology
from tpustrategy.tpu.tpu_system import TPUSystemMetadata, default_slice_name
from tpustrategy.train.cluster_spec import ClusterSpec

_LOCAL_NAMES = (None, "", "local")
_TPU_PORT = 8470


def _host_address(task: int) -> str:
    return f"10.240.{task // 256}.{task % 256 + 2}:{_TPU_PORT}"


class TPUClusterResolver(ClusterResolver):
    """Resolves a simulated TPU slice (mirrors ``tf.distribute.cluster_resolver.TPUClusterResolver``).

    Args:
      tpu: None / "" / "local" for the local default slice, or a slice preset name ("v3-8", "v4-32", ...).
      zone, project, credentials, service, discovery_url, coordinator_name, coordinator_address: accepted for
        compatibility; a simulated slice needs none of them.
      job_name: the job of the TPU hosts ("worker").

    Raises:
      ValueError: ``tpu`` names no known slice (the message lists the presets).
    """

    def __init__(
        self,
        tpu: str | bytes | None = None,
        zone: str | None = None,
        project: str | None = None,
        job_name: str = "worker",
        coordinator_name: str | None = None,
        coordinator_address: str | None = None,
        credentials: object = "default",
        service: object = None,
        discovery_url: str | None = None,
    ) -> None:
        if isinstance(tpu, bytes):
            tpu = tpu.decode()
        if isinstance(tpu, (list, tuple)):
            raise ValueError("A simulated TPU slice is named by one string; got a list of TPU names")
        self._tpu = tpu
        self._is_local = tpu in _LOCAL_NAMES
        self._preset = _core.slice.find_slice_preset(default_slice_name() if self._is_local else str(tpu))
        self._tpu_slice_name = self._preset.name  # read by tpustrategy.tpu.tpu_system
        self._zone = zone
        self._project = project
        self._job_name = job_name
        self._coordinator_name = coordinator_name
        self._coordinator_address = coordinator_address
        self.task_type = job_name
        self.task_id = 0
        self.rpc_layer = "grpc"

    @staticmethod
    def connect(tpu: str | None = None, zone: str | None = None, project: str | None = None) -> TPUClusterResolver:
        """Resolves ``tpu``, connects to its slice and initializes the TPU system; returns the resolver."""
        resolver = TPUClusterResolver(tpu, zone, project)
        tpu_system.connect_to_cluster(resolver)
        tpu_system.initialize_tpu_system(resolver)
        return resolver

    @property
    def slice_preset(self) -> _core.slice.SlicePreset:
        """tpustrategy extension: the ``_core.slice.SlicePreset`` this resolver names."""
        return self._preset

    @property
    def environment(self) -> str:
        return ""

    def cluster_spec(self) -> ClusterSpec:
        """Empty for the local slice; else ``{job_name: [one address per host]}`` (plus the coordinator if named)."""
        if self._is_local:
            return ClusterSpec({})
        cluster = {self._job_name: [_host_address(t) for t in range(self._preset.num_hosts)]}
        if self._coordinator_name:
            cluster[self._coordinator_name] = [self._coordinator_address or "localhost:0"]
        return ClusterSpec(cluster)

    def master(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None) -> str:
        """ "" for the local slice; else the gRPC address of the task (default: task 0 of the TPU job)."""
        if self._is_local:
            return ""
        cluster = self.cluster_spec()
        if task_type is not None and task_id is not None:
            address = cluster.task_address(task_type, task_id)
        else:
            address = cluster.task_address(self._job_name, 0)
        return format_master_url(address, rpc_layer or self.rpc_layer)

    def get_master(self) -> str:
        """``master()``: "" for the local slice, else the first TPU host's address behind the rpc layer prefix."""
        return self.master()

    def get_job_name(self) -> str | None:
        """The job of the TPU hosts (``task_type``; "worker" unless given otherwise)."""
        return self.task_type

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: object = None) -> dict[str, int]:
        """``{'TPU': cores per host}``."""
        return {"TPU": self._preset.devices_per_host}

    def get_tpu_system_metadata(self) -> TPUSystemMetadata:
        """The TPUSystemMetadata of the slice: cores, hosts, cores per host, Topology and device list."""
        preset = self._preset
        devices = []
        # As the registry names them (TF's): one host is the process's own job "localhost", several a cluster.
        job = "localhost" if preset.num_hosts == 1 else self._job_name
        for task in range(preset.num_hosts):
            prefix = f"/job:{job}/replica:0/task:{task}/device:"
            devices.append(LogicalDevice(prefix + "CPU:0", "CPU"))
            devices.extend(LogicalDevice(f"{prefix}TPU:{d}", "TPU") for d in range(preset.devices_per_host))
        return TPUSystemMetadata(
            num_cores=preset.num_devices,
            num_hosts=preset.num_hosts,
            num_of_cores_per_host=preset.devices_per_host,
            topology=Topology._of_slice(preset.name),
            devices=devices,
        )

    def __repr__(self) -> str:
        return f"TPUClusterResolver(tpu={self._tpu!r}, slice={self._preset.name!r})"
