"""The Keras parts of TF's guides "Distributed training with Keras" and "Use TPUs" with
``import tpustrategy as tf`` and synthetic MNIST-shaped data in place of the downloads.

Kept as the guides write them (TF 2.21 / Keras 3 era): the model built and compiled in
``strategy.scope()``, ``model.fit`` on a batched ``tf.data.Dataset``, the callbacks of the Keras guide
(TensorBoard, ModelCheckpoint with ``save_weights_only``, LearningRateScheduler, a PrintLR callback),
``load_weights`` of the last checkpoint, ``evaluate``. Changes besides the import: synthetic data and fewer
steps / epochs; the checkpoint path ends in ``.weights.h5`` (Keras 3 requires it); the "Use TPUs" CNN is
narrower (its 256-filter convolutions cost minutes on a CPU simulation); ``cnn=False`` swaps the
convolution layers for Dense ones (for builds without ``tf.nn.conv2d``); ``tensorboard=False`` drops the
TensorBoard callback (for builds without ``tf.summary``); images are float32 0..255 on builds without uint8.
"""

from __future__ import annotations

import glob
import io
import os
from contextlib import redirect_stdout

import numpy as np

import tpustrategy as tf


def synthetic_mnist(n: int, seed: int = 0):
    """uint8 28x28x1 images and int64 labels a simple rule separates (mean brightness of a quadrant)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, size=n)
    images = rng.integers(0, 64, size=(n, 28, 28, 1))
    for digit in range(10):  # each class lights a different 7x7 patch
        rows = labels == digit
        r, c = (digit // 4) * 7, (digit % 4) * 7
        images[rows, r:r + 7, c:c + 7, 0] += 160
    return images.astype(_image_dtype()), labels.astype(np.int64)


def _image_dtype():
    """uint8 as MNIST, or float32 pixel values 0..255 on a build without uint8 tensors."""
    try:
        tf.constant(np.zeros(1, np.uint8))
    except TypeError:
        return np.float32
    return np.uint8


def _feature_layers(cnn: bool, filters: int):
    if cnn:
        return [tf.keras.layers.Conv2D(filters, 3, activation="relu", input_shape=(28, 28, 1)),
                tf.keras.layers.MaxPooling2D(), tf.keras.layers.Flatten()]
    return [tf.keras.layers.Flatten(input_shape=(28, 28, 1)), tf.keras.layers.Dense(filters * 4, activation="relu")]


def distributed_training_with_keras(strategy, workdir, epochs=4, n_train=512, n_eval=256, cnn=True,
                                    tensorboard=True):
    """Returns (history, eval_loss, eval_acc, printed learning rates, checkpoint files, log dir)."""
    images, labels = synthetic_mnist(n_train)
    test_images, test_labels = synthetic_mnist(n_eval, seed=1)
    mnist_train = tf.data.Dataset.from_tensor_slices((images, labels))
    mnist_test = tf.data.Dataset.from_tensor_slices((test_images, test_labels))

    BUFFER_SIZE = 10000
    BATCH_SIZE_PER_REPLICA = 8
    BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync

    def scale(image, label):
        image = tf.cast(image, tf.float32)
        image /= 255
        return image, label

    train_dataset = mnist_train.map(scale).cache().shuffle(BUFFER_SIZE).batch(BATCH_SIZE)
    eval_dataset = mnist_test.map(scale).batch(BATCH_SIZE)

    with strategy.scope():
        model = tf.keras.Sequential(_feature_layers(cnn, 8) + [
            tf.keras.layers.Dense(64, activation="relu"),
            tf.keras.layers.Dense(10),
        ])
        model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      optimizer=tf.keras.optimizers.Adam(), metrics=["accuracy"])

    checkpoint_dir = os.path.join(workdir, "training_checkpoints")
    checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt_{epoch}.weights.h5")

    def decay(epoch):
        if epoch < 3:
            return 1e-3
        elif epoch >= 3 and epoch < 7:
            return 1e-4
        else:
            return 1e-5

    printed = io.StringIO()

    class PrintLR(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            print(f"\nLearning rate for epoch {epoch + 1} is {model.optimizer.learning_rate.numpy()}")

    log_dir = os.path.join(workdir, "logs")
    callbacks = ([tf.keras.callbacks.TensorBoard(log_dir=log_dir)] if tensorboard else []) + [
        tf.keras.callbacks.ModelCheckpoint(filepath=checkpoint_prefix, save_weights_only=True),
        tf.keras.callbacks.LearningRateScheduler(decay),
        PrintLR(),
    ]
    with redirect_stdout(printed):
        history = model.fit(train_dataset, epochs=epochs, callbacks=callbacks, verbose=0)
    checkpoints = sorted(glob.glob(os.path.join(checkpoint_dir, "*.weights.h5")),
                         key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    model.load_weights(checkpoints[-1])
    eval_loss, eval_acc = model.evaluate(eval_dataset, verbose=0)
    return history, eval_loss, eval_acc, printed.getvalue(), checkpoints, log_dir


def use_tpus_keras(strategy, epochs=5, steps_per_epoch=4, batch_size=64, cnn=True):
    """"Use TPUs", "Train a model using Keras high-level APIs": returns the History."""
    images, labels = synthetic_mnist(batch_size * steps_per_epoch, seed=2)
    test_images, test_labels = synthetic_mnist(batch_size * 2, seed=3)

    def create_model():
        regularizer = tf.keras.regularizers.L2(1e-5)
        features = ([tf.keras.layers.Conv2D(8, 3, input_shape=(28, 28, 1), activation="relu",
                                            kernel_regularizer=regularizer),
                     tf.keras.layers.Conv2D(8, 3, activation="relu", kernel_regularizer=regularizer),
                     tf.keras.layers.Flatten()] if cnn else
                    [tf.keras.layers.Flatten(input_shape=(28, 28, 1)),
                     tf.keras.layers.Dense(64, activation="relu", kernel_regularizer=regularizer)])
        return tf.keras.Sequential(features + [
            tf.keras.layers.Dense(64, activation="relu", kernel_regularizer=regularizer),
            tf.keras.layers.Dense(32, activation="relu", kernel_regularizer=regularizer),
            tf.keras.layers.Dense(10, kernel_regularizer=regularizer)])

    def get_dataset(batch_size, is_training=True):
        x, y = (images, labels) if is_training else (test_images, test_labels)

        def scale(image, label):
            image = tf.cast(image, tf.float32)
            image /= 255.0
            return image, label

        dataset = tf.data.Dataset.from_tensor_slices((x, y)).map(scale)
        if is_training:
            dataset = dataset.shuffle(10000).repeat()
        return dataset.batch(batch_size, drop_remainder=True)

    with strategy.scope():
        model = create_model()
        model.compile(optimizer="adam", steps_per_execution=50,
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["sparse_categorical_accuracy"])
    train_dataset = get_dataset(batch_size, is_training=True)
    test_dataset = get_dataset(batch_size, is_training=False)
    validation_steps = 2
    return model, model.fit(train_dataset, epochs=epochs, steps_per_epoch=steps_per_epoch,
                            validation_data=test_dataset, validation_steps=validation_steps, verbose=0)
