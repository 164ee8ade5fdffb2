"""``tf.strings`` and the string parsers of ``tf.io`` (decode_raw, decode_csv), numpy-backed.

Inputs are tf.string tensors (framework/string_tensor.py) or anything tf.constant turns into one (bytes, str,
lists, object arrays); string results are tf.string tensors, numeric results Tensors. Values, shapes and error
types follow TF 2.21 (checked against it); ``split`` / ``bytes_split`` of a rank >= 1 input give a
RaggedTensor, as in TF.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import static_shape
from tpustrategy.framework.string_tensor import StringTensor, to_bytes_array
from tpustrategy.framework.string_tensor import string as string  # tf.string, re-exported
from tpustrategy.framework.string_tensor import to_bytes as _bytes
from tpustrategy.framework.tensor import Tensor
from tpustrategy.ops._args import TensorLike, mentions_ragged

if TYPE_CHECKING:
    from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor


def _strings(value: Any) -> np.ndarray:
    """Any string input (StringTensor, bytes, str, nested lists, object arrays) as an object array of bytes."""
    return to_bytes_array(value)


def _out(array: np.ndarray) -> StringTensor:
    """A string result: a tf.string tensor."""
    return StringTensor(array)


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def length(input: TensorLike, unit: str = "BYTE", name: str | None = None) -> Any:  # noqa: A002 - TF's argument name
    """Length of each string in bytes, or in Unicode code points with ``unit="UTF8_CHAR"`` (int32)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    array = _strings(input)
    count = (lambda b: len(b.decode("utf-8"))) if unit == "UTF8_CHAR" else len
    return _core.tensor.constant(np.vectorize(count, otypes=[np.int32])(array) if array.size else
                          np.zeros(array.shape, np.int32), "int32")


def join(inputs: TensorLike, separator: str = "", name: str | None = None) -> Any:
    """Element-wise concatenation of the (broadcast) string tensors in `inputs` with `separator`."""
    arrays = np.broadcast_arrays(*[_strings(x) for x in inputs])
    sep = _bytes(separator)
    out = np.empty(arrays[0].shape, dtype=object)
    for index in np.ndindex(out.shape):
        out[index] = sep.join(a[index] for a in arrays)
    return _out(out)


def reduce_join(inputs: TensorLike, axis: Any = None, keepdims: bool = False, separator: str = "",
                name: str | None = None) -> Any:
    """Joins the strings along `axis` (all of them when None) with `separator`."""
    array = _strings(inputs)
    sep = _bytes(separator)
    if axis is None:
        return StringTensor(np.asarray(sep.join(array.ravel().tolist()), dtype=object))
    joined = np.apply_along_axis(lambda row: sep.join(row.tolist()), int(axis), array) if array.size else \
        np.empty(np.delete(array.shape, axis), dtype=object)
    joined = np.asarray(joined, dtype=object)
    if keepdims:
        joined = np.expand_dims(joined, int(axis))
    return _out(joined)


def substr(input: TensorLike, pos: TensorLike, len: TensorLike,  # noqa: A002 - TF's argument names
           unit: str = "BYTE", name: str | None = None) -> Any:
    """``s[pos:pos + len]`` per string (negative `pos` counts from the end); `pos` past the end raises."""
    array = _strings(input)
    pos_b, len_b = np.broadcast_to(np.asarray(pos), array.shape), np.broadcast_to(np.asarray(len), array.shape)
    out = np.empty(array.shape, dtype=object)
    for flat, index in enumerate(np.ndindex(array.shape)):
        s = array[index].decode("utf-8") if unit == "UTF8_CHAR" else array[index]
        p, n = int(pos_b[index]), int(len_b[index])
        start = p + len_(s) if p < 0 else p
        if start < 0 or start > len_(s):
            raise _invalid(f"pos {p} out of range for string b'{array[index].decode('latin-1')}' at index {flat}")
        piece = s[start:start + max(n, 0)]
        out[index] = piece.encode() if unit == "UTF8_CHAR" else piece
    return _out(out)


len_ = len  # substr's `len` argument shadows the builtin there


def to_number(string_tensor: TensorLike, out_type: Any = "float32", name: str | None = None) -> Any:
    """Each string parsed as a number of `out_type` (InvalidArgumentError when one does not parse)."""
    array = _strings(string_tensor)
    dtype = _core.tensor.DType(out_type)
    out = np.empty(array.shape, dtype=dtype.as_numpy_dtype)
    for index in np.ndindex(array.shape):
        text = array[index].decode("utf-8", errors="replace").strip()
        try:
            out[index] = int(text) if dtype.is_integer else float(text)
        except ValueError:
            raise _invalid(f"StringToNumberOp could not correctly convert string: {text}") from None
    return _core.tensor.constant(out, dtype.name)


def bytes_split(input: TensorLike, name: str | None = None) -> Any:  # noqa: A002 - TF's argument name
    """The bytes of each string: a 1-D string tensor for a scalar, a RaggedTensor for rank >= 1 (tf's)."""
    array = _strings(input)
    return _split_each(array, lambda text: [bytes([b]) for b in text])


def split(input: TensorLike, sep: str | None = None, maxsplit: int = -1,  # noqa: A002 - TF's argument name
          name: str | None = None) -> Any:
    """Splits on `sep` (runs of whitespace when None, dropping empty pieces): a 1-D string tensor for a scalar
    input, a RaggedTensor (one ragged dimension more) for rank >= 1, as TF."""
    array = _strings(input)
    if sep is not None and _bytes(sep) == b"":
        raise _invalid("Separator must not be empty: use tf.strings.bytes_split")
    limit = -1 if maxsplit is None else int(maxsplit)

    def pieces(text: bytes) -> list[bytes]:
        if sep is None:
            return text.split(None, limit) if text.strip() else []
        return text.split(_bytes(sep), limit)

    return _split_each(array, pieces)


def _split_each(array: np.ndarray, pieces_of: Callable[[bytes], list[bytes]]) -> StringTensor | RaggedTensor:
    result = _split_each_unnoted(array, pieces_of)
    static_shape.note_split(result)
    return result


def _split_each_unnoted(array: np.ndarray, pieces_of: Callable[[bytes], list[bytes]]) -> StringTensor | RaggedTensor:
    from tpustrategy.ops.ragged import ragged_tensor

    if array.ndim == 0:
        pieces = pieces_of(array.item())
        out = np.empty(len_(pieces), dtype=object)
        out[:] = pieces
        return StringTensor(out)
    rows = [pieces_of(text) for text in array.reshape(-1)]
    flat = np.empty(sum(len_(r) for r in rows), dtype=object)
    flat[:] = [p for r in rows for p in r]
    splits = np.cumsum([0] + [len_(r) for r in rows], dtype=np.int64)
    result = ragged_tensor.RaggedTensor.from_row_splits(StringTensor(flat), splits, validate=False)
    for dim in reversed(array.shape[1:]):  # a rank-k input: the outer dims stay uniform (as row splits)
        result = ragged_tensor.RaggedTensor.from_uniform_row_length(result, dim)
    return result


def _case_mapped(input: TensorLike, encoding: str, to_upper: bool) -> Any:  # noqa: A002
    """upper / lower: ASCII letters only without an encoding; with "utf-8", Unicode's full case mapping (é → É,
    ß → SS) as TF's ICU path, invalid bytes becoming U+FFFD."""
    if encoding not in ("", "utf-8"):
        raise _invalid(f"only utf-8 or '' (no encoding) is supported, received {encoding}")
    if mentions_ragged(input):  # elementwise: the flat values, as TF's ragged dispatch
        return input.with_flat_values(_case_mapped(input.flat_values, encoding, to_upper))
    if encoding:
        def mapped(b: bytes) -> bytes:
            text = b.decode("utf-8", errors="replace")
            return (text.upper() if to_upper else text.lower()).encode("utf-8")
    else:
        def mapped(b: bytes) -> bytes:
            return b.upper() if to_upper else b.lower()
    return _out(np.vectorize(mapped, otypes=[object])(_strings(input)))


def upper(input: TensorLike, encoding: str = "", name: str | None = None) -> Any:  # noqa: A002
    """Each string upper-cased: its ASCII letters, or with ``encoding="utf-8"`` every letter (é → É, ß → SS).

    Raises:
      InvalidArgumentError: `encoding` is neither "" nor "utf-8".
    """
    return _case_mapped(input, encoding, to_upper=True)


def lower(input: TensorLike, encoding: str = "", name: str | None = None) -> Any:  # noqa: A002
    """Each string lower-cased: its ASCII letters, or with ``encoding="utf-8"`` every letter (É → é).

    Raises:
      InvalidArgumentError: `encoding` is neither "" nor "utf-8".
    """
    return _case_mapped(input, encoding, to_upper=False)


def strip(input: TensorLike, name: str | None = None) -> Any:  # noqa: A002
    """Each string without its leading and trailing ASCII whitespace."""
    return _out(np.vectorize(lambda b: b.strip(), otypes=[object])(_strings(input)))


def as_string(input: TensorLike, precision: int = -1, name: str | None = None) -> Any:  # noqa: A002
    """Numbers as strings (integers in decimal, floats as C's %f / %.<precision>f)."""
    array = np.asarray(input.numpy() if isinstance(input, Tensor) else input)
    fmt = (lambda v: f"{v:.{precision}f}" if precision >= 0 else f"{v:f}") if array.dtype.kind == "f" else str
    out = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        value = array[index]
        out[index] = (("true" if value else "false") if array.dtype == np.bool_ else fmt(value)).encode()
    return _out(out)


def decode_raw(input_bytes: TensorLike, out_type: Any, little_endian: bool = True, fixed_length: int | None = None,
               name: str | None = None) -> Any:
    """Each string reinterpreted as a vector of `out_type` (all strings of one length; shape [..., n])."""
    array = _strings(input_bytes)
    dtype = np.dtype(_core.tensor.DType(out_type).as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    flat = array.ravel()
    if not fixed_length:
        for i, b in enumerate(flat[1:], start=1):
            if len_(b) != len_(flat[0]):
                raise _invalid(f"DecodeRaw requires input strings to all be the same size, but element {i} has size "
                               f"{len_(flat[0])} != {len_(b)}")
    rows = [np.frombuffer(b.ljust(fixed_length, b"\0")[:fixed_length] if fixed_length else b, dtype)
            if len_(b) % dtype.itemsize == 0 or fixed_length else None for b in array.ravel()]
    if any(r is None for r in rows):
        bad = next(b for b in array.ravel() if len_(b) % dtype.itemsize)
        raise _invalid(f"Input to DecodeRaw has length {len_(bad)} that is not a multiple of {dtype.itemsize}, the "
                       f"size of {_core.tensor.DType(out_type).name}")
    present = cast(list[np.ndarray], rows)  # no None left past the check above
    width = len_(present[0]) if present else 0
    stacked = (np.stack(present).astype(dtype.newbyteorder("=")) if rows
               else np.zeros((0, width), dtype.newbyteorder("=")))
    return _core.tensor.constant(stacked.reshape(*array.shape, width), _core.tensor.DType(out_type).name)


def _default_of(default: Any) -> tuple[str | None, Any]:
    """(kind, default value or None when required) of one record_defaults entry."""
    if isinstance(default, Tensor):
        values = np.asarray(default.numpy()).ravel()
        return default.dtype.name, (values[0].item() if values.size else None)
    array = np.asarray(default, dtype=object).ravel()
    if array.size == 0:
        return None, None
    value = array[0]
    if isinstance(value, (bytes, str)):
        return "string", _bytes(value)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("decode_csv: record_defaults must be int32, int64, float32, float64 or string")
    return ("int32", int(value)) if isinstance(value, (int, np.integer)) else ("float32", float(value))


def decode_csv(records: TensorLike, record_defaults: Sequence[Any], field_delim: str = ",",
               use_quote_delim: bool = True, na_value: str = "", select_cols: Sequence[int] | None = None,
               name: str | None = None) -> list[Any]:
    """Each record split into len(record_defaults) columns, typed by the defaults (empty fields take them;
    a field without a default is required)."""
    array = _strings(records)
    kinds = [_default_of(d) for d in record_defaults]
    if any(kind is None for kind, _ in kinds):
        raise TypeError("decode_csv: every record_defaults entry needs a dtype (a tensor or a non-empty list)")
    delim, na = _bytes(field_delim), _bytes(na_value)
    columns = [np.empty(array.shape, dtype=object) for _ in kinds]
    for flat, index in enumerate(np.ndindex(array.shape)):
        fields = _split_record(array[index], delim, use_quote_delim)
        if select_cols is not None:
            fields = [fields[c] for c in select_cols if c < len_(fields)]
        if len_(fields) != len_(kinds):
            raise _invalid(f"Expect {len_(kinds)} fields but have {len_(fields)} in record {flat}")
        for column, ((kind, default), field, out) in enumerate(zip(kinds, fields, columns, strict=True)):
            if field == b"" or field == na:
                if default is None:
                    raise _invalid(f"Field {column} is required but missing in record {flat}!")
                out[index] = default
                continue
            assert kind is not None  # every entry was checked to have one above
            try:
                out[index] = field if kind == "string" else int(field) if "int" in kind else float(field)
            except ValueError:
                raise _invalid(f"Field {column} in record {flat} is not a valid {kind}: {field!r}") from None
    results = []
    for (kind, _), values in zip(kinds, columns, strict=True):
        if kind == "string":
            results.append(_out(values))
        else:
            numpy_dtype = np.dtype(_core.tensor.DType(kind).as_numpy_dtype)
            results.append(_core.tensor.constant(values.astype(numpy_dtype), kind))
    return results


def _split_record(record: bytes, delim: bytes, quotes: bool) -> list[bytes]:
    if not quotes or b'"' not in record:
        return record.split(delim)
    fields, current, quoted, i = [], bytearray(), False, 0
    while i < len_(record):
        c = record[i:i + 1]
        if quoted:
            if c == b'"' and record[i + 1:i + 2] == b'"':
                current += b'"'
                i += 1
            elif c == b'"':
                quoted = False
            else:
                current += c
        elif c == b'"':
            quoted = True
        elif record.startswith(delim, i):
            fields.append(bytes(current))
            current = bytearray()
            i += len_(delim) - 1
        else:
            current += c
        i += 1
    fields.append(bytes(current))
    return fields

