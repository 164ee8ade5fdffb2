// The in-process backend: every participant of the group lives in this process, so each call receives
// all buffers at once and runs the buffer kernels of kernels.h over them. The checks here are the ones
// the kernels cannot make (the number of participants is the group's, not whatever was passed).
#include <map>
#include <mutex>
#include <numeric>

#include "tpustrategy/collectives/collective_observer.h"
#include "tpustrategy/collectives/communicator.h"
#include "tpustrategy/collectives/communicator_split.h"
#include "tpustrategy/collectives/kernels.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy {
namespace {

class InProcessCommunicator final : public Communicator {
 public:
  explicit InProcessCommunicator(int size) : ranks_(static_cast<std::size_t>(size)) {
    std::iota(ranks_.begin(), ranks_.end(), 0);
  }

  std::string_view backend() const override { return "in_process"; }
  int size() const override { return static_cast<int>(ranks_.size()); }
  std::span<const int> local_ranks() const override { return ranks_; }

  void all_reduce(DType dtype, std::span<const void* const> in, std::int64_t count, CollectiveOp op,
                  void* output) override {
    check_participants("all_reduce", "inputs", in.size());
    tpustrategy::all_reduce(dtype, in, count, op, output);
  }
  void all_gather(DType dtype, std::span<const void* const> in, std::int64_t count, void* output) override {
    check_participants("all_gather", "inputs", in.size());
    tpustrategy::all_gather(dtype, in, count, output);
  }
  void reduce_scatter(DType dtype, std::span<const void* const> in, std::int64_t count, CollectiveOp op,
                      std::span<void* const> out) override {
    check_participants("reduce_scatter", "inputs", in.size());
    check_participants("reduce_scatter", "outputs", out.size());
    tpustrategy::reduce_scatter(dtype, in, count, op, out);
  }
  void broadcast(DType dtype, std::span<const void* const> in, std::int64_t count, int root,
                 std::span<void* const> out) override {
    check_participants("broadcast", "inputs", in.size());
    check_participants("broadcast", "outputs", out.size());
    if (root < 0 || root >= size()) {
      fail<InvalidArgumentError>("Communicator::broadcast", "root {} is not a rank of the {}-rank group", root, size());
    }
    tpustrategy::broadcast(dtype, in[static_cast<std::size_t>(root)], count, out);
  }
  void all_to_all(DType dtype, std::span<const void* const> in, std::int64_t count,
                  std::span<void* const> out) override {
    check_participants("all_to_all", "inputs", in.size());
    check_participants("all_to_all", "outputs", out.size());
    tpustrategy::all_to_all(dtype, in, count, out);
  }
  void collective_permute(DType dtype, std::span<const void* const> in, std::int64_t count,
                          std::span<const std::pair<int, int>> pairs, std::span<void* const> out) override {
    check_participants("collective_permute", "inputs", in.size());
    check_participants("collective_permute", "outputs", out.size());
    tpustrategy::collective_permute(dtype, in, count, pairs, out);
  }
  void barrier() override {}

  std::map<int, std::shared_ptr<Communicator>> split(std::span<const int> color_of_rank,
                                                     std::span<const int> key_of_rank) const override {
    std::map<int, std::shared_ptr<Communicator>> out;
    for (const auto& [color, ranks] : split_ranks(size(), color_of_rank, key_of_rank)) {
      out.emplace(color, make_in_process_communicator(static_cast<int>(ranks.size())));
    }
    return out;
  }

 private:
  void check_participants(const char* op, const char* what, std::size_t n) const {
    if (n != ranks_.size()) {
      fail<InvalidArgumentError>(op, "the in-process group has {} participants but {} {} were passed", ranks_.size(), n,
                                 what);
    }
  }

  std::vector<int> ranks_;
};

}  // namespace

std::shared_ptr<Communicator> make_in_process_communicator(int size) {
  if (size < 1) {
    fail<InvalidArgumentError>("make_in_process_communicator", "a group needs at least one participant, got {}", size);
  }
  return observed(std::make_shared<InProcessCommunicator>(size));
}

std::shared_ptr<Communicator> shared_in_process_communicator(int size) {
  static std::mutex mutex;
  static auto* groups = new std::map<int, std::shared_ptr<Communicator>>();  // never destroyed: used at exit
  std::lock_guard lock(mutex);
  auto it = groups->find(size);
  if (it == groups->end()) {
    it = groups->emplace(size, size == 1 ? make_single_communicator() : make_in_process_communicator(size)).first;
  }
  return it->second;
}

}  // namespace tpustrategy
