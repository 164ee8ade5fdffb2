"""The ``TrackableObjectGraph`` proto (trackable_object_graph.proto) that a checkpoint stores under the
key ``_CHECKPOINTABLE_OBJECT_GRAPH``: one node per object, each with its named children (references by
node id), its saved attributes (name, full_name, checkpoint_key) and its slot variables.

A small hand-written codec: the message is metadata of a few kilobytes, and the tensors themselves go
through the C++ TensorBundle code. Unknown fields are skipped on read, as protobuf does; malformed
bytes raise ``DataLossError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from tpustrategy import errors


@dataclasses.dataclass
class SerializedTensor:
    name: str
    full_name: str
    checkpoint_key: str


@dataclasses.dataclass
class SlotVariableReference:
    original_variable_node_id: int
    slot_name: str
    slot_variable_node_id: int


@dataclasses.dataclass
class TrackableObject:
    children: list[tuple[int, str]] = dataclasses.field(default_factory=list)  # (node_id, local_name)
    attributes: list[SerializedTensor] = dataclasses.field(default_factory=list)  # SerializedTensor
    slot_variables: list[SlotVariableReference] = dataclasses.field(default_factory=list)  # SlotVariableReference
    has_checkpoint_values: bool | None = None


# ---- writing ----

def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field_bytes(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _field_varint(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value) if value else b""


def _field_string(field: int, value: str) -> bytes:
    return _field_bytes(field, value.encode()) if value else b""


def encode(nodes: list[TrackableObject]) -> bytes:
    out = bytearray()
    for node in nodes:
        body = bytearray()
        for node_id, local_name in node.children:
            body += _field_bytes(1, _field_varint(1, node_id) + _field_string(2, local_name))
        for attribute in node.attributes:
            body += _field_bytes(2, _field_string(1, attribute.name) + _field_string(2, attribute.full_name)
                                 + _field_string(3, attribute.checkpoint_key))
        for slot in node.slot_variables:
            body += _field_bytes(3, _field_varint(1, slot.original_variable_node_id) + _field_string(2, slot.slot_name)
                                 + _field_varint(3, slot.slot_variable_node_id))
        if node.has_checkpoint_values is not None:
            body += _field_bytes(5, _field_varint(1, int(node.has_checkpoint_values)))  # google.protobuf.BoolValue
        out += _field_bytes(1, bytes(body))
    return bytes(out)


# ---- reading ----

class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def done(self) -> bool:
        return self.pos >= len(self.data)

    def varint(self) -> int:
        value, shift = 0, 0
        while True:
            if self.pos >= len(self.data) or shift > 63:
                raise errors.DataLossError(None, None, "malformed object graph: bad varint")
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7

    def fields(self) -> Iterator[tuple[int, int | bytes]]:
        while not self.done():
            key = self.varint()
            field, wire_type = key >> 3, key & 7
            if wire_type == 0:
                yield field, self.varint()
            elif wire_type == 2:
                n = self.varint()
                if n > len(self.data) - self.pos:
                    raise errors.DataLossError(None, None, "malformed object graph: length past the end")
                yield field, self.data[self.pos:self.pos + n]
                self.pos += n
            elif wire_type in (1, 5):
                n = 8 if wire_type == 1 else 4
                if n > len(self.data) - self.pos:
                    raise errors.DataLossError(None, None, "malformed object graph: truncated field")
                self.pos += n
            else:
                raise errors.DataLossError(None, None, f"malformed object graph: wire type {wire_type}")


def _int32(value: int | bytes) -> int:
    if not isinstance(value, int):
        raise errors.DataLossError(None, None, "malformed object graph: an int field holds bytes")
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _text(value: int | bytes) -> str:
    if isinstance(value, int):
        raise errors.DataLossError(None, None, "malformed object graph: a string field holds a varint")
    return bytes(value).decode("utf-8", errors="replace")


def decode(data: bytes) -> list[TrackableObject]:
    nodes: list[TrackableObject] = []
    for field, payload in _Reader(bytes(data)).fields():
        if field != 1 or isinstance(payload, int):
            continue
        node = TrackableObject()
        for f, value in _Reader(payload).fields():
            if isinstance(value, int):
                continue
            sub = dict(_Reader(value).fields()) if f in (1, 2, 3, 5) else {}
            if f == 1:
                node.children.append((_int32(sub.get(1, 0)), _text(sub.get(2, b""))))
            elif f == 2:
                node.attributes.append(SerializedTensor(_text(sub.get(1, b"")), _text(sub.get(2, b"")),
                                                        _text(sub.get(3, b""))))
            elif f == 3:
                node.slot_variables.append(SlotVariableReference(_int32(sub.get(1, 0)), _text(sub.get(2, b"")),
                                                                 _int32(sub.get(3, 0))))
            elif f == 5:
                node.has_checkpoint_values = bool(sub.get(1, 0))
        nodes.append(node)
    for node in nodes:
        for node_id, name in node.children:
            if not 0 <= node_id < len(nodes):
                raise errors.DataLossError(None, None, f"malformed object graph: child {name!r} names node {node_id} "
                                           f"of {len(nodes)}")
    return nodes
