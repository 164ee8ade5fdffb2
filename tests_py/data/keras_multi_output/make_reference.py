"""Writes reference.json with the reference Keras 3.15 (TF 2.21): a two-output functional model trained with
list / dict / single losses, ``loss_weights`` and per-output metrics (developer only; the tests read the JSON):

    ~/.cache/tpustrategy-references/bin/python tests_py/data/keras_multi_output/make_reference.py
"""

import json
import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import program  # noqa: E402

if __name__ == "__main__":
    out = pathlib.Path(__file__).resolve().parent / "reference.json"
    out.write_text(json.dumps(program.run_all(keras), indent=1, sort_keys=True) + "\n")
