"""Writes tf.train.Checkpoint(model=<real Keras 3 model>) files with TF 2.21 + Keras 3.15 (developer only; the
tests read them without TF):

    ~/.cache/tpustrategy-references/bin/python tests_py/data/tf_checkpoints/make_keras_model_checkpoints.py

keras_cnn/: a Sequential [Input(6, 6, 1), Conv2D(2, 3), BatchNormalization, MaxPooling2D, Flatten, Dense(3)];
keras_functional/: a functional model (two Dense layers into Add, Embedding-free), both with weights from a
seeded numpy generator. keras_models.json: for each, ``model.get_weights()``, the predictions on a fixed
input, and the checkpoint's object graph (every node's children) so the tests can show what Keras names.
"""

import json
import os
import pathlib
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from keras_models import build  # noqa: E402

HERE = pathlib.Path(__file__).parent


def graph(path):
    from tensorflow.core.protobuf import trackable_object_graph_pb2

    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    proto.ParseFromString(tf.train.load_checkpoint(path).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    return [[(c.local_name, c.node_id) for c in node.children] for node in proto.nodes]


def main():
    rng = np.random.default_rng(5)
    expected = {}
    for name, (model, shape) in build(keras).items():
        shutil.rmtree(HERE / name, ignore_errors=True)
        model.set_weights([rng.normal(scale=0.5, size=w.shape).astype(np.float32) + (1.0 if "variance" in w.path
                                                                                    else 0.0)
                           for w in model.weights])
        x = rng.normal(size=shape).astype(np.float32)
        path = tf.train.Checkpoint(model=model).save(str(HERE / name / "ckpt"))
        expected[name] = {"weights": [w.tolist() for w in model.get_weights()], "input": x.tolist(),
                          "predict": np.asarray(model(x, training=False)).tolist(), "object_graph": graph(path)}
    (HERE / "keras_models.json").write_text(json.dumps(expected) + "\n")


if __name__ == "__main__":
    main()
