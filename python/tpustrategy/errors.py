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

    def __init__(self, node_def=None, op=None, message="", *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    def __str__(self) -> str:
        return self._message

    def __reduce__(self):
        return (type(self), (self._node_def, self._op, self._message))


def _error(name: str, code: int, doc: str, *bases: type) -> type:
    return type(name, (OpError, *bases), {"error_code": code, "__doc__": doc, "__module__": __name__})


CancelledError = _error("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _error("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _error(
    "InvalidArgumentError", INVALID_ARGUMENT, "An operation received an invalid argument.", ValueError
)
DeadlineExceededError = _error("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _error("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _error("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _error("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _error(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource (such as a core's HBM) is exhausted."
)
FailedPreconditionError = _error(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state to run the operation."
)
AbortedError = _error("AbortedError", ABORTED, "An operation was aborted.")
OutOfRangeError = _error("OutOfRangeError", OUT_OF_RANGE, "An operation iterated past the valid range.")
UnimplementedError = _error("UnimplementedError", UNIMPLEMENTED, "An operation is not implemented.")
InternalError = _error("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _error("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _error("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _error("UnauthenticatedError", UNAUTHENTICATED, "The request is not authenticated.")



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
