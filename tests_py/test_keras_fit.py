"""tf.keras compile / fit / evaluate / predict on OneDeviceStrategy, MirroredStrategy (8 replicas) and
TPUStrategy (v3-8): History contents, distributed weights staying identical, predictions equal to the
single-device model, 8-replica vs single-device parity, callbacks, weights, progress output."""

from __future__ import annotations

import re

import numpy as np
import pytest
from keras_helpers import mirrored_or_none, one_device_and_mirrored, scope_of
from training_programs import tpu_strategy

import tpustrategy as tf
from tpustrategy import keras

layers = keras.layers


STRATEGIES = {
    "one_device": lambda: tf.distribute.OneDeviceStrategy("TPU:0"),
    "mirrored8": lambda: tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)]),
    "tpu_v3_8": tpu_strategy,
}


@pytest.fixture(params=sorted(STRATEGIES), ids=sorted(STRATEGIES))
def strategy(request):
    keras.backend.clear_session()
    return STRATEGIES[request.param]()


def classification_data(n=256, features=8, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features)).astype(np.float32)
    teacher = rng.normal(size=(features, classes))
    return x, np.argmax(x @ teacher, axis=1).astype(np.int64)


def mlp(classes=3, features=8, seed=0):
    init = keras.initializers
    return keras.Sequential([
        keras.Input((features,)),
        layers.Dense(16, activation="relu", kernel_initializer=init.GlorotUniform(seed=seed)),
        layers.Dense(classes, kernel_initializer=init.GlorotUniform(seed=seed + 1)),
    ])


def _identical(model):
    for w in model.weights:
        values = getattr(w, "values", None)
        if values is None:
            continue
        if any(not np.array_equal(v.numpy(), values[0].numpy()) for v in values[1:]):
            return False
    return True


def test_fit_evaluate_predict_on_each_strategy(strategy):
    x, y = classification_data()
    with strategy.scope():
        model = mlp()
        model.compile(optimizer=keras.optimizers.Adam(0.02), loss="sparse_categorical_crossentropy_from_logits"
                      if False else keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(x, y, batch_size=64, epochs=4, verbose=0, validation_split=0.25)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert history.epoch == [0, 1, 2, 3] and history.params == {"verbose": 0, "epochs": 4, "steps": 3}
    losses = history.history["loss"]
    assert losses[-1] < 0.7 * losses[0], losses
    assert history.history["accuracy"][-1] > 0.6
    assert _identical(model)
    assert int(model.optimizer.iterations.numpy()) == 12
    result = model.evaluate(x[192:], y[192:], verbose=0, return_dict=True)
    assert result["loss"] == pytest.approx(history.history["val_loss"][-1], rel=1e-5)
    predictions = model.predict(x, batch_size=50, verbose=0)
    assert predictions.shape == (256, 3)
    k1, b1, k2, b2 = model.get_weights()
    expected = np.maximum(x @ k1 + b1, 0) @ k2 + b2
    np.testing.assert_allclose(predictions, expected, rtol=1e-4, atol=1e-5)


def test_fit_on_a_dataset_with_steps_per_epoch_and_initial_epoch(strategy):
    x, y = classification_data(128)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(32)
    with strategy.scope():
        model = mlp()
        model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=[keras.metrics.SparseCategoricalAccuracy()])
    history = model.fit(dataset, epochs=4, steps_per_epoch=3, initial_epoch=2, verbose=0)
    assert history.epoch == [2, 3]
    assert set(history.history) == {"loss", "sparse_categorical_accuracy"}
    assert int(model.optimizer.iterations.numpy()) == 6
    loss, acc = model.evaluate(tf.data.Dataset.from_tensor_slices((x, y)).batch(40), verbose=0)
    assert 0 <= acc <= 1 and loss > 0


def _parity_model(weights, synchronized_bn=False):
    keras.backend.clear_session()
    stack = [keras.Input((8,)), layers.Dense(16, activation="tanh")]
    if synchronized_bn:
        stack.append(layers.BatchNormalization(synchronized=True))
    stack.append(layers.Dense(3))
    model = keras.Sequential(stack)
    if weights is not None:
        model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


@pytest.mark.parametrize("synchronized_bn", [False, True], ids=["mlp", "sync_batchnorm"])
def test_eight_replicas_match_one_device_with_the_global_batch(synchronized_bn):
    x, y = classification_data(256)
    single = _parity_model(None, synchronized_bn)
    initial = single.get_weights()
    single_history = single.fit(x, y, batch_size=64, epochs=2, shuffle=False, verbose=0)
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    with strategy.scope():
        replicated = _parity_model(initial, synchronized_bn)
    history = replicated.fit(x, y, batch_size=64, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(single.get_weights(), replicated.get_weights(), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    for key in ("loss", "accuracy"):
        np.testing.assert_allclose(history.history[key], single_history.history[key], rtol=1e-5)
    assert _identical(replicated)


def test_a_last_batch_smaller_than_the_replica_count_trains_and_predicts():
    x, y = classification_data(70)
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    with strategy.scope():
        model = mlp()
        model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, batch_size=32, epochs=1, verbose=0)  # batches 32, 32, 6 (6 < 8 replicas)
    assert np.isfinite(history.history["loss"][0])
    assert model.predict(x, batch_size=32, verbose=0).shape == (70, 3)


def test_sample_weight_and_class_weight_weight_the_loss():
    x, y = classification_data(64)
    model = mlp()
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    logits = np.asarray(model(x))
    log_probs = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1, keepdims=True)) - logits.max(
        1, keepdims=True)
    per_example = -log_probs[np.arange(64), y]
    weights = np.linspace(0, 2, 64).astype(np.float32)
    result = model.test_on_batch(x, y, sample_weight=weights)
    assert result == pytest.approx(float(np.mean(per_example * weights)), rel=1e-5)
    class_weight = {0: 0.0, 1: 1.0, 2: 3.0}
    cw = np.array([class_weight[int(c)] for c in y])
    before = model.get_weights()
    model.reset_metrics()
    loss = model.train_on_batch(x, y, class_weight=class_weight)
    assert loss == pytest.approx(float(np.mean(per_example * cw)), rel=1e-5)
    assert not np.array_equal(before[0], model.get_weights()[0])


def test_regularization_losses_are_part_of_the_training_loss():
    keras.backend.clear_session()
    model = keras.Sequential([keras.Input((2,)), layers.Dense(1, kernel_initializer="ones", use_bias=False,
                                                               kernel_regularizer=keras.regularizers.L2(0.5))])
    model.compile("sgd", "mse")
    x, y = np.zeros((4, 2), np.float32), np.zeros((4, 1), np.float32)
    assert model.train_on_batch(x, y) == pytest.approx(0.5 * 2.0)  # mse 0 + 0.5 * |k|^2


def test_train_on_batch_test_on_batch_predict_on_batch_under_mirrored():
    x, y = classification_data(32)
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    with strategy.scope():
        model = mlp()
        model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    loss, acc = model.train_on_batch(x, y)
    assert np.isfinite(loss) and 0 <= acc <= 1
    logs = model.test_on_batch(x, y, return_dict=True)
    assert set(logs) == {"loss", "accuracy"}
    assert model.predict_on_batch(x).shape == (32, 3)
    assert int(model.optimizer.iterations.numpy()) == 1 and _identical(model)


def test_compile_strings_and_metrics():
    keras.backend.clear_session()
    x = np.random.default_rng(1).normal(size=(40, 3)).astype(np.float32)
    y_bin = (x[:, :1] > 0).astype(np.float32)
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy", metrics=["accuracy", "mse", "mae", keras.metrics.AUC(),
                                                          keras.metrics.Precision(), keras.metrics.Recall()])
    logs = model.evaluate(x, y_bin, verbose=0, return_dict=True)
    # Keras 3.15 (TF backend) returns the logs sorted by name (its tf.function's nest sorts dict keys)
    assert list(logs) == ["accuracy", "auc", "loss", "mae", "mse", "precision", "recall"]
    p = model.predict(x, verbose=0)
    predicted = p > 0.5
    assert logs["accuracy"] == pytest.approx(float(np.mean(predicted == (y_bin > 0.5))), rel=1e-6)
    assert logs["mse"] == pytest.approx(float(np.mean((p - y_bin) ** 2)), rel=1e-5)
    tp = float(np.sum(predicted & (y_bin > 0.5)))
    assert logs["precision"] == pytest.approx(tp / max(1.0, float(predicted.sum())), rel=1e-6)
    assert logs["recall"] == pytest.approx(tp / float((y_bin > 0.5).sum()), rel=1e-6)
    # ROC AUC by ranking: P(score of a positive > score of a negative)
    pos, neg = p[y_bin > 0.5], p[y_bin <= 0.5]
    rank_auc = float(np.mean(pos[:, None] > neg[None, :]))
    assert logs["auc"] == pytest.approx(rank_auc, abs=0.02)
    with pytest.raises(ValueError, match="Could not interpret optimizer"):
        model.compile("nope", "mse")
    with pytest.raises(ValueError, match="Could not interpret loss"):
        model.compile("adam", "nope")


def test_fit_before_compile_and_bad_arguments():
    model = mlp()
    x, y = classification_data(16)
    with pytest.raises(ValueError, match="must call `compile"):
        model.fit(x, y)
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="validation_split"):
        model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), validation_split=0.5)
    with pytest.raises(ValueError, match="cardinality is ambiguous"):
        model.fit(x, y[:5], verbose=0)


def test_callbacks_order_early_stopping_scheduler_lambda_checkpoint(tmp_path):
    pytest.importorskip("h5py")
    x, y = classification_data(64)
    model = mlp()
    model.compile(keras.optimizers.SGD(0.0), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    events = []

    class Recorder(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            events.append("train_begin")

        def on_epoch_begin(self, epoch, logs=None):
            events.append(f"epoch_begin{epoch}")

        def on_train_batch_end(self, batch, logs=None):
            events.append(f"batch{batch}:{sorted(logs)}")

        def on_epoch_end(self, epoch, logs=None):
            events.append(f"epoch_end{epoch}:{sorted(logs)}")

        def on_train_end(self, logs=None):
            events.append("train_end")

    seen_lr = []
    callbacks = [
        Recorder(),
        keras.callbacks.LearningRateScheduler(lambda epoch, lr: 0.0 if epoch < 10 else lr),
        keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen_lr.append(logs["learning_rate"])),
        keras.callbacks.EarlyStopping(monitor="loss", patience=1),
        keras.callbacks.ModelCheckpoint(str(tmp_path / "w{epoch:02d}.weights.h5"), save_weights_only=True),
    ]
    # shuffle=False: shuffled batches sum the same losses in another order, which can move the epoch's mean by
    # an ulp, and EarlyStopping counts any decrease as an improvement
    history = model.fit(x, y, batch_size=32, epochs=10, callbacks=callbacks, verbose=0, shuffle=False)
    # a learning rate of 0 never improves the loss: patience 1 stops after the second epoch
    assert history.epoch == [0, 1]
    assert events[0] == "train_begin" and events[-1] == "train_end"
    # the scheduler (after the recorder in the list) adds learning_rate to the epoch's logs
    assert events[1:5] == ["epoch_begin0", "batch0:['loss']", "batch1:['loss']", "epoch_end0:['loss']"]
    assert seen_lr == [0.0, 0.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w01.weights.h5", "w02.weights.h5"]
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "x.h5"), save_weights_only=True)


def test_early_stopping_restores_best_weights():
    x, y = classification_data(64)
    model = mlp()
    model.compile(keras.optimizers.SGD(0.5), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    best = {}

    class Snapshot(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            best[epoch] = (logs["loss"], self.model.get_weights())

    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=0, restore_best_weights=True, min_delta=10.0)
    model.fit(x, y, epochs=5, callbacks=[Snapshot(), stop], verbose=0)
    # min_delta 10 means nothing after the first epoch counts as an improvement
    assert stop.stopped_epoch == 1
    for a, b in zip(model.get_weights(), best[0][1], strict=True):
        np.testing.assert_array_equal(a, b)


def test_steps_per_execution_calls_batch_hooks_per_execution():
    x, y = classification_data(96)
    model = mlp()
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True), steps_per_execution=2)
    batches = []
    model.fit(x, y, batch_size=16, epochs=1, verbose=0,
              callbacks=[keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batches.append(b))])
    assert batches == [1, 3, 5]
    assert int(model.optimizer.iterations.numpy()) == 6


def test_progress_output_verbose_1_and_2(capsys):
    x, y = classification_data(64)
    model = mlp()
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    model.fit(x, y, batch_size=32, epochs=2, verbose=2)
    out = capsys.readouterr().out
    # Keras 3.15 prints the logs sorted by name: "2/2 - 3s - 1s/step - accuracy: 0.7344 - loss: 0.5004"
    assert re.search(r"^Epoch 1/2\n2/2 - \d+s - \d+(ms|us|s)/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}\n"
                     r"Epoch 2/2\n2/2 - ", out), out
    model.fit(x, y, batch_size=32, epochs=1, verbose=1)
    out = capsys.readouterr().out
    assert "\x1b[1m2/2\x1b[0m \x1b[32m" + "━" * 20 in out and " - loss: " in out and out.endswith("\n")
    model.evaluate(x, y, verbose=0)
    model.predict(x, verbose=0)
    assert capsys.readouterr().out == ""


@one_device_and_mirrored(2)
def test_class_weight_with_a_dataset_weights_as_with_arrays(replicas):
    """Keras 3 maps a Dataset's (x, y) to (x, y, class weights of y); the same training as with arrays."""
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    y = np.array([0, 1, 0, 1, 1, 0, 0, 1])
    strategy = mirrored_or_none(replicas)

    def build():
        keras.utils.set_random_seed(1)
        with scope_of(strategy):
            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
            model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return model

    arrays, dataset = build(), build()
    h_arrays = arrays.fit(x, y, batch_size=4, class_weight={0: 1.0, 1: 3.0}, shuffle=False, verbose=0)
    h_dataset = dataset.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), class_weight={0: 1.0, 1: 3.0},
                            verbose=0)
    assert h_dataset.history["loss"] == pytest.approx(h_arrays.history["loss"], rel=1e-6)
    plain = build()
    h_plain = plain.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), verbose=0)
    assert h_plain.history["loss"] != pytest.approx(h_dataset.history["loss"])  # the weights did something
    for a, b in zip(arrays.get_weights(), dataset.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    with pytest.raises(ValueError, match="`class_weight` and `sample_weight` at the same time"):
        build().fit(tf.data.Dataset.from_tensor_slices((x, y, np.ones(8, np.float32))).batch(4),
                    class_weight={0: 1.0}, verbose=0)


def test_tensorboard_histograms_of_every_weight(tmp_path):
    """histogram_freq=2 over 3 epochs: each weight's histogram at epochs 0 and 2, tagged by its path (Keras 3.15)."""
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    event_file_loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")
    import glob

    keras.backend.clear_session()
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    model.fit(np.ones((8, 3), np.float32), np.zeros((8, 2), np.float32), epochs=3, verbose=0,
              callbacks=[keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=2)])
    (path,) = glob.glob(str(tmp_path / "train" / "events.out.tfevents.*"))
    histograms = {}
    for event in event_file_loader.EventFileLoader(path).Load():
        for value in event.summary.value:
            if value.metadata.plugin_data.plugin_name == "histograms":
                histograms.setdefault(value.tag, []).append((event.step, tensor_util.make_ndarray(value.tensor)))
    assert sorted(histograms) == ["sequential/dense/bias/histogram", "sequential/dense/kernel/histogram"]
    assert [step for step, _ in histograms["sequential/dense/kernel/histogram"]] == [0, 2]
    final = histograms["sequential/dense/kernel/histogram"][-1][1]
    assert final[:, 2].sum() == 6  # the 3 x 2 kernel's values, counted once
    assert final[0, 0] == pytest.approx(model.get_weights()[0].min(), rel=1e-6)
    with pytest.raises(ValueError, match="histogram_freq"):
        keras.callbacks.TensorBoard(str(tmp_path), histogram_freq=-1)
