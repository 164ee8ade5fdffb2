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


def field_bytes(field: int, data: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(data)) + data


def feature(kind: int, values: list) -> bytes:
    """A tf.train.Feature: kind 1 bytes, 2 floats (packed), 3 int64s (packed)."""
    if kind == 1:
        body = b"".join(field_bytes(1, v) for v in values)
    elif kind == 2:
        body = field_bytes(1, b"".join(struct.pack("<f", v) for v in values)) if values else b""
    else:
        body = packed(1, values) if values else b""
    return field_bytes(kind, body)


def features(entries: dict[str, bytes]) -> bytes:
    return b"".join(field_bytes(1, field_bytes(1, k.encode()) + field_bytes(2, v)) for k, v in sorted(entries.items()))
def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos
def first_data_block(index: bytes) -> bytes:
    """The contents of the first data block of a checkpoint index (the block the harness wraps in a table)."""
    footer = index[-48:]
    _, pos = read_varint(footer, 0)
    _, pos = read_varint(footer, pos)  # the metaindex handle
    index_offset, pos = read_varint(footer, pos)
    index_size, _ = read_varint(footer, pos)
    block = index[index_offset:index_offset + index_size]
    restarts = struct.unpack("<I", block[-4:])[0]
    entries = block[:len(block) - 4 * (restarts + 1)]
    _, pos = read_varint(entries, 0)  # shared
    key_size, pos = read_varint(entries, pos)
    value_size, pos = read_varint(entries, pos)
    handle = entries[pos + key_size:pos + key_size + value_size]
    offset, p = read_varint(handle, 0)
    size, _ = read_varint(handle, p)
    return index[offset:offset + size]


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
    abc = {"a": feature(2, [1.5, 2.0]), "b": feature(3, [1, -2, 300]), "c": feature(1, [b"hi", b"there"])}
    write("fuzz_example", "seed_abc", field_bytes(1, features(abc)))
    defaults = {"a": feature(2, [0.0, -1.0]), "d": feature(3, [1, 2]), "e": feature(1, [b"x"])}
    write("fuzz_example", "seed_fixed_and_defaults", field_bytes(1, features(defaults)))
    unpacked = field_bytes(2, varint(1 << 3 | 5) + struct.pack("<f", 3.0)) + field_bytes(3, varint(1 << 3) + varint(5))
    write("fuzz_example", "seed_unpacked_and_mixed_kinds", field_bytes(1, features({"a": unpacked})))
    write("fuzz_example", "seed_empty", b"")
    lists = field_bytes(1, field_bytes(1, b"t") + field_bytes(2, field_bytes(1, feature(2, [1.0])) * 2))
    sequence = field_bytes(1, features({"l": feature(3, [5])})) + field_bytes(2, lists)
    write("fuzz_example", "seed_sequence_example", sequence)
    # Checkpoint indexes written by TensorFlow 2.21 (the checked-in test data), and an empty file.
    data = pathlib.Path(__file__).parents[2] / "tests_py" / "data" / "tf_checkpoints"
    write("fuzz_checkpoint_index", "seed_tf_module_index", (data / "module" / "ckpt-1.index").read_bytes())
    write("fuzz_checkpoint_index", "seed_tf_keras_index", (data / "dense" / "ckpt-1.index").read_bytes())
    write("fuzz_checkpoint_index", "seed_empty", b"")
    write("fuzz_checkpoint_index", "seed_tf_module_data_block", first_data_block((data / "module" / "ckpt-1.index")
                                                                               .read_bytes()))


if __name__ == "__main__":
    main()
