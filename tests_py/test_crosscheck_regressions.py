"""Regressions found by tools/crosscheck_tf.py; expected values were observed with TF 2.21 (no TF needed here)."""

from __future__ import annotations

import tpustrategy as tf


def test_value_context_is_exported_under_experimental():
    # observed with TF 2.21: tf.distribute.experimental.ValueContext(2, 4).replica_id_in_sync_group == 2
    assert tf.distribute.experimental.ValueContext(2, 4).replica_id_in_sync_group == 2
