"""
TensorBoard event files (private; use tpustrategy.summary).
"""
from __future__ import annotations
import collections.abc
import typing
__all__: list[str] = ['EventFileWriter', 'encode_summary_event']
class EventFileWriter:
    """
    Appends Event records to a TensorBoard event file.
    """
    def __init__(self, path: str, wall_time: typing.SupportsFloat | typing.SupportsIndex) -> None:
        """
        Creates the file and writes the file_version event.
        
        Raises:
          NotFoundError: the directory is missing.
          FailedPreconditionError: `path` is a directory.
        """
    def close(self) -> None:
        ...
    def flush(self) -> None:
        ...
    def write_event(self, event: bytes) -> None:
        ...
    @property
    def path(self) -> str:
        ...
def encode_summary_event(wall_time: typing.SupportsFloat | typing.SupportsIndex, step: typing.SupportsInt | typing.SupportsIndex, tag: str, dtype: typing.SupportsInt | typing.SupportsIndex, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], content: bytes, strings: collections.abc.Sequence[str], plugin_name: str, plugin_content: bytes) -> bytes:
    """
    A serialized tensorflow.Event with one tensor summary value.
    
    Args:
      dtype: the TF DataType enum value; content: little-endian element bytes (numeric dtypes);
      strings: the elements of a DT_STRING tensor.
    """
