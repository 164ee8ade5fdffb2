// MpiCommunicator: local participants combined with the in-process kernels, then one non-blocking MPI
// call across processes, waited for under the group's deadline. See mpi_communicator.h.
#include "tpustrategy/collectives/mpi/mpi_communicator.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <vector>

#include "tpustrategy/collectives/kernels.h"
#include "tpustrategy/collectives/mpi/mpi_detail.h"
#include "tpustrategy/collectives/mpi/observed_mpi_communicator.h"
#include "tpustrategy/collectives/mpi/process_group.h"
#include "tpustrategy/collectives/mpi/split_plan.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy {

namespace detail {
namespace {

bool is_half(DType dtype) { return dtype == DType::kFloat16 || dtype == DType::kBFloat16; }

// float16 / bfloat16 <-> float32, for reductions that accumulate in float32 across processes.
void widen(DType dtype, const void* in, std::int64_t count, float* out) {
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
      const T* p = static_cast<const T*>(in);
      for (std::int64_t i = 0; i < count; ++i) out[i] = static_cast<float>(p[i]);
    }
  });
}

void narrow(DType dtype, const float* in, std::int64_t count, void* out) {
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
      T* p = static_cast<T*>(out);
      for (std::int64_t i = 0; i < count; ++i) p[i] = static_cast<T>(in[i]);
    }
  });
}

// MEAN after the cross-process SUM: divide in place by the group size (integers truncate toward zero,
// after the wrapped unsigned sum is read back as signed, as the in-process kernel does).
void divide(DType dtype, void* data, std::int64_t count, int size) {
  dispatch_any_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsComplex<T>) {
      T* p = static_cast<T*>(data);
      for (std::int64_t i = 0; i < count; ++i) p[i] /= static_cast<typename T::value_type>(size);
    } else if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, Eigen::half> &&
                         !std::is_same_v<T, Eigen::bfloat16>) {
      T* p = static_cast<T*>(data);
      for (std::int64_t i = 0; i < count; ++i) p[i] = static_cast<T>(p[i] / static_cast<T>(size));
    }
  });
}

// The ops a dtype's reduction does not define, refused before any process starts a transfer.
void check_reduction(const char* where, DType dtype, CollectiveOp op) {
  if (dtype == DType::kBool && op == CollectiveOp::kMean) {
    fail<InvalidArgumentError>(where, "MEAN is not defined for bool; use SUM/MAX (or) or PROD/MIN (and)");
  }
  if (is_complex(dtype) && (op == CollectiveOp::kMax || op == CollectiveOp::kMin)) {
    fail<InvalidArgumentError>(where, "MAX / MIN are not defined for {}; use SUM, MEAN or PROD", dtype_name(dtype));
  }
}

CollectiveOp partial_op(CollectiveOp op) { return op == CollectiveOp::kMean ? CollectiveOp::kSum : op; }

std::uint64_t hash_ints(std::uint64_t h, std::span<const int> values) {
  for (int v : values) h = (h ^ static_cast<std::uint32_t>(v)) * 0x100000001b3ULL;  // FNV-1a
  return h;
}

class MpiCommunicatorImpl final : public MpiCommunicator {
 public:
  explicit MpiCommunicatorImpl(std::shared_ptr<ProcessGroup> group) : group_(std::move(group)) {
    const ProcessLayout& layout = group_->layout();
    local_ = layout.ranks_of[layout.self];
  }

  std::string_view backend() const override { return "mpi"; }
  int size() const override { return group_->layout().size(); }
  std::span<const int> local_ranks() const override { return local_; }
  int process_index() const override { return group_->layout().self; }
  int process_count() const override { return group_->layout().process_count(); }
  double timeout_seconds() const override { return group_->timeout_seconds(); }
  void set_timeout_seconds(double seconds) override {
    if (!(seconds > 0) || !std::isfinite(seconds)) {
      fail<ValueError>("MpiCommunicator::set_timeout_seconds", "timeout {} is not a positive number of seconds",
                       seconds);
    }
    group_->set_timeout_seconds(seconds);
  }
  int world_rank_of_process(int process_index) const override {
    const auto& world = group_->layout().world_rank;
    if (process_index < 0 || process_index >= static_cast<int>(world.size())) {
      fail<ValueError>("MpiCommunicator::world_rank_of_process", "process index {} is not in [0, {})", process_index,
                       world.size());
    }
    return world[process_index];
  }
  bool abort(int rank, std::string_view message) noexcept override { return group_->abort(rank, std::string(message)); }

  void all_reduce(DType dtype, std::span<const void* const> local_inputs, std::int64_t count, CollectiveOp op,
                  void* output) override;
  void all_gather(DType dtype, std::span<const void* const> local_inputs, std::int64_t count, void* output) override;
  void reduce_scatter(DType dtype, std::span<const void* const> local_inputs, std::int64_t count, CollectiveOp op,
                      std::span<void* const> local_outputs) override;
  void broadcast(DType dtype, std::span<const void* const> local_inputs, std::int64_t count, int root,
                 std::span<void* const> local_outputs) override;
  void all_to_all(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                  std::span<void* const> local_outputs) override;
  void collective_permute(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                          std::span<const std::pair<int, int>> pairs, std::span<void* const> local_outputs) override;
  void barrier() override {
    group_->handshake("MpiCommunicator::barrier", CollectiveDescriptor{CollectiveKind::kBarrier});
  }
  void agree(const CollectiveSignature& signature) override { group_->agree("MpiCommunicator::agree", signature); }
  std::map<int, std::shared_ptr<Communicator>> split(std::span<const int> color_of_rank,
                                                     std::span<const int> key_of_rank) const override;

 private:
  // Validates with `check` (which throws on bad local arguments), then opens the collective in every
  // process. A local error is announced to the others before it is rethrown here.
  template <typename Check>
  void open(const char* where, const CollectiveDescriptor& what, Check&& check) const {
    std::optional<std::string> local_error;
    std::exception_ptr error;
    try {
      check();
    } catch (const std::exception& e) {
      local_error = e.what();
      error = std::current_exception();
    }
    if (error) {
      try {
        group_->handshake(where, what, local_error);
      } catch (...) {  // our own error is the one to report
      }
      std::rethrow_exception(error);
    }
    group_->handshake(where, what);
  }

  void check_locals(const char* where, DType dtype, std::size_t inputs, std::int64_t count,
                    std::span<const void* const> buffers) const {
    if (inputs != local_.size()) {
      fail<InvalidArgumentError>(where, "got {} local buffers but this process hosts {} participants", inputs,
                                 local_.size());
    }
    if (count < 0) fail<InvalidArgumentError>(where, "element count {} is negative", count);
    if (count * static_cast<std::int64_t>(std::max<std::size_t>(local_.size(), size())) > INT_MAX) {
      fail<InvalidArgumentError>(where, "{} elements per participant exceed what one MPI call moves here", count);
    }
    for (const void* b : buffers) {
      if (count > 0 && b == nullptr) fail<InvalidArgumentError>(where, "a local buffer is null");
    }
    (void)dtype;
  }
  void check_divisible(const char* where, std::int64_t count) const {
    if (count % size() != 0) {
      fail<InvalidArgumentError>(where, "element count {} is not divisible by the number of participants {}", count,
                                 size());
    }
  }
  // Waits for data requests under the deadline; names the peers if they time out.
  void wait(const char* where, std::span<MPI_Request> requests) const {
    if (mpi_wait_all(where, requests, group_->deadline(), MpiWaitMode::kData)) return;
    std::vector<int> everyone;
    for (int p = 0; p < process_count(); ++p) {
      if (p != process_index()) everyone.push_back(p);
    }
    group_->fail_deadline(where, "a data transfer", everyone);
  }
  int local_index(int rank) const {
    auto it = std::lower_bound(local_.begin(), local_.end(), rank);
    return (it != local_.end() && *it == rank) ? static_cast<int>(it - local_.begin()) : -1;
  }

  std::shared_ptr<ProcessGroup> group_;
  std::vector<int> local_;
};

void MpiCommunicatorImpl::all_reduce(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                                     CollectiveOp op, void* output) {
  constexpr const char* where = "MpiCommunicator::all_reduce";
  open(where, {CollectiveKind::kAllReduce, static_cast<std::int32_t>(dtype), count, static_cast<std::int32_t>(op)},
       [&] {
         check_locals(where, dtype, local_inputs.size(), count, local_inputs);
         if (count > 0 && output == nullptr) fail<InvalidArgumentError>(where, "the output buffer is null");
         check_reduction(where, dtype, op);
       });
  if (!group_->multi_process()) {
    tpustrategy::all_reduce(dtype, local_inputs, count, op, output);
    return;
  }
  if (count == 0) return;
  const CollectiveOp partial = partial_op(op);
  if (is_half(dtype)) {
    // Accumulate in float32 across processes, round once at the end (as the in-process kernel).
    std::vector<float> wide(static_cast<std::size_t>(count * static_cast<std::int64_t>(local_inputs.size())));
    std::vector<const void*> pointers;
    for (std::size_t j = 0; j < local_inputs.size(); ++j) {
      widen(dtype, local_inputs[j], count, wide.data() + j * count);
      pointers.push_back(wide.data() + j * count);
    }
    std::vector<float> sum(static_cast<std::size_t>(count));
    tpustrategy::all_reduce(DType::kFloat32, pointers, count, partial, sum.data());
    const MpiReduction reduction = mpi_reduction(DType::kFloat32, partial);
    MPI_Request request;
    check_mpi(where, MPI_Iallreduce(MPI_IN_PLACE, sum.data(), static_cast<int>(count), reduction.type, reduction.op,
                                    group_->data_comm(), &request));
    wait(where, {&request, 1});
    if (op == CollectiveOp::kMean) {
      for (float& v : sum) v /= static_cast<float>(size());
    }
    narrow(dtype, sum.data(), count, output);
    return;
  }
  tpustrategy::all_reduce(dtype, local_inputs, count, partial, output);
  const MpiReduction reduction = mpi_reduction(dtype, partial);
  MPI_Request request;
  check_mpi(where, MPI_Iallreduce(MPI_IN_PLACE, output, static_cast<int>(count), reduction.type, reduction.op,
                                  group_->data_comm(), &request));
  wait(where, {&request, 1});
  if (op == CollectiveOp::kMean) divide(dtype, output, count, size());
}

void MpiCommunicatorImpl::all_gather(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                                     void* output) {
  constexpr const char* where = "MpiCommunicator::all_gather";
  open(where, {CollectiveKind::kAllGather, static_cast<std::int32_t>(dtype), count}, [&] {
    check_locals(where, dtype, local_inputs.size(), count, local_inputs);
    if (count > 0 && output == nullptr) fail<InvalidArgumentError>(where, "the output buffer is null");
  });
  if (!group_->multi_process()) {
    tpustrategy::all_gather(dtype, local_inputs, count, output);
    return;
  }
  if (count == 0) return;
  const ProcessLayout& layout = group_->layout();
  const std::size_t esize = dtype_size(dtype);
  std::vector<int> counts, displs;
  int offset = 0;
  for (const auto& ranks : layout.ranks_of) {
    counts.push_back(static_cast<int>(ranks.size() * count));
    displs.push_back(offset);
    offset += counts.back();
  }
  // Process order equals rank order: gather straight into the output.
  std::vector<std::byte> staging;
  auto* target = static_cast<std::byte*>(output);
  if (!layout.in_order) {
    staging.resize(static_cast<std::size_t>(size()) * count * esize);
    target = staging.data();
  }
  tpustrategy::all_gather(dtype, local_inputs, count, target + displs[layout.self] * esize);
  MPI_Request request;
  check_mpi(where, MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, target, counts.data(), displs.data(),
                                   mpi_element_type(dtype), group_->data_comm(), &request));
  wait(where, {&request, 1});
  if (!layout.in_order) {
    std::size_t position = 0;
    for (const auto& ranks : layout.ranks_of) {
      for (int r : ranks) {
        std::memcpy(static_cast<std::byte*>(output) + r * count * esize, staging.data() + position * count * esize,
                    count * esize);
        ++position;
      }
    }
  }
}

void MpiCommunicatorImpl::reduce_scatter(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                                         CollectiveOp op, std::span<void* const> local_outputs) {
  constexpr const char* where = "MpiCommunicator::reduce_scatter";
  open(where, {CollectiveKind::kReduceScatter, static_cast<std::int32_t>(dtype), count, static_cast<std::int32_t>(op)},
       [&] {
         check_locals(where, dtype, local_inputs.size(), count, local_inputs);
         check_locals(where, dtype, local_outputs.size(), count / std::max(1, size()),
                      {const_cast<const void* const*>(local_outputs.data()), local_outputs.size()});
         check_divisible(where, count);
         check_reduction(where, dtype, op);
       });
  if (!group_->multi_process()) {
    tpustrategy::reduce_scatter(dtype, local_inputs, count, op, local_outputs);
    return;
  }
  if (count == 0) return;
  const ProcessLayout& layout = group_->layout();
  const std::int64_t chunk = count / size();
  const DType wide = is_half(dtype) ? DType::kFloat32 : dtype;
  const std::size_t wsize = dtype_size(wide);
  const CollectiveOp partial = partial_op(op);
  // The local partial over every chunk, in the accumulation type.
  std::vector<std::byte> sum(static_cast<std::size_t>(count) * wsize);
  if (is_half(dtype)) {
    std::vector<float> widened(static_cast<std::size_t>(count * static_cast<std::int64_t>(local_inputs.size())));
    std::vector<const void*> pointers;
    for (std::size_t j = 0; j < local_inputs.size(); ++j) {
      widen(dtype, local_inputs[j], count, widened.data() + j * count);
      pointers.push_back(widened.data() + j * count);
    }
    tpustrategy::all_reduce(wide, pointers, count, partial, sum.data());
  } else {
    tpustrategy::all_reduce(dtype, local_inputs, count, partial, sum.data());
  }
  // Chunks in process order, so that MPI_Reduce_scatter hands each process its ranks' chunks.
  std::vector<std::byte> ordered;
  std::byte* send = sum.data();
  if (!layout.in_order) {
    ordered.resize(sum.size());
    std::size_t position = 0;
    for (const auto& ranks : layout.ranks_of) {
      for (int r : ranks) {
        std::memcpy(ordered.data() + position++ * chunk * wsize, sum.data() + r * chunk * wsize, chunk * wsize);
      }
    }
    send = ordered.data();
  }
  std::vector<int> counts;
  for (const auto& ranks : layout.ranks_of) counts.push_back(static_cast<int>(ranks.size() * chunk));
  std::vector<std::byte> mine(static_cast<std::size_t>(local_.size() * chunk) * wsize);
  const MpiReduction reduction = mpi_reduction(wide, partial);
  MPI_Request request;
  check_mpi(where, MPI_Ireduce_scatter(send, mine.data(), counts.data(), reduction.type, reduction.op,
                                       group_->data_comm(), &request));
  wait(where, {&request, 1});
  for (std::size_t j = 0; j < local_.size(); ++j) {
    std::byte* piece = mine.data() + j * chunk * wsize;
    if (op == CollectiveOp::kMean && is_half(dtype)) {
      for (std::int64_t k = 0; k < chunk; ++k) reinterpret_cast<float*>(piece)[k] /= static_cast<float>(size());
    } else if (op == CollectiveOp::kMean) {
      divide(dtype, piece, chunk, size());
    }
    if (is_half(dtype)) {
      narrow(dtype, reinterpret_cast<const float*>(piece), chunk, local_outputs[j]);
    } else {
      std::memcpy(local_outputs[j], piece, chunk * wsize);
    }
  }
}

void MpiCommunicatorImpl::broadcast(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                                    int root, std::span<void* const> local_outputs) {
  constexpr const char* where = "MpiCommunicator::broadcast";
  open(where, {CollectiveKind::kBroadcast, static_cast<std::int32_t>(dtype), count, -1, root}, [&] {
    check_locals(where, dtype, local_outputs.size(), count,
                 {const_cast<const void* const*>(local_outputs.data()), local_outputs.size()});
    if (local_inputs.size() != local_.size()) {
      fail<InvalidArgumentError>(where, "got {} local inputs but this process hosts {} participants",
                                 local_inputs.size(), local_.size());
    }
    if (root < 0 || root >= size()) fail<InvalidArgumentError>(where, "root {} is not in [0, {})", root, size());
    if (count > 0 && local_index(root) >= 0 && local_inputs[local_index(root)] == nullptr) {
      fail<InvalidArgumentError>(where, "the root's input buffer is null");
    }
  });
  if (count == 0) return;
  const int root_local = local_index(root);
  const void* source = root_local >= 0 ? local_inputs[root_local] : local_outputs[0];
  if (group_->multi_process()) {
    const int owner = group_->layout().owner[root];
    MPI_Request request;
    check_mpi(where, MPI_Ibcast(const_cast<void*>(source), static_cast<int>(count), mpi_element_type(dtype), owner,
                                group_->data_comm(), &request));
    wait(where, {&request, 1});
  }
  tpustrategy::broadcast(dtype, source, count, local_outputs);
}

void MpiCommunicatorImpl::all_to_all(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                                     std::span<void* const> local_outputs) {
  constexpr const char* where = "MpiCommunicator::all_to_all";
  open(where, {CollectiveKind::kAllToAll, static_cast<std::int32_t>(dtype), count}, [&] {
    check_locals(where, dtype, local_inputs.size(), count, local_inputs);
    check_locals(where, dtype, local_outputs.size(), count,
                 {const_cast<const void* const*>(local_outputs.data()), local_outputs.size()});
    check_divisible(where, count);
  });
  if (!group_->multi_process()) {
    tpustrategy::all_to_all(dtype, local_inputs, count, local_outputs);
    return;
  }
  if (count == 0) return;
  const ProcessLayout& layout = group_->layout();
  const std::size_t chunk_bytes = static_cast<std::size_t>(count / size()) * dtype_size(dtype);
  const int chunk = static_cast<int>(count / size());
  const int mine = static_cast<int>(local_.size());
  // To process q: for each of q's ranks t, for each local rank s, s's chunk t.
  std::vector<int> send_counts, send_displs, receive_counts, receive_displs;
  int send_offset = 0, receive_offset = 0;
  for (const auto& ranks : layout.ranks_of) {
    const int theirs = static_cast<int>(ranks.size());
    send_counts.push_back(theirs * mine * chunk);
    send_displs.push_back(send_offset);
    send_offset += send_counts.back();
    receive_counts.push_back(theirs * mine * chunk);
    receive_displs.push_back(receive_offset);
    receive_offset += receive_counts.back();
  }
  std::vector<std::byte> send(static_cast<std::size_t>(send_offset) * dtype_size(dtype));
  std::vector<std::byte> receive(static_cast<std::size_t>(receive_offset) * dtype_size(dtype));
  std::byte* cursor = send.data();
  for (const auto& ranks : layout.ranks_of) {
    for (int t : ranks) {
      for (int j = 0; j < mine; ++j) {
        std::memcpy(cursor, static_cast<const std::byte*>(local_inputs[j]) + t * chunk_bytes, chunk_bytes);
        cursor += chunk_bytes;
      }
    }
  }
  MPI_Request request;
  const MPI_Datatype type = mpi_element_type(dtype);
  check_mpi(where, MPI_Ialltoallv(send.data(), send_counts.data(), send_displs.data(), type, receive.data(),
                                  receive_counts.data(), receive_displs.data(), type, group_->data_comm(), &request));
  wait(where, {&request, 1});
  // From process p: for each local rank t, for each of p's ranks s, s's chunk t -> t's output chunk s.
  cursor = receive.data();
  for (const auto& ranks : layout.ranks_of) {
    for (int j = 0; j < mine; ++j) {
      for (int s : ranks) {
        std::memcpy(static_cast<std::byte*>(local_outputs[j]) + s * chunk_bytes, cursor, chunk_bytes);
        cursor += chunk_bytes;
      }
    }
  }
}

void MpiCommunicatorImpl::collective_permute(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                                             std::span<const std::pair<int, int>> pairs,
                                             std::span<void* const> local_outputs) {
  constexpr const char* where = "MpiCommunicator::collective_permute";
  std::vector<int> flat;
  for (const auto& [s, t] : pairs) flat.insert(flat.end(), {s, t});
  const std::uint64_t pairs_hash = hash_ints(0xcbf29ce484222325ULL + pairs.size(), flat);
  open(where, {CollectiveKind::kCollectivePermute, static_cast<std::int32_t>(dtype), count, -1, -1, pairs_hash}, [&] {
    check_locals(where, dtype, local_inputs.size(), count, local_inputs);
    check_locals(where, dtype, local_outputs.size(), count,
                 {const_cast<const void* const*>(local_outputs.data()), local_outputs.size()});
    std::vector<char> is_source(size(), 0), is_target(size(), 0);
    for (const auto& [s, t] : pairs) {
      if (s < 0 || s >= size() || t < 0 || t >= size()) {
        fail<InvalidArgumentError>(where, "pair ({}, {}) names a rank outside [0, {})", s, t, size());
      }
      if (is_source[s]++) fail<InvalidArgumentError>(where, "source {} appears in more than one pair", s);
      if (is_target[t]++) fail<InvalidArgumentError>(where, "target {} appears in more than one pair", t);
    }
    if (size() > 32767) fail<InvalidArgumentError>(where, "{} participants exceed MPI's tag range", size());
  });
  const std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(dtype);
  const ProcessLayout& layout = group_->layout();
  std::vector<MPI_Request> requests;
  std::vector<char> targeted(local_.size(), 0);
  const MPI_Datatype type = mpi_element_type(dtype);
  for (const auto& [s, t] : pairs) {
    const int ls = local_index(s), lt = local_index(t);
    if (lt >= 0) targeted[lt] = 1;
    if (bytes == 0 || (ls < 0 && lt < 0)) continue;
    if (ls >= 0 && lt >= 0) {
      if (local_outputs[lt] != local_inputs[ls]) std::memcpy(local_outputs[lt], local_inputs[ls], bytes);
    } else if (lt >= 0) {
      requests.emplace_back();
      check_mpi(where, MPI_Irecv(local_outputs[lt], static_cast<int>(count), type, layout.owner[s], t,
                                 group_->data_comm(), &requests.back()));
    } else {
      requests.emplace_back();
      check_mpi(where, MPI_Isend(local_inputs[ls], static_cast<int>(count), type, layout.owner[t], t,
                                 group_->data_comm(), &requests.back()));
    }
  }
  for (std::size_t j = 0; j < local_.size(); ++j) {
    if (!targeted[j] && bytes > 0) std::memset(local_outputs[j], 0, bytes);
  }
  wait(where, requests);
}

std::map<int, std::shared_ptr<Communicator>> MpiCommunicatorImpl::split(std::span<const int> color_of_rank,
                                                                        std::span<const int> key_of_rank) const {
  constexpr const char* where = "MpiCommunicator::split";
  const std::uint64_t detail = hash_ints(hash_ints(0xcbf29ce484222325ULL, color_of_rank), key_of_rank);
  open(where, {CollectiveKind::kSplit, -1, 0, -1, -1, detail}, [&] {
    if (static_cast<int>(color_of_rank.size()) != size() || static_cast<int>(key_of_rank.size()) != size()) {
      fail<InvalidArgumentError>(where, "got {} colours and {} keys for a group of {}", color_of_rank.size(),
                                 key_of_rank.size(), size());
    }
  });
  const ProcessLayout& layout = group_->layout();
  const std::vector<Subgroup> subgroups = plan_split(layout, color_of_rank, key_of_rank);
  std::map<int, std::shared_ptr<Communicator>> result;
  // Subgroups spanning processes need MPI communicators: MPI_Comm_split over this group, in rounds in
  // which every process joins at most one subgroup (a torus axis that spans processes takes one round).
  for (const std::vector<int>& round : plan_split_rounds(subgroups, layout.process_count())) {
    int my_color = MPI_UNDEFINED;
    for (int index : round) {
      if (subgroups[index].processes[layout.self]) my_color = subgroups[index].color;
    }
    MPI_Comm comm = MPI_COMM_NULL;
    check_mpi(where, MPI_Comm_split(group_->base_comm(), my_color, layout.self, &comm));
    for (int index : round) {
      const Subgroup& g = subgroups[index];
      if (g.color != my_color) continue;
      auto sub = std::make_shared<ProcessGroup>(comm, subgroup_layout(layout, g), group_->timeout_seconds());
      result[g.color] = std::make_shared<MpiCommunicatorImpl>(std::move(sub));
    }
  }
  for (const Subgroup& g : subgroups) {
    if (g.process_count() == 1 && g.processes[layout.self]) {
      auto sub = std::make_shared<ProcessGroup>(MPI_COMM_NULL, subgroup_layout(layout, g), group_->timeout_seconds());
      result[g.color] = std::make_shared<MpiCommunicatorImpl>(std::move(sub));
    }
  }
  return result;
}

}  // namespace
}  // namespace detail

std::shared_ptr<MpiCommunicator> make_mpi_communicator(int local_size) {
  constexpr const char* where = "make_mpi_communicator";
  mpi_initialize();
  const double timeout = mpi_default_timeout_seconds();
  // Every process learns every other's count (a blocking MPI_Allgather: MPI_COMM_WORLD is freshly
  // formed by mpirun, and a process that never calls this would be a bug in the program itself).
  const int world_size = mpi_world_size();
  const int world_rank = mpi_world_rank();
  std::vector<int> sizes(world_size);
  detail::check_mpi(where, MPI_Allgather(&local_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < world_size; ++p) {
    if (sizes[p] < 1) {
      fail<InvalidArgumentError>(where, "process {} asked to host {} participants; each process hosts at least one", p,
                                 sizes[p]);
    }
  }
  std::vector<int> owner, world(world_size);
  for (int p = 0; p < world_size; ++p) {
    owner.insert(owner.end(), sizes[p], p);
    world[p] = p;
  }
  MPI_Comm comm = MPI_COMM_NULL;
  if (world_size > 1) detail::check_mpi(where, MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  auto group = std::make_shared<detail::ProcessGroup>(comm, detail::make_layout(owner, world, world_rank), timeout);
  // Observed, as every factory's communicator: the collective hook point sees MPI collectives too.
  return detail::observed_mpi(std::make_shared<detail::MpiCommunicatorImpl>(std::move(group)));
}

}  // namespace tpustrategy
