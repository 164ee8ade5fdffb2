"""``tpustrategy.data``: input pipelines (mirrors ``tf.data``).

Elements are tpustrategy Tensors in the same nests as TensorFlow's; string data (TFRecord records, text lines)
are tf.string tensors where the user sees them (bytes / object arrays inside the pipeline, _structure.py). See
dataset_ops.py for the other deviations and for the hooks the distribution layer uses to shard pipelines.
"""

from __future__ import annotations

# _combine, _sources and _transforms define the pipeline nodes that Dataset's methods build (they
# register themselves with dataset_ops when imported).
from tpustrategy.data import (  # noqa: F401
    _combine,
    _padding,
    _sampling,
    _sources,
    _stateful,
    _transforms,
    _windowing,
    experimental,
)
from tpustrategy.data._structure import DatasetSpec
from tpustrategy.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tpustrategy.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY
from tpustrategy.data.dataset_ops import Dataset, DatasetV2
from tpustrategy.data.iterator_ops import OwnedIterator as Iterator
from tpustrategy.data.options import AUTOTUNE, Options, ThreadingOptions
from tpustrategy.data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "FixedLengthRecordDataset",
    "DatasetV2",
    "Iterator",
    "Options",
    "TFRecordDataset",
    "TextLineDataset",
    "ThreadingOptions",
    "experimental",
]
