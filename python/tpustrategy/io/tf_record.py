"""``tf.io.TFRecordWriter`` and ``tf.io.TFRecordOptions`` (mirrors ``tensorflow.python.lib.io.tf_record``)."""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tpustrategy import _core

if TYPE_CHECKING:
    from tpustrategy import errors


class TFRecordCompressionType:
    """The integer codes ``TFRecordOptions`` accepts in place of "", "ZLIB" and "GZIP"; ``NONE`` is 0."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """Options for writing TFRecord files: ``compression_type`` "" / "ZLIB" / "GZIP" and its level."""

    def __init__(self, compression_type: str | int | None = None, compression_level: int | None = None,
                 **unused_options: Any) -> None:
        if compression_type in (None, TFRecordCompressionType.NONE):
            compression_type = ""
        elif compression_type == TFRecordCompressionType.ZLIB:
            compression_type = "ZLIB"
        elif compression_type == TFRecordCompressionType.GZIP:
            compression_type = "GZIP"
        if not isinstance(compression_type, str):
            raise TypeError(
                f"`compression_type` must be '', 'ZLIB', 'GZIP' or a TFRecordCompressionType, got {compression_type!r}"
            )
        compression_type = compression_type.upper()
        if compression_type not in ("", "ZLIB", "GZIP"):
            raise ValueError(f"Unsupported compression_type: {compression_type!r}")
        self.compression_type = compression_type
        self.compression_level = compression_level

    @classmethod
    def get_compression_type_string(cls, options: TFRecordOptions | str | None) -> str:
        """The compression name ("", "ZLIB" or "GZIP") of `options`.

        Args:
          options: None (no compression), a TFRecordOptions, or a compression type the constructor accepts.

        Raises:
          TypeError / ValueError: `options` is not a compression type the constructor accepts.
        """
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return cls(options).compression_type


class TFRecordWriter:
    """Writes ``bytes`` records to a TFRecord file; a context manager (closes on exit).

    Uncompressed files are written by the C++ writer; GZIP / ZLIB files are framed in C++ and
    compressed in Python when the writer closes. Either way the file is crash-safe: the records go to
    a temporary file in the same directory that ``close()`` fsyncs and renames over ``path``, so a
    process killed mid-write leaves the previous file intact. (TF truncates ``path`` when the writer
    opens and writes in place; here ``path`` changes only on ``close()``.)
    """

    def __init__(self, path: str | bytes | os.PathLike[str], options: TFRecordOptions | str | None = None) -> None:
        fs_path = os.fspath(path)
        self._path = fs_path.decode() if isinstance(fs_path, bytes) else fs_path
        self._options = options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)
        if self._options.compression_type:
            self._writer: _core.data.TFRecordWriter | None = None
            self._framed: list[bytes] = []
            _check_writable(self._path)  # fail early, as TF does, when the path cannot be written
        else:
            self._writer = _core.data.TFRecordWriter(self._path)
        self._closed = False

    def write(self, record: bytes | str) -> None:
        """Appends one record (``bytes``; ``str`` is UTF-8 encoded)."""
        record = _as_bytes(record)
        if self._closed:
            raise _closed_error(self._path)
        if self._writer is not None:
            self._writer.write(record)
        else:
            self._framed.append(_core.data.tfrecord_encode(record))

    def flush(self) -> None:
        """Pushes buffered records to the temporary file; ``path`` itself changes only on ``close()``.

        A GZIP / ZLIB writer holds its records in memory until ``close()``, so for it this only checks the state.

        Raises:
          FailedPreconditionError: the writer is closed.
          DataLossError: the operating system rejected the write.
        """
        if self._closed:
            raise _closed_error(self._path)
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flushes and closes the file; closing twice is allowed."""
        if self._closed:
            return
        self._closed = True
        if self._writer is not None:
            self._writer.close()
            return
        data = b"".join(self._framed)
        level = self._options.compression_level
        level = -1 if level is None else level
        if self._options.compression_type == "GZIP":
            compressed = gzip.compress(data, compresslevel=9 if level == -1 else level)
        else:
            compressed = zlib.compress(data, level)
        _atomic_write(self._path, compressed)

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def _as_bytes(record: object) -> bytes:
    if isinstance(record, bytes):
        return record
    if isinstance(record, str):
        return record.encode()
    if isinstance(record, (bytearray, memoryview)):
        return bytes(record)
    raise TypeError(f"write() argument must be bytes, not {type(record).__name__}")


def _check_writable(path: str) -> None:
    """The errors the C++ writer raises at open: InvalidArgumentError (NUL byte, empty name),
    FailedPreconditionError (a directory), NotFoundError (a missing or unwritable directory)."""
    from tpustrategy import errors

    if not path or "\0" in path:
        raise errors.InvalidArgumentError(
            None, None, f"[TFRecordWriter] the file name {path!r} is empty or contains a NUL byte"
        )
    if os.path.isdir(path):
        raise errors.FailedPreconditionError(None, None, f"[TFRecordWriter] {path}: is a directory")
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        raise errors.NotFoundError(
            None, None, f"[TFRecordWriter] {path}: cannot open for writing: no writable directory"
        )


def _atomic_write(path: str, data: bytes) -> None:
    """Writes ``data`` to a temporary file next to ``path``, fsyncs it and renames it over ``path``."""
    from tpustrategy import errors

    temporary = f"{path}.tmp.{os.getpid()}.{id(data)}"
    try:
        with open(temporary, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except OSError as e:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise errors.DataLossError(None, None, f"[TFRecordWriter] {path}: write failed: {e}") from None
    try:
        fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _closed_error(path: str) -> errors.FailedPreconditionError:
    from tpustrategy.errors import FailedPreconditionError

    return FailedPreconditionError(None, None, f"{path}: the writer is closed")


def tf_record_iterator(path: str | bytes | os.PathLike[str],
                       options: TFRecordOptions | str | None = None) -> Iterator[bytes]:
    """Yields the records of a TFRecord file (``tf.compat.v1.io.tf_record_iterator``)."""
    from tpustrategy.data.readers import TFRecordDataset

    compression = TFRecordOptions.get_compression_type_string(options)
    yield from TFRecordDataset(path, compression_type=compression)._iterate()
