#pragma once
// A convolution's GEMMs over its receptive-field matrix built a block of rows at a time, in a per-thread buffer
// that stays in the core's cache, instead of the whole matrix at once. The whole matrix of a 3x3 convolution is
// 9x its input (58 MB for an 8x56x56x64 batch): written once, page-faulted in, then read back from memory by the
// GEMM's packing, which made conv2d memory-bound at a fifth of the GEMM's rate (issue #11). Each block's GEMM is
// one single-threaded BLAS call on rows that no other task touches, so a row's result is the same whatever the
// blocking (as matmul's row split).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tpustrategy/core/dtype.h"
#include "tpustrategy/ops/blas_gemm.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy::detail {

// Bytes of one block of receptive-field rows: about a core's L2 (1 MiB on the machine this was tuned on), and
// well inside the shared L3 with a block per core. Each BLAS call packs the whole filter again, so a block has at
// least kIm2colMinBlockRows rows: with 64-row blocks a 3x3x256x256 filter's repacking cost a fifth of the time.
// Measured on 2 cores over 32x28x28x32->64, 8x56x56x64->64 and 16x14x14x256->256: 1 MiB / 256 rows was best
// or within noise of it (512 KiB / 64 rows was 15 % slower on the last; 4 MiB no better).
inline constexpr std::int64_t kIm2colBlockBytes = std::int64_t{1} << 20;
inline constexpr std::int64_t kIm2colMinBlockRows = 256;

// Calls fn(T{}) for float32 and float64, the dtypes with BLAS GEMMs, and returns what it returns; false for others.
template <typename Fn>
bool with_blas_dtype(DType dtype, Fn&& fn) {
  if (dtype == DType::kFloat32) return fn(float{});
  if (dtype == DType::kFloat64) return fn(double{});
  return false;
}

// Per-thread scratch is kept between tasks up to this size; a larger one (a convolution with thousands of input
// channels, or a large filter's gradient) is freed when its task ends, so that no thread holds tens of MB after the op.
inline constexpr std::size_t kKeptScratchBytes = std::size_t{4} << 20;

template <typename T>
void trim_scratch(std::vector<T>& scratch) {
  if (scratch.capacity() * sizeof(T) > kKeptScratchBytes) std::vector<T>().swap(scratch);
}

// Rows of a block of `row_len` elements of T.
template <typename T>
std::int64_t im2col_block_rows(std::int64_t row_len) {
  const std::int64_t bytes = std::max<std::int64_t>(row_len, 1) * static_cast<std::int64_t>(sizeof(T));
  return std::max(kIm2colMinBlockRows, kIm2colBlockBytes / bytes);
}

// out[r, :] = cols[r, :] @ filter for r in [0, rows), cols being [rows, row_len] and filter [row_len, out_cols]
// (row-major, dense), where fill_rows(r0, r1, dst) writes rows [r0, r1) of cols to dst. Returns false, doing
// nothing, when the build has no BLAS; the caller then runs its whole-matrix path.
template <typename T, typename FillRows>
bool blocked_im2col_gemm(std::int64_t rows, std::int64_t row_len, std::int64_t out_cols, const T* filter, T* out,
                         const FillRows& fill_rows) {
  if (!have_blas_gemm() || rows == 0 || row_len == 0 || out_cols == 0) return false;
  const std::int64_t block = im2col_block_rows<T>(row_len);
  const std::int64_t blocks = (rows + block - 1) / block;
  parallel_for(blocks, 1, [&](std::int64_t first, std::int64_t last) {
    thread_local std::vector<T> cols;  // each worker's block, reused by the convolutions it runs
    for (std::int64_t bi = first; bi < last; ++bi) {
      const std::int64_t r0 = bi * block, count = std::min(block, rows - r0);
      cols.resize(static_cast<std::size_t>(count * row_len));
      fill_rows(r0, r0 + count, cols.data());
      blas_gemm(cols.data(), filter, out + r0 * out_cols, count, out_cols, row_len, false, false, 0, count);
    }
    trim_scratch(cols);
  });
  return true;
}

// The filter gradient: out[row_len, out_cols] = cols^T @ grad, summed over rows [0, rows) (cols [rows, row_len]
// written by fill_rows as above, grad [rows, out_cols]). The blocks are split into a fixed number of contiguous
// chunks (twice the pool's threads), each summed into a partial of its own; the partials are then added in chunk
// order, so the result depends on the shapes and the pool size only, not on which thread ran what. Returns false,
// doing nothing, when the build has no BLAS.
template <typename T, typename FillRows>
bool blocked_im2col_gemm_tn(std::int64_t rows, std::int64_t row_len, std::int64_t out_cols, const T* grad, T* out,
                            const FillRows& fill_rows) {
  if (!have_blas_gemm() || rows == 0 || row_len == 0 || out_cols == 0) return false;
  const std::int64_t block = im2col_block_rows<T>(row_len);
  const std::int64_t blocks = (rows + block - 1) / block;
  const std::int64_t chunks = std::min<std::int64_t>(blocks, std::int64_t{2} * WorkerPool::global().num_threads());
  const auto size = static_cast<std::size_t>(row_len * out_cols);
  std::vector<std::vector<T>> partials(static_cast<std::size_t>(chunks));
  parallel_for(chunks, 1, [&](std::int64_t first, std::int64_t last) {
    thread_local std::vector<T> cols, product;
    for (std::int64_t chunk = first; chunk < last; ++chunk) {
      std::vector<T>& sum = partials[static_cast<std::size_t>(chunk)];
      sum.assign(size, T(0));
      for (std::int64_t bi = chunk * blocks / chunks; bi < (chunk + 1) * blocks / chunks; ++bi) {
        const std::int64_t r0 = bi * block, count = std::min(block, rows - r0);
        cols.resize(static_cast<std::size_t>(count * row_len));
        product.resize(size);
        fill_rows(r0, r0 + count, cols.data());
        blas_gemm(cols.data(), grad + r0 * out_cols, product.data(), row_len, out_cols, count, true, false, 0, row_len);
        for (std::size_t i = 0; i < size; ++i) sum[i] += product[i];
      }
    }
    trim_scratch(cols);
    trim_scratch(product);
  });
  std::copy(partials[0].begin(), partials[0].end(), out);
  for (std::size_t c = 1; c < partials.size(); ++c) {
    for (std::size_t i = 0; i < size; ++i) out[i] += partials[c][i];
  }
  return true;
}

// The input gradient's adjoint form: for each batch item in [0, items), rows [item * item_rows, (item + 1) *
// item_rows) of dcols = grad @ filter^T (grad [rows, out_cols], filter [row_len, out_cols]) are made a block at a
// time and handed to scatter_rows(r0, r1, dcols_block), which adds them into the item's input gradient (col2im).
// Batch items run in parallel (their gradients are disjoint; within one item the rows are scattered in order, as
// the whole-matrix path does). Returns false, doing nothing, without BLAS or with fewer items than pool threads
// (the whole-matrix path's GEMM then splits rows instead).
template <typename T, typename ScatterRows>
bool blocked_gemm_col2im(std::int64_t items, std::int64_t item_rows, std::int64_t row_len, std::int64_t out_cols,
                         const T* grad, const T* filter, const ScatterRows& scatter_rows) {
  if (!have_blas_gemm() || items < WorkerPool::global().num_threads() || item_rows == 0 || row_len == 0 ||
      out_cols == 0) {
    return false;
  }
  const std::int64_t block = std::min(item_rows, im2col_block_rows<T>(row_len));
  parallel_for(items, 1, [&](std::int64_t first, std::int64_t last) {
    thread_local std::vector<T> dcols;
    for (std::int64_t item = first; item < last; ++item) {
      for (std::int64_t r0 = item * item_rows, end = r0 + item_rows; r0 < end; r0 += block) {
        const std::int64_t count = std::min(block, end - r0);
        dcols.resize(static_cast<std::size_t>(count * row_len));
        blas_gemm(grad + r0 * out_cols, filter, dcols.data(), count, row_len, out_cols, false, true, 0, count);
        scatter_rows(r0, r0 + count, dcols.data());
      }
    }
    trim_scratch(dcols);
  });
  return true;
}

}  // namespace tpustrategy::detail
