"""
Batching kernels and TFRecord I/O (private; use tpustrategy.data).
"""
from __future__ import annotations
import collections.abc
import tpustrategy._core.devices
import tpustrategy._core.tensor
import typing
__all__: list[str] = ['RowBuffer', 'TFRecordReader', 'TFRecordWriter', 'concat_rows', 'crc32c', 'mask_crc', 'slice_rows', 'slice_rows_to_devices', 'split_rows', 'stack_batch', 'tfrecord_encode', 'tfrecord_parse', 'unstack_rows']
class RowBuffer:
    """
    Rows of a stream of batches, handed out in batches of any size.
    """
    def __init__(self) -> None:
        ...
    def pop(self, rows: typing.SupportsInt | typing.SupportsIndex) -> list[tpustrategy._core.tensor.Tensor]:
        ...
    def push(self, components: collections.abc.Sequence) -> None:
        ...
    @property
    def has_layout(self) -> bool:
        ...
    @property
    def rows_available(self) -> int:
        ...
class TFRecordReader:
    """
    Streams the records of an uncompressed TFRecord file.
    """
    def __init__(self, path: str) -> None:
        ...
    def read(self) -> typing.Any:
        """
        The next record as bytes, or None at the end of the file.
        
        Raises:
          DataLossError: a corrupted or truncated record (naming the file and offset).
        """
    @property
    def offset(self) -> int:
        ...
class TFRecordWriter:
    """
    Writes records to an uncompressed TFRecord file.
    """
    def __init__(self, path: str) -> None:
        ...
    def close(self) -> None:
        ...
    def flush(self) -> None:
        ...
    def write(self, record: bytes) -> None:
        ...
    @property
    def closed(self) -> bool:
        ...
def concat_rows(parts: collections.abc.Sequence) -> tpustrategy._core.tensor.Tensor:
    """
    Concatenates tensors along dim 0.
    """
def crc32c(data: bytes, crc: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
    """
    CRC32C (Castagnoli) of `data`, continuing from `crc`.
    """
def mask_crc(crc: typing.SupportsInt | typing.SupportsIndex) -> int:
    ...
def slice_rows(batch: tpustrategy._core.tensor.Tensor, begin: typing.SupportsInt | typing.SupportsIndex, count: typing.SupportsInt | typing.SupportsIndex) -> tpustrategy._core.tensor.Tensor:
    """
    Rows [begin, begin + count) of a batch.
    """
def slice_rows_to_devices(batch: tpustrategy._core.tensor.Tensor, begins: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], counts: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], devices: collections.abc.Sequence[tpustrategy._core.devices.Device]) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Row ranges [begins[i], begins[i] + counts[i]) of a batch, range i allocated on devices[i] (one copy).
    """
def split_rows(batch: tpustrategy._core.tensor.Tensor, sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Consecutive slices of a batch along dim 0 with the given sizes.
    """
def stack_batch(elements: collections.abc.Sequence, component: typing.SupportsInt | typing.SupportsIndex = 0) -> tpustrategy._core.tensor.Tensor:
    """
    Stacks tensors of equal dtype and shape S into one tensor of shape [N] + S.
    """
def tfrecord_encode(record: bytes) -> bytes:
    """
    The TFRecord framing of one record.
    """
def tfrecord_parse(contents: bytes, name: str) -> list:
    """
    Every record of an in-memory TFRecord file; DataLossError on corruption or truncation.
    """
def unstack_rows(batch: tpustrategy._core.tensor.Tensor) -> list[tpustrategy._core.tensor.Tensor]:
    """
    The rows of a batch (rank >= 1) as tensors of shape batch.shape[1:].
    """
