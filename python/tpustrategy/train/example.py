"""``tf.train.Example`` and its parts, with the protobuf message API programs use.

The messages are plain Python objects with protobuf's surface (keyword constructors, ``.value``
lists, ``feature`` maps, ``WhichOneof("kind")``, ``SerializeToString`` / ``FromString`` /
``ParseFromString``, ``CopyFrom``, ``MergeFrom``, ``ByteSize``, equality) on every message.
The wire format is written and read by the C++ codec (cpp/tpustrategy/data/example.*), byte-compatible
with TensorFlow's protos; map entries are written in key order (protobuf's deterministic serialization).
Malformed bytes raise ``DecodeError`` (as protobuf's ``google.protobuf.message.DecodeError``); the C++ parser never
reads out of bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

from tpustrategy import _core

_BYTES, _FLOAT, _INT64 = 1, 2, 3
_Parsed = TypeVar("_Parsed")
_M = TypeVar("_M", bound="_Message")
# A Feature as the C++ codec takes and gives it: (kind: 0 none, _BYTES, _FLOAT or _INT64; values).
FeatureWire = tuple[int, list[Any]]
# A SequenceExample as the codec takes and gives it: (context, feature lists), None for an unset field.
SequenceExampleWire = tuple[dict[str, FeatureWire] | None, dict[str, list[FeatureWire]] | None]


class DecodeError(Exception):
    """Bytes that are not a valid serialized message (protobuf's ``message.DecodeError``)."""


class _Message:
    _fields: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._wire() == other._wire()

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # mutable messages are unhashable, as protobuf's

    def CopyFrom(self, other: object) -> None:  # noqa: N802  (protobuf's name)
        """Replaces this message's contents with a copy of `other`'s.

        Raises:
          TypeError: `other` is not of this message's type.
        """
        self.ParseFromString(self._same_type(other, "CopyFrom").SerializeToString())

    def MergeFrom(self, other: object) -> None:  # noqa: N802
        """Merges `other` into this message as protobuf does: lists append, message fields merge, map entries
        and the set member of a oneof are replaced.

        Raises:
          TypeError: `other` is not of this message's type.
        """
        # Parsing concatenated messages is protobuf's merge: lists append, message fields merge, map
        # entries and oneof members are replaced.
        self.ParseFromString(self.SerializeToString() + self._same_type(other, "MergeFrom").SerializeToString())

    def MergeFromString(self, serialized: bytes) -> int:  # noqa: N802
        """Merges the message parsed from `serialized` into this one (as MergeFrom); returns its length.

        Raises:
          TypeError: `serialized` is not bytes-like. DecodeError: the bytes are not a valid message.
        """
        type(self).FromString(serialized)  # the bytes alone must be a valid message
        self.ParseFromString(self.SerializeToString() + bytes(serialized))
        return len(serialized)

    def _same_type(self, other: object, method: str) -> _Message:
        if type(other) is not type(self):
            raise TypeError(f"Parameter to {method}() must be instance of same class: expected {type(self)!r} "
                            f"got {type(other)!r}.")
        return other

    def ParseFromString(self, serialized: bytes) -> int:  # noqa: N802
        """Replaces this message's contents with the message parsed from `serialized`; returns its length.

        Raises:
          TypeError: `serialized` is not bytes-like. DecodeError: the bytes are not a valid message.
        """
        parsed = type(self).FromString(serialized)
        self.__dict__.update(parsed.__dict__)
        return len(serialized)

    def Clear(self) -> None:  # noqa: N802
        """Resets every field to its default (empty)."""
        self.__dict__.update(type(self)().__dict__)

    def SerializeToString(self, deterministic: bool | None = None) -> bytes:  # noqa: N802
        """The message in protobuf wire format, map entries in key order (so `deterministic` changes nothing)."""
        serialized: bytes = _core.example.message_serialize(type(self).__name__, self._wire())
        return serialized

    @classmethod
    def FromString(cls: type[_M], serialized: bytes) -> _M:  # noqa: N802
        """Parses a serialized message of this type.

        Raises:
          TypeError: `serialized` is not bytes-like. DecodeError: the bytes are not a valid message.
        """
        name = cls.__name__
        message = cls._from_wire(_parse(lambda b: _core.example.message_parse(name, b), serialized, name))
        assert isinstance(message, cls)  # each _from_wire builds its own class
        return message

    def ByteSize(self) -> int:  # noqa: N802
        """The length of the serialized message in bytes."""
        return len(self.SerializeToString())

    # The message in the form the C++ codec takes and gives (_core.example.message_parse).
    def _wire(self) -> Any:
        raise NotImplementedError

    @classmethod
    def _from_wire(cls, wire: Any) -> _Message:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._fields)})"


class _List(_Message):
    _fields = ("value",)
    _convert = staticmethod(lambda v: v)

    def __init__(self, value: Any = ()) -> None:
        self.value = [self._convert(v) for v in _values(value)]

    def _wire(self) -> list[Any]:
        return self.value

    @classmethod
    def _from_wire(cls, wire: list[Any]) -> _List:
        return cls(wire)


def _values(value: Any) -> list[Any]:
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        items: list[Any] = value.reshape(-1).tolist()
        return items
    return list(value)


def _to_bytes(v: object) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, (str, np.str_)):
        return v.encode()
    if isinstance(v, np.bytes_):
        return bytes(v)
    raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: bytes")


def _to_float(v: Any) -> float:
    if isinstance(v, (bytes, str)):
        raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: int, float")
    return float(np.float32(v))  # the value a float field holds


def _to_int64(v: Any) -> int:
    if isinstance(v, (float, np.floating, bytes, str)):
        raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: int")
    number = int(v)
    if not -(2**63) <= number < 2**63:
        raise ValueError(f"Value out of range: {number}")
    return number


class BytesList(_List):
    """``tf.train.BytesList``: a ``value`` list of bytes.

    Args:
      value: an iterable, numpy array (flattened) or tensor of bytes; ``str`` items are UTF-8 encoded.

    Raises:
      TypeError: an item that is neither bytes nor str.
    """

    _convert = staticmethod(_to_bytes)


class FloatList(_List):
    """``tf.train.FloatList``: a ``value`` list of floats, each rounded to float32 as the proto field stores it.

    Args:
      value: an iterable, numpy array (flattened) or tensor of numbers.

    Raises:
      TypeError: a bytes or str item.
    """

    _convert = staticmethod(_to_float)


class Int64List(_List):
    """``tf.train.Int64List``: a ``value`` list of int64 integers.

    Args:
      value: an iterable, numpy array (flattened) or tensor of integers.

    Raises:
      TypeError: a float, bytes or str item. ValueError: an integer outside the int64 range.
    """

    _convert = staticmethod(_to_int64)


class Feature(_Message):
    """``tf.train.Feature``: one of ``bytes_list``, ``float_list``, ``int64_list`` (a oneof named "kind").

    Raises:
      ValueError: more than one member given. TypeError: a member of the wrong list type.
    """

    _fields = ("bytes_list", "float_list", "int64_list")
    _kinds = {"bytes_list": (_BYTES, BytesList), "float_list": (_FLOAT, FloatList), "int64_list": (_INT64, Int64List)}

    def __init__(self, bytes_list: BytesList | None = None, float_list: FloatList | None = None,
                 int64_list: Int64List | None = None) -> None:
        given = [(name, v) for name, v in zip(self._fields, (bytes_list, float_list, int64_list), strict=True)
                 if v is not None]
        if len(given) > 1:
            raise ValueError(f"Feature takes one of bytes_list, float_list, int64_list; got {[n for n, _ in given]}")
        self._kind = given[0][0] if given else None
        self._list: _List | None = given[0][1] if given else None
        if self._list is not None:
            assert self._kind is not None  # set with _list
            if not isinstance(self._list, self._kinds[self._kind][1]):
                raise TypeError(f"`{self._kind}` must be a {self._kinds[self._kind][1].__name__}, got "
                                f"{type(self._list).__name__}")

    def _get(self, name: str) -> _List | None:
        if self._kind == name:
            return self._list
        return self._kinds[name][1]()  # an unset member reads as empty, as in protobuf

    @property
    def bytes_list(self) -> BytesList:
        """The BytesList member; an empty one when it is not the member set."""
        value = self._get("bytes_list")
        assert isinstance(value, BytesList)  # __init__ checked it
        return value

    @property
    def float_list(self) -> FloatList:
        """The FloatList member; an empty one when it is not the member set."""
        value = self._get("float_list")
        assert isinstance(value, FloatList)  # __init__ checked it
        return value

    @property
    def int64_list(self) -> Int64List:
        """The Int64List member; an empty one when it is not the member set."""
        value = self._get("int64_list")
        assert isinstance(value, Int64List)  # __init__ checked it
        return value

    def WhichOneof(self, oneof_group: str) -> str | None:  # noqa: N802
        """The name of the member set ("bytes_list", "float_list" or "int64_list"), or None.

        Raises:
          ValueError: `oneof_group` is not "kind".
        """
        if oneof_group != "kind":
            raise ValueError(f'Protocol message has no oneof "{oneof_group}" field.')
        return self._kind

    def HasField(self, name: str) -> bool:  # noqa: N802
        """Whether `name` is the member set; any other string, "kind" included, gives False (protobuf would
        answer for "kind" and raise ValueError for an unknown name)."""
        return self._kind == name

    def _wire(self) -> FeatureWire:
        if self._kind is None:
            return (0, [])
        assert self._list is not None  # set with _kind
        return (self._kinds[self._kind][0], self._list.value)

    @classmethod
    def _from_wire(cls, kind_and_values: FeatureWire) -> Feature:
        kind, values = kind_and_values
        if kind == _BYTES:
            return cls(bytes_list=BytesList(values))
        if kind == _FLOAT:
            return cls(float_list=FloatList(values))
        if kind == _INT64:
            return cls(int64_list=Int64List(values))
        return cls()

    def __repr__(self) -> str:
        return f"Feature({self._kind}={self._list!r})" if self._kind else "Feature()"


class Features(_Message):
    """``tf.train.Features``: a ``feature`` dict from name to Feature.

    Raises:
      TypeError: `feature` is not a dict, or one of its values is not a Feature.
    """

    _fields = ("feature",)

    def __init__(self, feature: dict[str, Feature] | None = None) -> None:
        self.feature: dict[str, Feature] = {}
        if feature is not None and not isinstance(feature, dict):
            raise TypeError(f"Features: `feature` must be a dict of name -> tf.train.Feature, got "
                            f"{type(feature).__name__}: {feature!r}")
        for key, value in (feature or {}).items():
            if not isinstance(value, Feature):
                raise TypeError(f"Features values must be tf.train.Feature, got {type(value).__name__} for {key!r}")
            self.feature[str(key)] = value

    def _wire(self) -> dict[str, FeatureWire]:
        return {key: f._wire() for key, f in self.feature.items()}

    @classmethod
    def _from_wire(cls, wire: dict[str, FeatureWire]) -> Features:
        return cls({key: Feature._from_wire(v) for key, v in wire.items()})


class FeatureList(_Message):
    """``tf.train.FeatureList``: a ``feature`` list of Feature (a SequenceExample's steps; not checked)."""

    _fields = ("feature",)

    def __init__(self, feature: Iterable[Feature] = ()) -> None:
        self.feature = list(feature)

    def _wire(self) -> list[FeatureWire]:
        return [f._wire() for f in self.feature]

    @classmethod
    def _from_wire(cls, wire: list[FeatureWire]) -> FeatureList:
        return cls([Feature._from_wire(f) for f in wire])


class FeatureLists(_Message):
    """``tf.train.FeatureLists``: a ``feature_list`` dict from name to FeatureList (not checked)."""

    _fields = ("feature_list",)

    def __init__(self, feature_list: dict[str, FeatureList] | None = None) -> None:
        self.feature_list = dict(feature_list or {})

    def _wire(self) -> dict[str, list[FeatureWire]]:
        return {key: fl._wire() for key, fl in self.feature_list.items()}

    @classmethod
    def _from_wire(cls, wire: dict[str, list[FeatureWire]]) -> FeatureLists:
        return cls({key: FeatureList._from_wire(fl) for key, fl in wire.items()})


def _parse(fn: Callable[[bytes], _Parsed], serialized: object, what: str) -> _Parsed:
    if not isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(f"expected bytes, {type(serialized).__name__} found (parsing a tensorflow.{what})")
    from tpustrategy.errors import InvalidArgumentError

    try:
        return fn(bytes(serialized))
    except InvalidArgumentError as e:
        raise DecodeError(f"Error parsing message with type 'tensorflow.{what}': {e.message}") from None


class Example(_Message):
    """``tf.train.Example``: a Features map."""

    _fields = ("features",)

    def __init__(self, features: Features | None = None) -> None:
        self._has_features = features is not None  # an unset, empty field is not written, as in protobuf
        self.features = features if features is not None else Features()
        if not isinstance(self.features, Features):
            raise TypeError(f"`features` must be a tf.train.Features, got {type(self.features).__name__}")

    def _wire(self) -> dict[str, FeatureWire] | None:
        return self.features._wire() if self._has_features or self.features.feature else None

    @classmethod
    def _from_wire(cls, wire: dict[str, FeatureWire] | None) -> Example:
        return cls(None if wire is None else Features._from_wire(wire))


class SequenceExample(_Message):
    """``tf.train.SequenceExample``: context Features plus named lists of Features."""

    _fields = ("context", "feature_lists")

    def __init__(self, context: Features | None = None, feature_lists: FeatureLists | None = None) -> None:
        self._has_context, self._has_feature_lists = context is not None, feature_lists is not None
        self.context = context if context is not None else Features()
        self.feature_lists = feature_lists if feature_lists is not None else FeatureLists()

    def _wire(self) -> SequenceExampleWire:
        context = self.context._wire() if self._has_context or self.context.feature else None
        lists = self.feature_lists
        return context, lists._wire() if self._has_feature_lists or lists.feature_list else None

    @classmethod
    def _from_wire(cls, wire: SequenceExampleWire) -> SequenceExample:
        context, lists = wire
        return cls(None if context is None else Features._from_wire(context),
                   None if lists is None else FeatureLists._from_wire(lists))
