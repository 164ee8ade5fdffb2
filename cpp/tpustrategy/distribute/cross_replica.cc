#include "tpustrategy/distribute/cross_replica.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

namespace {

std::string describe(const Tensor& t) {
  return fmt::format("dtype {} and shape {}", dtype_name(t.dtype()), shape_to_string(t.shape()));
}

void check_not_empty(const char* where, std::span<const Tensor> inputs) {
  if (inputs.empty()) fail<InvalidArgumentError>(where, "needs at least one participant");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].valid()) fail<InvalidArgumentError>(where, "replica {} passed an empty (invalid) tensor", i);
  }
}

void check_destinations(const char* where, std::span<const DevicePtr> destinations) {
  if (destinations.empty()) fail<InvalidArgumentError>(where, "needs at least one destination device");
}

std::vector<const void*> input_pointers(std::span<const Tensor> inputs) {
  std::vector<const void*> out;
  out.reserve(inputs.size());
  for (const Tensor& t : inputs) out.push_back(t.raw_data());
  return out;
}

// The memory of a cross-replica result, charged to no device: share_across charges each destination
// through its own view, so dropping one destination's result releases exactly that device.
Tensor uncharged_result(DType dtype, const Shape& shape) {
  check_shape(shape, "cross_replica");
  const std::int64_t bytes = num_elements(shape) * static_cast<std::int64_t>(dtype_size(dtype));
  return {dtype, shape, std::make_shared<Buffer>(bytes, DevicePtr())};
}

}  // namespace

void check_same_dtype_and_shape(const char* where, std::span<const Tensor> inputs) {
  check_not_empty(where, inputs);
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != inputs[0].dtype() || inputs[i].shape() != inputs[0].shape()) {
      fail<InvalidArgumentError>(where,
                                 "replica {} has {} but replica 0 has {}; every replica must contribute "
                                 "the same dtype and shape",
                                 i, describe(inputs[i]), describe(inputs[0]));
    }
  }
}

std::vector<Tensor> share_across(const Tensor& value, std::span<const DevicePtr> destinations) {
  std::vector<Tensor> out;
  out.reserve(destinations.size());
  bool value_used = false;
  for (const auto& destination : destinations) {
    // The value itself serves the (first) destination it already lives on: charged once, not twice.
    if (!value_used && value.device() && value.device() == destination) {
      out.push_back(value);
      value_used = true;
      continue;
    }
    // A view kept alive by the shared buffer, charged to this destination (throws if it does not fit).
    auto view = std::make_shared<Buffer>(value.mutable_raw_data(), value.nbytes(), destination,
                                         std::shared_ptr<void>(value.buffer()));
    out.emplace_back(value.dtype(), value.shape(), std::move(view));
  }
  return out;
}

namespace {

Communicator& default_group(std::span<const Tensor> inputs) {
  // Validated by the callers (check_not_empty) before a group is chosen.
  return *shared_in_process_communicator(static_cast<int>(inputs.size()));
}

// One input per local participant; the group may span processes (MPI), whose inputs arrive there.
void check_group(const char* where, const Communicator& comm, std::span<const Tensor> inputs) {
  if (comm.local_ranks().size() != inputs.size()) {
    fail<InvalidArgumentError>(where, "{} tensors given for a {}-participant group with {} local participants",
                               inputs.size(), comm.size(), comm.local_ranks().size());
  }
}

}  // namespace

std::vector<Tensor> all_reduce_tensors(std::span<const Tensor> inputs, CollectiveOp op,
                                       std::span<const DevicePtr> destinations) {
  check_not_empty("all_reduce", inputs);
  return all_reduce_tensors(default_group(inputs), inputs, op, destinations);
}

std::vector<Tensor> all_reduce_tensors(Communicator& comm, std::span<const Tensor> inputs, CollectiveOp op,
                                       std::span<const DevicePtr> destinations) {
  check_same_dtype_and_shape("all_reduce", inputs);
  check_destinations("all_reduce", destinations);
  check_group("all_reduce", comm, inputs);
  Tensor result = uncharged_result(inputs[0].dtype(), inputs[0].shape());
  std::vector<const void*> pointers = input_pointers(inputs);
  comm.all_reduce(result.dtype(), pointers, result.num_elements(), op, result.mutable_raw_data());
  return share_across(result, destinations);
}

std::vector<Tensor> all_gather_tensors(std::span<const Tensor> inputs, std::int64_t axis,
                                       std::span<const DevicePtr> destinations) {
  check_not_empty("all_gather", inputs);
  return all_gather_tensors(default_group(inputs), inputs, axis, destinations);
}

std::vector<Tensor> all_gather_tensors(Communicator& comm, std::span<const Tensor> inputs, std::int64_t axis,
                                       std::span<const DevicePtr> destinations) {
  check_not_empty("all_gather", inputs);
  check_destinations("all_gather", destinations);
  check_group("all_gather", comm, inputs);
  const Tensor& first = inputs[0];
  if (first.rank() == 0) {
    fail<InvalidArgumentError>("all_gather",
                               "cannot gather rank-0 (scalar) values along axis {}; "
                               "expand them to rank 1 first (e.g. tf.expand_dims)",
                               axis);
  }
  const int a = normalize_axis(axis, first.rank(), "all_gather");
  Shape out_shape = first.shape();
  out_shape[a] = 0;
  std::int64_t max_along_axis = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    bool compatible = t.dtype() == first.dtype() && t.rank() == first.rank();
    for (int d = 0; compatible && d < first.rank(); ++d) compatible = d == a || t.shape()[d] == first.shape()[d];
    if (!compatible) {
      fail<InvalidArgumentError>("all_gather",
                                 "replica {} has {} but replica 0 has {}; only the size along "
                                 "axis {} may differ",
                                 i, describe(t), describe(first), a);
    }
    out_shape[a] += t.shape()[a];
    max_along_axis = std::max(max_along_axis, t.shape()[a]);
  }
  // Across processes every participant's size along the axis must be this one (TPU's rule; the MPI
  // handshake checks that every process passes the same element count).
  const auto participants = static_cast<std::size_t>(comm.size());
  if (participants != inputs.size()) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].shape()[a] != first.shape()[a]) {
        fail<InvalidArgumentError>("all_gather",
                                   "across processes every replica's size along axis {} must be "
                                   "equal; local replica {} has {} but local replica 0 has {}",
                                   a, i, describe(inputs[i]), describe(first));
      }
    }
    out_shape[a] = first.shape()[a] * comm.size();
  }
  auto size_along_axis = [&](std::size_t i) {
    return participants == inputs.size() ? inputs[i].shape()[a] : first.shape()[a];
  };
  Tensor result = uncharged_result(first.dtype(), out_shape);
  const auto element = static_cast<std::int64_t>(dtype_size(first.dtype()));
  std::int64_t outer = 1, inner = element;
  for (int d = 0; d < a; ++d) outer *= first.shape()[d];
  for (int d = a + 1; d < first.rank(); ++d) inner *= first.shape()[d];
  // The Communicator gathers equal-sized buffers (as TF's collective all_gather, inputs of different
  // sizes along the axis are padded to the largest), participant-major; the result is then assembled
  // along the axis. Gathering along axis 0 of equal sizes lands in the result directly.
  const bool uniform =
      std::all_of(inputs.begin(), inputs.end(), [&](const Tensor& t) { return t.shape()[a] == max_along_axis; });
  const std::int64_t padded_bytes = outer * max_along_axis * inner;
  if (uniform && outer == 1) {
    std::vector<const void*> pointers = input_pointers(inputs);
    comm.all_gather(first.dtype(), pointers, padded_bytes / element, result.mutable_raw_data());
    return share_across(result, destinations);
  }
  std::vector<Tensor> padded;  // only for inputs smaller than the largest
  std::vector<const void*> pointers;
  for (const Tensor& t : inputs) {
    if (t.shape()[a] == max_along_axis) {
      pointers.push_back(t.raw_data());
      continue;
    }
    padded.push_back(uncharged_result(t.dtype(), {padded_bytes / element}));
    auto* dst = static_cast<char*>(padded.back().mutable_raw_data());
    std::memset(dst, 0, static_cast<std::size_t>(padded_bytes));
    const std::int64_t block = t.shape()[a] * inner, padded_block = max_along_axis * inner;
    for (std::int64_t o = 0; o < outer && block > 0; ++o) {
      std::memcpy(dst + o * padded_block, static_cast<const char*>(t.raw_data()) + o * block,
                  static_cast<std::size_t>(block));
    }
    pointers.push_back(dst);
  }
  const std::int64_t gathered_count = static_cast<std::int64_t>(participants) * padded_bytes / element;
  Tensor gathered = uncharged_result(first.dtype(), {gathered_count});
  comm.all_gather(first.dtype(), pointers, padded_bytes / element, gathered.mutable_raw_data());
  const auto* src = static_cast<const char*>(gathered.raw_data());
  auto* out = static_cast<char*>(result.mutable_raw_data());
  const std::int64_t padded_block = max_along_axis * inner;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::size_t i = 0; i < participants; ++i) {
      const std::int64_t block = size_along_axis(i) * inner;
      if (block == 0) continue;
      std::memcpy(out, src + static_cast<std::int64_t>(i) * padded_bytes + o * padded_block,
                  static_cast<std::size_t>(block));
      out += block;
    }
  }
  return share_across(result, destinations);
}

std::vector<Tensor> reduce_scatter_tensors(std::span<const Tensor> inputs, CollectiveOp op,
                                           std::span<const DevicePtr> destinations) {
  check_not_empty("reduce_scatter", inputs);
  return reduce_scatter_tensors(default_group(inputs), inputs, op, destinations);
}

std::vector<Tensor> reduce_scatter_tensors(Communicator& comm, std::span<const Tensor> inputs, CollectiveOp op,
                                           std::span<const DevicePtr> destinations) {
  check_same_dtype_and_shape("reduce_scatter", inputs);
  check_group("reduce_scatter", comm, inputs);
  // The local participants get their pieces; the group (maybe spanning processes) sets the piece size.
  const auto local = static_cast<std::int64_t>(inputs.size());
  const auto n = static_cast<std::int64_t>(comm.size());
  if (static_cast<std::int64_t>(destinations.size()) != local) {
    fail<InvalidArgumentError>("reduce_scatter", "needs one destination per local replica ({}), got {}", local,
                               destinations.size());
  }
  const Tensor& first = inputs[0];
  if (first.rank() == 0 || first.shape()[0] % n != 0) {
    fail<InvalidArgumentError>("reduce_scatter", "dimension 0 of shape {} must be divisible by the {} replicas",
                               shape_to_string(first.shape()), n);
  }
  Shape piece = first.shape();
  piece[0] /= n;
  std::vector<Tensor> out;
  std::vector<void*> out_pointers;
  for (std::int64_t j = 0; j < local; ++j) {
    out.push_back(Tensor::empty(first.dtype(), piece, destinations[static_cast<std::size_t>(j)]));
    out_pointers.push_back(out.back().mutable_raw_data());
  }
  std::vector<const void*> pointers = input_pointers(inputs);
  comm.reduce_scatter(first.dtype(), pointers, first.num_elements(), op, out_pointers);
  return out;
}

}  // namespace tpustrategy
