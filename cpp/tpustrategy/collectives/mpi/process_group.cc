// The handshake that opens every MPI collective: status words and descriptors exchanged point to
// point under a deadline, then one verdict that every process reaches identically.
#include "tpustrategy/collectives/mpi/process_group.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "tpustrategy/collectives/mpi/mpi_detail.h"
#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/dtype.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy::detail {

namespace {

constexpr int kHeaderTag = 7;
constexpr std::uint32_t kMagic = 0x54505553;  // "TPUS"

bool same_but_tensors(const CollectiveDescriptor& a, const CollectiveDescriptor& b) {
  return a.kind == b.kind && a.dtype == b.dtype && a.count == b.count && a.op == b.op && a.root == b.root &&
         a.detail == b.detail;
}

bool same(const CollectiveDescriptor& a, const CollectiveDescriptor& b) {
  return same_but_tensors(a, b) && a.structure == b.structure && a.dtypes == b.dtypes && a.shapes == b.shapes;
}

std::string rank_list(const std::vector<int>& ranks, std::string_view noun) {
  if (ranks.empty()) return fmt::format("no {}s", noun);
  bool contiguous = true;
  for (std::size_t i = 1; i < ranks.size(); ++i) contiguous = contiguous && ranks[i] == ranks[i - 1] + 1;
  if (ranks.size() == 1) return fmt::format("{} {}", noun, ranks[0]);
  if (contiguous) return fmt::format("{}s {}-{}", noun, ranks.front(), ranks.back());
  return fmt::format("{}s {}", noun, fmt::join(ranks, ","));
}

}  // namespace

struct ProcessGroup::Header {
  std::uint32_t magic = kMagic;
  std::int32_t failed = 0;        // 1: this process cannot take part; see message
  std::int32_t failed_rank = -1;  // the group rank that failed, if one did
  std::int32_t padding = 0;
  std::uint64_t sequence = 0;
  CollectiveDescriptor what;
  char message[480] = {};
  char call[320] = {};  // agree(): the signature's text, for messages
};

std::string describe(const CollectiveDescriptor& what) {
  std::string text(collective_kind_name(what.kind));
  std::vector<std::string> parts;
  if (what.dtype >= 0) parts.emplace_back(dtype_name(static_cast<DType>(what.dtype)));
  if (what.kind != CollectiveKind::kBarrier && what.kind != CollectiveKind::kSplit &&
      what.kind != CollectiveKind::kAbort) {
    parts.push_back(fmt::format("{} elements", what.count));
  }
  if (what.op >= 0) parts.emplace_back(collective_op_name(static_cast<CollectiveOp>(what.op)));
  if (what.root >= 0) parts.push_back(fmt::format("root {}", what.root));
  if (what.detail != 0) {
    const char* name = what.kind == CollectiveKind::kSplit ? "colours" : "pairs";
    parts.push_back(fmt::format("{} {:016x}", name, what.detail));
  }
  return fmt::format("{}({})", text, fmt::join(parts, ", "));
}

std::string ProcessLayout::describe_process(int process, std::string_view participant) const {
  return fmt::format("process {} (MPI rank {}, {})", process, world_rank[process],
                     rank_list(ranks_of[process], participant));
}

ProcessLayout make_layout(std::vector<int> owner, std::vector<int> world_rank, int self) {
  ProcessLayout layout;
  layout.owner = std::move(owner);
  layout.world_rank = std::move(world_rank);
  layout.self = self;
  layout.ranks_of.resize(layout.world_rank.size());
  for (int r = 0; r < layout.size(); ++r) layout.ranks_of[layout.owner[r]].push_back(r);
  int next = 0;
  for (const auto& ranks : layout.ranks_of) {
    for (int r : ranks) layout.in_order = layout.in_order && r == next++;
  }
  return layout;
}

ProcessGroup::ProcessGroup(MPI_Comm comm, ProcessLayout layout, double timeout_seconds)
    : layout_(std::move(layout)), timeout_seconds_(timeout_seconds) {
  if (comm == MPI_COMM_NULL) return;
  data_ = comm;
  MPI_Comm_set_errhandler(data_, MPI_ERRORS_RETURN);
  check_mpi("ProcessGroup", MPI_Comm_dup(data_, &header_));
  MPI_Comm_set_errhandler(header_, MPI_ERRORS_RETURN);
}

ProcessGroup::~ProcessGroup() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // A group that timed out may have requests in flight: leave its communicators to MPI_Finalize.
  if (!broken_.empty()) return;
  if (header_ != MPI_COMM_NULL) MPI_Comm_free(&header_);
  if (data_ != MPI_COMM_NULL) MPI_Comm_free(&data_);
}

std::chrono::steady_clock::time_point ProcessGroup::deadline() const {
  const std::chrono::duration<double> timeout(timeout_seconds_);
  return MpiClock::now() + std::chrono::duration_cast<MpiClock::duration>(timeout);
}

void ProcessGroup::throw_if_broken(const char* where) const {
  if (!broken_.empty()) fail<AbortedError>(where, "the communicator is unusable after an earlier failure: {}", broken_);
}

void ProcessGroup::fail_deadline(const char* where, const std::string& what, const std::vector<int>& missing) {
  std::vector<std::string> names;
  names.reserve(missing.size());
  for (int p : missing) names.push_back(layout_.describe_process(p));
  broken_ = fmt::format("{} waited {} s at {} for {}", layout_.describe_process(layout_.self), timeout_seconds_, what,
                        fmt::join(names, ", "));
  fail<DeadlineExceededError>(where, "{} (TPUSTRATEGY_MPI_TIMEOUT_SECONDS); {} did not arrive or failed silently",
                              broken_, names.size() == 1 ? "it" : "they");
}

void ProcessGroup::exchange(const char* where, const Header& mine, std::vector<Header>& all) {
  const int count = layout_.process_count();
  const int self = layout_.self;
  auto send = std::make_unique<Header>(mine);
  all.assign(count, Header{});
  all[self] = mine;
  std::vector<MPI_Request> receives(count, MPI_REQUEST_NULL);
  std::vector<MPI_Request> sends(count, MPI_REQUEST_NULL);
  for (int p = 0; p < count; ++p) {
    if (p == self) continue;
    check_mpi(where, MPI_Irecv(&all[p], sizeof(Header), MPI_BYTE, p, kHeaderTag, header_, &receives[p]));
    check_mpi(where, MPI_Isend(send.get(), sizeof(Header), MPI_BYTE, p, kHeaderTag, header_, &sends[p]));
  }
  const auto deadline = this->deadline();
  if (mpi_wait_all(where, receives, deadline, MpiWaitMode::kHeader) &&
      mpi_wait_all(where, sends, deadline, MpiWaitMode::kHeader)) {
    return;
  }
  std::vector<int> missing;
  for (int p = 0; p < count; ++p) {
    if (receives[p] != MPI_REQUEST_NULL) {
      missing.push_back(p);
      MPI_Cancel(&receives[p]);
      MPI_Wait(&receives[p], MPI_STATUS_IGNORE);
    }
    if (sends[p] != MPI_REQUEST_NULL) MPI_Request_free(&sends[p]);
  }
  orphaned_.push_back(std::move(send));
  if (missing.empty()) missing.push_back(self);  // only our sends were stuck: blame no peer in particular
  fail_deadline(where, fmt::format("{} #{}", describe(mine.what), mine.sequence), missing);
}

void ProcessGroup::handshake(const char* where, const CollectiveDescriptor& what,
                             const std::optional<std::string>& local_error) {
  open(where, what, local_error, nullptr);
}

void ProcessGroup::agree(const char* where, const CollectiveSignature& signature) {
  CollectiveDescriptor what{signature.kind};
  what.detail = signature.rest;
  what.structure = signature.structure;
  what.dtypes = signature.dtypes;
  what.shapes = signature.shapes;
  open(where, what, std::nullopt, &signature);
}

void ProcessGroup::open(const char* where, const CollectiveDescriptor& what,
                        const std::optional<std::string>& local_error, const CollectiveSignature* signature) {
  throw_if_broken(where);
  if (!multi_process()) return;
  Header mine;
  mine.sequence = sequence_++;
  mine.what = what;
  if (signature != nullptr) std::strncpy(mine.call, signature->text.c_str(), sizeof(mine.call) - 1);
  if (local_error) {
    mine.failed = 1;
    std::strncpy(mine.message, local_error->c_str(), sizeof(mine.message) - 1);
  }
  std::vector<Header> all;
  exchange(where, mine, all);
  if (local_error) return;  // the caller throws its own error

  std::vector<std::string> failures;
  for (int p = 0; p < layout_.process_count(); ++p) {
    const Header& h = all[p];
    if (h.magic != kMagic) {
      failures.push_back(fmt::format("{} sent a malformed header", layout_.describe_process(p)));
    } else if (h.failed) {
      const std::string rank = h.failed_rank >= 0 ? fmt::format(" at rank {}", h.failed_rank) : "";
      failures.push_back(fmt::format("{} failed{}: {}", layout_.describe_process(p), rank,
                                     std::string(h.message, strnlen(h.message, sizeof(h.message)))));
    }
  }
  if (!failures.empty()) {
    fail<AbortedError>(where, "{} #{} aborted: {}", describe(what), mine.sequence, fmt::join(failures, "; "));
  }
  bool agreed = true;
  for (const Header& h : all) agreed = agreed && same(h.what, all[0].what) && h.sequence == all[0].sequence;
  if (agreed) return;
  const std::string_view noun = signature != nullptr ? signature->participant : "rank";
  auto call_of = [&](const Header& h) {
    if (signature == nullptr) return fmt::format("{} #{}", describe(h.what), h.sequence);
    return std::string(h.call, strnlen(h.call, sizeof(h.call)));
  };
  // Group the processes by what they called, in order of first appearance.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int p = 0; p < layout_.process_count(); ++p) {
    const std::string text = call_of(all[p]);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == text; });
    if (it == groups.end()) {
      groups.push_back({text, {p}});
    } else {
      it->second.push_back(p);
    }
  }
  std::vector<std::string> parts;
  for (const auto& [text, processes] : groups) {
    std::vector<std::string> names;
    for (int p : processes) names.push_back(layout_.describe_process(p, noun));
    parts.push_back(fmt::format("{} called {}", fmt::join(names, " and "), text));
  }
  // The Rendezvous's types for the same mistake between replicas of one process.
  bool only_structure = true, only_shapes = true;
  for (const Header& h : all) {
    const CollectiveDescriptor& a = h.what;
    const CollectiveDescriptor& b = all[0].what;
    const bool rest_same = same_but_tensors(a, b) && h.sequence == all[0].sequence;
    only_structure = only_structure && rest_same && a.dtypes == b.dtypes && a.shapes == b.shapes;
    only_shapes = only_shapes && rest_same && a.structure == b.structure && a.dtypes == b.dtypes;
  }
  if (signature != nullptr && only_structure) {
    fail<ValueError>(where, "processes called {} with nests of different structure: {}",
                     collective_kind_name(what.kind), fmt::join(parts, "; "));
  }
  if (signature != nullptr && only_shapes) {
    fail<InvalidArgumentError>(where, "Shape mismatch in the collective across processes: {}", fmt::join(parts, "; "));
  }
  fail<InvalidArgumentError>(where, "processes called different collectives: {}", fmt::join(parts, "; "));
}

bool ProcessGroup::abort(int rank, const std::string& message) noexcept {
  if (!multi_process() || !broken_.empty()) return !multi_process();
  try {
    Header mine;
    mine.sequence = sequence_++;
    mine.what.kind = CollectiveKind::kAbort;
    mine.failed = 1;
    mine.failed_rank = rank;
    std::strncpy(mine.message, message.c_str(), sizeof(mine.message) - 1);
    std::vector<Header> all;
    exchange("MpiCommunicator::abort", mine, all);
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace tpustrategy::detail
