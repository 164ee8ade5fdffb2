// The replica runtime for the Python scheduler: the per-replica execution context (the single source
// of the current device, switched once per greenlet switch) and the cooperative front end of the C++
// Rendezvous, which matches and validates every synchronisation point and runs collectives through
// the Communicator. Python only parks and resumes greenlets.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bindings/bindings.h"
#include "bindings/call_frames.h"
#include "bindings/fastcall.h"
#include "bindings/tensor_objects.h"
#include "tpustrategy/collectives/collective_observer.h"
#include "tpustrategy/collectives/communicator.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/distribute/cross_replica.h"
#include "tpustrategy/distribute/cross_replica_exchange.h"
#include "tpustrategy/runtime/rendezvous.h"
#include "tpustrategy/runtime/replica_context.h"

namespace tpustrategy::bindings {

namespace {

using ContextPtr = std::shared_ptr<ReplicaContext>;

// Keeps the bound context alive while it is current (the raw pointer lives in core/placement.h).
thread_local ContextPtr tl_bound_context;

void bind_context(ContextPtr context) {
  PlacementContext* from = bound_placement();
  set_current_context(context.get());
  call_frames::switch_chain(from, bound_placement());
  tl_bound_context = std::move(context);
}

ReplicaMode mode_from_name(const std::string& name) {
  for (ReplicaMode mode : {ReplicaMode::kCrossReplica, ReplicaMode::kReplica, ReplicaMode::kMerge}) {
    if (replica_mode_name(mode) == name) return mode;
  }
  fail<ValueError>("ExecutionContext", "unknown mode '{}'; expected cross_replica, replica or merge", name);
}

CollectiveKind kind_from_name(const std::string& name) {
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                              CollectiveKind::kBroadcast, CollectiveKind::kAllToAll, CollectiveKind::kCollectivePermute,
                              CollectiveKind::kBarrier, CollectiveKind::kMergeCall}) {
    if (collective_kind_name(kind) == name) return kind;
  }
  fail<ValueError>("ReplicaRendezvous", "unknown synchronisation point '{}'", name);
}

// A mode-stack frame: a Python object kept by the core, in one allocation with its shared count (a replica's job
// pushes one and pops it at its end: one malloc and free, not two, per replica per step). Its last reference may drop
// without the GIL (a thread's default context dies with the thread); once the interpreter is finalising it is left
// alone.
struct HeldFrame {
  py::object frame;

  explicit HeldFrame(py::object object) : frame(std::move(object)) {}
  ~HeldFrame() {
#if PY_VERSION_HEX >= 0x030D0000
    const bool finalizing = Py_IsFinalizing();
#else
    const bool finalizing = _Py_IsFinalizing();
#endif
    if (!Py_IsInitialized() || finalizing) {
      (void)frame.release();  // leaked: no interpreter to hand it back to
      return;
    }
    try {
      py::gil_scoped_acquire gil;
      frame = py::object();
    } catch (...) {
      (void)frame.release();  // the GIL could not be taken: leaked rather than released without it
    }
  }
  HeldFrame(const HeldFrame&) = delete;
  HeldFrame& operator=(const HeldFrame&) = delete;
  HeldFrame(HeldFrame&&) = delete;
  HeldFrame& operator=(HeldFrame&&) = delete;
};

// A mode-stack entry points at the frame's PyObject; an owning one shares its HeldFrame's count.
std::shared_ptr<void> hold_frame(py::object frame) {
  auto held = std::make_shared<HeldFrame>(std::move(frame));
  PyObject* object = held->frame.ptr();
  return {std::move(held), object};
}

// An entry that does not own the frame: for a replica job's mode, which the run's list of modes keeps alive and the
// run unwinds before it ends (finish_job, or the scheduler's _end_job for a job cancelled or abandoned). Neither the
// frame nor a count is touched to push or pop it: at 2048 replicas those were cache misses, per replica per step.
std::shared_ptr<void> borrow_frame(PyObject* frame) { return {std::shared_ptr<void>(), frame}; }

PyObject* frame_ptr(const std::shared_ptr<void>& frame) { return static_cast<PyObject*>(frame.get()); }

void pop_mode(py::handle frame) {
  std::vector<std::shared_ptr<void>>& stack = current_context().mode_stack;
  if (stack.empty() || frame_ptr(stack.back()) != frame.ptr()) {
    fail<RuntimeError>("pop_mode",
                       "tf.distribute scopes were exited out of order (a scope or context exited "
                       "while a scope entered after it is still active)");
  }
  stack.pop_back();
}

void unwind_context_mode(ReplicaContext& context, py::handle frame) {
  std::vector<std::shared_ptr<void>>& stack = context.mode_stack;
  for (std::size_t i = stack.size(); i-- > 0;) {
    if (frame_ptr(stack[i]) == frame.ptr()) {
      stack.resize(i);
      return;
    }
  }
}

void unwind_mode(py::handle frame) { unwind_context_mode(current_context(), frame); }

using Leaves = std::vector<Tensor>;

class ReplicaRendezvous;

// One drive() call's round of the replicas (drive below): which replica runs, what each is handed, and the
// counts the driver reads when the round is over. The replicas hand over to each other without the driver: one
// that parks starts or resumes the next, one whose job ends runs the next job itself when that is a new one, else
// resumes the next; the last of the round switches to the driver. On the heap: a suspended greenlet's C stack is
// copied away, so nothing a replica reads may live on the driver's stack. Current for the thread while drive()
// runs; a replica that parks or ends outside one (cancelled, a merge_call's run) switches to its driver instead.
struct DriveRound {
  ReplicaRendezvous* rendezvous = nullptr;
  py::list workers, values, modes, suspended;
  std::vector<ContextPtr> contexts;
  py::object snapshot;  // the driver's contextvars: each new job runs in a copy
  py::handle driver, round_over, parked, merged, done, failed;
  bool fresh = false;
  Py_ssize_t n = 0;
  Py_ssize_t cursor = 0;  // the replica running (n: the round is over)
  int finished = 0;       // replicas whose jobs ended this round
  int merging = 0;        // replicas that parked in merge_call this round
};

thread_local DriveRound* tl_round = nullptr;

// Python's int as a C++ integer (TypeError for anything else, OverflowError out of range).
Py_ssize_t as_index(PyObject* value) {
  const Py_ssize_t out = PyNumber_AsSsize_t(value, PyExc_OverflowError);
  if (out == -1 && PyErr_Occurred()) throw py::error_already_set();
  return out;
}

PyObject* interned(const char* name) { return PyUnicode_InternFromString(name); }

// greenlet's C API (its greenlet.h): the capsule greenlet._C_API holds the greenlet type in slot 0 and
// PyGreenlet_Switch(greenlet, args, kwargs) in slot 6. Calling it directly, rather than the switch method, leaves two
// frames of the interpreter's method call (128 bytes) off the C stack that greenlet copies at every switch.
struct GreenletApi {
  PyTypeObject* type = nullptr;
  PyObject* (*switch_to)(PyObject* greenlet, PyObject* args, PyObject* kwargs) = nullptr;
};

const GreenletApi& greenlet_api() {
  static const GreenletApi api = [] {
    GreenletApi out;
    auto* const slots = static_cast<void**>(PyCapsule_Import("greenlet._C_API", 0));
    if (slots == nullptr) {
      PyErr_Clear();  // no C API: switch() is called as a method
      return out;
    }
    out.type = static_cast<PyTypeObject*>(slots[0]);
    out.switch_to = reinterpret_cast<PyObject* (*)(PyObject*, PyObject*, PyObject*)>(slots[6]);
    return out;
  }();
  return api;
}

py::object switch_into(py::handle greenlet, py::handle value) {
  const GreenletApi& api = greenlet_api();
  PyObject* out = nullptr;
  if (Py_TYPE(greenlet.ptr()) == api.type) {  // a subclass may override switch()
    PyObject* args = PyTuple_Pack(1, value.ptr());
    if (args == nullptr) throw py::error_already_set();
    out = api.switch_to(greenlet.ptr(), args, nullptr);
    Py_DECREF(args);
  } else {
    static PyObject* const switch_name = interned("switch");
    PyObject* args[2] = {greenlet.ptr(), value.ptr()};
    out = PyObject_VectorcallMethod(switch_name, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
  }
  if (out == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(out);
}

void set_greenlet_context(py::handle greenlet, py::handle context) {
  static PyObject* const gr_context_name = interned("gr_context");
  if (PyObject_SetAttr(greenlet.ptr(), gr_context_name, context.ptr()) != 0) throw py::error_already_set();
}

// bind_context for the calls a replica switches away in (park, finish_job), which may have no pybind11 frame of their
// own (fastcall.h): the whole chain on top is kept as the old context's, and the thread goes on with the new one's.
void enter_context(const ContextPtr& context) {
  call_frames::swap_chains(bound_placement(), context.get());
  set_current_context(context.get());
  tl_bound_context = context;
}

// Replica i is next in the round: a new job gets a copy of the driver's contextvars and its mode pushed.
// Binding its context is the caller's (how depends on where the caller runs).
void prepare(DriveRound& round, Py_ssize_t i) {
  round.cursor = i;
  if (round.fresh) {
    auto copy = py::reinterpret_steal<py::object>(PyContext_Copy(round.snapshot.ptr()));
    if (!copy) throw py::error_already_set();
    set_greenlet_context(PyList_GET_ITEM(round.workers.ptr(), i), copy);
    round.contexts[static_cast<std::size_t>(i)]->mode_stack.push_back(
        borrow_frame(PyList_GET_ITEM(round.modes.ptr(), i)));
  }
  if (PyList_SetItem(round.suspended.ptr(), i, py::bool_(false).release().ptr()) != 0) throw py::error_already_set();
}

// From a replica that stops running this round (it parked, or its job ended): the next replica runs, in its
// worker with its context bound, or the round is over and the driver takes over. Returns what this greenlet is
// resumed with. `round` may be gone by then: nothing of it is touched after the switch. `hand_value`: the next
// replica gets its value from this switch; else it is handed `done` and takes its value from the round (a greenlet
// keeps what it switched with until it is resumed: a worker whose job ended would keep the next replica's results,
// and their memory, while it waits in the pool).
py::object hand_over_round(DriveRound& round, bool hand_value) {
  const Py_ssize_t next = round.cursor + 1;
  if (next >= round.n) {
    round.cursor = round.n;
    return switch_into(round.driver, round.round_over);
  }
  prepare(round, next);
  enter_context(round.contexts[static_cast<std::size_t>(next)]);
  // Borrowed: a reference held here would stay with this greenlet while it is suspended (a result list after
  // the run, until this worker's next job).
  return switch_into(PyList_GET_ITEM(round.workers.ptr(), next),
                     hand_value ? PyList_GET_ITEM(round.values.ptr(), next) : round.done.ptr());
}

// One strategy run's synchronisation points, for the greenlet scheduler (one thread). Each replica
// arrive()s with what it is doing; mismatches raise there, in the replica, with TF's error types and
// the replica ids. When every replica has parked, the scheduler calls complete(), which runs the
// collective through the run's Communicator (merge_call: nothing; Python runs the merge function).
//
// The run's replicas are this process's; positions 0 .. n-1 (the arguments of arrive/depart) are
// decoupled from replica ids: position p is replica `communicator.local_ranks()[p]` of a group that may
// span processes (MPI: each process runs its own replicas, collectives move data between processes).
// Without a communicator the run is the whole group, in process (position = replica id).
class ReplicaRendezvous {
 public:
  explicit ReplicaRendezvous(int num_replicas, std::shared_ptr<Communicator> communicator = nullptr)
      : num_replicas_(check_count(num_replicas)),
        comm_(communicator ? std::move(communicator) : shared_in_process_communicator(num_replicas)),
        group_size_(comm_->size()),
        ids_(check_local_ranks(*comm_, num_replicas)),
        sequence_(static_cast<std::size_t>(num_replicas), 0),
        bare_result_(static_cast<std::size_t>(num_replicas), false),
        rendezvous_(
            num_replicas, [this](std::span<const Contribution> c) { return run(c); }, "replicas", ids_) {}

  // Global replica ids of the positions.
  const std::vector<int>& replica_ids() const { return ids_; }
  const std::shared_ptr<Communicator>& communicator() const { return comm_; }

  int num_replicas() const { return num_replicas_; }

  // Not inlined into park(): its locals (the descriptor, the contribution) would stay on the C stack that greenlet
  // copies at every switch of a parked replica.
  [[gnu::noinline]] bool arrive(int replica, const std::string& kind_name, Leaves leaves, const std::string& op,
                                std::int64_t axis, const std::string& structure, bool ragged,
                                std::vector<std::vector<int>> groups, std::int64_t split_axis,
                                std::vector<std::pair<int, int>> pairs) {
    CollectiveDesc desc;
    desc.kind = kind_from_name(kind_name);
    check_groups(kind_name, groups);
    check_pairs(kind_name, pairs);
    desc.groups = std::move(groups);
    desc.pairs = std::move(pairs);
    desc.split_axis = split_axis;
    if (desc.kind == CollectiveKind::kAllReduce || desc.kind == CollectiveKind::kReduceScatter) {
      desc.op = collective_op_from_name(op);
    }
    desc.axis = axis;
    desc.structure = structure;
    desc.leaves.reserve(leaves.size());
    for (const Tensor& t : leaves) {
      if (!t.valid()) fail<InvalidArgumentError>(kind_name.c_str(), "replica {} passed an invalid tensor", replica);
      LeafSpec spec{t.dtype(), t.shape()};
      if (desc.kind == CollectiveKind::kAllGather && ragged && t.rank() > 0) {
        spec.shape[static_cast<std::size_t>(normalize_axis(axis, t.rank(), "all_gather"))] = -1;
      }
      desc.leaves.push_back(std::move(spec));
    }
    if (replica < 0 || replica >= num_replicas_) {
      fail<InvalidArgumentError>("ReplicaRendezvous::arrive", "replica {} is out of range [0, {})", replica,
                                 num_replicas_);
    }
    desc.sequence = sequence_[static_cast<std::size_t>(replica)]++;
    Contribution contribution{std::move(desc), nullptr, nullptr, std::make_shared<Leaves>(std::move(leaves))};
    return rendezvous_.arrive(replica, std::move(contribution));
  }

  // Runs the full generation: one list of result tensors per replica (None for merge_call / barrier).
  std::vector<std::optional<Leaves>> complete(std::vector<DevicePtr> destinations) {
    destinations_ = std::move(destinations);
    std::vector<CollectiveResult> results = rendezvous_.complete();
    destinations_.clear();
    std::vector<std::optional<Leaves>> out(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i]) out[i] = std::move(*std::static_pointer_cast<Leaves>(results[i]));
    }
    return out;
  }

  // A replica's side of a synchronisation point in a cooperative run: arrive(), then hand over to the next
  // replica of the round, or to the driver at the round's end (drive below; outside drive(): `driver.switch(parked)`).
  // The driver runs the point once every replica has parked and the round that follows resumes this replica with
  // its result list (or what merge_call's function gave it), or the run's cancellation is thrown into it. `parked`:
  // the run's sentinel for a collective or for merge_call. `devices`: where results go (the same for every
  // replica; converted once, when the point runs; None for merge_call).
  py::object park(int replica, const std::string& kind_name, Leaves leaves, const std::string& op, std::int64_t axis,
                  const std::string& structure, bool ragged, py::object devices, py::handle driver, py::handle parked,
                  std::vector<std::vector<int>> groups, std::int64_t split_axis,
                  std::vector<std::pair<int, int>> pairs) {
    arrive(replica, kind_name, std::move(leaves), op, axis, structure, ragged, std::move(groups), split_axis,
           std::move(pairs));
    bare_result_[static_cast<std::size_t>(replica)] = false;
    return wait_parked(replica, std::move(devices), driver, parked);
  }

  // park() for the commonest point, an all_reduce of one tensor with no options: no nest, no groups; returns
  // the reduced tensor (not a list of one). Declines (None, before arriving) what the general path
  // (replica_context.py) must check or finish itself: a dtype TF's all_reduce rejects, a MEAN that is not
  // floating (integers are summed there, then divided). `args`: (replica, op, tensor, devices, driver, parked).
  py::object park_all_reduce(std::span<PyObject* const> args) {
    const int replica = arrive_all_reduce(args);
    if (replica < 0) return py::none();
    // Only this frame and wait_parked's are under the switch: arrive_all_reduce's temporaries are gone.
    py::object out = wait_parked(replica, py::reinterpret_borrow<py::object>(args[3]), args[4], args[5]);
    if (out.is_none() || PyList_Check(out.ptr())) fail_resumed_with(replica, out);
    return out;
  }

  // Runs the point every replica park()ed at (GIL released): one result list per replica (None for none).
  py::list complete_parked() {
    std::vector<DevicePtr> destinations;
    if (parked_destinations_ && !parked_destinations_.is_none()) {
      destinations = parked_destinations_.cast<std::vector<DevicePtr>>();
    }
    parked_destinations_ = py::object();
    std::vector<std::optional<Leaves>> results;
    {
      py::gil_scoped_release release;
      results = complete(std::move(destinations));
    }
    py::list out(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i]) continue;
      Leaves& leaves = *results[i];
      // A Tensor, not a list of one, for park_all_reduce: a Python list less per replica per step. The results
      // are new Tensors, wrapped without pybind11's registry of instances (at 2048 replicas its map no longer
      // fits the cache: a lookup, an insert and an erase per replica per step).
      if (bare_result_[i] && leaves.size() == 1) {
        out[i] = wrap_tensor(std::move(leaves.front()));
        continue;
      }
      py::list values(leaves.size());
      for (std::size_t j = 0; j < leaves.size(); ++j) values[j] = wrap_tensor(std::move(leaves[j]));
      out[i] = std::move(values);
    }
    return out;
  }

  bool depart(int replica) { return rendezvous_.depart(replica); }
  void raise_if_failed() const { rendezvous_.raise_if_failed(); }
  void cancel(const std::string& reason) { rendezvous_.cancel(reason); }
  std::vector<int> arrived() const { return rendezvous_.arrived(); }
  void reset() {
    parked_destinations_ = py::object();
    rendezvous_.reset();
    std::fill(sequence_.begin(), sequence_.end(), 0);
  }

 private:
  // park()'s second half, after arrive(): hands over to the next replica of the round (or to `driver` outside drive())
  // and returns what this replica is resumed with. A parked replica's C stack ends in this frame and the switch's,
  // and greenlet copies all of it out and back at every switch (issue #11): its callers arrive() in frames of their
  // own that have returned by then, so that no argument or temporary of theirs is copied.
  [[gnu::noinline]] py::object wait_parked(int replica, py::object devices, py::handle driver, py::handle parked) {
    parked_destinations_ = std::move(devices);
    DriveRound* round = tl_round;
    if (round == nullptr || round->rendezvous != this || round->cursor != replica ||
        (!parked.is(round->parked) && !parked.is(round->merged))) {
      return switch_into(driver, parked);  // outside drive(): the driver decides
    }
    if (PyList_SetItem(round->suspended.ptr(), replica, py::bool_(true).release().ptr()) != 0) {
      throw py::error_already_set();
    }
    round->merging += parked.is(round->merged) ? 1 : 0;
    py::object out = hand_over_round(*round, true);
    const DriveRound* resumed_by = tl_round;  // the round that resumes this replica (drive() or a replica of it)
    if (resumed_by != nullptr && out.is(resumed_by->done)) {
      return py::reinterpret_borrow<py::object>(PyList_GET_ITEM(resumed_by->values.ptr(), replica));
    }
    return out;
  }

  // park_all_reduce()'s checks and arrive(): the replica's position, or -1 when the general path must take the point.
  [[gnu::noinline]] int arrive_all_reduce(std::span<PyObject* const> args) {
    if (!PyUnicode_Check(args[1])) {
      throw py::type_error(fmt::format("park_all_reduce: op must be a str, got {}", Py_TYPE(args[1])->tp_name));
    }
    if (!py::isinstance<Tensor>(args[2])) {
      throw py::type_error(fmt::format("park_all_reduce: tensor must be a Tensor, got {}", Py_TYPE(args[2])->tp_name));
    }
    const auto replica = static_cast<int>(as_index(args[0]));
    const auto op = py::cast<std::string>(args[1]);
    auto tensor = py::cast<Tensor>(args[2]);
    if (!tensor.valid()) return -1;
    const DType dtype = tensor.dtype();
    const bool floating =
        dtype == DType::kFloat16 || dtype == DType::kBFloat16 || dtype == DType::kFloat32 || dtype == DType::kFloat64;
    const bool accepted = floating || dtype == DType::kBool || dtype == DType::kInt32 || dtype == DType::kInt64;
    if (!accepted || (op == "MEAN" && !floating)) return -1;
    Leaves leaves;
    leaves.push_back(std::move(tensor));
    arrive(replica, "all_reduce", std::move(leaves), op, 0, "", true, {}, 0, {});
    bare_result_[static_cast<std::size_t>(replica)] = true;
    return replica;
  }

  [[noreturn, gnu::noinline]] static void fail_resumed_with(int replica, const py::object& out) {
    fail<InternalError>("ReplicaRendezvous::park_all_reduce", "replica {} was resumed with {} instead of its result",
                        replica, py::repr(out).cast<std::string>());
  }

  // TF's group_assignment: every replica in exactly one group, all groups of one size.
  void check_groups(const std::string& where, const std::vector<std::vector<int>>& groups) const {
    if (groups.empty()) return;
    std::vector<bool> seen(static_cast<std::size_t>(group_size_), false);
    for (const auto& group : groups) {
      if (group.size() != groups.front().size() || group.empty()) {
        fail<InvalidArgumentError>(where.c_str(),
                                   "group_assignment must have groups of one non-zero size; group [{}] "
                                   "has {} replicas but group [{}] has {}",
                                   fmt::join(group, ", "), group.size(), fmt::join(groups.front(), ", "),
                                   groups.front().size());
      }
      for (int r : group) {
        if (r < 0 || r >= group_size_) {
          fail<InvalidArgumentError>(where.c_str(), "group_assignment names replica {}, but there are {} replicas", r,
                                     group_size_);
        }
        if (seen[static_cast<std::size_t>(r)]) {
          fail<InvalidArgumentError>(where.c_str(), "group_assignment names replica {} twice", r);
        }
        seen[static_cast<std::size_t>(r)] = true;
      }
    }
    for (int r = 0; r < group_size_; ++r) {
      if (!seen[static_cast<std::size_t>(r)]) {
        fail<InvalidArgumentError>(where.c_str(),
                                   "group_assignment leaves out replica {}; it must partition the {} "
                                   "replicas",
                                   r, group_size_);
      }
    }
  }

  // XLA CollectivePermute: replica ids in range, each at most once as a source and once as a target.
  void check_pairs(const std::string& where, const std::vector<std::pair<int, int>>& pairs) const {
    std::vector<bool> source(static_cast<std::size_t>(group_size_), false), target = source;
    for (const auto& [s, t] : pairs) {
      for (int r : {s, t}) {
        if (r < 0 || r >= group_size_) {
          fail<InvalidArgumentError>(where.c_str(), "source_target_pairs names replica {}, but there are {} replicas",
                                     r, group_size_);
        }
      }
      if (source[static_cast<std::size_t>(s)]) {
        fail<InvalidArgumentError>(where.c_str(), "replica {} is the source of more than one pair", s);
      }
      if (target[static_cast<std::size_t>(t)]) {
        fail<InvalidArgumentError>(where.c_str(), "replica {} is the target of more than one pair", t);
      }
      source[static_cast<std::size_t>(s)] = target[static_cast<std::size_t>(t)] = true;
    }
  }

  static int check_count(int n) {
    if (n < 1) fail<InvalidArgumentError>("ReplicaRendezvous", "needs at least one replica, got {}", n);
    return n;
  }
  static std::vector<int> check_local_ranks(const Communicator& comm, int n) {
    std::span<const int> local = comm.local_ranks();
    if (static_cast<int>(local.size()) != n) {
      fail<InvalidArgumentError>("ReplicaRendezvous",
                                 "{} replicas run here, but the communicator hosts {} of its {} "
                                 "participants in this process",
                                 n, local.size(), comm.size());
    }
    return {local.begin(), local.end()};
  }

  std::vector<CollectiveResult> run(std::span<const Contribution> contributions) {
    const CollectiveDesc& desc = contributions.front().desc;
    // Across processes: every process checks that the others are at the same point, with the same
    // nest, dtypes and shapes, before any data moves (the local replicas were matched on arrival).
    if (comm_->process_count() > 1) comm_->agree(signature_of(desc, "replica"));
    if (desc.kind == CollectiveKind::kMergeCall || desc.kind == CollectiveKind::kBarrier) return {};
    const std::size_t n = contributions.size();
    const std::size_t num_leaves = desc.leaves.size();
    // Every replica's result list in one block (one allocation, not one per replica); each result shares its count.
    auto block = std::make_shared<std::vector<Leaves>>(n);
    std::vector<std::shared_ptr<Leaves>> per_replica(n);
    for (std::size_t i = 0; i < n; ++i) {
      per_replica[i] = std::shared_ptr<Leaves>(block, &(*block)[i]);
      per_replica[i]->reserve(num_leaves);
    }
    std::vector<DevicePtr> destinations = destinations_;
    if (destinations.empty()) {
      for (const Contribution& c : contributions) {
        const Leaves& leaves = *static_cast<Leaves*>(c.payload.get());
        destinations.push_back(leaves.empty() ? DevicePtr() : leaves.front().device());
      }
    }
    if (destinations.size() != n) {
      fail<InvalidArgumentError>("ReplicaRendezvous::complete", "{} destination devices for {} replicas",
                                 destinations.size(), n);
    }
    // The groups the collective runs in, each on its subgroup of the run's communicator.
    // The groups the collective runs in (of positions here), each on its subgroup of the run's
    // communicator. TF's group_assignment names global replica ids: a group keeps the positions of the
    // replicas it names that run here, in group order (the subgroup's local ranks ascend the same way).
    std::vector<std::vector<int>> groups;
    std::map<int, std::shared_ptr<Communicator>> comms;
    if (desc.groups.empty()) {
      groups.emplace_back(n);
      for (std::size_t i = 0; i < n; ++i) groups[0][i] = static_cast<int>(i);
      comms.emplace(0, comm_);
    } else {
      const auto size = static_cast<std::size_t>(group_size_);
      std::vector<int> color(size), key(size), position_of(size, -1);
      for (std::size_t p = 0; p < n; ++p) position_of[static_cast<std::size_t>(ids_[p])] = static_cast<int>(p);
      groups.resize(desc.groups.size());
      for (std::size_t g = 0; g < desc.groups.size(); ++g) {
        for (std::size_t j = 0; j < desc.groups[g].size(); ++j) {
          const auto r = static_cast<std::size_t>(desc.groups[g][j]);
          color[r] = static_cast<int>(g);
          key[r] = static_cast<int>(j);
          if (position_of[r] >= 0) groups[g].push_back(position_of[r]);
        }
      }
      comms = comm_->split(color, key);
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::vector<int>& members = groups[g];
      if (members.empty()) continue;  // a group of replicas that all run in other processes
      Communicator& comm = *comms.at(static_cast<int>(g));
      std::vector<DevicePtr> group_destinations;
      group_destinations.reserve(members.size());
      for (int r : members) group_destinations.push_back(destinations[static_cast<std::size_t>(r)]);
      Leaves inputs(members.size());
      for (std::size_t k = 0; k < num_leaves; ++k) {
        for (std::size_t j = 0; j < members.size(); ++j) {
          inputs[j] = (*static_cast<Leaves*>(contributions[static_cast<std::size_t>(members[j])].payload.get()))[k];
        }
        Leaves results;
        switch (desc.kind) {
          case CollectiveKind::kAllReduce:
            results = all_reduce_tensors(comm, inputs, desc.op, group_destinations);
            break;
          case CollectiveKind::kAllGather:
            results = all_gather_tensors(comm, inputs, desc.axis, group_destinations);
            break;
          case CollectiveKind::kReduceScatter:
            results = reduce_scatter_tensors(comm, inputs, desc.op, group_destinations);
            break;
          case CollectiveKind::kAllToAll:
            results = all_to_all_tensors(comm, inputs, desc.axis, desc.split_axis, group_destinations);
            break;
          case CollectiveKind::kCollectivePermute:
            results = collective_permute_tensors(comm, inputs, desc.pairs, group_destinations);
            break;
          default:
            fail<UnimplementedError>("ReplicaRendezvous", "{} is not available to replicas",
                                     collective_kind_name(desc.kind));
        }
        for (std::size_t j = 0; j < members.size(); ++j) {
          (*per_replica[static_cast<std::size_t>(members[j])]).push_back(std::move(results[j]));
        }
      }
    }
    return {per_replica.begin(), per_replica.end()};
  }

  const int num_replicas_;
  std::shared_ptr<Communicator> comm_;
  const int group_size_;        // replicas in every process
  const std::vector<int> ids_;  // replica id of each position
  std::vector<std::int64_t> sequence_;
  // Per position: it parked in park_all_reduce, so complete_parked() hands it its one result Tensor, not a list of it.
  std::vector<bool> bare_result_;
  std::vector<DevicePtr> destinations_;  // set for the duration of complete()
  py::object parked_destinations_;       // the devices the last park() named
  Rendezvous rendezvous_;
};

// The replica scheduler's driver loop (scheduler.py, ReplicaRun.execute), here rather than in Python because it
// runs once per replica per synchronisation point, the hottest loop of a step. Rounds over workers[0], workers[1],
// ..., each replica with contexts[i] current and handed values[i]; `fresh`: new jobs, each started in a copy of the
// caller's contextvars with modes[i] pushed on its context's mode stack. The driver switches into replica 0; from
// there the replicas hand over to each other (DriveRound above): a replica that parks (ReplicaRendezvous.park)
// starts or resumes the next; one whose job ends (finish_job) runs the next new job in its own greenlet, without a
// switch, or resumes the next; the last switches back here with `round_over`. suspended[i] says whether replica i
// is parked. When every replica parked in a collective, the collective runs here (GIL released, the driver's
// context current) and the next round resumes the replicas with their results. Python takes over for the rest:
// returns (i, what it handed back, finished so far) when replica i failed or switched out by itself, else
// (n, `merged` or None, how many finished) at the end of a round in which replicas finished (all of them: the
// run is over) or every replica is in merge_call. The driver's own context is not restored: Python does that.
py::tuple drive(const py::list& workers, const py::list& contexts, py::list values, bool fresh, const py::list& modes,
                const py::list& suspended, ReplicaRendezvous& rendezvous, const ContextPtr& driver_context,
                const py::handle& parked, const py::handle& merged, const py::handle& done, const py::handle& failed,
                const py::handle& driver, const py::handle& round_over) {
  const auto n = static_cast<Py_ssize_t>(workers.size());
  for (const py::list* list : {&contexts, static_cast<const py::list*>(&values), &modes, &suspended}) {
    if (static_cast<Py_ssize_t>(list->size()) != n) {
      fail<InvalidArgumentError>("drive", "{} workers, but {} contexts, {} values, {} modes and {} suspended flags", n,
                                 contexts.size(), values.size(), modes.size(), suspended.size());
    }
  }
  if (n == 0) fail<InvalidArgumentError>("drive", "no replicas to run");
  if (driver.is_none() || round_over.is_none()) {
    fail<InvalidArgumentError>("drive", "needs the driver greenlet and the round's end marker");
  }
  auto round = std::make_unique<DriveRound>();
  round->rendezvous = &rendezvous;
  round->workers = workers;
  round->modes = modes;
  round->suspended = suspended;
  round->contexts.reserve(static_cast<std::size_t>(n));
  for (const py::handle context : contexts) round->contexts.push_back(py::cast<ContextPtr>(context));
  round->driver = driver;
  round->round_over = round_over;
  round->parked = parked;
  round->merged = merged;
  round->done = done;
  round->failed = failed;
  round->n = n;
  if (fresh) {
    round->snapshot = py::reinterpret_steal<py::object>(PyContext_CopyCurrent());
    if (!round->snapshot) throw py::error_already_set();
  }
  struct Current {
    DriveRound* outer;
    explicit Current(DriveRound* round) : outer(std::exchange(tl_round, round)) {}
    ~Current() { tl_round = outer; }
    Current(const Current&) = delete;
    Current& operator=(const Current&) = delete;
  } current(round.get());
  while (true) {
    round->values = values;
    round->fresh = fresh;
    round->finished = 0;
    round->merging = 0;
    prepare(*round, 0);
    bind_context(round->contexts.front());
    py::object out;
    {
      call_frames::HandOver hand_over;  // the replicas resume inside their own bound calls (park, Tape.gradient)
      out = switch_into(PyList_GET_ITEM(workers.ptr(), 0), PyList_GET_ITEM(values.ptr(), 0));
    }
    if (!out.is(round_over)) {
      // failed: replica `cursor` raised (finish_job); anything else: it switched out of its greenlet by itself
      return py::make_tuple(round->cursor, std::move(out), round->finished);
    }
    if (round->finished > 0 || round->merging > 0) {
      return py::make_tuple(n, round->merging > 0 ? py::reinterpret_borrow<py::object>(merged) : py::object(py::none()),
                            round->finished);
    }
    bind_context(driver_context);
    values = rendezvous.complete_parked();
    fresh = false;
  }
}

// The end of replica `position`'s job (scheduler.py, the worker loop), in its worker: `handed` is `done` (its value
// is in the run's results) or `failed` (its error is). Unwinds the mode its job pushed and drops its contextvars,
// then hands over as park does: when the next replica's job is new, this greenlet runs it (the job is returned);
// else the next replica is resumed, or the driver at the round's end, and what this greenlet is handed later (its
// next job) is returned. A failure goes to the driver at once. Outside drive() (a cancelled replica):
// `driver.switch(handed)`.
py::object finish_job(Py_ssize_t position, const py::handle& handed, const py::handle& driver) {
  DriveRound* round = tl_round;
  if (round == nullptr || round->cursor != position || (!handed.is(round->done) && !handed.is(round->failed))) {
    return switch_into(driver, handed);
  }
  const auto i = static_cast<std::size_t>(position);
  unwind_context_mode(*round->contexts[i], PyList_GET_ITEM(round->modes.ptr(), position));
  if (handed.is(round->done)) {
    ++round->finished;
    const Py_ssize_t next = position + 1;
    if (round->fresh && next < round->n) {
      // The next replica's job starts here: its worker and this one trade places in the list.
      py::list& workers = round->workers;
      auto own = py::reinterpret_borrow<py::object>(PyList_GET_ITEM(workers.ptr(), position));
      auto other = py::reinterpret_borrow<py::object>(PyList_GET_ITEM(workers.ptr(), next));
      if (PyList_SetItem(workers.ptr(), position, other.release().ptr()) != 0 ||
          PyList_SetItem(workers.ptr(), next, own.release().ptr()) != 0) {
        throw py::error_already_set();
      }
      prepare(*round, next);  // a fresh copy of the driver's contextvars replaces this job's
      enter_context(round->contexts[static_cast<std::size_t>(next)]);
      return py::reinterpret_borrow<py::object>(PyList_GET_ITEM(round->values.ptr(), next));
    }
  }
  set_greenlet_context(PyList_GET_ITEM(round->workers.ptr(), position), py::none());
  if (handed.is(round->failed)) return switch_into(round->driver, handed);
  return hand_over_round(*round, false);
}

// ReplicaRendezvous.park_all_reduce and finish_job bound with fastcall.h: a parked replica's C stack holds their
// frames, not pybind11's dispatcher.
py::object park_all_reduce_call(PyObject* self, std::span<PyObject* const> args) {
  expect_arguments("park_all_reduce", args, 6);
  return py::cast<ReplicaRendezvous&>(py::handle(self)).park_all_reduce(args);
}

py::object finish_job_call(PyObject* /*self*/, std::span<PyObject* const> args) {
  expect_arguments("finish_job", args, 3);
  return finish_job(as_index(args[0]), args[1], args[2]);
}

// Counts the collectives the hook point sees while registered (tests; a seed for the trace recorder).
class CollectiveCounter : public CollectiveObserver {
 public:
  void on_collective(const CollectiveEvent& event) override {
    std::lock_guard lock(mutex_);
    ++counts_[std::string(collective_kind_name(event.kind))];
  }
  std::map<std::string, int> counts() const {
    std::lock_guard lock(mutex_);
    return counts_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> counts_;
};

struct CountingScope {
  std::shared_ptr<CollectiveCounter> counter = std::make_shared<CollectiveCounter>();
  ObserverRegistration registration;
};

}  // namespace

void init_runtime(py::module_& m) {
  py::class_<CountingScope>(m, "CollectiveCounter", R"doc(
While entered, counts every collective that passes the Communicator hook point, by kind.)doc")
      .def(py::init<>(), "A counter with no counts; counting starts when it is entered.")
      .def("__enter__",
           [](CountingScope& scope) -> CountingScope& {
             scope.registration = add_collective_observer(scope.counter);
             return scope;
           })
      .def("__exit__", [](CountingScope& scope, const py::args&) { scope.registration = ObserverRegistration(); })
      .def_property_readonly("counts", [](const CountingScope& scope) { return scope.counter->counts(); });

  py::class_<ReplicaContext, ContextPtr>(m, "ExecutionContext", R"doc(
The per-replica C++ context: the device new tensors land on, the mode and the replica id (and slots
that later layers fill). One is current per thread; the scheduler switches it at every greenlet switch.)doc")
      .def(py::init([](DevicePtr device, int replica_id, int num_replicas, const std::string& mode) {
             auto context = std::make_shared<ReplicaContext>();
             context->device = std::move(device);
             context->replica_id = replica_id;
             context->num_replicas = num_replicas;
             context->mode = mode_from_name(mode);
             return context;
           }),
           py::arg("device") = nullptr, py::arg("replica_id") = -1, py::arg("num_replicas") = 1,
           py::arg("mode") = "cross_replica", R"doc(
A context for one replica (or the cross-replica caller).

Args:
  device: the device new tensors land on (None: the default device).
  replica_id: the replica's id in its sync group (-1: not a replica).
  num_replicas: replicas in the sync group.
  mode: "cross_replica", "replica" or "merge".)doc")
      .def_readwrite("device", &ReplicaContext::device)
      .def_readwrite("replica_id", &ReplicaContext::replica_id)
      .def_readwrite("num_replicas", &ReplicaContext::num_replicas)
      .def_readwrite("logical_core", &ReplicaContext::logical_core)
      .def_property(
          "mode", [](const ReplicaContext& c) { return std::string(replica_mode_name(c.mode)); },
          [](ReplicaContext& c, const std::string& mode) { c.mode = mode_from_name(mode); })
      .def_property_readonly(
          "mode_depth", [](const ReplicaContext& c) { return c.mode_stack.size(); },
          "Frames on this context's tf.distribute mode stack.")
      .def(
          "clear_modes", [](ReplicaContext& c) { c.mode_stack.clear(); },
          "Empties this context's mode stack (after a failed run).")
      .def("unwind_mode", &unwind_context_mode, py::arg("frame"), R"doc(
Pops this context's mode stack down to and including `frame`, if it is on it.

Args:
  frame: a frame pushed earlier (push_mode).)doc");
  m.def(
      "push_mode", [](py::object frame) { current_context().mode_stack.push_back(hold_frame(std::move(frame))); },
      py::arg("frame"), R"doc(
Pushes a frame onto the current context's tf.distribute mode stack.

Args:
  frame: the Python object that stands for the mode (scope, replica or merge frame).)doc");
  m.def("pop_mode", &pop_mode, py::arg("frame"), R"doc(
Pops `frame` off the current context's mode stack.

Args:
  frame: the frame on top of the stack.

Raises:
  RuntimeError: `frame` is not on top.)doc");
  m.def("unwind_mode", &unwind_mode, py::arg("frame"), R"doc(
Pops the current context's mode stack down to and including `frame`, if it is on it.

Args:
  frame: a frame pushed earlier (push_mode).)doc");
  m.def(
      "current_mode",
      []() -> py::object {
        const std::vector<std::shared_ptr<void>>& stack = current_context().mode_stack;
        if (stack.empty()) return py::none();
        return py::reinterpret_borrow<py::object>(frame_ptr(stack.back()));
      },
      "The top frame of the current context's mode stack, or None when it is empty.");
  m.def("set_current_context", &bind_context, py::arg("context").none(true), R"doc(
Makes `context` this thread's current context.

Args:
  context: an ExecutionContext, or None for the thread's default.)doc");
  m.def(
      "current_context",
      []() -> ContextPtr {
        if (tl_bound_context && bound_placement() == tl_bound_context.get()) return tl_bound_context;
        // The thread's default context, owned by the thread: a non-owning handle.
        return {ContextPtr(), &current_context()};
      },
      "This thread's current context.");

  py::class_<ReplicaRendezvous>(m, "ReplicaRendezvous", R"doc(
The synchronisation points of one Strategy.run (the cooperative front end of the C++ Rendezvous).)doc")
      .def(py::init<int, std::shared_ptr<Communicator>>(), py::arg("num_replicas"),
           py::arg("communicator").none(true) = nullptr, R"doc(
The synchronisation points of a run of `num_replicas` replicas.

Args:
  num_replicas: replicas of the run in this process.
  communicator: the group the replicas belong to (None: all of them, in this process); the run's
    positions are its local ranks.)doc")
      .def_property_readonly("num_replicas", &ReplicaRendezvous::num_replicas)
      .def_property_readonly("replica_ids", &ReplicaRendezvous::replica_ids)
      .def("arrive", &ReplicaRendezvous::arrive, py::arg("replica"), py::arg("kind"), py::arg("tensors"),
           py::arg("op") = "", py::arg("axis") = 0, py::arg("structure") = "", py::arg("ragged") = true,
           py::arg("groups") = std::vector<std::vector<int>>{}, py::arg("split_axis") = 0,
           py::arg("pairs") = std::vector<std::pair<int, int>>{}, R"doc(
Replica `replica` reaches a synchronisation point.

Args:
  replica: the replica's position in the run.
  kind: the collective ("all_reduce", "all_gather", "merge_call", ...).
  tensors: the replica's flattened tensors.
  op: the reduction of a reducing collective ("SUM", "MEAN", ...).
  axis: all_gather's concat axis; all_to_all's concat dimension.
  structure: the nest's structure, compared across replicas.
  ragged: an all_gather's tensors may differ in size along `axis`.
  groups: TF's group_assignment (the collective runs within each group).
  split_axis: all_to_all's split dimension.
  pairs: collective_permute's (source, target) replica ids.

Returns:
  True when every replica has arrived.

Raises:
  InvalidArgumentError: it does not match what the others do (naming the replicas).
  ValueError: nests of different structure.
  FailedPreconditionError: a replica it waits for has finished.)doc")
      .def("complete", &ReplicaRendezvous::complete, py::arg("devices") = std::vector<DevicePtr>{},
           py::call_guard<py::gil_scoped_release>(),
           R"doc(
Runs the full synchronisation point, with the GIL released.

Args:
  devices: where the results go (empty: each replica's own device).

Returns:
  One list of result tensors per replica (None for merge_call).)doc")
      .def("park", &ReplicaRendezvous::park, py::arg("replica"), py::arg("kind"), py::arg("tensors"), py::arg("op"),
           py::arg("axis"), py::arg("structure"), py::arg("ragged"), py::arg("devices").none(true), py::arg("driver"),
           py::arg("parked"), py::arg("groups") = std::vector<std::vector<int>>{}, py::arg("split_axis") = 0,
           py::arg("pairs") = std::vector<std::pair<int, int>>{},
           R"doc(
arrive(), then hands over to the next replica of the round.

Args:
  replica, kind, tensors, op, axis, structure, ragged, groups, split_axis, pairs: as arrive().
  devices: where the results go (None: each replica's own device).
  driver: the driver greenlet, switched to outside drive().
  parked: the marker handed to `driver` outside drive().

Returns:
  What this replica is resumed with: its results.)doc")
      .def("depart", &ReplicaRendezvous::depart, py::arg("replica"), R"doc(
Replica `replica` finished its function.

Args:
  replica: the replica's position in the run.

Returns:
  True if that failed a synchronisation point others wait at.)doc")
      .def("raise_if_failed", &ReplicaRendezvous::raise_if_failed,
           "Raises the error that failed the current synchronisation point, if one did.")
      .def("cancel", &ReplicaRendezvous::cancel, py::arg("reason"), R"doc(
Fails the current synchronisation point, so that every replica waiting at it raises.

Args:
  reason: the error message the waiting replicas raise.)doc")
      .def("arrived", &ReplicaRendezvous::arrived, "How many replicas are at the current synchronisation point.")
      .def("reset", &ReplicaRendezvous::reset, "Forgets the current synchronisation point (after a failed run).");
  // After ReplicaRendezvous: its signature names the class.
  m.def("drive", &drive, py::arg("workers"), py::arg("contexts"), py::arg("values"), py::arg("fresh"), py::arg("modes"),
        py::arg("suspended"), py::arg("rendezvous"), py::arg("driver_context"), py::arg("parked"), py::arg("merged"),
        py::arg("done"), py::arg("failed"), py::arg("driver") = py::none(), py::arg("round_over") = py::none(),
        R"doc(
The replica scheduler's driver loop (scheduler.py): rounds of the replicas, each with its context
current, handing over to each other, and the collectives they park in, run with the GIL released.

Args:
  workers: one greenlet per replica.
  contexts: each replica's ExecutionContext.
  values: what each replica is handed when it starts or resumes.
  fresh: the jobs are new (started in a copy of the caller's contextvars).
  modes: the mode frame each new job pushes.
  suspended: whether each replica is parked.
  rendezvous: the run's ReplicaRendezvous.
  driver_context: the driver's ExecutionContext.
  parked, merged, done, failed: the markers replicas hand back.
  driver: the driver greenlet (required).
  round_over: the marker the last replica of a round switches back with (required).

Returns:
  (i, what it handed back, finished so far) when replica i failed or switched out by itself, else
  (n, `merged` or None, how many finished) at the end of a round in which replicas finished or every
  replica is in merge_call.

Raises:
  InvalidArgumentError: lists of different lengths, or no `driver` / `round_over`.)doc");
  def_fastcall_method<&park_all_reduce_call>(
      m.attr("ReplicaRendezvous"), "park_all_reduce",
      R"doc(park_all_reduce(self: tpustrategy._core.runtime.ReplicaRendezvous, replica: int, op: str, tensor: tpustrategy._core.tensor.Tensor, devices: object, driver: object, parked: object) -> object

park() for an all_reduce of one tensor (positional arguments only).

Args:
  replica: the replica's position in the run.
  op: the reduction ("SUM", "MEAN", ...).
  tensor: the replica's tensor.
  devices, driver, parked: as park().

Returns:
  The reduced tensor, or None (without arriving) for a dtype or op the general path must handle.)doc");
  def_fastcall<&finish_job_call>(m, "finish_job",
                                 R"doc(finish_job(position: int, handed: object, driver: object) -> object

The end of a replica's job in its worker: hands over to the next replica, or to `driver` (positional arguments only).

Args:
  position: the replica's position in the run.
  handed: `done` (its value is in the run's results) or `failed` (its error is).
  driver: the driver greenlet.

Returns:
  This worker's next job (the next replica's new job, run here without a switch).)doc");
}

}  // namespace tpustrategy::bindings
