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
        """
        An empty buffer.
        """
    def pop(self, rows: typing.SupportsInt | typing.SupportsIndex) -> list[tpustrategy._core.tensor.Tensor]:
        """
        Takes the next `rows` rows as one batch.
        
        Args:
          rows: how many rows, at most rows_available.
        
        Returns:
          The batch's component Tensors.
        """
    def push(self, components: collections.abc.Sequence) -> None:
        """
        Appends the rows of one batch.
        
        Args:
          components: the batch's component Tensors, equal in dim 0 and in layout to earlier batches.
        """
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
        """
        Opens the file.
        
        Args:
          path: the TFRecord file.
        
        Raises:
          NotFoundError: no such file.
        """
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
        """
        Starts writing the file.
        
        Records go to a temporary file that close() renames over `path`.
        
        Args:
          path: the TFRecord file.
        
        Raises:
          NotFoundError: the directory is missing.
        """
    def close(self) -> None:
        """
        Flushes and closes the file (idempotent).
        """
    def flush(self) -> None:
        """
        Writes buffered records to the file.
        """
    def write(self, record: bytes) -> None:
        """
        Appends one framed record.
        
        Args:
          record: the record's bytes.
        """
    @property
    def closed(self) -> bool:
        ...
def concat_rows(parts: collections.abc.Sequence) -> tpustrategy._core.tensor.Tensor:
    """
    Concatenates tensors along dim 0.
    
    Args:
      parts: Tensors of one dtype, equal but for dim 0.
    """
def crc32c(data: bytes, *, crc: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
    """
    CRC32C (Castagnoli) of `data`.
    
    Args:
      data: the bytes.
      crc: the CRC of the bytes before `data`, to continue from.
    """
def mask_crc(crc: typing.SupportsInt | typing.SupportsIndex) -> int:
    """
    TFRecord's masked form of a CRC32C.
    
    Args:
      crc: the CRC32C to mask.
    """
def slice_rows(batch: tpustrategy._core.tensor.Tensor, begin: typing.SupportsInt | typing.SupportsIndex, count: typing.SupportsInt | typing.SupportsIndex) -> tpustrategy._core.tensor.Tensor:
    """
    Rows [begin, begin + count) of a batch.
    
    Args:
      batch: a Tensor of rank >= 1.
      begin: the first row.
      count: how many rows.
    """
def slice_rows_to_devices(batch: tpustrategy._core.tensor.Tensor, begins: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], counts: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], devices: collections.abc.Sequence[tpustrategy._core.devices.Device]) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Row ranges of a batch, range i allocated on devices[i] (one copy each).
    
    Args:
      batch: a Tensor of rank >= 1.
      begins: each range's first row.
      counts: each range's row count.
      devices: each range's device.
    
    Returns:
      One Tensor per range: rows [begins[i], begins[i] + counts[i]) on devices[i].
    """
def split_rows(batch: tpustrategy._core.tensor.Tensor, sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Consecutive slices of a batch along dim 0 with the given sizes.
    
    Args:
      batch: a Tensor of rank >= 1.
      sizes: the slices' row counts, adding up to at most batch.shape[0].
    """
def stack_batch(elements: collections.abc.Sequence, *, component: typing.SupportsInt | typing.SupportsIndex = 0) -> tpustrategy._core.tensor.Tensor:
    """
    Stacks tensors of equal dtype and shape S into one tensor of shape [N] + S.
    
    Args:
      elements: the N Tensors.
      component: the index of the element's component they are, named in error messages.
    
    Raises:
      InvalidArgumentError: no elements, or dtypes or shapes that differ.
    """
def tfrecord_encode(record: bytes) -> bytes:
    """
    The TFRecord framing of one record: length, masked CRCs and data.
    
    Args:
      record: the record's bytes.
    """
def tfrecord_parse(contents: bytes, name: str) -> list:
    """
    Every record of an in-memory TFRecord file.
    
    Args:
      contents: the file's bytes.
      name: the file's name, for error messages.
    
    Returns:
      A list of bytes.
    
    Raises:
      DataLossError: a corrupted or truncated record.
    """
def unstack_rows(batch: tpustrategy._core.tensor.Tensor) -> list[tpustrategy._core.tensor.Tensor]:
    """
    The rows of a batch as tensors of shape batch.shape[1:].
    
    Args:
      batch: a Tensor of rank >= 1.
    """
