#include "tpustrategy/runtime/stored_error.h"

#include <stdexcept>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

StoredError StoredError::capture(const std::exception_ptr& error) {
  if (!error) return {};
  try {
    std::rethrow_exception(error);
  }
  // Most derived types first.
#define TPUSTRATEGY_CAPTURE(Type, K) \
  catch (const Type& e) {            \
    return StoredError(K, e.what()); \
  }
  TPUSTRATEGY_CAPTURE(InvalidArgumentError, Kind::kInvalidArgument)
  TPUSTRATEGY_CAPTURE(OutOfRangeError, Kind::kOutOfRange)
  TPUSTRATEGY_CAPTURE(ResourceExhaustedError, Kind::kResourceExhausted)
  TPUSTRATEGY_CAPTURE(FailedPreconditionError, Kind::kFailedPrecondition)
  TPUSTRATEGY_CAPTURE(CancelledError, Kind::kCancelled)
  TPUSTRATEGY_CAPTURE(NotFoundError, Kind::kNotFound)
  TPUSTRATEGY_CAPTURE(UnimplementedError, Kind::kUnimplemented)
  TPUSTRATEGY_CAPTURE(DataLossError, Kind::kDataLoss)
  TPUSTRATEGY_CAPTURE(AbortedError, Kind::kAborted)
  TPUSTRATEGY_CAPTURE(DeadlineExceededError, Kind::kDeadlineExceeded)
  TPUSTRATEGY_CAPTURE(InternalError, Kind::kInternal)
  TPUSTRATEGY_CAPTURE(OpError, Kind::kOpError)
  TPUSTRATEGY_CAPTURE(ValueError, Kind::kValueError)
  TPUSTRATEGY_CAPTURE(TypeError, Kind::kTypeError)
  TPUSTRATEGY_CAPTURE(RuntimeError, Kind::kRuntimeError)
  TPUSTRATEGY_CAPTURE(std::invalid_argument, Kind::kStdInvalidArgument)
  TPUSTRATEGY_CAPTURE(std::out_of_range, Kind::kStdOutOfRange)
  TPUSTRATEGY_CAPTURE(std::logic_error, Kind::kStdLogicError)
  TPUSTRATEGY_CAPTURE(std::runtime_error, Kind::kStdRuntimeError)
  TPUSTRATEGY_CAPTURE(std::exception, Kind::kOther)
#undef TPUSTRATEGY_CAPTURE
  catch (...) {
    return {Kind::kOther, "unknown exception (not derived from std::exception)"};
  }
}

void StoredError::raise(std::string_view prefix) const {
  std::string text = std::string(prefix) + message_;
  switch (kind_) {
    case Kind::kInvalidArgument:
      throw InvalidArgumentError(text);
    case Kind::kOutOfRange:
      throw OutOfRangeError(text);
    case Kind::kResourceExhausted:
      throw ResourceExhaustedError(text);
    case Kind::kFailedPrecondition:
      throw FailedPreconditionError(text);
    case Kind::kCancelled:
      throw CancelledError(text);
    case Kind::kNotFound:
      throw NotFoundError(text);
    case Kind::kUnimplemented:
      throw UnimplementedError(text);
    case Kind::kDataLoss:
      throw DataLossError(text);
    case Kind::kAborted:
      throw AbortedError(text);
    case Kind::kDeadlineExceeded:
      throw DeadlineExceededError(text);
    case Kind::kInternal:
      throw InternalError(text);
    case Kind::kOpError:
      throw OpError(text);
    case Kind::kValueError:
      throw ValueError(text);
    case Kind::kTypeError:
      throw TypeError(text);
    case Kind::kRuntimeError:
      throw RuntimeError(text);
    case Kind::kStdInvalidArgument:
      throw std::invalid_argument(text);
    case Kind::kStdOutOfRange:
      throw std::out_of_range(text);
    case Kind::kStdLogicError:
      throw std::logic_error(text);
    case Kind::kStdRuntimeError:
      throw std::runtime_error(text);
    case Kind::kOther:
      throw RuntimeError(text);
    case Kind::kNone:
      break;
  }
  throw InternalError(text.empty() ? "[StoredError::raise] no error was stored" : text);
}

}  // namespace tpustrategy
