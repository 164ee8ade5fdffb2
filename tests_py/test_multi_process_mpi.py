"""Multi-process slices: ``TPUStrategy`` under ``mpirun -n 2`` and ``-n 4`` over a v4-32 slice (4 hosts), checked
against a single-process run of the same program; ``MultiWorkerMirroredStrategy`` with one worker per process; and
the failure paths (one process's replica raises: every process leaves with an error naming the process and replica;
a process that never arrives: a deadline naming it), none hanging. Children are killed at a timeout (a hang fails).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest

from tpustrategy import _core
from tpustrategy.distribute import multi_process

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROGRAMS = pathlib.Path(__file__).resolve().parent / "mpi_programs"
MPIRUN = shutil.which("mpirun")

needs_mpi = pytest.mark.skipif(
    not _core.mpi.available() or MPIRUN is None,
    reason="MPI not found: tpustrategy was built without MPI or mpirun is missing (tools/bootstrap.sh installs "
    "libopenmpi-dev and openmpi-bin)",
)


def _environment(**extra) -> dict:
    env = dict(os.environ)
    env.update({
        "PYTHONPATH": str(ROOT / "python"),
        "TPUSTRATEGY_SLICE": "v4-32",
        "TPUSTRATEGY_MPI_TIMEOUT_SECONDS": "20",
        # One machine, maybe as root in a container, maybe fewer cores than processes.
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
        "OMPI_MCA_btl": "self,vader",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
        # Let every process report its own error: by default mpirun kills the others as soon as one exits
        # non-zero, possibly before they print.
        "OMPI_MCA_orte_abort_on_non_zero_status": "0",
    })
    env.update(extra)
    return env


def _run(command: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs `command` in its own session; at the timeout the whole session is killed and the test fails."""
    process = subprocess.Popen(command, env=_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True, cwd=ROOT)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(f"{' '.join(command)} hung for {timeout} s and was killed\n{stdout}\n{stderr}")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _mpirun(processes: int, program: str, *args: str) -> subprocess.CompletedProcess:
    return _run([MPIRUN, "-n", str(processes), sys.executable, str(PROGRAMS / program), *args])


def _marked_lines(stdout: str, markers: tuple[str, ...]) -> list[str]:
    """The processes' report lines ("<MARKER> process <k>: ..."). mpirun forwards each process's output in
    chunks, so one process's line may land glued to the end of another's: split before every marker."""
    pattern = "|".join(markers)
    text = re.sub(rf"(?<!^)(?<!\n)(?=(?:{pattern}) process \d)", "\n", stdout)
    return [line for line in text.splitlines() if line.startswith(markers)]


def _results(directory: pathlib.Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(directory.glob("result_*.json"))]


@pytest.fixture(scope="module")
def single_process_reference(tmp_path_factory) -> list[dict]:
    """Every replica's results from a plain TPUStrategy run of the program on the whole v4-32 slice."""
    out = tmp_path_factory.mktemp("single")
    done = _run([sys.executable, str(PROGRAMS / "slice_collectives.py"), str(out), "--single"])
    assert done.returncode == 0, done.stderr
    (result,) = _results(out)
    assert len(result["results"]) == 16
    return result


@needs_mpi
@pytest.mark.parametrize("processes", [2, 4], ids=["2_processes_2_hosts_each", "4_processes_1_host_each"])
def test_tpu_strategy_split_over_processes_matches_single_process(processes, single_process_reference, tmp_path):
    done = _mpirun(processes, "slice_collectives.py", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    per_process = sorted(_results(tmp_path), key=lambda r: r["process"])
    assert [r["process"] for r in per_process] == list(range(processes))
    hosts_each = 4 // processes
    replicas = []
    variables = [[], []]
    inputs = None  # per step, every replica's element, in global replica order
    for index, result in enumerate(per_process):
        # TF_CONFIG, the MPI rank, the strategy's resolver and the process agree.
        assert result["mpi_rank"] == index and result["task_id"] == index and result["strategy_task_id"] == index
        assert result["hosts"] == list(range(index * hosts_each, (index + 1) * hosts_each))
        assert result["replicas"] == list(range(index * 4 * hosts_each, (index + 1) * 4 * hosts_each))
        assert result["num_replicas"] == 16
        assert len(result["results"]) == 4 * hosts_each  # experimental_local_results: this process's replicas
        replicas.extend(result["results"])
        for mine, var in zip(variables, result["variables"], strict=True):
            mine.extend(var)
        if inputs is None:
            inputs = [list(step) for step in result["input"]]
        else:
            assert len(result["input"]) == len(inputs)
            for mine, step in zip(result["input"], inputs, strict=True):
                step.extend(mine)
    for result in per_process:  # Strategy.reduce (with and without axis) spans the processes
        assert result["reduced"] == single_process_reference["reduced"]
    assert single_process_reference["reduced"]["gather"] == [x for r in range(16) for x in (r, 1)]  # strategy.gather
    assert single_process_reference["reduced"]["MEAN_0"] == [sum(r * (r % 3 + 1) for r in range(16)) / 31, 1.0]
    assert [r["id"] for r in replicas] == list(range(16))
    assert replicas == single_process_reference["results"]
    # Mirrored variables aggregate over every process's replicas (SUM of ids: 120; MEAN: 7.5) on every replica.
    assert variables == single_process_reference["variables"] == [[120.0] * 16, [7.5] * 16]
    # Each process fed only its hosts' replicas; together, exactly what one process feeds (TF's sharding rules).
    assert inputs == single_process_reference["input"]
    assert len(inputs) == 3
    assert sorted(x for step in inputs for element in step for x in element) == list(range(40))
    # And the values themselves: SUM over ids 0..15 of [2r, 2, 4r]; cross_replica_sum, also in groups.
    assert replicas[0]["sum"] == [240.0, 32.0, 480.0]
    assert replicas[0]["int_sum"] == [120, -120]
    assert replicas[0]["int_mean"] == [7.5, 1.0]  # TF's truediv for integer MEAN
    assert replicas[3]["cross_replica_sum"] == [120.0, 16.0]
    assert replicas[3]["grouped_sum"] == [28.0, 8.0] and replicas[12]["grouped_sum"] == [92.0, 8.0]
    # all_to_all, collective_permute and reduce_scatter across processes (equal to the single process above;
    # and the values): replica t gets row t of every replica s, [100 s + t, t], in replica order.
    for t in (0, 5, 15):
        assert replicas[t]["all_to_all"] == [[v for s in range(16) for v in (100.0 * s + t, float(t))]]
    # Group [15, 14, ..., 8], split_count 8: replica 12 is its 4th member, so it gets piece 3 (rows 6 and 7) of
    # each member, members in group order.
    assert replicas[12]["grouped_all_to_all"] == [[100.0 * s + k, float(k)] for s in range(15, 7, -1) for k in (6, 7)]
    assert [r["ring_permute"] for r in replicas] == [[float((t - 1) % 16), 1.0] for t in range(16)]
    zeros = [0.0, 0.0]
    assert [r["partial_permute"] for r in replicas] == [
        {15: [0.0, 1.0], 1: [15.0, 1.0], 9: [5.0, 1.0]}.get(t, zeros) for t in range(16)]
    # Rows 2r, 2r+1 of the SUM over replicas s of [s + k]: 120 + 16 k.
    assert [r["reduce_scatter"] for r in replicas] == [[[120.0 + 16 * k] for k in (2 * t, 2 * t + 1)]
                                                       for t in range(16)]
    for result in per_process:  # one MPI all-reduce per process, seen by the collective hook point
        assert result["observed"] == single_process_reference["observed"] == {"all_reduce": 1}


@needs_mpi
@pytest.mark.parametrize("processes", [2, 4])
def test_multi_worker_mirrored_strategy_one_worker_per_process(processes, tmp_path):
    done = _mpirun(processes, "multi_worker_mirrored.py", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    per_worker = sorted(_results(tmp_path), key=lambda r: r["task_id"])
    assert [r["task_id"] for r in per_worker] == list(range(processes))
    ids = list(range(processes))
    rows = []
    for task, result in enumerate(per_worker):
        assert result["num_replicas"] == processes
        assert result["devices"] == [f"/job:worker/replica:0/task:{task}/device:CPU:0"]
        (mine,) = result["results"]
        assert mine["id"] == task
        assert mine["sum"] == [float(sum(ids)), float(processes)]
        assert mine["gather"] == [[r, r] for r in ids]
        assert result["reduced"] == 10.0 * sum(ids)
        assert result["variable"] == [1.0 + 2.0 * processes]
        rows.append([x for step in result["input"] for element in step for x in element])
    # Auto-sharded per worker: together every element once.
    assert sorted(x for worker in rows for x in worker) == list(range(16))


@needs_mpi
@pytest.mark.parametrize("processes", [2, 4])
def test_a_replica_that_raises_stops_every_process_with_a_named_error(processes):
    done = _mpirun(processes, "failing_replica.py")
    failing = 0 if processes == 2 else 1
    lines = _marked_lines(done.stdout, ("ABORTED", "RAISED", "FINISHED"))
    assert len(lines) == processes, done.stdout + done.stderr  # every process reported (none hung, none finished)
    for line in lines:
        if line.startswith(f"RAISED process {failing}:"):
            assert "replica five is broken" in line
        else:
            assert line.startswith("ABORTED"), line
            assert f"process {failing} (MPI rank {failing}" in line and "at rank 5" in line, line
            assert "replica 5 raised ValueError: replica five is broken" in line, line


def test_hosts_split_evenly_or_a_clear_error():
    assert multi_process.plan_hosts(4, 2, 1) == [2, 3]
    assert multi_process.plan_hosts(4, 4, 3) == [3]
    with pytest.raises(ValueError, match="a slice of 4 hosts cannot be split over 3 processes"):
        multi_process.plan_hosts(4, 3, 0)


def test_without_mpirun_the_module_says_so():
    assert multi_process.launched_by_mpirun() == any(
        v in os.environ for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))
    assert multi_process.mpi_available() == bool(_core.mpi.available())


class _ErrorWithoutNotes(ValueError):
    """An error as Python 3.10 raises them: no ``add_note`` (it is new in 3.11; requires-python is >= 3.10)."""

    @property
    def add_note(self):
        raise AttributeError("add_note")


def test_a_replica_error_keeps_its_type_where_exceptions_take_no_notes():
    # run_replica tells the other processes, then re-raises the replica's own error: on Python 3.10 it used to call
    # error.add_note unguarded, which raised AttributeError instead. No MPI needed: the slice's abort is stubbed.
    process_slice = multi_process.ProcessSlice.__new__(multi_process.ProcessSlice)
    process_slice.process_index = 1
    told = []
    process_slice.abort = lambda replica_id, error: told.append((replica_id, error)) or True

    def replica_fn():
        raise _ErrorWithoutNotes("bad input")

    with pytest.raises(_ErrorWithoutNotes, match="bad input"):
        process_slice.run_replica(3, replica_fn)
    assert [(replica_id, type(error)) for replica_id, error in told] == [(3, _ErrorWithoutNotes)]
    with pytest.raises(ValueError, match="boom") as raised:  # with notes: the note names replica and process
        process_slice.run_replica(2, lambda: (_ for _ in ()).throw(ValueError("boom")))
    assert raised.value.__notes__ == ["(replica 2 of process 1; every other process was told to abort)"]


@needs_mpi
@pytest.mark.parametrize("processes", [2, 4])
def test_a_missing_process_is_a_deadline_naming_it(processes):
    done = _mpirun(processes, "missing_process.py")
    missing = processes - 1
    lines = _marked_lines(done.stdout, ("DEADLINE", "SKIPPED", "FINISHED"))
    assert len(lines) == processes, done.stdout + done.stderr
    assert f"SKIPPED process {missing}" in lines
    for line in lines:
        if line.startswith("SKIPPED"):
            continue
        assert line.startswith("DEADLINE"), line
        seconds = float(line.split(" after ")[1].split(" s:")[0])
        assert 2.0 <= seconds < 15.0, line
        assert f"for process {missing} (MPI rank {missing}" in line, line


def test_communication_options_validate_and_merge_as_tf():
    from tpustrategy.distribute.experimental import CommunicationImplementation, CommunicationOptions

    options = CommunicationOptions(bytes_per_pack=64, implementation="ring")
    assert options.implementation is CommunicationImplementation.RING and options.timeout_seconds is None
    merged = options.merge(CommunicationOptions(timeout_seconds=3.0))
    assert (merged.bytes_per_pack, merged.timeout_seconds, merged.implementation) == (
        64, 3.0, CommunicationImplementation.RING)
    assert options.timeout_seconds is None  # merge copies
    with pytest.raises(ValueError, match="bytes_per_pack` must be >=0, Received -1"):
        CommunicationOptions(bytes_per_pack=-1)
    with pytest.raises(ValueError, match="must be instance of"):
        CommunicationOptions(implementation=3)
    with pytest.raises(ValueError):
        CommunicationOptions(implementation="tcp")


def test_multi_worker_mirrored_strategy_without_mpirun_is_one_local_worker():
    import tpustrategy as tf

    if multi_process.launched_by_mpirun():
        pytest.skip("this process was itself started by mpirun")
    options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=5.0)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    assert strategy.extended._process_slice is None and strategy.extended._num_workers == 1
    total = strategy.reduce("SUM", strategy.run(lambda: tf.constant([2.0, 3.0])), axis=None)
    assert np.asarray(total).tolist() == [2.0 * strategy.num_replicas_in_sync, 3.0 * strategy.num_replicas_in_sync]
    with pytest.raises(ValueError, match="communication_options must be"):
        tf.distribute.MultiWorkerMirroredStrategy(communication_options="ring")


@needs_mpi
@pytest.mark.parametrize(("case", "processes"), [("shape", 2), ("shape", 4), ("dtype", 2), ("structure", 2)])
def test_processes_that_disagree_on_shapes_dtypes_or_nests_get_tfs_error(case, processes):
    done = _mpirun(processes, "mismatched_collective.py", case)
    lines = _marked_lines(done.stdout, ("INVALID", "VALUE", "FINISHED"))
    assert len(lines) == processes, done.stdout + done.stderr  # every process reported, none hung or finished
    per_process = 16 // processes
    for line in lines:
        assert line.startswith("VALUE" if case == "structure" else "INVALID"), line
        assert f"process 0 (MPI rank 0, replicas 0-{per_process - 1}) called all_reduce" in line, line
        assert f"process 1 (MPI rank 1, replicas {per_process}-{2 * per_process - 1})" in line, line
        expected = {"shape": "Shape mismatch in the collective across processes",
                    "dtype": "processes called different collectives",
                    "structure": "with nests of different structure"}[case]
        assert expected in line, line
        if case == "shape":
            assert "float32[2,3]" in line and "float32[3,2]" in line, line


@needs_mpi
@pytest.mark.parametrize("processes", [2, 4])
def test_initial_values_are_process_0s_and_input_contexts_span_the_slice(processes):
    import tpustrategy as tf

    # What a single-process v4-32 feeds each replica with fetch_to_device=False: its host's CPU, the same rows.
    strategy = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver(tpu="v4-32"))
    on_host = tf.distribute.InputOptions(experimental_fetch_to_device=False)
    first = next(iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(32), on_host)))
    expected_inputs = [[t.device, t.numpy().tolist()] for t in strategy.experimental_local_results(first)]
    assert [d for d, _ in expected_inputs] == [f"/job:worker/replica:0/task:{r // 4}/device:CPU:0" for r in range(16)]
    done = _mpirun(processes, "initial_values_and_inputs.py")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = _marked_lines(done.stdout, ("RESULT",))
    assert len(lines) == processes, done.stdout + done.stderr
    hosts_per_process = 4 // processes  # v4-32: 4 hosts of 4 replicas
    seen = set()
    for line in lines:
        head, payload = line.split(": ", 1)
        process = int(head.split()[-1])
        seen.add(process)
        result = json.loads(payload)
        assert result["constant"] == [1.0, 1.0, 1.0], line  # process 0's, everywhere
        assert result["computed"] == [0.0, 10.0], line
        hosts = range(process * hosts_per_process, (process + 1) * hosts_per_process)
        assert result["contexts"] == [[4, h, 16] for h in hosts], line
        replicas = range(process * 16 // processes, (process + 1) * 16 // processes)
        assert result["inputs"] == [expected_inputs[r] for r in replicas], line
    assert seen == set(range(processes))
