"""A TFRecord writer killed mid-write (SIGKILL) never corrupts the previous good file (issue 10).

The child rewrites the same file over and over, each version complete in itself (N records that all
name the version), flushing as it goes; the parent kills it at a random moment — during writes,
flushes, the fsync or the rename — and checks that the file then holds exactly one complete version.
Before the writers wrote to a temporary file and renamed it, the file was truncated at open and a
kill left a partial version (or an empty file) behind.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import tpustrategy as tf

REWRITER = textwrap.dedent(
    """
    import sys
    import tpustrategy as tf

    path, compression, records = sys.argv[1], sys.argv[2] or None, int(sys.argv[3])
    version = 1
    print("ready", flush=True)
    while True:
        with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression)) as w:
            for i in range(records):
                w.write(b"version %d record %d " % (version, i) + b"x" * 200)
                if i % 50 == 0:
                    w.flush()
        version += 1
    """
)

RECORDS = 400


def _check_one_complete_version(path, compression):
    records = list(tf.data.TFRecordDataset(path, compression_type=compression).as_numpy_iterator())
    assert len(records) == RECORDS, f"{len(records)} records: a partial version was left behind"
    versions = {r.split(b" ")[1] for r in records}
    assert len(versions) == 1, versions
    assert records[-1].startswith(b"version %s record %d " % (versions.pop(), RECORDS - 1))


@pytest.mark.parametrize("compression", ["", "GZIP"], ids=["plain", "gzip"])
def test_sigkill_mid_write_leaves_the_previous_file_intact(tmp_path, compression):
    path = str(tmp_path / "data.tfrecord")
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression or None)) as w:
        for i in range(RECORDS):
            w.write(b"version 0 record %d " % i + b"x" * 200)
    env = dict(os.environ)
    rng = random.Random(10)
    for _ in range(6):
        child = subprocess.Popen(
            [sys.executable, "-c", REWRITER, path, compression, str(RECORDS)],
            stdout=subprocess.PIPE,
            env=env,
        )
        try:
            assert child.stdout.readline().strip() == b"ready"
            time.sleep(rng.uniform(0.05, 0.6))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        _check_one_complete_version(path, compression or None)
    # Only stale temporaries of killed writers may sit next to the file, never a second "data" file.
    leftovers = [n for n in os.listdir(tmp_path) if n != "data.tfrecord"]
    assert all(n.startswith("data.tfrecord.tmp.") for n in leftovers), leftovers


def test_an_open_writer_does_not_touch_the_existing_file_until_close(tmp_path):
    path = tmp_path / "data.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as w:
        w.write(b"old")
    old = path.read_bytes()
    for compression in (None, "GZIP", "ZLIB"):
        w = tf.io.TFRecordWriter(str(path), tf.io.TFRecordOptions(compression))
        w.write(b"new")
        w.flush()
        assert path.read_bytes() == old
        w.close()
        assert list(tf.data.TFRecordDataset(str(path), compression_type=compression)) == [b"new"]
        with tf.io.TFRecordWriter(str(path)) as w:
            w.write(b"old")
    assert sorted(os.listdir(tmp_path)) == ["data.tfrecord"]
