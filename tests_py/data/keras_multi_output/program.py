"""The multi-output program both Keras 3 and tpustrategy.keras run (``keras`` is either)."""

from __future__ import annotations

import numpy as np

CASES = {
    "list": dict(loss=["mse", "mae"], loss_weights=[1.0, 0.5], metrics=[["mae"], ["mse"]]),
    "dict": dict(loss={"b": "mae", "a": "mse"}, loss_weights={"a": 2.0, "b": 1.0}, metrics={"a": "mae"}),
    "single": dict(loss="mse", loss_weights=None, metrics=None),
}


def run(keras, case: str) -> dict:
    inputs = keras.Input((3,), name="x")
    model = keras.Model(inputs, [keras.layers.Dense(2, name="a")(inputs), keras.layers.Dense(1, name="b")(inputs)])
    model.set_weights([np.full(v.shape, 0.1 * (k + 1), np.float32) for k, v in enumerate(model.weights)])
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    ya, yb = np.ones((4, 2), np.float32), np.zeros((4, 1), np.float32)
    y = {"a": ya, "b": yb} if case == "dict" else [ya, yb]
    model.compile(keras.optimizers.SGD(0.1), **CASES[case])
    history = model.fit(x, y, batch_size=2, epochs=2, verbose=0, shuffle=False)
    return {"history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
            "evaluate": {k: float(v) for k, v in model.evaluate(x, y, verbose=0, return_dict=True).items()},
            "weights": [np.asarray(w, np.float64).tolist() for w in model.get_weights()]}


def run_all(keras) -> dict:
    return {case: run(keras, case) for case in CASES}
