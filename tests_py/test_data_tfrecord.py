"""TFRecord files built by hand from the published format, the writer, corruption and truncation
(DataLossError naming file and offset), a fuzz loop, GZIP/ZLIB, and TextLineDataset."""

from __future__ import annotations

import gzip
import random
import struct

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core, errors
from tpustrategy.data import Dataset, TextLineDataset, TFRecordDataset, dataset_ops


def crc32c_reference(data: bytes) -> int:
    """Bitwise CRC32C (reflected polynomial 0x82F63B78), independent of the C++ tables."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(crc: int) -> int:
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked(crc32c_reference(length))) + data + struct.pack(
        "<I", masked(crc32c_reference(data)))


def test_crc32c_known_vector_and_reference():
    assert crc32c_reference(b"123456789") == 0xE3069283
    assert _core.data.crc32c(b"123456789") == 0xE3069283
    rng = random.Random(0)
    for n in range(0, 70, 7):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert _core.data.crc32c(data) == crc32c_reference(data)
    assert _core.data.mask_crc(0xE3069283) == masked(0xE3069283)


def test_hand_built_file_reads_back_identically(tmp_path):
    records = [b"123456789", b"", b"\x00\xff" * 300, "ünïcode".encode()]
    path = tmp_path / "hand.tfrecord"
    path.write_bytes(b"".join(frame(r) for r in records))
    ds = TFRecordDataset(str(path))
    assert list(ds) == records
    assert repr(ds.element_spec) == "TensorSpec(shape=(), dtype=tf.string, name=None)"
    assert int(np.asarray(ds.cardinality())) == tf.data.UNKNOWN_CARDINALITY
    assert list(ds) == records  # re-iterable


def test_writer_output_equals_hand_built_bytes(tmp_path):
    path = tmp_path / "written.tfrecord"
    records = [b"first", b"", b"x" * 1000]
    with tf.io.TFRecordWriter(str(path)) as writer:
        for r in records:
            writer.write(r)
        writer.flush()
    assert path.read_bytes() == b"".join(frame(r) for r in records)
    with pytest.raises(errors.FailedPreconditionError):
        writer.write(b"after close")
    writer.close()  # closing twice is fine


def test_several_files_are_read_in_order(tmp_path):
    paths = []
    for i in range(3):
        path = tmp_path / f"part-{i}.tfrecord"
        with tf.io.TFRecordWriter(path) as w:
            for j in range(2):
                w.write(f"{i}-{j}".encode())
        paths.append(str(path))
    assert list(TFRecordDataset(paths)) == [b"0-0", b"0-1", b"1-0", b"1-1", b"2-0", b"2-1"]
    assert list(TFRecordDataset(Dataset.from_tensor_slices(paths))) == list(TFRecordDataset(paths))
    batched = list(TFRecordDataset(paths).batch(4))
    assert batched[0].numpy().tolist() == [b"0-0", b"0-1", b"1-0", b"1-1"]
    assert list(TFRecordDataset(paths).batch(4).unbatch())[4] == b"2-0"


def test_corrupted_crc_names_file_and_offset(tmp_path):
    data = bytearray(frame(b"first") + frame(b"second"))
    data[len(frame(b"first")) + 13] ^= 0x10  # a data byte of the second record, at offset 21
    path = tmp_path / "corrupt.tfrecord"
    path.write_bytes(bytes(data))
    it = iter(TFRecordDataset(str(path)))
    assert next(it) == b"first"
    with pytest.raises(errors.DataLossError, match=r"corrupt\.tfrecord.*corrupted record at 21"):
        next(it)
    bad_length = bytearray(frame(b"abc"))
    bad_length[2] ^= 0x01
    path.write_bytes(bytes(bad_length))
    with pytest.raises(errors.DataLossError, match="corrupted record at 0"):
        list(TFRecordDataset(str(path)))


def test_truncated_file_is_data_loss(tmp_path):
    full = frame(b"payload") + frame(b"tail")
    path = tmp_path / "truncated.tfrecord"
    for cut in (5, 12, 20, len(frame(b"payload")) + 3, len(full) - 1):
        path.write_bytes(full[:cut])
        with pytest.raises(errors.DataLossError, match="truncated record"):
            list(TFRecordDataset(str(path)))


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(errors.NotFoundError):
        list(TFRecordDataset(str(tmp_path / "missing.tfrecord")))


def test_fuzz_random_files_and_mutations_only_raise_data_loss(tmp_path):
    rng = random.Random(1234)
    valid = b"".join(frame(bytes([i]) * i * 3) for i in range(6))
    path = tmp_path / "fuzz.tfrecord"
    outcomes = {"records": 0, "data_loss": 0}
    for i in range(3000):
        if i % 3 == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(48)))
        else:
            mutated = bytearray(valid)
            for _ in range(rng.randrange(1, 4)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            if rng.random() < 0.3:
                del mutated[rng.randrange(len(mutated)):]
            data = bytes(mutated)
        try:
            records = _core.data.tfrecord_parse(data, "fuzz")
            outcomes["records"] += 1
            assert b"".join(frame(r) for r in records) == data  # valid parses are exact
        except errors.DataLossError:
            outcomes["data_loss"] += 1
        if i % 100 == 0:  # also through the streaming file reader
            path.write_bytes(data)
            try:
                list(TFRecordDataset(str(path)))
            except errors.DataLossError:
                pass
    assert outcomes["data_loss"] > 1500 and outcomes["records"] > 0


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_round_trip(tmp_path, compression):
    path = tmp_path / f"c.{compression.lower()}"
    options = tf.io.TFRecordOptions(compression_type=compression)
    with tf.io.TFRecordWriter(str(path), options=options) as w:
        w.write(b"alpha")
        w.write(b"beta")
    if compression == "GZIP":
        assert gzip.decompress(path.read_bytes()) == frame(b"alpha") + frame(b"beta")
    assert list(TFRecordDataset(str(path), compression_type=compression)) == [b"alpha", b"beta"]
    assert list(tf.io.tf_record_iterator(str(path), options)) == [b"alpha", b"beta"]
    with pytest.raises(errors.DataLossError):
        list(TFRecordDataset(str(path), compression_type="ZLIB" if compression == "GZIP" else "GZIP"))


def test_text_line_dataset(tmp_path):
    a = tmp_path / "a.txt"
    a.write_bytes(b"first line\nsecond\r\n\nlast without newline")
    b = tmp_path / "b.txt"
    b.write_bytes(b"x\n")
    ds = TextLineDataset([str(a), str(b)])
    assert list(ds) == [b"first line", b"second", b"", b"last without newline", b"x"]
    assert list(TextLineDataset(str(b)).map(lambda line: tf.strings.upper(line))) == [b"X"]


def test_file_sources_are_visible_to_the_distribution_layer(tmp_path):
    paths = []
    for i in range(4):
        path = tmp_path / f"shard-{i}.tfrecord"
        with tf.io.TFRecordWriter(path) as w:
            w.write(str(i).encode())
        paths.append(str(path))
    ds = TFRecordDataset(paths).map(lambda r: r + b"!").batch(2)
    assert dataset_ops.source_files(ds) == paths
    assert dataset_ops.source_files(Dataset.range(3).batch(2)) is None
    worker1 = dataset_ops.shard_files(ds, 2, 1)
    assert [b.numpy().tolist() for b in worker1] == [[b"1!", b"3!"]]
    assert dataset_ops.source_files(worker1) == [paths[1], paths[3]]
    assert [b.numpy().tolist() for b in ds] == [[b"0!", b"1!"], [b"2!", b"3!"]]  # the original is unchanged
    with pytest.raises(errors.InvalidArgumentError, match="files"):
        dataset_ops.shard_files(ds, 5, 0)
    with pytest.raises(errors.InvalidArgumentError):
        dataset_ops.shard_files(Dataset.range(3), 2, 0)
