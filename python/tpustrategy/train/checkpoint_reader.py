"""Reading checkpoints in TF's format: ``tf.train.load_checkpoint`` (a CheckpointReader),
``list_variables``, ``load_variable``. The index and data files are read and checked in C++
(``_core.checkpoint.BundleReader``); this module converts to numpy by TF DataType."""

from __future__ import annotations

import os
from typing import Any, TypeAlias

import ml_dtypes
import numpy as np

from tpustrategy import _core
from tpustrategy.train.checkpoint_state import latest_checkpoint

# tensorflow DataType enum value <-> numpy dtype (types.proto)
TF_TO_NUMPY: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.float32), 2: np.dtype(np.float64), 3: np.dtype(np.int32), 4: np.dtype(np.uint8),
    5: np.dtype(np.int16), 6: np.dtype(np.int8), 8: np.dtype(np.complex64), 9: np.dtype(np.int64),
    10: np.dtype(np.bool_), 14: np.dtype(ml_dtypes.bfloat16), 17: np.dtype(np.uint16), 18: np.dtype(np.complex128),
    19: np.dtype(np.float16), 22: np.dtype(np.uint32), 23: np.dtype(np.uint64),
}
NUMPY_TO_TF = {dtype: enum for enum, dtype in TF_TO_NUMPY.items()}
DT_STRING = 7
_CORE_DTYPES = {1: "float32", 2: "float64", 3: "int32", 9: "int64", 10: "bool", 14: "bfloat16", 19: "float16"}
# A checkpointed tensor's dtype as reported: a DType, else a numpy dtype, "string", or the bare enum value.
EntryDType: TypeAlias = "_core.tensor.DType | np.dtype[Any] | str | int"


def _dtype_object(enum: int) -> EntryDType:
    """The tpustrategy DType of a TF DataType where there is one, else the numpy dtype (or "string")."""
    if enum in _CORE_DTYPES:
        dtype: _core.tensor.DType = getattr(_core.tensor, _CORE_DTYPES[enum])
        return dtype
    if enum == DT_STRING:
        return "string"
    return TF_TO_NUMPY.get(enum, enum)


class CheckpointReader:
    """Reads the tensors of one checkpoint (``tf.train.load_checkpoint`` returns one; mirrors TF's
    ``CheckpointReader``)."""

    def __init__(self, prefix: str) -> None:
        self._reader = _core.checkpoint.BundleReader(os.fspath(prefix))
        self._entries: dict[str, tuple[int, list[int]]] = self._reader.entries()  # key -> (DataType, shape)

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """Each tensor's key mapped to its shape (a list of ints; [] for a scalar)."""
        return {key: list(shape) for key, (_, shape) in self._entries.items()}

    def get_variable_to_dtype_map(self) -> dict[str, EntryDType]:
        """Each tensor's key mapped to its dtype: a tpustrategy DType where there is one, else the numpy dtype,
        "string" for string tensors, or the TF DataType number when numpy has no such type."""
        return {key: _dtype_object(dtype) for key, (dtype, _) in self._entries.items()}

    def has_tensor(self, name: str) -> bool:
        """Whether the checkpoint holds a tensor under key `name` (exact match; no ":0" stripping)."""
        return name in self._entries

    def get_tensor(self, name: str) -> np.ndarray | bytes:
        """The tensor `name` as a numpy array (a string tensor as bytes / an object array of bytes).

        Raises:
          NotFoundError: no such key. DataLossError: the bytes fail their checksum.
        """
        if name not in self._entries:
            return self._reader.read(name)  # raises NotFoundError with TF's message
        dtype, shape = self._entries[name]
        if dtype == DT_STRING:
            strings: list[bytes] = self._reader.read_strings(name)
            if not shape:
                return strings[0]
            string_array: np.ndarray = np.array(strings, dtype=object).reshape(shape)
            return string_array
        if dtype not in TF_TO_NUMPY:
            return self._reader.read(name)  # raises UnimplementedError naming the dtype
        array = np.frombuffer(self._reader.read(name), dtype=TF_TO_NUMPY[dtype].newbyteorder("<"))
        value: np.ndarray = array.astype(TF_TO_NUMPY[dtype]).reshape(shape)
        return value

    def debug_string(self) -> bytes:
        """One line per tensor, ``<key> (<dtype>) <shape>``, sorted by key, as UTF-8 bytes."""
        lines = [f"{key} ({_dtype_object(dtype)}) {list(shape)}" for key, (dtype, shape) in self._entries.items()]
        return ("\n".join(lines) + "\n").encode()


def _resolve(ckpt_dir_or_file: str | os.PathLike[str]) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        found = latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return found
    return path


def load_checkpoint(ckpt_dir_or_file: str | os.PathLike[str]) -> CheckpointReader:
    """A CheckpointReader for a checkpoint prefix, or for the latest checkpoint of a directory.

    Raises:
      ValueError: a directory without checkpoints. NotFoundError: no such checkpoint.
    """
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: str | os.PathLike[str]) -> list[tuple[str, list[int]]]:
    """Sorted (name, shape) pairs of every tensor in the checkpoint."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted(reader.get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file: str | os.PathLike[str], name: str) -> np.ndarray | bytes:
    """The value of tensor `name` (a trailing ":0" is ignored, as TF)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {name!r}")
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
