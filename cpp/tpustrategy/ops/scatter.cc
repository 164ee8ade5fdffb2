#include "tpustrategy/ops/scatter.h"

#include <complex>
#include <cstring>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/eigen_util.h"

namespace tpustrategy {

namespace {

template <typename T>
void scatter_runs(const BroadcastPlan& plan, const T* src, T* dst) {
  const std::int64_t step = inner_stride(plan, 0);
  for_each_run(plan, 0, plan.num_elements, [&](std::int64_t pos, const auto& off, std::int64_t len) {
    T* d = dst + off[0];
    for (std::int64_t j = 0; j < len; ++j) d[j * step] = src[pos + j];
  });
}

}  // namespace

Tensor strided_scatter(const Tensor& updates, const Shape& shape, const std::vector<std::int64_t>& strides,
                       std::int64_t base) {
  detail::check_valid(updates, "StridedScatter");
  check_output_shape(shape, "StridedScatter");
  Tensor out = Tensor::zeros(updates.dtype(), shape);
  if (updates.num_elements() == 0) return out;
  if (strides.size() != updates.shape().size()) {
    fail<InvalidArgumentError>("StridedScatter", "{} strides for updates of rank {}", strides.size(), updates.rank());
  }
  const BroadcastPlan plan = plan_strided(updates.shape(), strides, base);
  switch (dtype_size(updates.dtype())) {
    case 1:
      scatter_runs(plan, static_cast<const std::uint8_t*>(updates.raw_data()),
                   static_cast<std::uint8_t*>(out.mutable_raw_data()));
      break;
    case 2:
      scatter_runs(plan, static_cast<const std::uint16_t*>(updates.raw_data()),
                   static_cast<std::uint16_t*>(out.mutable_raw_data()));
      break;
    case 4:
      scatter_runs(plan, static_cast<const std::uint32_t*>(updates.raw_data()),
                   static_cast<std::uint32_t*>(out.mutable_raw_data()));
      break;
    case 8:
      scatter_runs(plan, static_cast<const std::uint64_t*>(updates.raw_data()),
                   static_cast<std::uint64_t*>(out.mutable_raw_data()));
      break;
    default:  // 16 bytes: complex128
      scatter_runs(plan, static_cast<const std::complex<double>*>(updates.raw_data()),
                   static_cast<std::complex<double>*>(out.mutable_raw_data()));
      break;
  }
  return out;
}

Tensor pad(const Tensor& x, const std::vector<std::int64_t>& paddings) {
  detail::check_valid(x, "Pad");
  const auto rank = static_cast<std::size_t>(x.rank());
  if (paddings.size() != 2 * rank) {
    fail<InvalidArgumentError>("Pad", "paddings must be the matrix [{}, 2], got {} values", rank, paddings.size());
  }
  Shape out_shape = x.shape();
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t before = paddings[2 * d], after = paddings[2 * d + 1];
    if (before < 0 || after < 0 || before > (std::int64_t{1} << 48) || after > (std::int64_t{1} << 48)) {
      fail<InvalidArgumentError>("Pad", "Paddings must be non-negative: {} {}", before, after);
    }
    out_shape[d] += before + after;
  }
  check_output_shape(out_shape, "Pad");
  const auto out_strides = row_major_strides(out_shape);
  std::int64_t base = 0;
  for (std::size_t d = 0; d < rank; ++d) base += paddings[2 * d] * out_strides[d];
  return strided_scatter(x, out_shape, out_strides, base);
}

Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids, std::int64_t num_segments) {
  detail::check_valid(data, "UnsortedSegmentSum");
  detail::check_valid(segment_ids, "UnsortedSegmentSum");
  if (data.rank() < 1 || segment_ids.rank() != 1 || segment_ids.shape()[0] != data.shape()[0]) {
    fail<InvalidArgumentError>("UnsortedSegmentSum",
                               "segment_ids must be a vector with one id per row of data, got shapes {} and {}",
                               shape_to_string(segment_ids.shape()), shape_to_string(data.shape()));
  }
  if (segment_ids.dtype() != DType::kInt32 && segment_ids.dtype() != DType::kInt64) {
    fail<TypeError>("UnsortedSegmentSum", "segment_ids must be int32 or int64, got {}",
                    dtype_name(segment_ids.dtype()));
  }
  if (num_segments < 0) fail<InvalidArgumentError>("UnsortedSegmentSum", "num_segments {} < 0", num_segments);
  Shape out_shape = data.shape();
  out_shape[0] = num_segments;
  check_output_shape(out_shape, "UnsortedSegmentSum");
  const std::vector<std::int64_t> ids = detail::int_values(segment_ids);
  for (std::int64_t id : ids) {
    if (id >= num_segments) {
      fail<InvalidArgumentError>("UnsortedSegmentSum", "segment_ids value {} is not in [0, {})", id, num_segments);
    }
  }
  if (data.dtype() == DType::kBool) fail<TypeError>("UnsortedSegmentSum", "bool data is not supported");
  Tensor out = Tensor::zeros(data.dtype(), out_shape);
  const std::int64_t row = data.shape()[0] == 0 ? 0 : data.num_elements() / data.shape()[0];
  dispatch_dtype(data.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      using C = detail::Compute<T>;
      const T* src = detail::data_of<T>(data);
      T* dst = detail::out_data_of<T>(out);
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0) continue;
        T* d = dst + ids[i] * row;
        const T* s = src + static_cast<std::int64_t>(i) * row;
        for (std::int64_t j = 0; j < row; ++j) d[j] = static_cast<T>(static_cast<C>(d[j]) + static_cast<C>(s[j]));
      }
    }
  });
  return out;
}

}  // namespace tpustrategy
