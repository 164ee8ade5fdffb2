"""Writes the seed corpus of the fuzz harnesses (corpus/<harness>/seed_*), small valid and edge inputs.

Run once when the formats change: python3 tests_cpp/fuzz/make_seeds.py. Regression inputs found by
fuzzing are added next to the seeds by hand (corpus/<harness>/regression_*), never regenerated.
"""

from __future__ import annotations

import gzip
import pathlib
import struct
import zlib

HERE = pathlib.Path(__file__).parent / "corpus"


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked(header)) + data + struct.pack("<I", masked(data))


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def packed(field: int, values: list[int]) -> bytes:
    body = b"".join(varint(v) for v in values)
    return varint(field << 3 | 2) + varint(len(body)) + body


def topology(mesh, tasks, per_task, coords) -> bytes:
    out = packed(1, mesh)
    if tasks:
        out += varint(2 << 3) + varint(tasks)
    if per_task:
        out += varint(3 << 3) + varint(per_task)
    return out + packed(4, coords)


def write(harness: str, name: str, data: bytes) -> None:
    folder = HERE / harness
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def main() -> None:
    v3_8 = [c for x in range(2) for y in range(2) for core in range(2) for c in (x, y, 0, core)]
    write("fuzz_topology_proto", "seed_v3_8", topology([2, 2, 1, 2], 1, 8, v3_8))
    v4_16 = [c for z in range(2) for y in range(2) for x in range(2) for c in (x, y, z, 0)]
    write("fuzz_topology_proto", "seed_v4_16_two_tasks", topology([2, 2, 2, 1], 2, 4, v4_16))
    write("fuzz_topology_proto", "seed_empty", b"")
    write("fuzz_topology_proto", "seed_negative_mesh", topology([-1, 2, 1, 1], 1, 1, [0, 0, 0, 0]))
    records = [b"", b"a", b"hello world", bytes(range(256)) * 4]
    plain = b"".join(record(r) for r in records)
    write("fuzz_tfrecord_plain", "seed_records", plain)
    write("fuzz_tfrecord_plain", "seed_one_empty_record", record(b""))
    write("fuzz_tfrecord_plain", "seed_truncated", plain[:-3])
    write("fuzz_tfrecord_gzip", "seed_records", gzip.compress(plain, mtime=0))
    write("fuzz_tfrecord_gzip", "seed_empty_stream", gzip.compress(b"", mtime=0))
    write("fuzz_tfrecord_zlib", "seed_records", zlib.compress(plain))
    write("fuzz_tfrecord_zlib", "seed_empty_stream", zlib.compress(b""))
    # Checkpoint indexes written by TensorFlow 2.21 (the checked-in test data), and an empty file.
    data = pathlib.Path(__file__).parents[2] / "tests_py" / "data" / "tf_checkpoints"
    write("fuzz_checkpoint_index", "seed_tf_module_index", (data / "module" / "ckpt-1.index").read_bytes())
    write("fuzz_checkpoint_index", "seed_tf_keras_index", (data / "dense" / "ckpt-1.index").read_bytes())
    write("fuzz_checkpoint_index", "seed_empty", b"")


if __name__ == "__main__":
    main()
