"""Writes the TF-written checkpoints of this folder with the reference TensorFlow 2.21 + Keras 3 (developer
only; the test suite reads the files without TF). Run: ~/.cache/tpustrategy-references/bin/python <this file>.

module/: tf.train.Checkpoint(model=tf.Module with a float vector, an int32 matrix, a list and a dict of
variables), saved once. dense/: tf.train.Checkpoint(model=Keras Sequential [Input(3), Dense(2)], optimizer=Adam)
after one Adam step. expected.json: every saved value as TF reads it back (tf.train.load_variable).
"""

import json
import os
import pathlib
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = pathlib.Path(__file__).parent


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable([1.0, 2.0, 3.0])
        self.w = tf.Variable(np.arange(6, dtype=np.int32).reshape(2, 3))
        self.l = [tf.Variable(5.0)]
        self.d = {"a": tf.Variable(2.0, trainable=False)}


def main():
    for name in ("module", "dense"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    tf.train.Checkpoint(model=Net()).save(str(HERE / "module" / "ckpt"))
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.layers[0].kernel.assign(np.arange(6, dtype=np.float32).reshape(3, 2) / 10)
    model.layers[0].bias.assign([0.5, -0.5])
    optimizer = keras.optimizers.Adam(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.constant([[1.0, 2.0, 3.0]])) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables,
                                  strict=True))
    tf.train.Checkpoint(model=model, optimizer=optimizer).save(str(HERE / "dense" / "ckpt"))
    expected = {}
    for name in ("module", "dense"):
        path = str(HERE / name / "ckpt-1")
        expected[name] = {key: np.asarray(tf.train.load_variable(path, key)).tolist()
                          for key, _ in tf.train.list_variables(path) if key != "_CHECKPOINTABLE_OBJECT_GRAPH"}
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
