#pragma once
// An error captured on one thread and raised again, as a fresh exception of the same type, on any
// number of others. Sharing one exception object between threads through std::exception_ptr is legal,
// but its reference count lives in uninstrumented libstdc++ code, so ThreadSanitizer reports the
// object's destruction as a race with readers of what(); value copies avoid the question entirely.
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

namespace tpustrategy {

class StoredError {
 public:
  // The exception types that keep their type across threads; anything else becomes kOther.
  enum class Kind : std::uint8_t {
    kNone,
    kInvalidArgument,
    kOutOfRange,
    kResourceExhausted,
    kFailedPrecondition,
    kCancelled,
    kNotFound,
    kUnimplemented,
    kDataLoss,
    kAborted,
    kDeadlineExceeded,  // an MPI collective whose peer process did not arrive in time
    kInternal,
    kOpError,
    kValueError,
    kTypeError,
    kRuntimeError,
    kStdInvalidArgument,
    kStdOutOfRange,
    kStdLogicError,
    kStdRuntimeError,
    kOther,  // raised as tpustrategy::RuntimeError
  };

  StoredError() = default;
  StoredError(Kind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  // Inspects `error` (by rethrowing it on the calling thread) and keeps its type and message.
  static StoredError capture(const std::exception_ptr& error);

  explicit operator bool() const { return kind_ != Kind::kNone; }
  Kind kind() const { return kind_; }
  const std::string& message() const { return message_; }

  // Throws a new exception of the captured type with `prefix` + message.
  [[noreturn]] void raise(std::string_view prefix = {}) const;

 private:
  Kind kind_ = Kind::kNone;
  std::string message_;
};

}  // namespace tpustrategy
