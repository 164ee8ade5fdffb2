"""File datasets: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset and list_files
(mirrors ``tensorflow.python.data.ops.readers``).

Records and lines are Python ``bytes`` (TF yields scalar ``tf.string`` tensors; our Tensor has no
string dtype). Uncompressed TFRecord files are streamed by the C++ reader, which checks both CRCs of
every record and raises DataLossError naming the file and the record's offset on corruption or
truncation. GZIP / ZLIB files are decompressed in Python and parsed by the same C++ code.
"""

from __future__ import annotations

import glob
import gzip
import os
import zlib
from collections.abc import Iterable, Iterator
from typing import SupportsInt, TypeAlias

import numpy as np

from tpustrategy import _core
from tpustrategy.data import _structure
from tpustrategy.data.dataset_ops import UNKNOWN, Dataset
from tpustrategy.framework.string_tensor import StringTensor
from tpustrategy.framework.tensor import Tensor

# A file name, or several: a string, bytes or path, a list of them, a tf.string tensor, a dataset of names.
_Name: TypeAlias = "str | bytes | os.PathLike[str]"
FileNames: TypeAlias = "_Name | Iterable[_Name | StringTensor] | StringTensor | Dataset"


def _filenames(filenames: FileNames) -> list[str]:
    names: list[object]
    if isinstance(filenames, Dataset):
        names = [_structure.to_numpy(e) for e in filenames._iterate()]
    elif isinstance(filenames, (str, bytes, os.PathLike)):
        names = [filenames]
    elif isinstance(filenames, StringTensor):
        names = [filenames._array.item()] if filenames.ndim == 0 else filenames._array.reshape(-1).tolist()
    elif isinstance(filenames, Tensor):
        raise TypeError(f"`filenames` must be a tf.string tensor, got a {filenames.dtype.name} tensor")
    else:
        names = list(filenames)
    out = []
    for name in names:
        if isinstance(name, StringTensor) and name.ndim == 0:
            name = name._array.item()
        if isinstance(name, bytes):
            name = name.decode()
        if not isinstance(name, (str, os.PathLike)):
            raise TypeError(f"`filenames` must be a string, a list of strings or a dataset of strings; "
                            f"got {type(name).__name__}")
        out.append(os.fspath(name))
    return out


def _compression(compression_type: str | None) -> str:
    if compression_type is not None and not isinstance(compression_type, str):
        raise TypeError(f"`compression_type` must be None, '', 'ZLIB' or 'GZIP', got {compression_type!r}")
    kind = (compression_type or "").upper()
    if kind not in ("", "GZIP", "ZLIB"):
        raise _structure._invalid_argument(f"Unsupported compression_type: {compression_type!r}")
    return kind


def _read_file(path: str) -> bytes:
    _check_path(path)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise _open_error(path, e) from None


def _read_compressed(path: str, kind: str) -> bytes:
    raw = _read_file(path)
    if not raw:
        return b""  # an empty file holds no records, compressed or not (as TF's ZlibInputStream sees it)
    try:
        return gzip.decompress(raw) if kind == "GZIP" else zlib.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:
        raise _data_loss(f"{path}: cannot decompress ({kind}): {e}") from None


def _check_path(path: str) -> None:
    """A NUL byte would make the C library open a different file: InvalidArgumentError, as every reader."""
    if "\0" in path:
        from tpustrategy.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, f"the file name {path!r} contains a NUL byte")


def _open_error(path: str, error: OSError) -> Exception:
    """TF's error for a failed open: FailedPreconditionError for a directory, NotFoundError otherwise."""
    from tpustrategy.errors import FailedPreconditionError, NotFoundError

    kind = FailedPreconditionError if isinstance(error, (IsADirectoryError, NotADirectoryError)) else NotFoundError
    opened: Exception = kind(None, None, f"{path}; {error.strerror or error}")
    return opened


def _data_loss(message: str) -> Exception:
    from tpustrategy.errors import DataLossError

    loss: Exception = DataLossError(None, None, message)
    return loss


class _FileDataset(Dataset):
    """A source over a list of files; the distribution layer reshards it through _with_files."""

    def __init__(self, filenames: FileNames, compression_type: str | None = None) -> None:
        self._filenames = _filenames(filenames)
        self._compression = _compression(compression_type)

    def _source_files(self) -> list[str]:
        return list(self._filenames)

    def _read_file(self, path: str) -> Iterator[bytes]:
        raise NotImplementedError

    def _with_files(self, filenames: Iterable[str]) -> _FileDataset:
        clone = self._clone_with_inputs(())
        clone._filenames = list(filenames)
        return clone

    def _iterate(self) -> Iterator[bytes]:
        for path in self._filenames:
            yield from self._read_file(path)

    def _compute_element_spec(self) -> _structure.StringSpec:
        return _structure.StringSpec(())

    def _compute_cardinality(self) -> int:
        return UNKNOWN


class TFRecordDataset(_FileDataset):
    """The records of one or more TFRecord files, in order, as ``bytes``."""

    _tf_name = "TFRecordDatasetV2"  # TF's public classes keep their names

    def __init__(self, filenames: FileNames, compression_type: str | None = None,
                 buffer_size: SupportsInt | None = None, num_parallel_reads: SupportsInt | None = None,
                 name: str | None = None) -> None:
        super().__init__(filenames, compression_type)
        if buffer_size is not None and int(buffer_size) < 0:
            raise _structure._invalid_argument("`buffer_size` must be >= 0.")
        self._num_parallel_reads = num_parallel_reads  # accepted; files are read in order

    def _read_file(self, path: str) -> Iterator[bytes]:
        if self._compression:
            yield from _core.data.tfrecord_parse(_read_compressed(path, self._compression), path)
            return
        reader = _core.data.TFRecordReader(path)
        while (record := reader.read()) is not None:
            yield record


class TextLineDataset(_FileDataset):
    """The lines of one or more text files, without the line ending (``\\n`` or ``\\r\\n``), as ``bytes``."""

    _tf_name = "TextLineDatasetV2"

    def __init__(self, filenames: FileNames, compression_type: str | None = None,
                 buffer_size: SupportsInt | None = None, num_parallel_reads: SupportsInt | None = None,
                 name: str | None = None) -> None:
        super().__init__(filenames, compression_type)

    def _read_file(self, path: str) -> Iterator[bytes]:
        contents = _read_compressed(path, self._compression) if self._compression else _read_file(path)
        lines = contents.split(b"\n")
        if lines[-1] == b"":
            lines.pop()  # a final newline ends the last line, it does not start an empty one
        for line in lines:
            yield line[:-1] if line.endswith(b"\r") else line


TFRecordDatasetV2 = TFRecordDataset


class FixedLengthRecordDataset(_FileDataset):
    """Records of `record_bytes` bytes from each file, after `header_bytes` and before `footer_bytes`.

    A file whose body is not a whole number of records raises InvalidArgumentError, as in TF.
    """

    _tf_name = "FixedLengthRecordDatasetV2"

    def __init__(self, filenames: FileNames, record_bytes: SupportsInt, header_bytes: SupportsInt | None = None,
                 footer_bytes: SupportsInt | None = None, buffer_size: SupportsInt | None = None,
                 compression_type: str | None = None, num_parallel_reads: SupportsInt | None = None,
                 name: str | None = None) -> None:
        super().__init__(filenames, compression_type)
        self._record_bytes = int(np.asarray(record_bytes))
        self._header_bytes = int(np.asarray(header_bytes or 0))
        self._footer_bytes = int(np.asarray(footer_bytes or 0))
        if self._record_bytes <= 0:
            raise _structure._invalid_argument(f"record_bytes must be greater than zero, got {self._record_bytes}.")
        if self._header_bytes < 0 or self._footer_bytes < 0:
            raise _structure._invalid_argument(
                f"header_bytes and footer_bytes must be >= 0, got {self._header_bytes} and {self._footer_bytes}.")

    def _read_file(self, path: str) -> Iterator[bytes]:
        if self._compression:
            contents = _read_compressed(path, self._compression)
        else:
            try:
                with open(path, "rb") as f:
                    contents = f.read()
            except OSError as e:
                raise _open_error(path, e) from None
        end = len(contents) - self._footer_bytes
        size = self._record_bytes
        body = end - self._header_bytes
        if body < 0 or body % size:
            raise _structure._invalid_argument(
                f"Excluding the header ({self._header_bytes} bytes) and footer ({self._footer_bytes} bytes), input "
                f"file \"{path}\" has body length {body} bytes, which is not an exact multiple of the record length "
                f"({size} bytes).")
        for begin in range(self._header_bytes, end - size + 1, size):
            yield contents[begin:begin + size]


class ListFilesDataset(Dataset):
    """The file names matching one or more glob patterns, sorted, then shuffled unless told not to.

    The distribution layer's FILE auto-sharding reshards it (``_source_files`` / ``_with_files``), so
    ``list_files(...).interleave(TFRecordDataset)`` is sharded by file as TF does it.
    """

    _tf_name = "_ShuffleDataset"  # TF shuffles a from_tensor_slices of the names

    def __init__(self, file_pattern: FileNames, shuffle: bool | None = None, seed: SupportsInt | None = None) -> None:
        patterns = _filenames(file_pattern)
        files = sorted({f for pattern in patterns for f in glob.glob(pattern)})
        if not files:
            raise _structure._invalid_argument(
                "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
                f"b'No files matched pattern: ' b'{', '.join(patterns)}'")
        self._files = files
        self._shuffle = True if shuffle is None else bool(shuffle)
        self._seed = seed

    def _source_files(self) -> list[str]:
        return list(self._files)

    def _with_files(self, filenames: Iterable[str]) -> ListFilesDataset:
        clone = self._clone_with_inputs(())
        clone._files = list(filenames)
        return clone

    def _iterate(self) -> Iterator[bytes]:
        names = [name.encode() for name in self._files]
        if self._shuffle:
            from tpustrategy.data._transforms import ShuffleDataset

            yield from ShuffleDataset(_NamesDataset(names), len(names), self._seed, True)._iterate()
        else:
            yield from names

    def _compute_element_spec(self) -> _structure.StringSpec:
        return _structure.StringSpec(())

    def _compute_cardinality(self) -> int:
        return len(self._files)


class SortedListFilesDataset(ListFilesDataset):
    """``list_files(..., shuffle=False)``: the sorted names (TF's plain ``_TensorSliceDataset``)."""

    _tf_name = "_TensorSliceDataset"


class _NamesDataset(Dataset):
    def __init__(self, names: list[bytes]) -> None:
        self._names = names

    def _iterate(self) -> Iterator[bytes]:
        return iter(self._names)

    def _compute_element_spec(self) -> _structure.StringSpec:
        return _structure.StringSpec(())

    def _compute_cardinality(self) -> int:
        return len(self._names)
