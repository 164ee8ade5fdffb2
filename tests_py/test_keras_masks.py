"""Keras masks (Embedding ``mask_zero``, ``Masking``, ``compute_mask``, mask-aware Softmax and merge layers, the
output mask weighting the loss) against Keras 3.15 numbers stored in data/keras_masks/reference.json."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from keras_helpers import mirrored_or_none, one_device_and_mirrored

import tpustrategy as tf
from tpustrategy.keras.masking import get_keras_mask

keras = tf.keras
REFERENCE = json.loads((Path(__file__).parent / "data" / "keras_masks" / "reference.json").read_text())
X = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], np.int32)


def _embedding_model():
    inputs = keras.Input((4,), dtype="int32")
    model = keras.Model(inputs, keras.layers.Dense(1)(keras.layers.Embedding(5, 2, mask_zero=True)(inputs)))
    model.set_weights([np.arange(10, dtype=np.float32).reshape(5, 2) / 10, np.array([[1.0], [2.0]], np.float32),
                       np.array([0.5], np.float32)])
    model.compile("sgd", "mse")
    return model


@one_device_and_mirrored(2)
def test_embedding_mask_reaches_the_output_and_weights_the_loss(replicas):
    y = np.ones((2, 4, 1), np.float32)
    if replicas:
        with mirrored_or_none(replicas).scope():
            model = _embedding_model()
        # each replica masks its own rows (total / valid per replica, as Keras): compare with one device
        loss = model.evaluate(X, y, batch_size=2, verbose=0)
        expected = np.mean([((np.asarray(model(X[i:i + 1])) - 1) ** 2)[0, X[i] != 0].mean() for i in range(2)])
        assert loss == pytest.approx(expected, rel=1e-5)
        return
    model = _embedding_model()
    predictions = model(X)
    np.testing.assert_allclose(np.asarray(predictions), REFERENCE["pred"], rtol=1e-6)
    assert np.asarray(get_keras_mask(predictions)).tolist() == REFERENCE["mask"]
    assert model.evaluate(X, y, verbose=0) == pytest.approx(REFERENCE["eval_loss"], rel=1e-6)
    unmasked = float(np.mean((np.asarray(predictions) - 1) ** 2))
    assert unmasked != pytest.approx(REFERENCE["eval_loss"])  # the mask changed the loss


def test_compute_mask_masking_softmax_and_merge():
    embedding = keras.layers.Embedding(5, 2, mask_zero=True)
    assert np.asarray(embedding.compute_mask(tf.constant(X))).tolist() == REFERENCE["compute_mask"]
    assert keras.layers.Embedding(5, 2).compute_mask(tf.constant(X)) is None
    softmax = keras.layers.Softmax()(np.array([[1.0, 2.0, 3.0]], np.float32), mask=tf.constant([[True, False, True]]))
    np.testing.assert_allclose(np.asarray(softmax), REFERENCE["softmax_mask"], rtol=1e-6)
    masked = keras.layers.Masking(mask_value=0.0)(np.array([[[1.0, 0.0], [0.0, 0.0], [2.0, 3.0]]], np.float32))
    np.testing.assert_array_equal(np.asarray(masked), REFERENCE["masking"])
    assert np.asarray(get_keras_mask(masked)).tolist() == REFERENCE["masking_mask"]
    a, b = keras.Input((3,), dtype="int32"), keras.Input((3,), dtype="int32")
    merged = keras.Model([a, b], keras.layers.Add()([keras.layers.Embedding(4, 2, mask_zero=True)(a),
                                                    keras.layers.Embedding(4, 2, mask_zero=True)(b)]))
    out = merged([np.array([[1, 0, 2]], np.int32), np.array([[0, 0, 3]], np.int32)])
    assert np.asarray(get_keras_mask(out)).tolist() == REFERENCE["add_mask"]
    concat = keras.layers.Concatenate()([keras.layers.Embedding(4, 2, mask_zero=True)(np.array([[1, 0, 2]])),
                                         np.ones((1, 3, 2), np.float32)])
    assert np.asarray(get_keras_mask(concat)).tolist() == [[True, True, True]]  # no mask on one side: all kept
    flat = keras.layers.Flatten()(keras.layers.Embedding(4, 2, mask_zero=True)(np.array([[1, 0, 2]])))
    assert get_keras_mask(flat) is None  # Flatten does not support masking: the mask stops
