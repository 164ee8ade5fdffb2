// MPI start-up and shut-down, the timeout setting, and the small MPI helpers of mpi_detail.h.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

#include "tpustrategy/collectives/mpi/mpi_communicator.h"
#include "tpustrategy/collectives/mpi/mpi_detail.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy {

namespace {

bool g_initialized_here = false;

// max / min that return NaN when either side is NaN, as the in-process kernels do (MPI_MAX compares
// with '<', so NaN would depend on the order of arrival).
template <typename T, bool kMax>
void nan_propagating(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      b[i] = std::numeric_limits<T>::quiet_NaN();
    } else {
      b[i] = kMax ? (a[i] > b[i] ? a[i] : b[i]) : (a[i] < b[i] ? a[i] : b[i]);
    }
  }
}

// Wrapping 8- / 16-bit sums: Open MPI's built-in MPI_SUM on MPI_UINT8_T / MPI_UINT16_T gave wrong sums
// in the uneven-layout tests here (its vectorized op component), so those SUM / MEAN partials use this op.
template <typename U>
void wrapping_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const U*>(in);
  auto* b = static_cast<U*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = static_cast<U>(a[i] + b[i]);
}

MPI_Op make_op(MPI_User_function* fn) {
  MPI_Op op;
  detail::check_mpi("mpi_reduction", MPI_Op_create(fn, /*commute=*/1, &op));
  return op;
}

}  // namespace

bool mpi_available() { return true; }

bool mpi_initialized() {
  int flag = 0;
  MPI_Initialized(&flag);
  int finalized = 0;
  MPI_Finalized(&finalized);
  return flag != 0 && finalized == 0;
}

void mpi_initialize() {
  int flag = 0;
  MPI_Initialized(&flag);
  if (flag) return;
  int provided = 0;
  detail::check_mpi("mpi_initialize", MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  g_initialized_here = true;
}

void mpi_finalize() {
  if (!g_initialized_here || !mpi_initialized()) return;
  MPI_Finalize();
}

int mpi_world_rank() {
  mpi_initialize();
  int rank = 0;
  detail::check_mpi("mpi_world_rank", MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  return rank;
}

int mpi_world_size() {
  mpi_initialize();
  int size = 0;
  detail::check_mpi("mpi_world_size", MPI_Comm_size(MPI_COMM_WORLD, &size));
  return size;
}

double mpi_default_timeout_seconds() {
  const char* text = std::getenv("TPUSTRATEGY_MPI_TIMEOUT_SECONDS");
  if (text == nullptr || *text == '\0') return 60.0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(seconds) || seconds <= 0) {
    fail<ValueError>("mpi_default_timeout_seconds",
                     "TPUSTRATEGY_MPI_TIMEOUT_SECONDS='{}' is not a positive number of seconds", text);
  }
  return seconds;
}

namespace detail {

void check_mpi(const char* where, int code) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  fail<InternalError>(where, "MPI error {}: {}", code, std::string(text, static_cast<std::size_t>(length)));
}

bool mpi_wait_all(const char* where, std::span<MPI_Request> requests, MpiClock::time_point deadline, MpiWaitMode mode) {
  for (long polls = 0;; ++polls) {
    bool pending = false;
    for (MPI_Request& request : requests) {
      if (request == MPI_REQUEST_NULL) continue;
      int done = 0;
      check_mpi(where, MPI_Test(&request, &done, MPI_STATUS_IGNORE));
      pending = pending || done == 0;
    }
    if (!pending) return true;
    if (MpiClock::now() >= deadline) return false;
    if (mode == MpiWaitMode::kData || polls < 2000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(polls < 20000 ? 20 : 200));
    }
  }
}

MPI_Datatype mpi_element_type(DType dtype) {
  switch (dtype_size(dtype)) {
    case 1:
      return MPI_UINT8_T;
    case 2:
      return MPI_UINT16_T;
    case 4:
      return MPI_UINT32_T;
    case 8:
      return MPI_UINT64_T;
    default:  // 16 bytes: complex128
      return MPI_C_DOUBLE_COMPLEX;
  }
}

MpiReduction mpi_reduction(DType dtype, CollectiveOp op) {
  static const MPI_Op max_f32 = make_op(&nan_propagating<float, true>);
  static const MPI_Op min_f32 = make_op(&nan_propagating<float, false>);
  static const MPI_Op max_f64 = make_op(&nan_propagating<double, true>);
  static const MPI_Op min_f64 = make_op(&nan_propagating<double, false>);
  static const MPI_Op sum_8 = make_op(&wrapping_sum<std::uint8_t>);
  static const MPI_Op sum_16 = make_op(&wrapping_sum<std::uint16_t>);
  const bool is_max = op == CollectiveOp::kMax;
  const bool is_min = op == CollectiveOp::kMin;
  const MPI_Op arithmetic = op == CollectiveOp::kProd ? MPI_PROD : MPI_SUM;  // MEAN: sum, divided later
  switch (dtype) {
    case DType::kBool:  // partials are 0/1 bytes; SUM / MAX = or, PROD / MIN = and
      return {MPI_UINT8_T, (op == CollectiveOp::kSum || is_max) ? MPI_MAX : MPI_MIN};
    case DType::kInt32:
      return (is_max || is_min) ? MpiReduction{MPI_INT32_T, is_max ? MPI_MAX : MPI_MIN}
                                : MpiReduction{MPI_UINT32_T, arithmetic};
    case DType::kInt64:
      return (is_max || is_min) ? MpiReduction{MPI_INT64_T, is_max ? MPI_MAX : MPI_MIN}
                                : MpiReduction{MPI_UINT64_T, arithmetic};
    case DType::kFloat32:
      return {MPI_FLOAT, is_max ? max_f32 : is_min ? min_f32 : arithmetic};
    case DType::kFloat64:
      return {MPI_DOUBLE, is_max ? max_f64 : is_min ? min_f64 : arithmetic};
    case DType::kFloat16:
    case DType::kBFloat16:
      break;
    // The narrow and unsigned integers: SUM / PROD in the unsigned type of the width (wraps, as the
    // in-process kernel), MAX / MIN in the dtype's own signedness.
    case DType::kUInt8:
      return {MPI_UINT8_T, (is_max || is_min)          ? (is_max ? MPI_MAX : MPI_MIN)
                           : op == CollectiveOp::kProd ? MPI_PROD
                                                       : sum_8};
    case DType::kInt8:
      return (is_max || is_min) ? MpiReduction{MPI_INT8_T, is_max ? MPI_MAX : MPI_MIN}
                                : MpiReduction{MPI_UINT8_T, op == CollectiveOp::kProd ? MPI_PROD : sum_8};
    case DType::kInt16:
      return (is_max || is_min) ? MpiReduction{MPI_INT16_T, is_max ? MPI_MAX : MPI_MIN}
                                : MpiReduction{MPI_UINT16_T, op == CollectiveOp::kProd ? MPI_PROD : sum_16};
    case DType::kUInt16:
      return {MPI_UINT16_T, (is_max || is_min)          ? (is_max ? MPI_MAX : MPI_MIN)
                            : op == CollectiveOp::kProd ? MPI_PROD
                                                        : sum_16};
    case DType::kUInt32:
      return {MPI_UINT32_T, (is_max || is_min) ? (is_max ? MPI_MAX : MPI_MIN) : arithmetic};
    case DType::kUInt64:
      return {MPI_UINT64_T, (is_max || is_min) ? (is_max ? MPI_MAX : MPI_MIN) : arithmetic};
    // Complex: SUM / PROD only (MAX / MIN are rejected before any transfer, as in process).
    case DType::kComplex64:
      if (is_max || is_min) break;
      return {MPI_C_FLOAT_COMPLEX, arithmetic};
    case DType::kComplex128:
      if (is_max || is_min) break;
      return {MPI_C_DOUBLE_COMPLEX, arithmetic};
  }
  if (is_complex(dtype))
    fail<InvalidArgumentError>("mpi_reduction", "MAX / MIN are not defined for {}", dtype_name(dtype));
  fail<InternalError>("mpi_reduction", "{} partials are reduced as float32", dtype_name(dtype));
}

}  // namespace detail
}  // namespace tpustrategy
