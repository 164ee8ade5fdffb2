"""tf.keras fit on MirroredStrategy(8) against TensorFlow 2.21's own tf.keras (Keras 3.15) for the same
program (tools/crosscheck/cases_keras.py): final weights, History, predict and evaluate within 1e-5
relative of TF's output, which is stored in tools/crosscheck/data/keras_fit_tf221.json (no TF needed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

import tpustrategy as tf

TOOLS = Path(__file__).resolve().parent.parent / "tools"
sys.path.insert(0, str(TOOLS))
from crosscheck.cases_keras import REFERENCE, keras_fit_program  # noqa: E402


def test_keras_fit_on_eight_replicas_matches_tensorflow():
    reference = json.loads(REFERENCE.read_text())
    assert reference["produced_by"].startswith("tensorflow 2.21")
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    tf.keras.backend.clear_session()
    ours = keras_fit_program(tf, strategy)
    for mine, theirs in zip(ours["weights"], reference["weights"], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    assert ours["history"].keys() == reference["history"].keys()
    for key, values in reference["history"].items():
        np.testing.assert_allclose(ours["history"][key], values, rtol=1e-5)
    np.testing.assert_allclose(ours["predict"], reference["predict"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours["evaluate"], reference["evaluate"], rtol=1e-5)
    assert ours["iterations"] == reference["iterations"] == 8
