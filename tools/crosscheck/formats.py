"""File-format cross-checks (checkpoints and summaries): files written by one framework, read by the other.

Three steps, each in its own subprocess of the framework named, over one shared directory:
  1. tensorflow:  writes a tf.Module checkpoint, a Keras Sequential([Input(3), Dense(2)]) + Adam checkpoint
                  (after one step) and a summary event file;
  2. tpustrategy: restores both checkpoints into the same structures (the Keras model as a Module with Keras 3's
                  attribute names), reads TF's event file with its own reader (the tensorboard package), writes
                  its own checkpoints (values changed) and event file;
  3. tensorflow:  restores tpustrategy's checkpoints into a tf.Module and a real Keras model + Adam, and reads
                  tpustrategy's event file with tf.compat.v1.train.summary_iterator.
Each step prints what it read; the parent compares it with what the other side wrote.
"""

from __future__ import annotations

import glob
import json
import os

import numpy as np

WRITTEN = {  # the values each side writes (tpustrategy writes them times 2)
    "v": [1.0, 2.0, 3.0],
    "w": [[0, 1, 2], [3, 4, 5]],
    "kernel": [[0.0, 0.1], [0.2, 0.3], [0.4, 0.5]],
    "bias": [0.5, -0.5],
}


def _module(tf, scale):
    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(np.array(WRITTEN["v"], np.float32) * scale)
            self.w = tf.Variable(np.array(WRITTEN["w"], np.int32) * int(scale))
            self.l = [tf.Variable(5.0 * scale)]
            self.d = {"a": tf.Variable(2.0 * scale, trainable=False)}

    return Net()


def _module_values(net):
    return {"v": net.v.numpy().tolist(), "w": net.w.numpy().tolist(), "l0": float(net.l[0].numpy()),
            "a": float(net.d["a"].numpy())}


def _keras_tf(tf, scale):
    import keras

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.layers[0].kernel.assign(np.array(WRITTEN["kernel"], np.float32) * scale)
    model.layers[0].bias.assign(np.array(WRITTEN["bias"], np.float32) * scale)
    return model, model.layers[0]


def _keras_like_tps(tf, scale):
    dense = tf.Module(name="dense")
    dense._kernel = tf.Variable(np.array(WRITTEN["kernel"], np.float32) * scale)
    dense.bias = tf.Variable(np.array(WRITTEN["bias"], np.float32) * scale)
    functional = tf.Module(name="functional")
    functional._operations = [tf.Module(name="input_layer"), dense]
    model = tf.Module(name="sequential")
    model._functional = functional
    return model, dense


def _adam_step(tf, optimizer, dense, kernel_name="kernel"):
    kernel = getattr(dense, kernel_name)
    optimizer.apply_gradients([(tf.ones_like(kernel) * 0.5, kernel), (tf.ones_like(dense.bias), dense.bias)])


def _write_summaries(tf, logdir):
    writer = tf.summary.create_file_writer(logdir)
    with writer.as_default(step=3):
        tf.summary.scalar("loss", 0.25)
        tf.summary.histogram("h", np.array([1.0, 2.0, 2.0, 5.0, 7.0]), buckets=4)
        tf.summary.text("note", "hello")
    writer.close()


def _read_summaries_tensorboard(logdir):
    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.util import tensor_util

    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    out = []
    for event in event_file_loader.EventFileLoader(path).Load():
        for value in event.summary.value:
            array = tensor_util.make_ndarray(value.tensor)
            out.append([event.step, value.tag, value.metadata.plugin_data.plugin_name,
                        array.tolist() if array.dtype != object else [x.decode() for x in array.reshape(-1)]])
    return out


def _read_summaries_tf(tf, logdir):
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    out = []
    for event in tf.compat.v1.train.summary_iterator(path):
        for value in event.summary.value:
            array = tf.make_ndarray(value.tensor)
            out.append([event.step, value.tag, value.metadata.plugin_data.plugin_name,
                        array.tolist() if array.dtype != object else [x.decode() for x in array.reshape(-1)]])
    return out


def step(framework: str, number: int, directory: str) -> dict:
    import importlib

    tf = importlib.import_module(framework)
    if number == 1:
        net = _module(tf, 1.0)
        tf.train.Checkpoint(model=net).save(os.path.join(directory, "tf_module", "ckpt"))
        model, dense = _keras_tf(tf, 1.0)
        import keras

        optimizer = keras.optimizers.Adam(0.1)
        _adam_step(tf, optimizer, dense)
        tf.train.Checkpoint(model=model, optimizer=optimizer).save(os.path.join(directory, "tf_keras", "ckpt"))
        _write_summaries(tf, os.path.join(directory, "tf_logs"))
        return {"module": _module_values(net), "kernel": dense.kernel.numpy().tolist(),
                "bias": dense.bias.numpy().tolist(), "iterations": int(optimizer.iterations.numpy()),
                "momentum": optimizer._momentums[0].numpy().tolist()}
    if number == 2:
        net = _module(tf, 0.0)
        tf.train.Checkpoint(model=net).restore(os.path.join(directory, "tf_module", "ckpt-1")).assert_consumed()
        model, dense = _keras_like_tps(tf, 0.0)
        optimizer = tf.keras.optimizers.Adam(0.5)
        status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(
            os.path.join(directory, "tf_keras", "ckpt-1"))
        status.assert_existing_objects_matched()
        read = {"module": _module_values(net), "kernel": dense._kernel.numpy().tolist(),
                "bias": dense.bias.numpy().tolist(), "iterations": int(optimizer.iterations.numpy()),
                "summaries": _read_summaries_tensorboard(os.path.join(directory, "tf_logs"))}
        # ours: the same structures, values doubled, then one Adam step
        net2 = _module(tf, 2.0)
        tf.train.Checkpoint(model=net2).save(os.path.join(directory, "tps_module", "ckpt"))
        model2, dense2 = _keras_like_tps(tf, 2.0)
        optimizer2 = tf.keras.optimizers.Adam(0.1)
        _adam_step(tf, optimizer2, dense2, "_kernel")
        tf.train.Checkpoint(model=model2, optimizer=optimizer2).save(os.path.join(directory, "tps_keras", "ckpt"))
        _write_summaries(tf, os.path.join(directory, "tps_logs"))
        read["written"] = {"module": _module_values(net2), "kernel": dense2._kernel.numpy().tolist(),
                           "bias": dense2.bias.numpy().tolist(), "iterations": int(optimizer2.iterations.numpy()),
                           "momentum": optimizer2._slot(dense2._kernel, "momentum").numpy().tolist()}
        return read
    net = _module(tf, 0.0)
    tf.train.Checkpoint(model=net).restore(os.path.join(directory, "tps_module", "ckpt-1")).assert_consumed()
    model, dense = _keras_tf(tf, 0.0)
    import keras

    optimizer = keras.optimizers.Adam(0.5)
    optimizer.build(model.trainable_variables)
    tf.train.Checkpoint(model=model, optimizer=optimizer).restore(
        os.path.join(directory, "tps_keras", "ckpt-1")).assert_existing_objects_matched()
    return {"module": _module_values(net), "kernel": dense.kernel.numpy().tolist(), "bias": dense.bias.numpy().tolist(),
            "iterations": int(optimizer.iterations.numpy()), "momentum": optimizer._momentums[0].numpy().tolist(),
            "learning_rate": float(optimizer.learning_rate.numpy()),
            "summaries": _read_summaries_tf(tf, os.path.join(directory, "tps_logs"))}


def compare(first: dict, second: dict, third: dict) -> list[str]:
    """The differences between what each side wrote and what the other read."""
    problems = []

    def check(label, wrote, read):
        if json.dumps(wrote, sort_keys=True) != json.dumps(read, sort_keys=True):
            problems.append(f"{label}: wrote {json.dumps(wrote)[:300]} read {json.dumps(read)[:300]}")

    for key in ("module", "kernel", "bias", "iterations"):
        check(f"tf -> tps {key}", first[key], second[key])
        check(f"tps -> tf {key}", second["written"][key], third[key])
    check("tps -> tf adam momentum", second["written"]["momentum"], third["momentum"])
    check("tps -> tf learning rate", 0.1, round(third["learning_rate"], 6))
    check("summaries tf -> tps vs tps -> tf", second["summaries"], third["summaries"])
    return problems
