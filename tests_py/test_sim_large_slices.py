"""Slices too large to hold real data (issue 16): the 8960-chip v5p pod and the 4096-chip v4 pod still answer
topology, device-assignment and cost-model questions, in well under the time a user waits for them. The limit is
real data, not the presets: activating a preset makes one simulated device per TF device, and every replica's
tensors then live in this machine's RAM (README "Simulated slices")."""

from __future__ import annotations

import time

import pytest

from tpustrategy import _core
from tpustrategy import experimental as tpx
from tpustrategy.tpu.device_assignment import DeviceAssignment
from tpustrategy.tpu.topology import Topology


def _data_parallel_record():
    record = _core.sim.StepRecord(name="dp")
    record.add_op("BatchMatMulV2", [[512, 1024], [1024, 1024]], [[512, 1024]], dtype="bfloat16")
    record.add_collective("all_reduce", [(0, 0)], 1024 * 1024, dtype="float32")
    return record


@pytest.mark.parametrize("name, chips, hosts", [("v5p-17920", 8960, 2240), ("v5p-12288", 6144, 1536),
                                                ("v4-8192", 4096, 1024)])
def test_pod_presets_answer_topology_assignment_and_cost_questions(name, chips, hosts):
    start = time.perf_counter()
    topology = Topology._of_slice(name)
    assert topology.num_tasks == hosts and topology.num_tpus_per_task == 4
    blocks = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 1], num_replicas=chips // 4)
    assert blocks.num_cores_per_replica == 4 and blocks.num_replicas == chips // 4
    report = tpx.estimate_step(_data_parallel_record(), name)
    assert report.num_replicas == chips and report.num_cores == chips
    ar = report.collectives[0]
    assert ar.group_size == chips and ar.seconds > 0 and ar.busbw > 0
    # The what-if from the pod back to one host gives the single-host figure (weak scaling: same per-replica work).
    small = report.what_if("v5p-8")
    assert small.num_replicas == 4 and small.step_time < report.step_time
    assert time.perf_counter() - start < 3.0


def test_topology_refuses_meshes_beyond_its_stated_limit():
    # Topology indexes every mesh position; over 4M positions (kMaxMeshPositions) it refuses rather than allocate.
    with pytest.raises(ValueError, match="positions"):
        Topology(mesh_shape=[256, 256, 128, 1], device_coordinates=[[[0, 0, 0, 0]]])
