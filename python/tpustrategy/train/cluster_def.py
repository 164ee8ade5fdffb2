"""``tensorflow.ClusterDef`` / ``JobDef`` as ``ClusterSpec.as_cluster_def()`` gives them: jobs sorted by name, tasks
by index; the protobuf text format ``str()`` prints (TF's text) and the wire format ``SerializeToString()`` writes
(ClusterDef job = 1; JobDef name = 1, tasks = 2 as map<int32, string> entries key = 1, value = 2). Map entries are
written in key order; TF's C++ protobuf writes them in its hash map's order, so bytes can differ where a job has
several tasks while both parse to the same message."""

from __future__ import annotations


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32 keys are written as 10-byte varints, as protobuf does
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class JobDef:
    """One job: its name and task index → address."""

    def __init__(self, name: str, tasks: dict[int, str]):
        self.name = name
        self.tasks = dict(sorted(tasks.items()))

    def SerializeToString(self) -> bytes:  # noqa: N802 - protobuf's name
        entries = b"".join(_field(2, _varint(0x08) + _varint(k) + _field(2, v.encode())) for k, v in self.tasks.items())
        return _field(1, self.name.encode()) + entries

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JobDef) and (self.name, self.tasks) == (other.name, other.tasks)

    def _text(self, indent: str) -> str:
        lines = [f"{indent}name: {_quoted(self.name)}"]
        for key, value in self.tasks.items():
            lines += [f"{indent}tasks {{", f"{indent}  key: {key}", f"{indent}  value: {_quoted(value)}", f"{indent}}}"]
        return "\n".join(lines)


class ClusterDef:
    """The jobs of a cluster, sorted by name (``ClusterSpec.as_cluster_def()``; ``ClusterSpec(cluster_def)``)."""

    def __init__(self, jobs: list[JobDef] | None = None):
        self.job = sorted(jobs or [], key=lambda j: j.name)

    def SerializeToString(self) -> bytes:  # noqa: N802 - protobuf's name
        return b"".join(_field(1, job.SerializeToString()) for job in self.job)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClusterDef) and self.job == other.job

    def __str__(self) -> str:
        return "".join("job {\n" + job._text("  ") + "\n}\n" for job in self.job)

    __repr__ = __str__
