#include "tpustrategy/distribute/cross_replica_exchange.h"

#include <cstring>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/distribute/cross_replica.h"

namespace tpustrategy {
namespace {

void check_participants(const char* where, const Communicator& comm, std::span<const Tensor> inputs,
                        std::span<const DevicePtr> destinations) {
  check_same_dtype_and_shape(where, inputs);
  if (comm.local_ranks().size() != inputs.size()) {
    fail<InvalidArgumentError>(where, "{} tensors given for a group with {} local participants", inputs.size(),
                               comm.local_ranks().size());
  }
  if (destinations.size() != inputs.size()) {
    fail<InvalidArgumentError>(where, "needs one destination per participant ({}), got {}", inputs.size(),
                               destinations.size());
  }
}

// Product of shape[begin, end).
std::int64_t product(const Shape& shape, int begin, int end) {
  std::int64_t p = 1;
  for (int d = begin; d < end; ++d) p *= shape[static_cast<std::size_t>(d)];
  return p;
}

}  // namespace

std::vector<Tensor> all_to_all_tensors(Communicator& comm, std::span<const Tensor> inputs,
                                       std::int64_t concat_dimension, std::int64_t split_dimension,
                                       std::span<const DevicePtr> destinations) {
  check_participants("all_to_all", comm, inputs, destinations);
  const Tensor& first = inputs[0];
  const int rank = first.rank();
  if (rank == 0) fail<InvalidArgumentError>("all_to_all", "input must have rank >= 1, got a scalar");
  const int split = normalize_axis(split_dimension, rank, "all_to_all");
  const int concat = normalize_axis(concat_dimension, rank, "all_to_all");
  // n pieces, one per participant of the group (which may span processes); the local participants'
  // inputs are split and their results assembled here.
  const auto n = static_cast<std::int64_t>(comm.size());
  if (first.shape()[static_cast<std::size_t>(split)] % n != 0) {
    fail<InvalidArgumentError>("all_to_all", "input dimension {} of shape {} is not divisible by split_count {}", split,
                               shape_to_string(first.shape()), n);
  }
  const auto element = static_cast<std::int64_t>(dtype_size(first.dtype()));
  // The piece each participant sends to each other one: the input with split dimension / n.
  Shape piece = first.shape();
  piece[static_cast<std::size_t>(split)] /= n;
  const std::int64_t piece_bytes = num_elements(piece) * element;
  // Pack each input piece-major, so that the Communicator's flat all_to_all moves whole pieces.
  const std::int64_t outer = product(first.shape(), 0, split);
  const std::int64_t row = piece[static_cast<std::size_t>(split)] * product(first.shape(), split + 1, rank) * element;
  std::vector<std::vector<char>> packed(inputs.size(), std::vector<char>(static_cast<std::size_t>(piece_bytes * n)));
  std::vector<std::vector<char>> received(inputs.size(), std::vector<char>(static_cast<std::size_t>(piece_bytes * n)));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto* src = static_cast<const char*>(inputs[i].raw_data());
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t o = 0; o < outer && row > 0; ++o) {
        std::memcpy(packed[i].data() + j * piece_bytes + o * row, src + (o * n + j) * row,
                    static_cast<std::size_t>(row));
      }
    }
  }
  std::vector<const void*> in_ptrs;
  std::vector<void*> out_ptrs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    in_ptrs.push_back(packed[i].data());
    out_ptrs.push_back(received[i].data());
  }
  comm.all_to_all(first.dtype(), in_ptrs, piece_bytes / element * n, out_ptrs);
  // Participant t received piece s from each s, in order: concatenate them along the concat dimension.
  Shape result_shape = piece;
  result_shape[static_cast<std::size_t>(concat)] *= n;
  const std::int64_t outer_c = product(piece, 0, concat);
  const std::int64_t block = product(piece, concat, rank) * element;  // one piece's slab per outer index
  std::vector<Tensor> out;
  out.reserve(inputs.size());
  for (std::size_t t = 0; t < inputs.size(); ++t) {
    Tensor result = Tensor::empty(first.dtype(), result_shape, destinations[t]);
    auto* dst = static_cast<char*>(result.mutable_raw_data());
    for (std::int64_t o = 0; o < outer_c && block > 0; ++o) {
      for (std::int64_t s = 0; s < n; ++s) {
        std::memcpy(dst, received[t].data() + s * piece_bytes + o * block, static_cast<std::size_t>(block));
        dst += block;
      }
    }
    out.push_back(std::move(result));
  }
  return out;
}

std::vector<Tensor> collective_permute_tensors(Communicator& comm, std::span<const Tensor> inputs,
                                               std::span<const std::pair<int, int>> pairs,
                                               std::span<const DevicePtr> destinations) {
  check_participants("collective_permute", comm, inputs, destinations);
  std::vector<Tensor> out;
  std::vector<const void*> in_ptrs;
  std::vector<void*> out_ptrs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    out.push_back(Tensor::empty(inputs[0].dtype(), inputs[0].shape(), destinations[i]));
    in_ptrs.push_back(inputs[i].raw_data());
    out_ptrs.push_back(out.back().mutable_raw_data());
  }
  comm.collective_permute(inputs[0].dtype(), in_ptrs, inputs[0].num_elements(), pairs, out_ptrs);
  return out;
}

}  // namespace tpustrategy
