"""
TensorFlow checkpoint files (private; use tpustrategy.train).
"""
from __future__ import annotations
import collections.abc
import typing
__all__: list[str] = ['BundleReader', 'BundleWriter', 'write_file_atomically']
class BundleWriter:
    """
    Writes <prefix>.index and <prefix>.data-00000-of-00001.
    """
    def __init__(self, prefix: str) -> None:
        """
        A writer; nothing is written before finish().
        
        Args:
          prefix: the checkpoint's path prefix.
        """
    def add(self, key: str, dtype: typing.SupportsInt | typing.SupportsIndex, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], data: bytes) -> None:
        """
        Adds a numeric tensor.
        
        Args:
          key: the tensor's key in the checkpoint.
          dtype: a TF DataType enum value.
          shape: the tensor's shape.
          data: its little-endian element bytes.
        
        Raises:
          InvalidArgumentError: a repeated key, or bytes that do not fit dtype and shape.
        """
    def add_strings(self, key: str, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], strings: collections.abc.Sequence[str]) -> None:
        """
        Adds a DT_STRING tensor.
        
        Args:
          key: the tensor's key in the checkpoint.
          shape: the tensor's shape.
          strings: its elements, row-major.
        
        Raises:
          InvalidArgumentError: a repeated key, or a count that does not fit the shape.
        """
    def finish(self) -> None:
        """
        Writes the data file, then the index, each crash-safely (temporary file, fsync, rename).
        """
class BundleReader:
    """
    Reads a checkpoint written by TensorFlow or BundleWriter.
    """
    def __init__(self, prefix: str) -> None:
        """
        Reads and checks `<prefix>.index`.
        
        Args:
          prefix: the checkpoint's path prefix.
        
        Raises:
          NotFoundError: no such checkpoint.
          DataLossError: a corrupt index.
        """
    def entries(self) -> dict:
        """
        Every tensor key -> (TF DataType enum value, shape).
        """
    def read(self, key: str) -> bytes:
        """
        The little-endian bytes of a numeric tensor (CRC checked).
        
        Args:
          key: the tensor's key.
        
        Raises:
          NotFoundError: no such key.
          DataLossError: a CRC mismatch or a truncated data file.
        """
    def read_strings(self, key: str) -> list:
        """
        The elements of a DT_STRING tensor (CRCs checked).
        
        Args:
          key: the tensor's key.
        
        Raises:
          NotFoundError: no such key.
          DataLossError: a CRC mismatch or a truncated data file.
        """
    @property
    def prefix(self) -> str:
        ...
def write_file_atomically(path: str, data: bytes) -> None:
    """
    Writes `data` to `path` through a temporary file, fsync and rename.
    
    The previous file stays intact until the rename.
    
    Args:
      path: the file to write.
      data: its new contents.
    """
