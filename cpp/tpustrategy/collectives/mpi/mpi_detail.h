#pragma once
// Internals of the MPI backend (the only headers that include <mpi.h>): error checks, the bounded
// wait on non-blocking requests, MPI datatypes and reduction ops for our dtypes.
#include <mpi.h>

#include <chrono>
#include <span>
#include <vector>

#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/dtype.h"

namespace tpustrategy::detail {

using MpiClock = std::chrono::steady_clock;

// Throws InternalError "[where] <MPI's message>" when `code` is not MPI_SUCCESS.
void check_mpi(const char* where, int code);

// How a wait polls: a header waits for peers that may still be computing (yield a little, then sleep
// in short steps so an oversubscribed machine keeps its cores for them); a data transfer drives MPI's
// progress engine continuously (every peer is in the same call).
enum class MpiWaitMode { kHeader, kData };

// Polls `requests` until every one completes (true) or `deadline` passes (false). Completed requests
// become MPI_REQUEST_NULL, so after a false return the non-null ones are those still pending.
bool mpi_wait_all(const char* where, std::span<MPI_Request> requests, MpiClock::time_point deadline, MpiWaitMode mode);

// A contiguous MPI datatype of one element of `dtype` (for data that is moved, not reduced).
MPI_Datatype mpi_element_type(DType dtype);

// The MPI datatype and op that combine partial results of `op` over `dtype` across processes.
// `dtype` is the type of the partial buffer: float16 / bfloat16 are reduced as float32 by the
// caller, never passed here. Integer SUM / PROD / MEAN run on unsigned types (wrap-around as TF),
// bool as bytes holding 0/1 with MAX (or) / MIN (and), float MAX / MIN propagate NaN as the kernels.
struct MpiReduction {
  MPI_Datatype type;
  MPI_Op op;
};
MpiReduction mpi_reduction(DType dtype, CollectiveOp op);

}  // namespace tpustrategy::detail
