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
        
        Args:
          path: the event file to create.
          wall_time: the file_version event's time, seconds since the epoch.
        
        Raises:
          NotFoundError: the directory is missing.
          FailedPreconditionError: `path` is a directory.
        """
    def close(self) -> None:
        """
        Flushes and closes the file (idempotent).
        """
    def flush(self) -> None:
        """
        Writes buffered records to the file.
        """
    def write_event(self, event: bytes) -> None:
        """
        Appends one record.
        
        Args:
          event: a serialized Event (encode_summary_event).
        """
    @property
    def path(self) -> str:
        ...
def encode_summary_event(wall_time: typing.SupportsFloat | typing.SupportsIndex, step: typing.SupportsInt | typing.SupportsIndex, tag: str, dtype: typing.SupportsInt | typing.SupportsIndex, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], content: bytes, strings: collections.abc.Sequence[str], plugin_name: str, plugin_content: bytes) -> bytes:
    """
    A serialized tensorflow.Event with one tensor summary value.
    
    Args:
      wall_time: seconds since the epoch.
      step: the global step.
      tag: the summary's tag.
      dtype: the TF DataType enum value of the tensor.
      shape: the tensor's shape.
      content: little-endian element bytes (numeric dtypes; empty for DT_STRING).
      strings: the elements of a DT_STRING tensor (empty otherwise).
      plugin_name: the TensorBoard plugin ("scalars", "histograms", "text", "images").
      plugin_content: the plugin's serialized metadata.
    
    Returns:
      The Event proto's bytes.
    """
