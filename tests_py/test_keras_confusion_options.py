"""Precision / Recall ``top_k`` and ``class_id``, AUC ``multi_label`` and ``label_weights`` (Keras 3 semantics),
against numpy and against the single-label AUC of each column."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf

keras = tf.keras
RNG = np.random.default_rng(3)
Y_PRED = RNG.uniform(size=(16, 4)).astype(np.float32)
Y_TRUE = (RNG.uniform(size=(16, 4)) > 0.6).astype(np.float32)


def _top_k_mask(values, k):
    keep = np.zeros(values.shape, bool)
    np.put_along_axis(keep, np.argsort(-values, axis=-1, kind="stable")[:, :k], True, axis=-1)
    return keep


@pytest.mark.parametrize("k", [1, 2])
def test_precision_and_recall_top_k(k):
    predicted = _top_k_mask(Y_PRED, k)  # default threshold with top_k: every kept prediction is positive
    labels = Y_TRUE.astype(bool)
    tp = (predicted & labels).sum()
    precision, recall = keras.metrics.Precision(top_k=k), keras.metrics.Recall(top_k=k)
    precision.update_state(Y_TRUE, Y_PRED)
    recall.update_state(Y_TRUE, Y_PRED)
    assert float(precision.result()) == pytest.approx(tp / predicted.sum(), rel=1e-6)
    assert float(recall.result()) == pytest.approx(tp / labels.sum(), rel=1e-6)


def test_class_id_with_and_without_top_k():
    column = 2
    p = keras.metrics.Precision(class_id=column)
    p.update_state(Y_TRUE, Y_PRED)
    predicted, labels = Y_PRED[:, column] > 0.5, Y_TRUE[:, column].astype(bool)
    assert float(p.result()) == pytest.approx((predicted & labels).sum() / predicted.sum(), rel=1e-6)
    r = keras.metrics.Recall(top_k=1, class_id=column)
    r.update_state(Y_TRUE, Y_PRED)
    kept = _top_k_mask(Y_PRED, 1)[:, column]
    assert float(r.result()) == pytest.approx((kept & labels).sum() / labels.sum(), rel=1e-6)
    with pytest.raises(ValueError, match="top_k"):
        keras.metrics.Precision(top_k=0)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
def test_multi_label_auc_is_the_mean_of_the_labels_aucs(curve):
    per_label = []
    for j in range(4):
        single = keras.metrics.AUC(curve=curve)
        single.update_state(Y_TRUE[:, j], Y_PRED[:, j])
        per_label.append(float(single.result()))
    multi = keras.metrics.AUC(curve=curve, multi_label=True)
    multi.update_state(Y_TRUE[:8], Y_PRED[:8])
    multi.update_state(Y_TRUE[8:], Y_PRED[8:])
    assert float(multi.result()) == pytest.approx(np.mean(per_label), rel=1e-5)
    weights = [1.0, 0.0, 2.0, 1.0]
    weighted = keras.metrics.AUC(curve=curve, multi_label=True, num_labels=4, label_weights=weights)
    weighted.update_state(Y_TRUE, Y_PRED)
    assert float(weighted.result()) == pytest.approx(np.dot(per_label, weights) / sum(weights), rel=1e-5)
    with pytest.raises(ValueError, match="built for 4 labels"):
        weighted.update_state(Y_TRUE[:, :3], Y_PRED[:, :3])


def test_label_weights_without_multi_label_weight_the_pooled_counts():
    weights = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    auc = keras.metrics.AUC(label_weights=weights)
    auc.update_state(Y_TRUE, Y_PRED)
    pooled = keras.metrics.AUC()
    pooled.update_state(Y_TRUE, Y_PRED, sample_weight=np.broadcast_to(weights, Y_TRUE.shape))
    assert float(auc.result()) == pytest.approx(float(pooled.result()), rel=1e-6)


def test_multi_label_auc_under_a_strategy_in_fit():
    strategy = tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"])
    with strategy.scope():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4, activation="sigmoid")])
        model.compile("sgd", "binary_crossentropy",
                      metrics=[keras.metrics.AUC(multi_label=True, num_labels=4, name="auc")])
    logs = model.evaluate(Y_PRED, Y_TRUE, batch_size=8, verbose=0, return_dict=True)
    predictions = model.predict(Y_PRED, verbose=0)
    check = keras.metrics.AUC(multi_label=True)
    check.update_state(Y_TRUE, predictions)
    assert logs["auc"] == pytest.approx(float(check.result()), rel=1e-5)
