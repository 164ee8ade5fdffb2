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
        ...
    def add(self, key: str, dtype: typing.SupportsInt | typing.SupportsIndex, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], data: bytes) -> None:
        """
        Adds a numeric tensor: `dtype` is a TF DataType enum value, `data` its little-endian bytes.
        
        Raises:
          InvalidArgumentError: a repeated key, or bytes that do not fit dtype and shape.
        """
    def add_strings(self, key: str, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], strings: collections.abc.Sequence[str]) -> None:
        """
        Adds a DT_STRING tensor.
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
        """
    def read_strings(self, key: str) -> list:
        """
        The elements of a DT_STRING tensor (CRCs checked).
        """
    @property
    def prefix(self) -> str:
        ...
def write_file_atomically(path: str, data: bytes) -> None:
    """
    Writes `data` to `path` through a temporary file, fsync and rename (the previous file stays intact until then).
    """
