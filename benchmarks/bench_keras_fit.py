"""Keras ``fit`` throughput (examples/s) of a small CNN on synthetic MNIST-shaped data (28x28x1 float32,
10 classes), data-parallel on 8 replicas: tpustrategy.keras on MirroredStrategy over the 8 cores of the
simulated v3-8 against TF 2.21's tf.keras on MirroredStrategy over 8 logical CPUs. Each side runs in a
process of its own (benchmarks/_sides.py); TF's side needs the reference venv
(``bash tools/install_references.sh``) and is skipped without it.

Model: Conv2D(16, 3, relu) -> MaxPooling2D -> Flatten -> Dense(64, relu) -> Dense(10), Adam,
SparseCategoricalCrossentropy(from_logits), accuracy; global batch 256. Each side runs one ``fit`` of
1 + ``--repeats`` epochs (the first, with TF's tracing, untimed); the figure is the median epoch's
examples / second.

    PYTHONPATH=python python benchmarks/bench_keras_fit.py [--tiny] [--repeats N] [--examples N] [--model mlp]

Prints a table and one JSON line ``{"bench": "keras_fit", ...}``; ``ratio_vs_tf`` > 1 means faster than TF.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _sides  # noqa: E402

REPLICAS = 8


def data(examples: int):
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.random((examples, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, size=examples).astype(np.int64)
    return x, y


def build(tf, model_kind: str):
    layers = tf.keras.layers
    if model_kind == "cnn":
        features = [layers.Conv2D(16, 3, activation="relu"), layers.MaxPooling2D(), layers.Flatten()]
    else:
        features = [layers.Flatten(), layers.Dense(128, activation="relu")]
    model = tf.keras.Sequential([tf.keras.Input((28, 28, 1))] + features + [layers.Dense(64, activation="relu"),
                                                                              layers.Dense(10)])
    model.compile(optimizer=tf.keras.optimizers.Adam(),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def run_fit(tf, strategy, model_kind: str, examples: int, batch: int, repeats: int) -> dict:
    """One ``fit`` call of 1 + repeats epochs; the first (tracing, allocation) is not timed."""
    x, y = data(examples)
    with strategy.scope():
        model = build(tf, model_kind)
    starts, seconds = {}, []

    class EpochTimer(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            starts[epoch] = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            if epoch > 0:
                seconds.append(time.perf_counter() - starts[epoch])

    history = model.fit(x, y, batch_size=batch, epochs=1 + repeats, verbose=0, shuffle=False,
                        callbacks=[EpochTimer()])
    median = statistics.median(seconds)
    return {"examples_per_s": examples / median, "epoch_s": median, "final_loss": float(history.history["loss"][-1])}


def side_tpustrategy(args) -> dict:
    import tpustrategy as tf

    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(REPLICAS)])
    result = run_fit(tf, strategy, args.model, args.examples, args.batch, args.repeats)
    result["blas"] = _sides.blas_info()
    return result


def side_tensorflow(args) -> dict:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * REPLICAS)
    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(REPLICAS)])
    result = run_fit(tf, strategy, args.model, args.examples, args.batch, args.repeats)
    result["version"] = tf.__version__
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--side", choices=("tpustrategy", "tensorflow"), help=argparse.SUPPRESS)
    parser.add_argument("--tiny", action="store_true", help="64 examples, batch 32, 1 repeat, no TF side")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--examples", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--model", choices=("cnn", "mlp"), default="cnn")
    parser.add_argument("--no-references", action="store_true")
    args = parser.parse_args()
    if args.tiny:
        args.examples, args.batch, args.repeats = 64, 32, 1
    if args.side:
        _sides.emit((side_tpustrategy if args.side == "tpustrategy" else side_tensorflow)(args))
        return
    passthrough = ["--examples", str(args.examples), "--batch", str(args.batch), "--repeats", str(args.repeats),
                   "--model", args.model]
    results = {"model": args.model, "examples": args.examples, "batch": args.batch, "replicas": REPLICAS}
    ours = _sides.run_side(__file__, "tpustrategy", passthrough)
    results["tpustrategy_examples_per_s"] = ours["examples_per_s"]
    results["tpustrategy_final_loss"] = ours["final_loss"]
    python = _sides.reference_python()
    if not args.tiny and not args.no_references and python is not None:
        theirs = _sides.run_side(__file__, "tensorflow", passthrough, python=python,
                                 extra_env={"TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": ""})
        results["tf_examples_per_s"] = theirs["examples_per_s"]
        results["tf_version"] = theirs["version"]
        results["ratio_vs_tf"] = ours["examples_per_s"] / theirs["examples_per_s"]
    for name, value in results.items():
        print(f"{name:<28} {value:12.3f}" if isinstance(value, float) else f"{name:<28} {value:>12}")
    import json

    print(json.dumps({"bench": "keras_fit", **{k: round(v, 4) if isinstance(v, float) else v
                                               for k, v in results.items()}}))


if __name__ == "__main__":
    main()
