#include "tpustrategy/ops/matmul.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/bfloat16_widen.h"
#include "tpustrategy/ops/blas_gemm.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/ops/extended_dtypes.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

namespace {

using detail::ConstMatrixMap;
using detail::MatrixMap;

// Work per pool task, in multiply-adds: below this a task runs inline.
constexpr std::int64_t kMatmulGrainFlops = std::int64_t{1} << 18;

template <typename T>
void gemm(const T* pa, const T* pb, T* pc, std::int64_t m, std::int64_t n, std::int64_t k, bool ta, bool tb,
          std::int64_t r0, std::int64_t rows) {
  ConstMatrixMap<T> A(pa, ta ? k : m, ta ? m : k);
  ConstMatrixMap<T> B(pb, tb ? n : k, tb ? k : n);
  MatrixMap<T> C(pc + r0 * n, rows, n);
  if (k == 0) {
    C.setZero();
    return;
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (detail::blas_gemm(pa, pb, pc, m, n, k, ta, tb, r0, rows)) return;
  }
  if (!ta && !tb)
    C.noalias() = A.middleRows(r0, rows) * B;
  else if (!ta && tb)
    C.noalias() = A.middleRows(r0, rows) * B.transpose();
  else if (ta && !tb)
    C.noalias() = A.middleCols(r0, rows).transpose() * B;
  else
    C.noalias() = A.middleCols(r0, rows).transpose() * B.transpose();
}

// Which product each pool task computes: rows [r0, r0 + rows_per_task) of one batch's output.
struct GemmPlan {
  std::int64_t m, n, k, nb;
  std::vector<std::int64_t> off_a, off_b;  // offsets (in matrices) of each batch's operands
  std::int64_t rows_per_task, tasks_per_batch, grain;
};

// A task of fewer rows repacks all of op(B) for too little work: OpenBLAS packs it once per call, so a
// row split packs it once per task (64-row tasks of 256x512 @ 512x512 spent a fifth of their time in
// that copy; single-threaded, 128-row calls run 4 % faster per flop, 128x128 @ 128x128 18 %).
constexpr std::int64_t kMinTaskRows = 128;

GemmPlan plan_gemm(const Shape& sa, const Shape& sb, const Shape& out_shape, std::int64_t m, std::int64_t n,
                   std::int64_t k) {
  const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  const Shape batch(out_shape.begin(), out_shape.end() - 2);
  GemmPlan plan{m, n, k, num_elements(batch), {}, {}, 0, 0, 0};
  plan.off_a.resize(static_cast<std::size_t>(plan.nb));
  plan.off_b.resize(static_cast<std::size_t>(plan.nb));
  const BroadcastPlan broadcast = plan_broadcast({batch_a, batch_b}, batch);
  for_each_run(broadcast, 0, plan.nb, [&](std::int64_t o, const auto& off, std::int64_t len) {
    for (std::int64_t i = 0; i < len; ++i) {
      plan.off_a[o + i] = off[0] + i * inner_stride(broadcast, 0);
      plan.off_b[o + i] = off[1] + i * inner_stride(broadcast, 1);
    }
  });
  // Row blocks: up to two per pool thread of one product (so that a descheduled thread holds back
  // little), but not below kMinTaskRows unless that would leave a thread without one, nor below the grain.
  const std::int64_t row_flops = std::max<std::int64_t>(1, n * k);
  const std::int64_t threads = WorkerPool::global().num_threads();
  const std::int64_t rows_for_grain = (kMatmulGrainFlops + row_flops - 1) / row_flops;
  const std::int64_t rows_for_split = (m + 2 * threads - 1) / (2 * threads);
  const std::int64_t rows_per_thread = (m + threads - 1) / threads;
  plan.rows_per_task =
      std::clamp<std::int64_t>(std::max({rows_for_grain, rows_for_split, std::min(kMinTaskRows, rows_per_thread)}), 1,
                               std::max<std::int64_t>(m, 1));
  plan.tasks_per_batch = (m + plan.rows_per_task - 1) / plan.rows_per_task;
  plan.grain = std::max<std::int64_t>(1, kMatmulGrainFlops / (plan.rows_per_task * row_flops));
  return plan;
}

// Every task's GEMM on the pool.
template <typename T>
void run_gemm_tasks(const GemmPlan& p, const T* pa, const T* pb, T* pc, bool ta, bool tb) {
  parallel_for(p.nb * p.tasks_per_batch, p.grain, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t t = begin; t < end; ++t) {
      const std::int64_t bi = t / p.tasks_per_batch, r0 = (t % p.tasks_per_batch) * p.rows_per_task;
      const std::int64_t rows = std::min(p.rows_per_task, p.m - r0);
      gemm<T>(pa + p.off_a[bi] * p.m * p.k, pb + p.off_b[bi] * p.k * p.n, pc + bi * p.m * p.n, p.m, p.n, p.k, ta, tb,
              r0, rows);
    }
  });
}

// float16 / bfloat16 -> float32 for n elements (exact).
template <typename N>
void widen(const N* src, float* dst, std::int64_t n) {
  if constexpr (std::is_same_v<N, Eigen::bfloat16>) {
    detail::widen_bfloat16(src, dst, n);
  } else {
    detail::VecMap<float>(dst, n) = detail::ConstVecMap<N>(src, n).template cast<float>();
  }
}

// float16 / bfloat16: multiply in float32 and round each output once (as TF's CPU kernels do). Each
// task widens the operands it reads itself (its rows of A, all of B once per chunk) and rounds the rows it
// wrote: operands widened by the calling thread reach the others through the cache hierarchy, which
// cost a 128x128 product on two threads more than the product (85 us against 31 us here).
template <typename N>
void matmul_narrow_float_tasks(const GemmPlan& p, const N* pa, const N* pb, N* po, float* pc, bool ta, bool tb,
                               const DevicePtr& device) {
  const std::int64_t m = p.m, n = p.n, k = p.k;
  parallel_for(p.nb * p.tasks_per_batch, p.grain, [&](std::int64_t begin, std::int64_t end) {
    Tensor a_wide, b_wide;              // this chunk's widened operands (buffer cache; on the output's device)
    std::int64_t a_of = -1, b_of = -1;  // which operand matrix they hold
    for (std::int64_t t = begin; t < end; ++t) {
      const std::int64_t bi = t / p.tasks_per_batch, r0 = (t % p.tasks_per_batch) * p.rows_per_task;
      const std::int64_t rows = std::min(p.rows_per_task, m - r0);
      if (b_of != p.off_b[bi]) {
        if (!b_wide.valid()) b_wide = Tensor::empty(DType::kFloat32, {k * n}, device);
        widen(pb + p.off_b[bi] * k * n, detail::out_data_of<float>(b_wide), k * n);
        b_of = p.off_b[bi];
      }
      float* c_rows = pc + bi * m * n + r0 * n;
      if (!ta) {  // this task's rows of A are contiguous: widen just those and multiply them as a rows x k A
        if (!a_wide.valid()) a_wide = Tensor::empty(DType::kFloat32, {p.rows_per_task * k}, device);
        widen(pa + p.off_a[bi] * m * k + r0 * k, detail::out_data_of<float>(a_wide), rows * k);
        gemm<float>(detail::data_of<float>(a_wide), detail::data_of<float>(b_wide), c_rows, rows, n, k, false, tb, 0,
                    rows);
      } else {  // A is k x m: its rows r0.. are strided columns, widen all of it
        if (a_of != p.off_a[bi]) {
          if (!a_wide.valid()) a_wide = Tensor::empty(DType::kFloat32, {k * m}, device);
          widen(pa + p.off_a[bi] * k * m, detail::out_data_of<float>(a_wide), k * m);
          a_of = p.off_a[bi];
        }
        gemm<float>(detail::data_of<float>(a_wide), detail::data_of<float>(b_wide), pc + bi * m * n, m, n, k, true, tb,
                    r0, rows);
      }
      // The expression cast() rounds with: the same bits.
      detail::VecMap<N>(po + bi * m * n + r0 * n, rows * n) =
          detail::ConstVecMap<float>(c_rows, rows * n).template cast<N>();
    }
  });
}

Tensor matmul_narrow_float(const Tensor& a, const Tensor& b, bool ta, bool tb, const Shape& out_shape, std::int64_t m,
                           std::int64_t n, std::int64_t k) {
  Tensor out = Tensor::empty(a.dtype(), out_shape);
  if (out.num_elements() == 0) return out;
  const Tensor product = Tensor::empty(DType::kFloat32, out_shape, out.device());  // before rounding
  const GemmPlan plan = plan_gemm(a.shape(), b.shape(), out_shape, m, n, k);
  auto run = [&](auto tag) {
    using N = decltype(tag);
    matmul_narrow_float_tasks<N>(plan, detail::data_of<N>(a), detail::data_of<N>(b), detail::out_data_of<N>(out),
                                 detail::out_data_of<float>(product), ta, tb, out.device());
  };
  if (a.dtype() == DType::kBFloat16) {
    run(Eigen::bfloat16{});
  } else {
    run(Eigen::half{});
  }
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  const char* where = "MatMul";
  detail::check_valid(a, where);
  detail::check_valid(b, where);
  if (a.dtype() != b.dtype()) {
    fail<InvalidArgumentError>(where,
                               "cannot compute MatMul as input #1(zero-based) was expected to be a {} tensor but is a "
                               "{} tensor",
                               dtype_name(a.dtype()), dtype_name(b.dtype()));
  }
  if (a.dtype() == DType::kBool) fail<TypeError>(where, "MatMul does not support bool tensors");
  if (a.rank() < 2 || b.rank() < 2) {
    fail<InvalidArgumentError>(where, "In[{}] ndims must be >= 2: {} (shapes {} and {})", a.rank() < 2 ? 0 : 1,
                               a.rank() < 2 ? a.rank() : b.rank(), dims_to_string(a.shape()),
                               dims_to_string(b.shape()));
  }
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const std::int64_t m = transpose_a ? sa[sa.size() - 1] : sa[sa.size() - 2];
  const std::int64_t k = transpose_a ? sa[sa.size() - 2] : sa[sa.size() - 1];
  const std::int64_t k2 = transpose_b ? sb[sb.size() - 1] : sb[sb.size() - 2];
  const std::int64_t n = transpose_b ? sb[sb.size() - 2] : sb[sb.size() - 1];
  if (k != k2) {
    fail<InvalidArgumentError>(where, "Matrix size-incompatible: In[0]: {}, In[1]: {}{}", dims_to_string(sa),
                               dims_to_string(sb),
                               transpose_a || transpose_b ? " (after the requested transposes)" : "");
  }
  Shape out_shape = broadcast_shapes(Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2), where);
  out_shape.push_back(m);
  out_shape.push_back(n);
  if (a.dtype() == DType::kFloat16 || a.dtype() == DType::kBFloat16) {
    return matmul_narrow_float(a, b, transpose_a, transpose_b, out_shape, m, n, k);
  }
  Tensor out = Tensor::empty(a.dtype(), out_shape);
  if (out.num_elements() == 0) return out;
  const GemmPlan plan = plan_gemm(sa, sb, out_shape, m, n, k);
  if (is_complex(a.dtype())) {
    auto run = [&](auto tag) {
      using C = decltype(tag);
      for (std::int64_t bi = 0; bi < plan.nb; ++bi) {
        detail::gemm_complex<C>(detail::data_of<C>(a) + plan.off_a[bi] * m * k,
                                detail::data_of<C>(b) + plan.off_b[bi] * k * n,
                                detail::out_data_of<C>(out) + bi * m * n, m, n, k, transpose_a, transpose_b);
      }
    };
    if (a.dtype() == DType::kComplex64) {
      run(std::complex<float>{});
    } else {
      run(std::complex<double>{});
    }
    return out;
  }
  if (is_extended(a.dtype())) fail_no_kernel(a.dtype(), where);  // TF: no MatMul kernel for the narrow integers
  dispatch_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
                  std::is_same_v<T, std::int64_t>) {
      run_gemm_tasks<T>(plan, detail::data_of<T>(a), detail::data_of<T>(b), detail::out_data_of<T>(out), transpose_a,
                        transpose_b);
    }
  });
  return out;
}

}  // namespace tpustrategy
