"""``tf.io.serialize_tensor`` / ``tf.io.parse_tensor``: a tensor as a TensorProto (protobuf wire format).

Written as TF 2.21's eager serialize_tensor writes it (dtype = 1, tensor_shape = 2 with one dim {size = 1} per
axis, the raw little-endian buffer in tensor_content = 4; byte strings in string_val = 8), so the bytes equal
TF's; parsing also reads the typed repeated fields (float_val 5, double_val 6, int_val 7, int64_val 10, bool_val
11, half_val 13), a single value filling the shape, as TF does. serialize_tensor returns a scalar tf.string
tensor; parse_tensor of tf.string gives a tf.string tensor.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework.string_tensor import StringTensor, string
from tpustrategy.framework.type_string import type_string

# TF DataType enum values.
_ENUM = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7, "int64": 9,
         "bool": 10, "bfloat16": 14, "uint16": 17, "float16": 19, "uint32": 22, "uint64": 23}
_NAME = {v: k for k, v in _ENUM.items()}
# The wire types each TensorProto field is read in (typed repeated fields packed or one by one); protobuf keeps a
# field that comes in another wire type as an unknown field, so TF's parse ignores it.
_WIRE_TYPES = {1: (0,), 2: (2,), 4: (2,), 8: (2,), 5: (2, 5), 6: (2, 1), 7: (2, 0), 10: (2, 0), 11: (2, 0), 13: (2, 0)}


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos


def _fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) over a message: varints as ints, the other wire types as bytes (the
    value's type follows the wire type, which a type checker cannot tie to it)."""
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _read_varint(data, pos)
        elif wire == 2:
            length, pos = _read_varint(data, pos)
            if pos + length > len(data):
                raise ValueError("truncated field")
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


def _as_array(tensor: Any) -> tuple[np.ndarray, str]:
    if isinstance(tensor, StringTensor):
        return tensor._array, "string"
    if isinstance(tensor, _core.tensor.Tensor):
        return np.asarray(tensor.numpy()), tensor.dtype.name
    if isinstance(tensor, (bytes, str)) or (isinstance(tensor, np.ndarray) and tensor.dtype == object):
        array = np.asarray(tensor, dtype=object)
        return np.vectorize(lambda v: v.encode() if isinstance(v, str) else v, otypes=[object])(array), "string"
    t = _core.tensor.convert_to_tensor(tensor)
    return np.asarray(t.numpy()), t.dtype.name


def serialize_tensor(tensor: Any, name: str | None = None) -> StringTensor:
    """The TensorProto bytes of `tensor`, as a scalar tf.string tensor."""
    return StringTensor(np.asarray(_serialize(tensor), dtype=object))


def _serialize(tensor: Any) -> bytes:
    array, dtype = _as_array(tensor)
    # Protobuf omits default values: a size-0 dim is an empty Dim, an empty buffer no tensor_content.
    shape = b"".join(_field(2, _varint(0x08) + _varint(d) if d else b"") for d in array.shape)
    out = _varint(0x08) + _varint(_ENUM[dtype]) + _field(2, shape)
    if dtype == "string":
        return out + b"".join(_field(8, v) for v in array.ravel())
    content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    return out + (_field(4, content) if content else b"")


def _packed(wire: int, value: Any, fmt: str) -> list[Any]:
    if wire == 2:
        if fmt == "varint":
            items, pos = [], 0
            while pos < len(value):
                item, pos = _read_varint(value, pos)
                items.append(item)
            return items
        floats: list[float] = np.frombuffer(value, fmt).tolist()
        return floats
    return [value] if fmt == "varint" else np.frombuffer(value, fmt).tolist()


def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> Any:
    """The tensor a TensorProto encodes; its dtype must be `out_type` (InvalidArgumentError otherwise)."""
    if isinstance(serialized, StringTensor):
        serialized = serialized._array
    if isinstance(serialized, np.ndarray) and serialized.ndim == 0:
        serialized = serialized.item()
    if isinstance(serialized, str):
        serialized = serialized.encode()
    if not isinstance(serialized, bytes):
        raise TypeError(f"parse_tensor: `serialized` must be a scalar string (bytes), got {type(serialized).__name__}")
    is_string = out_type is string or str(out_type) == "tf.string"
    want = "string" if is_string else _core.tensor.DType(out_type).name
    dtype_enum, content = 0, None
    dims: list[int] = []
    values: list[Any] = []
    try:
        for number, wire, value in _fields(serialized):
            if wire not in _WIRE_TYPES.get(number, (wire,)):
                continue
            if number == 1:
                dtype_enum = value
            elif number == 2:
                for dim_number, _, dim in _fields(value):
                    if dim_number == 2:  # a Dim without size (a name alone) has size 0, protobuf's default
                        sizes = [v for n, w, v in _fields(dim) if n == 1 and w == 0]
                        dims.append(sizes[-1] if sizes else 0)
            elif number == 4:
                content = value
            elif number == 8:
                values.append(bytes(value))
            elif number in (5, 6, 7, 10, 11, 13):
                values += _packed(wire, value, {5: "<f4", 6: "<f8"}.get(number, "varint"))
    except (ValueError, StopIteration) as e:
        raise errors.InvalidArgumentError(None, None, f"Could not parse `serialized` as TensorProto: {e}") from None
    got = _NAME.get(dtype_enum, f"enum {dtype_enum}")
    if got != want:
        raise errors.InvalidArgumentError(None, None, f"Type mismatch between parsed tensor ({type_string(got)}) "
                                          f"and dtype ({type_string(want)})")
    shape = tuple(int(d) for d in dims)
    size = int(np.prod(shape)) if shape else 1
    if want == "string":
        array = np.empty(size, dtype=object)
        array[:] = _filled(values, size, b"")
        return StringTensor(array.reshape(shape))
    want_dtype = _core.tensor.DType(want)
    np_dtype = np.dtype(want_dtype.as_numpy_dtype) if hasattr(want_dtype, "as_numpy_dtype") else None
    np_dtype = np_dtype or np.asarray(_core.tensor.constant(0, want).numpy()).dtype
    if content is not None:
        array = np.frombuffer(content, np_dtype.newbyteorder("<")).astype(np_dtype)
    elif want in ("int64", "uint64", "int32", "int16", "int8", "uint8", "uint16", "uint32"):
        array = np.array(_filled([_signed(v, want) for v in values], size, 0), dtype=np_dtype)
    elif want in ("float16", "bfloat16"):  # half_val holds each value's 16 bits
        array = np.array(_filled(values, size, 0), dtype=np.uint16).view(np_dtype)
    else:
        array = np.array(_filled(values, size, 0), dtype=np_dtype)
    if array.size != size:
        raise errors.InvalidArgumentError(None, None, f"TensorProto has {array.size} values for shape {list(shape)}")
    return _core.tensor.constant(array.reshape(shape), want)


def _filled(values: list[Any], size: int, default: Any) -> list[Any]:
    """The `size` values of a typed repeated field as TF reads them: none gives `default` everywhere, fewer
    repeat the last one, extra ones are dropped."""
    if not values:
        return [default] * size
    return values[:size] + [values[-1]] * (size - len(values))


def _signed(value: int, dtype: str) -> int:
    if dtype.startswith("int") and value >= 1 << 63:
        return value - (1 << 64)
    return value
