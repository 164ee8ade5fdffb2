#include "tpustrategy/runtime/rendezvous.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

namespace {

bool uses_op(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
}

std::string pairs_string(const std::vector<std::pair<int, int>>& pairs) {
  std::string s = "[";
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    s += fmt::format("{}({}, {})", i ? ", " : "", pairs[i].first, pairs[i].second);
  }
  return s + "]";
}

std::string leaves_string(const std::vector<LeafSpec>& leaves) {
  std::string s = "[";
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    s += fmt::format("{}{}[{}]", i ? ", " : "", dtype_name(leaves[i].dtype), fmt::join(leaves[i].shape, ","));
  }
  return s + "]";
}

bool uses_axis(CollectiveKind kind) { return kind == CollectiveKind::kAllGather || kind == CollectiveKind::kAllToAll; }

}  // namespace

std::string CollectiveDesc::to_string() const {
  std::string s = fmt::format("{}{{", collective_kind_name(kind));
  if (uses_op(kind)) s += fmt::format("op={}, ", collective_op_name(op));
  if (!structure.empty()) s += fmt::format("structure={}, ", structure);
  if (kind == CollectiveKind::kMergeCall || kind == CollectiveKind::kBarrier) {
    // no data: nothing to describe
  } else if (leaves.empty()) {
    s += fmt::format("dtype={}, shape=[{}], ", dtype_name(dtype), fmt::join(shape, ","));
  } else {
    s += fmt::format("tensors={}, ", leaves_string(leaves));
  }
  if (kind == CollectiveKind::kAllGather && !leaves.empty()) s += fmt::format("axis={}, ", axis);
  if (kind == CollectiveKind::kAllToAll && !leaves.empty()) {
    s += fmt::format("concat_dimension={}, split_dimension={}, ", axis, split_axis);
  }
  if (!groups.empty()) {
    s += "group_assignment=[";
    for (std::size_t g = 0; g < groups.size(); ++g) {
      s += fmt::format("{}[{}]", g ? ", " : "", fmt::join(groups[g], ", "));
    }
    s += "], ";
  }
  s += fmt::format("group={}, seq={}", group_id, sequence);
  if (kind == CollectiveKind::kBroadcast) s += fmt::format(", root={}", root);
  if (kind == CollectiveKind::kCollectivePermute) s += fmt::format(", pairs={}", pairs_string(pairs));
  return s + "}";
}

std::string describe_mismatch(const CollectiveDesc& a, const CollectiveDesc& b) {
  std::vector<std::string_view> fields;
  if (a.kind != b.kind) fields.emplace_back("kind");
  if (uses_op(a.kind) && uses_op(b.kind) && a.op != b.op) fields.emplace_back("op");
  if (a.structure != b.structure) fields.emplace_back("structure");
  if (a.leaves.empty() != b.leaves.empty()) {
    fields.emplace_back("tensors");
  } else if (a.leaves.empty()) {
    if (a.dtype != b.dtype) fields.emplace_back("dtype");
    if (a.shape != b.shape) fields.emplace_back("shape");
  } else if (a.structure == b.structure) {
    bool dtype_differs = a.leaves.size() != b.leaves.size(), shape_differs = dtype_differs;
    for (std::size_t i = 0; i < a.leaves.size() && i < b.leaves.size(); ++i) {
      dtype_differs = dtype_differs || a.leaves[i].dtype != b.leaves[i].dtype;
      shape_differs = shape_differs || a.leaves[i].shape != b.leaves[i].shape;
    }
    if (dtype_differs) fields.emplace_back("dtype");
    if (shape_differs) fields.emplace_back("shape");
  }
  if (uses_axis(a.kind) && a.kind == b.kind && (a.axis != b.axis || a.split_axis != b.split_axis)) {
    fields.emplace_back("axis");
  }
  if (a.groups != b.groups) fields.emplace_back("group_assignment");
  if (a.group_id != b.group_id) fields.emplace_back("group");
  if (a.sequence != b.sequence) fields.emplace_back("seq");
  if (a.kind == CollectiveKind::kBroadcast && a.kind == b.kind && a.root != b.root) fields.emplace_back("root");
  if (a.kind == CollectiveKind::kCollectivePermute && a.kind == b.kind && a.pairs != b.pairs) {
    fields.emplace_back("pairs");
  }
  if (fields.empty()) return {};  // the common case, once per arrival: no formatting
  return fmt::format("{}", fmt::join(fields, ", "));
}

namespace {

// FNV-1a over the bytes of values, continuing from h.
template <typename T>
std::uint64_t mix(std::uint64_t h, const T& value) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
  for (std::size_t i = 0; i < sizeof(T); ++i) h = (h ^ bytes[i]) * 0x100000001b3ULL;
  return h;
}

std::uint64_t mix_string(std::uint64_t h, std::string_view text) {
  for (char c : text) h = mix(h, c);
  return mix(h, text.size());
}

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;

}  // namespace

CollectiveSignature signature_of(const CollectiveDesc& desc, std::string_view participant) {
  CollectiveSignature s;
  s.kind = desc.kind;
  s.participant = participant;
  s.text = desc.to_string();
  s.structure = mix_string(kFnvOffset, desc.structure);
  std::uint64_t dtypes = kFnvOffset, shapes = kFnvOffset;
  if (desc.leaves.empty() && desc.kind != CollectiveKind::kMergeCall && desc.kind != CollectiveKind::kBarrier) {
    dtypes = mix(dtypes, desc.dtype);
    for (std::int64_t d : desc.shape) shapes = mix(shapes, d);
    shapes = mix(shapes, desc.shape.size());
  }
  for (const LeafSpec& leaf : desc.leaves) {
    dtypes = mix(dtypes, leaf.dtype);
    for (std::int64_t d : leaf.shape) shapes = mix(shapes, d);
    shapes = mix(shapes, leaf.shape.size());
  }
  s.dtypes = mix(dtypes, desc.leaves.size());
  s.shapes = shapes;
  std::uint64_t rest = mix(kFnvOffset, desc.kind);
  if (uses_op(desc.kind)) rest = mix(rest, desc.op);
  if (uses_axis(desc.kind)) rest = mix(mix(rest, desc.axis), desc.split_axis);
  if (desc.kind == CollectiveKind::kBroadcast) rest = mix(rest, desc.root);
  for (const auto& [source, target] : desc.pairs) rest = mix(mix(rest, source), target);
  for (const auto& group : desc.groups) {
    for (int r : group) rest = mix(rest, r);
    rest = mix(rest, group.size());
  }
  s.rest = mix(mix(rest, desc.group_id), desc.sequence);
  return s;
}

struct Rendezvous::Generation {
  enum class State { kCollecting, kRunning, kDone };
  Generation(std::uint64_t index, int n) : index(index), contributions(n), present(n, false) {}

  std::uint64_t index;
  State state = State::kCollecting;
  std::vector<Contribution> contributions;
  std::vector<bool> present;
  int count = 0;
  int first = -1;  // the participant whose descriptor the others are checked against
  std::vector<CollectiveResult> results;
  StoredError error;  // mismatch, departure or kernel failure: every participant gets it
};

Rendezvous::Rendezvous(int num_participants, RendezvousKernel kernel, std::string name, std::vector<int> replica_ids)
    : num_participants_(num_participants),
      kernel_(std::move(kernel)),
      name_(std::move(name)),
      replica_ids_(std::move(replica_ids)) {
  if (num_participants < 1) {
    fail<InvalidArgumentError>("Rendezvous", "{}: needs at least one participant, got {}", name_, num_participants);
  }
  if (!replica_ids_.empty() && std::ssize(replica_ids_) != num_participants) {
    fail<InvalidArgumentError>("Rendezvous", "{}: {} replica ids for {} participants", name_, replica_ids_.size(),
                               num_participants);
  }
  current_ = std::make_shared<Generation>(0, num_participants_);
  departed_.assign(num_participants_, false);
}

std::shared_ptr<Rendezvous::Generation> Rendezvous::join_locked(const char* where, int participant,
                                                                Contribution&& contribution, bool* full) {
  if (participant < 0 || participant >= num_participants_) {
    fail<InvalidArgumentError>(where, "{}: participant {} is out of range [0, {})", name_, participant,
                               num_participants_);
  }
  if (cancel_error_) cancel_error_.raise();
  std::shared_ptr<Generation> gen = current_;
  if (gen->present[participant]) {
    StoredError error(StoredError::Kind::kFailedPrecondition, fmt::format("[{}] {}: {} arrived twice at generation {}",
                                                                          where, name_, who(participant), gen->index));
    if (!gen->error) fail_locked(*gen, error);
    error.raise();
  }
  gen->present[participant] = true;
  ++gen->count;
  auto throw_gen_error = [&] {
    StoredError error = gen->error;
    advance_if_drained_locked();
    error.raise();
  };
  if (gen->error) throw_gen_error();
  if (departed_[participant]) {
    fail_locked(*gen,
                StoredError(StoredError::Kind::kFailedPrecondition,
                            fmt::format("[{}] {}: {} arrived after it finished", where, name_, who(participant))));
    throw_gen_error();
  }
  if (gen->first < 0) {
    gen->first = participant;
  } else {
    const CollectiveDesc& expected = gen->contributions[gen->first].desc;
    std::string differing = describe_mismatch(expected, contribution.desc);
    if (!differing.empty()) {
      std::vector<int> parked;
      for (int p = 0; p < num_participants_; ++p) {
        if (gen->present[p] && p != participant) parked.push_back(p);
      }
      // TF's types: ValueError for nests of different structure, RuntimeError when replicas make
      // different numbers of merge_calls (a merge_call against anything else), InvalidArgumentError else.
      const bool merge =
          contribution.desc.kind != expected.kind &&
          (contribution.desc.kind == CollectiveKind::kMergeCall || expected.kind == CollectiveKind::kMergeCall);
      const auto kind = merge                      ? StoredError::Kind::kRuntimeError
                        : differing == "structure" ? StoredError::Kind::kValueError
                                                   : StoredError::Kind::kInvalidArgument;
      // TF's collectives call a shape difference "Shape mismatch"; programs and TF's tests match on it.
      const char* what = differing == "shape" ? "Shape mismatch in the collective" : "collective mismatch";
      fail_locked(*gen,
                  StoredError(kind, fmt::format("[{}] {}: {}: {} issued {} but {} issued {} "
                                                "(differing: {}); {} waiting. Every replica must make the "
                                                "same collectives, in the same order, on the same group",
                                                where, name_, what, who(participant), contribution.desc.to_string(),
                                                who(gen->first), expected.to_string(), differing, who(parked))));
      throw_gen_error();
    }
  }
  gen->contributions[participant] = std::move(contribution);
  fail_if_departed_locked(*gen);
  if (gen->error) throw_gen_error();
  *full = gen->count == num_participants_;
  return gen;
}

void Rendezvous::fail_locked(Generation& gen, StoredError error) {
  gen.error = std::move(error);
  cv_.notify_all();
}

void Rendezvous::fail_if_departed_locked(Generation& gen) {
  if (num_departed_ == 0 || gen.count == 0 || gen.error || gen.state != Generation::State::kCollecting) return;
  std::vector<int> missing, parked;
  for (int p = 0; p < num_participants_; ++p) {
    if (gen.present[p]) {
      parked.push_back(p);
    } else if (departed_[p]) {
      missing.push_back(p);
    }
  }
  if (missing.empty()) return;
  // Replicas that made different numbers of merge_calls: TF's RuntimeError.
  const bool merge = gen.contributions[gen.first].desc.kind == CollectiveKind::kMergeCall;
  fail_locked(gen, StoredError(merge ? StoredError::Kind::kRuntimeError : StoredError::Kind::kFailedPrecondition,
                               fmt::format("[Rendezvous] {}: {} finished without joining {} that {} {} waiting for",
                                           name_, who(missing), gen.contributions[gen.first].desc.to_string(),
                                           who(parked), parked.size() == 1 ? "is" : "are")));
}

void Rendezvous::advance_if_drained_locked() {
  // A failed generation stays current until every participant has come and seen its error, so that
  // late arrivals are told too rather than waiting in a fresh generation for partners who gave up.
  if (current_->error && current_->count == num_participants_) {
    current_ = std::make_shared<Generation>(current_->index + 1, num_participants_);
  }
}

void Rendezvous::run_kernel(std::unique_lock<std::mutex>& lock, const std::shared_ptr<Generation>& gen) {
  gen->state = Generation::State::kRunning;
  current_ = std::make_shared<Generation>(gen->index + 1, num_participants_);
  lock.unlock();
  std::vector<CollectiveResult> results;
  StoredError error;
  try {
    results = kernel_(gen->contributions);
    if (!results.empty() && results.size() != static_cast<std::size_t>(num_participants_)) {
      fail<InternalError>("Rendezvous", "{}: kernel returned {} results for {} participants", name_, results.size(),
                          num_participants_);
    }
  } catch (...) {
    error = StoredError::capture(std::current_exception());
  }
  if (results.empty()) results.resize(num_participants_);
  lock.lock();
  gen->results = std::move(results);
  gen->error = std::move(error);
  gen->state = Generation::State::kDone;
  cv_.notify_all();
}

CollectiveResult Rendezvous::arrive_and_wait(int participant, Contribution contribution) {
  std::unique_lock lock(mutex_);
  bool full = false;
  std::shared_ptr<Generation> gen =
      join_locked("Rendezvous::arrive_and_wait", participant, std::move(contribution), &full);
  using State = Generation::State;
  if (full) {
    run_kernel(lock, gen);
  } else {
    ++blocked_;
    // A running kernel reads this participant's buffers: cancellation waits for it to finish.
    cv_.wait(lock, [&] {
      return gen->state == State::kDone || (gen->state == State::kCollecting && (gen->error || cancel_error_));
    });
    --blocked_;
  }
  if (gen->error) gen->error.raise();
  if (gen->state != State::kDone) cancel_error_.raise();
  return gen->results[participant];
}

bool Rendezvous::arrive(int participant, Contribution contribution) {
  std::unique_lock lock(mutex_);
  bool full = false;
  join_locked("Rendezvous::arrive", participant, std::move(contribution), &full);
  return full;
}

std::vector<CollectiveResult> Rendezvous::complete() {
  std::unique_lock lock(mutex_);
  if (cancel_error_) cancel_error_.raise();
  std::shared_ptr<Generation> gen = current_;
  if (gen->error) gen->error.raise();
  if (gen->count != num_participants_) {
    fail<FailedPreconditionError>("Rendezvous::complete", "{}: only {} of {} participants have arrived", name_,
                                  gen->count, num_participants_);
  }
  run_kernel(lock, gen);
  if (gen->error) gen->error.raise();
  return gen->results;
}

void Rendezvous::raise_if_failed() const {
  std::lock_guard lock(mutex_);
  if (current_->error) current_->error.raise();
}

std::vector<int> Rendezvous::arrived() const {
  std::lock_guard lock(mutex_);
  std::vector<int> parked;
  for (int p = 0; p < num_participants_; ++p) {
    if (current_->present[p]) parked.push_back(p);
  }
  return parked;
}

bool Rendezvous::depart(int participant) {
  std::lock_guard lock(mutex_);
  if (participant < 0 || participant >= num_participants_) {
    fail<InvalidArgumentError>("Rendezvous::depart", "{}: participant {} is out of range [0, {})", name_, participant,
                               num_participants_);
  }
  if (!departed_[participant]) ++num_departed_;
  departed_[participant] = true;
  const bool was_ok = !current_->error;
  fail_if_departed_locked(*current_);
  return was_ok && current_->error;
}

void Rendezvous::cancel(const std::string& reason) {
  cancel(StoredError(StoredError::Kind::kCancelled, fmt::format("[Rendezvous] {}: cancelled: {}", name_, reason)));
}

void Rendezvous::cancel(std::exception_ptr error) { cancel(StoredError::capture(error)); }

void Rendezvous::cancel(StoredError error) {
  std::lock_guard lock(mutex_);
  if (!cancel_error_) cancel_error_ = std::move(error);
  cv_.notify_all();
}

bool Rendezvous::cancelled() const {
  std::lock_guard lock(mutex_);
  return static_cast<bool>(cancel_error_);
}

void Rendezvous::reset() {
  std::lock_guard lock(mutex_);
  if (blocked_ > 0) {
    fail<FailedPreconditionError>("Rendezvous::reset", "{}: {} participant(s) are still blocked in it", name_,
                                  blocked_);
  }
  cancel_error_ = StoredError();
  departed_.assign(num_participants_, false);
  num_departed_ = 0;
  current_ = std::make_shared<Generation>(current_->index + 1, num_participants_);
}

std::string Rendezvous::who(int participant) const {
  if (replica_ids_.empty()) return fmt::format("participant {}", participant);
  return fmt::format("replica {}", replica_ids_[static_cast<std::size_t>(participant)]);
}

std::string Rendezvous::who(const std::vector<int>& participants) const {
  if (participants.size() == 1) return who(participants.front());
  std::vector<int> ids = participants;
  if (!replica_ids_.empty()) {
    for (int& id : ids) id = replica_ids_[static_cast<std::size_t>(id)];
  }
  return fmt::format("{} [{}]", replica_ids_.empty() ? "participants" : "replicas", fmt::join(ids, ", "));
}

std::uint64_t Rendezvous::generation() const {
  std::lock_guard lock(mutex_);
  return current_->index;
}

}  // namespace tpustrategy
