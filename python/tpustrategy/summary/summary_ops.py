"""The TF 2 summary ops: ``scalar``, ``histogram``, ``text``, ``image``, ``write``.

Each writes one Event with the data as a tensor and SummaryMetadata naming the TensorBoard plugin, as
TF 2.21 with TensorBoard's summary_v2 does: scalars as a float32 scalar ("scalars"), histograms as a
float64 [buckets, 3] tensor of (left edge, right edge, count) ("histograms"), text as a string tensor
("text"), images as a string vector [width, height, png...] ("images"). Each returns a bool tensor:
True when the summary was written (a default writer, ``record_if`` true, replica 0), else False.
"""

from __future__ import annotations

import re
import struct
import time
import zlib
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.framework.name_scope import current_scope
from tpustrategy.ops._args import TensorLike
from tpustrategy.summary import writer as _writer

_INVALID_TAG_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")
DEFAULT_BUCKET_COUNT = 30

# numpy dtype -> tensorflow DataType enum value (types.proto)
_TF_DTYPES = {
    np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3, np.dtype(np.uint8): 4,
    np.dtype(np.int16): 5, np.dtype(np.int8): 6, np.dtype(np.int64): 9, np.dtype(np.bool_): 10,
    np.dtype(np.uint16): 17, np.dtype(np.float16): 19, np.dtype(np.uint32): 22, np.dtype(np.uint64): 23,
}
_DT_STRING = 7


def _numpy(data: TensorLike) -> np.ndarray:
    if hasattr(data, "numpy"):
        data = data.numpy()
    return np.asarray(data)


def _tag(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"summary name must be a string, got {name!r}")
    tag = current_scope() + _INVALID_TAG_CHARACTERS.sub("_", name)
    return tag.lstrip("/")


def _write(name: object, array: np.ndarray, step: Any, plugin_name: str,
           plugin_content: bytes = b"") -> _core.tensor.Tensor:
    if not _writer._recording():
        skipped: _core.tensor.Tensor = _core.tensor.constant(False, _core.tensor.bool)
        return skipped
    step = _writer.resolve_step(step)
    if array.dtype.kind in "USO":
        strings = [s if isinstance(s, bytes) else str(s).encode() for s in array.reshape(-1).tolist()]
        dtype, content = _DT_STRING, b""
    else:
        array = np.asarray(array, order="C")  # (ascontiguousarray would make a scalar 1-d)
        if array.dtype not in _TF_DTYPES:
            raise TypeError(f"summary data of dtype {array.dtype} is not supported")
        strings, dtype = [], _TF_DTYPES[array.dtype]
        content = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
    event = _core.summary.encode_summary_event(time.time(), step, _tag(name), dtype, list(array.shape), content,
                                               strings,  # type: ignore[arg-type]  # std::string takes bytes
                                               plugin_name, plugin_content)
    writer = _writer.default_writer()
    assert isinstance(writer, _writer._FileWriter)  # _recording(): only a file writer becomes the default
    writer.write_event(event)
    written: _core.tensor.Tensor = _core.tensor.constant(True, _core.tensor.bool)
    return written


def scalar(name: str, data: TensorLike, step: Any = None, description: str | None = None) -> _core.tensor.Tensor:
    """Writes a scalar summary (cast to float32), as ``tf.summary.scalar``.

    Raises:
      ValueError: `data` is not a scalar, or no step is set.
    """
    del description
    array = _numpy(data)
    if array.shape != ():
        raise ValueError(f"Expected scalar shape for tensor, saw shape: {array.shape}.")
    return _write(name, array.astype(np.float32), step, "scalars")


def histogram_buckets(data: TensorLike, bucket_count: int | None = None) -> np.ndarray:
    """TensorBoard summary_v2's buckets: `bucket_count` equal-width buckets over [min, max] as rows
    (left, right, count); every value in one bucket at its right end when all values are equal; zeros
    for empty data."""
    bucket_count = DEFAULT_BUCKET_COUNT if bucket_count is None else int(bucket_count)
    bucket_count = max(0, bucket_count)
    values = np.asarray(data, dtype=np.float64).reshape(-1)
    if values.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), np.float64)
    low, high = values.min(), values.max()
    value_range = high - low
    if value_range == 0:
        counts = np.zeros(bucket_count, np.float64)
        counts[-1] = values.size
        return np.stack([np.full(bucket_count, low), np.full(bucket_count, low), counts], axis=1)
    width = value_range / bucket_count
    indices = np.minimum(np.floor((values - low) / width).astype(np.int64), bucket_count - 1)
    counts = np.bincount(indices, minlength=bucket_count).astype(np.float64)
    edges = np.linspace(low, high, bucket_count + 1)
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(name: str, data: TensorLike, step: Any = None, buckets: int | None = None,
              description: str | None = None) -> _core.tensor.Tensor:
    """Writes a histogram summary of `data` with `buckets` buckets (default 30), as ``tf.summary.histogram``."""
    del description
    if not _writer._recording():
        skipped: _core.tensor.Tensor = _core.tensor.constant(False, _core.tensor.bool)
        return skipped
    return _write(name, histogram_buckets(_numpy(data), buckets), step, "histograms")


def text(name: str, data: TensorLike, step: Any = None, description: str | None = None) -> _core.tensor.Tensor:
    """Writes a text summary (a string scalar or array; markdown in TensorBoard), as ``tf.summary.text``.

    Raises:
      TypeError: `data` is not a string or an array of strings.
    """
    del description
    array = _numpy(data)
    if array.dtype.kind not in "USO" or not all(isinstance(s, (str, bytes)) for s in array.reshape(-1).tolist()):
        raise TypeError(f"tf.summary.text expects string data, got {array.dtype}")
    return _write(name, array, step, "text")


def _png(image: np.ndarray) -> bytes:
    """A minimal PNG (8-bit grey, grey+alpha, RGB or RGBA; filter 0 on every row)."""
    height, width, channels = image.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    rows = b"".join(b"\x00" + image[y].tobytes() for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def image(name: str, data: TensorLike, step: Any = None, max_outputs: int = 3,
          description: str | None = None) -> _core.tensor.Tensor:
    """Writes up to `max_outputs` images of `data` [k, h, w, c] (c in 1..4; floats in [0, 1] or uint8) as PNG.

    Raises:
      ValueError: `data` is not rank 4 with 1 to 4 channels. TypeError: neither uint8 nor floating point.
    """
    del description
    array = _numpy(data)
    if array.ndim != 4 or not 1 <= array.shape[-1] <= 4:
        raise ValueError(f"tf.summary.image expects [k, h, w, c] with c in 1..4, got shape {array.shape}")
    if not _writer._recording():
        skipped: _core.tensor.Tensor = _core.tensor.constant(False, _core.tensor.bool)
        return skipped
    if array.dtype != np.uint8:
        if not np.issubdtype(array.dtype, np.floating):
            raise TypeError(f"tf.summary.image expects uint8 or floating-point images, got {array.dtype}")
        # tf.image.convert_image_dtype(saturate=True): scale by 255.5, clamp, truncate
        array = np.clip(array.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)
    images = array[: max(0, int(max_outputs))]
    encoded = [str(array.shape[2]).encode(), str(array.shape[1]).encode()] + [_png(i) for i in images]
    return _write(name, np.array(encoded, dtype=object), step, "images")
