"""The tf.train protobuf messages' API on both frameworks: ``run_all(tf)`` gives {case: JSON value}.

reference.json holds TensorFlow 2.21's results; regenerate it (developer only, the tests read the JSON) with

    ~/.cache/tpustrategy-references/bin/python tests_py/data/tf_train_messages/program.py
"""

from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Callable
from typing import Any


def _messages(t: Any) -> dict[str, Any]:
    """One non-trivial instance of every message, and the empty / unset forms whose bytes differ."""
    floats = t.Feature(float_list=t.FloatList(value=[1.5, -2.0]))
    ints = t.Feature(int64_list=t.Int64List(value=[1, -1, 300]))
    strs = t.Feature(bytes_list=t.BytesList(value=[b"a", b"bc"]))
    features = t.Features(feature={"z": floats, "a": ints, "s": strs})
    steps = t.FeatureList(feature=[ints, t.Feature(), floats])
    lists = t.FeatureLists(feature_list={"w": steps, "e": t.FeatureList()})
    return {
        "BytesList": strs.bytes_list, "FloatList": floats.float_list, "Int64List": ints.int64_list,
        "Feature": floats, "Feature()": t.Feature(), "Feature(empty float_list)": t.Feature(float_list=t.FloatList()),
        "Features": features, "FeatureList": steps, "FeatureLists": lists,
        "Example": t.Example(features=features), "Example()": t.Example(),
        "Example(empty features)": t.Example(features=t.Features()),
        "SequenceExample": t.SequenceExample(context=features, feature_lists=lists),
        "SequenceExample(empty context)": t.SequenceExample(context=t.Features()),
        "SequenceExample(empty feature_lists)": t.SequenceExample(feature_lists=t.FeatureLists()),
    }


def _merged(t: Any) -> dict[str, Any]:
    """MergeFrom: lists append, a oneof switches member, map values are replaced, message fields merge."""
    def merge(into: Any, other: Any) -> Any:
        into.MergeFrom(other)
        return into

    one = t.Feature(int64_list=t.Int64List(value=[1]))
    two = t.Feature(int64_list=t.Int64List(value=[2]))
    return {
        "Int64List": merge(t.Int64List(value=[1]), t.Int64List(value=[2, 3])),
        "Feature same member": merge(t.Feature(int64_list=t.Int64List(value=[1])), two),
        "Feature other member": merge(t.Feature(float_list=t.FloatList(value=[1.0])), two),
        "Feature from unset": merge(t.Feature(float_list=t.FloatList(value=[1.0])), t.Feature()),
        "Features": merge(t.Features(feature={"a": one, "b": one}), t.Features(feature={"a": two})),
        "FeatureList": merge(t.FeatureList(feature=[one]), t.FeatureList(feature=[two, one])),
        "FeatureLists": merge(t.FeatureLists(feature_list={"x": t.FeatureList(feature=[one])}),
                              t.FeatureLists(feature_list={"x": t.FeatureList(feature=[two])})),
        "Example into unset": merge(t.Example(), t.Example(features=t.Features())),
        "SequenceExample": merge(t.SequenceExample(context=t.Features(feature={"a": one})),
                                 t.SequenceExample(context=t.Features(feature={"b": two}))),
    }


def _describe_error(fn: Callable[[], Any]) -> str:
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the error's type is the result)
        return type(e).__name__
    return "no error"


def run_all(tf: Any) -> dict[str, Any]:
    t = tf.train
    out: dict[str, Any] = {}
    for name, message in _messages(t).items():
        out[f"serialize {name}"] = message.SerializeToString(deterministic=True).hex()
        out[f"ByteSize {name}"] = message.ByteSize()
    for name, message in _merged(t).items():
        out[f"MergeFrom {name}"] = message.SerializeToString(deterministic=True).hex()
    int64s = t.Int64List(value=[7])
    out["MergeFromString returns"] = int64s.MergeFromString(t.Int64List(value=[8, 9]).SerializeToString())
    out["MergeFromString Int64List"] = list(int64s.value)
    bytes_list = t.BytesList(value=[b"old"])
    out["ParseFromString returns"] = bytes_list.ParseFromString(bytearray(b"\x0a\x03new"))
    out["ParseFromString replaces"] = [v.decode() for v in bytes_list.value]
    copy = t.FeatureLists(feature_list={"old": t.FeatureList()})
    copy.CopyFrom(_messages(t)["FeatureLists"])
    out["CopyFrom FeatureLists"] = copy.SerializeToString(deterministic=True).hex()
    cleared = t.Feature(float_list=t.FloatList(value=[1.0]))
    cleared.Clear()
    out["Clear Feature"] = [cleared.SerializeToString().hex(), cleared.WhichOneof("kind")]
    out["eq Example() vs empty features"] = t.Example() == t.Example(features=t.Features())
    out["eq parsed empty features"] = t.Example.FromString(b"\x0a\x00") == t.Example(features=t.Features())
    out["eq Feature() vs empty float_list"] = t.Feature() == t.Feature(float_list=t.FloatList())
    out["eq Feature vs Example"] = t.Feature() == t.Example()
    out["eq BytesList"] = t.BytesList(value=[b"x"]) == t.BytesList(value=[b"x"])
    out["MergeFrom other type"] = _describe_error(lambda: t.Feature().MergeFrom(t.Features()))
    out["CopyFrom other type"] = _describe_error(lambda: t.FeatureList().CopyFrom(t.FeatureLists()))
    out["FromString str"] = _describe_error(lambda: t.Features.FromString("abc"))
    out["FromString truncated Feature"] = _describe_error(lambda: t.Feature.FromString(b"\x0a\x05ab"))
    out["FromString truncated Int64List"] = _describe_error(lambda: t.Int64List.FromString(b"\x0a\x05ab"))
    return out


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow

    results = run_all(tensorflow)
    path = pathlib.Path(__file__).with_name("reference.json")
    path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(results)} results to {path}")
