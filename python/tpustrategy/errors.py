"""Error types mirroring ``tf.errors``.

Every error raised by the C++ core arrives as one of these (the mapping lives in
``cpp/bindings/bind_errors.cc``). ``InvalidArgumentError`` is also a ``ValueError``
so that code catching either works, as with TensorFlow.
"""

from __future__ import annotations

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """Base of the errors raised when an operation fails (``tf.errors.OpError``)."""

    error_code = UNKNOWN

    def __init__(self, node_def: object = None, op: object = None, message: str = "", *args: object) -> None:
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message

    @property
    def message(self) -> str:
        """The error message (also what ``str(error)`` gives)."""
        return self._message

    @property
    def op(self) -> object:
        """The failing operation given to the constructor; tpustrategy passes None (ops run eagerly, no graph)."""
        return self._op

    @property
    def node_def(self) -> object:
        """The failing op's NodeDef given to the constructor; tpustrategy passes None (there is no graph)."""
        return self._node_def

    def __str__(self) -> str:
        return self._message

    def __reduce__(self) -> tuple[type[OpError], tuple[object, object, str]]:
        return (type(self), (self._node_def, self._op, self._message))


# Written out (not made by a factory) so that type checkers see each class.


class CancelledError(OpError):
    """An operation or step was cancelled."""

    error_code = CANCELLED


class UnknownError(OpError):
    """An unknown error."""

    error_code = UNKNOWN


class InvalidArgumentError(OpError, ValueError):
    """An operation received an invalid argument."""

    error_code = INVALID_ARGUMENT


class DeadlineExceededError(OpError):
    """A deadline expired."""

    error_code = DEADLINE_EXCEEDED


class NotFoundError(OpError):
    """A requested entity was not found."""

    error_code = NOT_FOUND


class AlreadyExistsError(OpError):
    """An entity already exists."""

    error_code = ALREADY_EXISTS


class PermissionDeniedError(OpError):
    """Permission denied."""

    error_code = PERMISSION_DENIED


class ResourceExhaustedError(OpError):
    """A resource (such as a core's HBM) is exhausted."""

    error_code = RESOURCE_EXHAUSTED


class FailedPreconditionError(OpError):
    """The system is not in a state to run the operation."""

    error_code = FAILED_PRECONDITION


class AbortedError(OpError):
    """An operation was aborted."""

    error_code = ABORTED


class OutOfRangeError(OpError):
    """An operation iterated past the valid range."""

    error_code = OUT_OF_RANGE


class UnimplementedError(OpError):
    """An operation is not implemented."""

    error_code = UNIMPLEMENTED


class InternalError(OpError):
    """An internal invariant was broken."""

    error_code = INTERNAL


class UnavailableError(OpError):
    """The runtime is unavailable."""

    error_code = UNAVAILABLE


class DataLossError(OpError):
    """Unrecoverable data loss or corruption."""

    error_code = DATA_LOSS


class UnauthenticatedError(OpError):
    """The request is not authenticated."""

    error_code = UNAUTHENTICATED



class EndOfSequence(StopIteration):  # noqa: N818 - a StopIteration, named for what TF calls it
    """A tf.data iterator's ``next()`` past the end: a StopIteration (``for`` loops end), which
    ``tpustrategy.function`` turns into OutOfRangeError when it escapes the function, as TF's traced
    ``next(iterator)`` raises it."""


__all__ = [
    "OpError",
    "CancelledError",
    "UnknownError",
    "InvalidArgumentError",
    "DeadlineExceededError",
    "NotFoundError",
    "AlreadyExistsError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "FailedPreconditionError",
    "AbortedError",
    "OutOfRangeError",
    "UnimplementedError",
    "InternalError",
    "UnavailableError",
    "DataLossError",
    "UnauthenticatedError",
]
