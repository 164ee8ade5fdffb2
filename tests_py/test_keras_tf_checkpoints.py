"""``tf.train.Checkpoint(model=keras_model)`` files written by TF 2.21 for real Keras 3.15 models (a Sequential
CNN with BatchNormalization, a functional model; make_keras_model_checkpoints.py) restore into the same models
built here, which show Keras 3's object graph (``_functional/_operations/1/_kernel`` ...)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest
from keras_helpers import mirrored_or_none, one_device_and_mirrored, scope_of

import tpustrategy as tf

keras = tf.keras
DATA = pathlib.Path(__file__).parent / "data" / "tf_checkpoints"
EXPECTED = json.loads((DATA / "keras_models.json").read_text())
sys.path.insert(0, str(DATA))
from keras_models import build  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_keras_names")


@one_device_and_mirrored(4)
@pytest.mark.parametrize("name", ["keras_cnn", "keras_functional"])
def test_tf_written_keras_checkpoint_restores_here(name, replicas):
    with scope_of(mirrored_or_none(replicas)):
        model, _ = build(keras)[name]
    status = tf.train.Checkpoint(model=model).restore(str(DATA / name / "ckpt-1"))
    status.assert_existing_objects_matched()
    expected = EXPECTED[name]
    for ours, theirs in zip(model.get_weights(), expected["weights"], strict=True):
        np.testing.assert_array_equal(ours, np.asarray(theirs, np.float32))
    x = np.asarray(expected["input"], np.float32)
    np.testing.assert_allclose(np.asarray(model(x, training=False)), expected["predict"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["keras_cnn", "keras_functional"])
def test_checkpoints_written_here_have_keras_keys(name, tmp_path):
    model, _ = build(keras)[name]
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    ours = dict(tf.train.list_variables(path))
    theirs = dict(tf.train.list_variables(str(DATA / name / "ckpt-1")))
    assert ours == theirs  # the same keys and shapes as TF's file, so TF restores ours into its Keras model
    assert ("model/_functional/_operations/1/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in ours) == (name == "keras_cnn")
