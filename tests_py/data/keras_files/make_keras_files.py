"""Writes this folder's ``.keras`` files with the reference Keras 3.15 (TF 2.21) and checks that Keras loads
the ``.keras`` files tpustrategy writes (developer only; the test suite reads the stored results):

    ~/.cache/tpustrategy-references/bin/python tests_py/data/keras_files/make_keras_files.py

1. Keras builds models.py's three models, trains each one Adam step (so optimizer variables are saved),
   saves ``<name>.keras`` here and records its predictions in expected.json["keras"].
2. tpustrategy (the project's python3, PYTHONPATH=python) builds the same models, saves them to a temporary
   folder; Keras loads those files and records its predictions in expected.json["keras_loads_ours"].
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))
import models as shared  # noqa: E402

OURS = """
import sys, numpy as np
sys.path.insert(0, {here!r})
import models as shared
from tpustrategy import keras
built = shared.build(keras)
shared.train_one_step(built)
for name, (model, inputs) in built.items():
    model.save({out!r} + "/" + name + ".keras")
"""


def main():
    two_dense = shared.register(keras)
    built = shared.build(keras, two_dense)
    shared.train_one_step(built)
    for name, (model, _) in built.items():
        model.save(HERE / f"{name}.keras")
    expected = {"keras": shared.predictions(built),
                "inputs": {n: np.asarray(i, np.float64).tolist() if not isinstance(i, tuple)
                           else [np.asarray(x, np.float64).tolist() for x in i] for n, (_, i) in built.items()}}
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
        subprocess.run(["python3", "-c", OURS.format(here=str(HERE), out=out)], check=True, env=env, cwd=ROOT)
        loaded = {}
        for name, (_, inputs) in built.items():
            model = keras.models.load_model(f"{out}/{name}.keras")
            loaded[name] = (model, inputs)
        expected["keras_loads_ours"] = shared.predictions(loaded)
        expected["keras_loads_ours_iterations"] = {n: int(m.optimizer.iterations.numpy()) for n, (m, _) in
                                                   loaded.items()}
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
