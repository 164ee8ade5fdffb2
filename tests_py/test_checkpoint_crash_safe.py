"""A process killed (SIGKILL) while saving checkpoints never leaves the latest checkpoint unreadable (issue 10).

The child saves through a CheckpointManager (max_to_keep=1) over and over, each version a 4 MiB variable whose
every element is the version number, plus the version in a second variable; the parent kills it at random
moments — while the data or index file is written, fsynced or renamed, while the state file is replaced or
old files are deleted — and checks that the directory's latest checkpoint restores to one complete version.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np

import tpustrategy as tf

SAVER = textwrap.dedent(
    """
    import sys
    import numpy as np
    import tpustrategy as tf

    directory = sys.argv[1]
    big = tf.Variable(np.zeros(1 << 20, np.float32))
    version = tf.Variable(0.0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(big=big, version=version), directory, max_to_keep=1)
    manager.restore_or_initialize()
    print("ready", flush=True)
    while True:
        v = float(version.numpy()) + 1
        big.assign(np.full(1 << 20, v, np.float32))
        version.assign(v)
        manager.save()
    """
)


def _check_latest(directory):
    latest = tf.train.latest_checkpoint(directory)
    assert latest is not None, os.listdir(directory)
    big, version = tf.Variable(np.zeros(1 << 20, np.float32)), tf.Variable(-1.0)
    tf.train.Checkpoint(big=big, version=version).restore(latest).assert_consumed()
    values = big.numpy()
    assert (values == values[0]).all() and values[0] == float(version.numpy()), "a mixed version was restored"
    return float(version.numpy())


def test_sigkill_mid_save_leaves_the_latest_checkpoint_intact(tmp_path):
    directory = str(tmp_path / "ckpts")
    package_root = os.path.dirname(os.path.dirname(tf.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    rng = random.Random(15)
    versions = []
    for _ in range(5):
        child = subprocess.Popen([sys.executable, "-c", SAVER, directory], stdout=subprocess.PIPE, env=env)
        try:
            assert child.stdout.readline().strip() == b"ready"
            time.sleep(rng.uniform(0.2, 0.8))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        versions.append(_check_latest(directory))
    assert versions == sorted(versions) and versions[-1] > 0  # every run resumed from the last good version
