"""An MNIST-style program as the TF guides write it, with ``import tpustrategy as tf``: uint8 images and
labels (synthetic in place of the download) -> ``Dataset.from_tensor_slices`` -> ``map(cast / 255)`` ->
``batch`` -> ``experimental_distribute_dataset`` -> a custom training loop on 8 replicas."""

from __future__ import annotations

import numpy as np
import pytest
import training_programs as programs

import tpustrategy as tf

SIDE, CLASSES = 8, 10


def synthetic_mnist(n, seed=0):
    """uint8 "digits": each class lights its own band of pixels, plus uint8 noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, size=n).astype(np.uint8)
    images = rng.integers(0, 60, size=(n, SIDE, SIDE)).astype(np.uint8)
    for i, label in enumerate(labels):
        images[i].reshape(-1)[label * 6:label * 6 + 6] = 255
    return images, labels


def mnist_guide(strategy, epochs=3, batch_size_per_replica=8, n=512):
    images, labels = synthetic_mnist(n)
    assert images.dtype == np.uint8
    global_batch = batch_size_per_replica * strategy.num_replicas_in_sync

    def scale(image, label):
        return tf.reshape(tf.cast(image, tf.float32) / 255.0, [SIDE * SIDE]), tf.cast(label, tf.int64)

    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    spec = dataset.element_spec
    assert spec[0].dtype == tf.uint8 and spec[1].dtype == tf.uint8
    dataset = dataset.map(scale).shuffle(n, seed=1).batch(global_batch)
    dist_dataset = strategy.experimental_distribute_dataset(dataset)
    with strategy.scope():
        model = programs.MLP(widths=(SIDE * SIDE, 32, CLASSES), l2=0.0)
        optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)
        accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    def train_step(inputs):
        x, y = inputs
        assert x.dtype == tf.float32 and y.dtype == tf.int64
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = tf.nn.compute_average_loss(loss_object(y, logits), global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        accuracy.update_state(y, logits)
        return loss

    losses = []
    for _ in range(epochs):
        total, batches = 0.0, 0
        for batch in dist_dataset:
            total += float(strategy.reduce("sum", strategy.run(train_step, args=(batch,)), axis=None))
            batches += 1
        losses.append(total / batches)
    return losses, float(accuracy.result()), programs.replicas_identical(model)


@pytest.mark.parametrize("make", [lambda: tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)]),
                                  programs.tpu_strategy], ids=["mirrored8", "tpu_v3_8"])
def test_mnist_uint8_pipeline_trains_on_8_replicas(make):
    losses, accuracy, identical = mnist_guide(make())
    print("mnist uint8 losses", losses, "accuracy", accuracy)
    assert losses[-1] < 0.5 * losses[0], losses
    assert accuracy > 0.4  # over all three epochs; chance is 0.1
    assert identical


def test_uint8_dataset_batches_keep_their_dtype_and_values():
    images, labels = synthetic_mnist(6)
    batches = list(tf.data.Dataset.from_tensor_slices((images, labels)).batch(4))
    assert [b[0].shape[0] for b in batches] == [4, 2]
    assert batches[0][0].dtype == tf.uint8
    np.testing.assert_array_equal(batches[0][0].numpy(), images[:4])
    np.testing.assert_array_equal(batches[1][1].numpy(), labels[4:])
