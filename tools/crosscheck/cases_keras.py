"""Keras ``fit`` on an 8-replica MirroredStrategy: the same Sequential model, initial weights and data,
trained 2 epochs, on TF 2.21's tf.keras and on tpustrategy.keras.

Registered case ``keras_fit_parity[mirrored]`` compares weights, History, predictions and evaluate
rounded to 5 significant digits (float32 training accumulates ulp-level differences between oneDNN and
Eigen, so an exact comparison would say nothing). Run as a script with TensorFlow to (re)write
``data/keras_fit_tf221.json`` at full precision; tests_py/test_keras_crosscheck.py compares against it
within 1e-5 relative, without TF:

    ~/.cache/tpustrategy-references/bin/python tools/crosscheck/cases_keras.py --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

try:
    from crosscheck.registry import MIRRORED, case
except ImportError:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from crosscheck.registry import MIRRORED, case

REFERENCE = Path(__file__).resolve().parent / "data" / "keras_fit_tf221.json"


def keras_fit_program(tf, strategy) -> dict:
    """The program both frameworks run (``tf`` is tensorflow or tpustrategy)."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(256, 8)).astype(np.float32)
    y = np.argmax(x @ rng.normal(size=(8, 3)), axis=1).astype(np.int64)
    initial = [rng.normal(scale=0.3, size=shape).astype(np.float32) for shape in [(8, 16), (16,), (16, 3), (3,)]]
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation="tanh"),
                                     tf.keras.layers.Dense(3)])
        model.set_weights(initial)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1, momentum=0.9),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(x, y, batch_size=64, epochs=2, shuffle=False, verbose=0)
    return {
        "weights": [np.asarray(w, np.float64).tolist() for w in model.get_weights()],
        "history": {k: [float(v) for v in values] for k, values in history.history.items()},
        "predict": np.asarray(model.predict(x[:4], verbose=0), np.float64).tolist(),
        "evaluate": [float(v) for v in model.evaluate(x, y, verbose=0)],
        "iterations": int(model.optimizer.iterations.numpy()),
    }


def _rounded(value, digits=5):
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    return value


@case(kinds=(MIRRORED,))
def keras_fit_parity(tf, strategy):
    return _rounded(keras_fit_program(tf, strategy(8)))


@case(kinds=(MIRRORED,))
def keras_multi_output_parity(tf, strategy):
    """A two-output functional model with list / dict / single losses, loss_weights and per-output metrics
    (tests_py/data/keras_multi_output/program.py) trained under a 2-replica MirroredStrategy."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests_py" / "data" / "keras_multi_output"))
    import program

    with strategy(2).scope():  # 4 digits: a float32 loss of 0.812125 sits on the 5th digit's rounding edge
        return _rounded(program.run_all(tf.keras), digits=4)


def _write_reference() -> None:
    import os

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 8)
    strategy = tf.distribute.MirroredStrategy([f"CPU:{i}" for i in range(8)])
    result = keras_fit_program(tf, strategy)
    result["produced_by"] = f"tensorflow {tf.__version__}, keras {tf.keras.__version__}"
    REFERENCE.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {REFERENCE}")


if __name__ == "__main__" and "--write" in sys.argv:
    _write_reference()
