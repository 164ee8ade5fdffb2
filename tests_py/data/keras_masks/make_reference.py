"""Writes reference.json with the reference Keras 3.15 (TF 2.21): masks from Embedding(mask_zero) through Dense,
the masked loss, Softmax with a mask, Masking, and the merged mask of Add (developer only):

    ~/.cache/tpustrategy-references/bin/python tests_py/data/keras_masks/make_reference.py
"""

import json
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402


def main():
    x = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], np.int32)
    emb = keras.layers.Embedding(5, 2, mask_zero=True)
    inputs = keras.Input((4,), dtype="int32")
    model = keras.Model(inputs, keras.layers.Dense(1)(emb(inputs)))
    model.set_weights([np.arange(10, dtype=np.float32).reshape(5, 2) / 10, np.array([[1.0], [2.0]], np.float32),
                       np.array([0.5], np.float32)])
    model.compile("sgd", "mse")
    out = {"eval_loss": float(model.evaluate(x, np.ones((2, 4, 1), np.float32), verbose=0))}
    predictions = model(x)
    out["pred"] = np.asarray(predictions).tolist()
    out["mask"] = np.asarray(predictions._keras_mask).tolist()
    softmax = keras.layers.Softmax()(np.array([[1.0, 2.0, 3.0]], np.float32), mask=np.array([[True, False, True]]))
    out["softmax_mask"] = np.asarray(softmax).tolist()
    masked = keras.layers.Masking(mask_value=0.0)(np.array([[[1.0, 0.0], [0.0, 0.0], [2.0, 3.0]]], np.float32))
    out["masking"] = np.asarray(masked).tolist()
    out["masking_mask"] = np.asarray(masked._keras_mask).tolist()
    out["compute_mask"] = np.asarray(emb.compute_mask(x)).tolist()
    a, b = keras.Input((3,), dtype="int32"), keras.Input((3,), dtype="int32")
    merged = keras.Model([a, b], keras.layers.Add()([keras.layers.Embedding(4, 2, mask_zero=True)(a),
                                                    keras.layers.Embedding(4, 2, mask_zero=True)(b)]))
    out["add_mask"] = np.asarray(merged([np.array([[1, 0, 2]]), np.array([[0, 0, 3]])])._keras_mask).tolist()
    (pathlib.Path(__file__).resolve().parent / "reference.json").write_text(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
