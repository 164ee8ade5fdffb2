"""The Keras parts of TF's guides "Distributed training with Keras" (MirroredStrategy, callbacks,
checkpoints, TensorBoard) and "Use TPUs" (model.fit on TPUStrategy) with ``import tpustrategy as tf``
(keras_guide_programs.py): loss decreasing, replicas identical, checkpoints and logs written."""

from __future__ import annotations

import os

import numpy as np
import pytest
from keras_guide_programs import distributed_training_with_keras, use_tpus_keras

import tpustrategy as tf

HAS_CONV = hasattr(tf.nn, "conv2d") and hasattr(tf.nn, "max_pool2d")
HAS_SUMMARY = hasattr(getattr(tf, "summary", None), "create_file_writer")
MODELS = [pytest.param(True, id="cnn", marks=pytest.mark.skipif(not HAS_CONV, reason="tf.nn.conv2d / max_pool2d not "
                                                                                      "in this build (branch nnops)")),
          pytest.param(False, id="dense")]


def _identical(model):
    return all(all(np.array_equal(v.numpy(), w.values[0].numpy()) for v in w.values) for w in model.weights
               if hasattr(w, "values"))


@pytest.mark.parametrize("cnn", MODELS)
def test_distributed_training_with_keras_guide(tmp_path, cnn):
    pytest.importorskip("h5py")
    tf.keras.utils.set_random_seed(0)  # the initial weights, whatever ran before in this process
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    history, eval_loss, eval_acc, printed, checkpoints, _ = distributed_training_with_keras(
        strategy, str(tmp_path), cnn=cnn, tensorboard=False)
    losses = history.history["loss"]
    print("Distributed training with Keras:", losses, "eval", eval_loss, eval_acc)
    assert losses[-1] < 0.5 * losses[0], losses
    assert history.history["learning_rate"] == pytest.approx([1e-3, 1e-3, 1e-3, 1e-4])
    assert "Learning rate for epoch 4 is 9.999999747378752e-05" in printed
    assert [os.path.basename(p) for p in checkpoints] == [f"ckpt_{i}.weights.h5" for i in range(1, 5)]
    assert eval_acc > 0.8


@pytest.mark.skipif(not HAS_SUMMARY, reason="tf.summary not in this build (branch ckpt)")
def test_distributed_training_with_keras_guide_writes_tensorboard_scalars(tmp_path):
    pytest.importorskip("h5py")
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    history, _, _, _, _, log_dir = distributed_training_with_keras(strategy, str(tmp_path), epochs=2, cnn=HAS_CONV)
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    from tensorboard.util import tensor_util

    acc = event_accumulator.EventAccumulator(os.path.join(log_dir, "train"),
                                             size_guidance={event_accumulator.TENSORS: 0})
    acc.Reload()
    assert sorted(acc.Tags()["tensors"]) == ["epoch_accuracy", "epoch_learning_rate", "epoch_loss"]
    loss = acc.Tensors("epoch_loss")
    assert [e.step for e in loss] == [0, 1]
    np.testing.assert_allclose([tensor_util.make_ndarray(e.tensor_proto) for e in loss], history.history["loss"],
                               rtol=1e-6)
    lr = [float(tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors("epoch_learning_rate")]
    assert lr == pytest.approx([1e-3, 1e-3])


@pytest.mark.parametrize("cnn", MODELS)
def test_use_tpus_guide_keras_fit_on_tpu_strategy(cnn):
    tf.keras.utils.set_random_seed(0)
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    strategy = tf.distribute.TPUStrategy(resolver)
    model, history = use_tpus_keras(strategy, cnn=cnn)
    losses = history.history["loss"]
    print("Use TPUs (Keras):", losses, history.history["val_sparse_categorical_accuracy"])
    assert set(history.history) == {"loss", "sparse_categorical_accuracy", "val_loss",
                                    "val_sparse_categorical_accuracy"}
    assert losses[-1] < 0.6 * losses[0], losses
    assert history.history["val_sparse_categorical_accuracy"][-1] > 0.8
    assert type(model.weights[0]).__name__ == "TPUMirroredVariable" and _identical(model)
    assert int(model.optimizer.iterations.numpy()) == 20
