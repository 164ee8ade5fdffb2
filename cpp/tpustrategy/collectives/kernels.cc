#include "tpustrategy/collectives/kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/worker_pool.h"

namespace tpustrategy {
namespace {

// An accumulator block of 16 KiB stays in L1 while the n inputs stream through it, so each input
// byte is read from memory once and each output byte written once, whatever n is.
constexpr std::int64_t kBlockBytes = 16 * 1024;
// Below this payload per buffer a pool hand-off costs more than the work: run on the caller.
constexpr std::int64_t kInlineBytes = 64 * 1024;
// Copies are split into pieces of this size so that the pool can balance uneven copy lists.
constexpr std::int64_t kCopyPieceBytes = 256 * 1024;

// ---- validation -------------------------------------------------------------------------------

void check_inputs(const char* where, std::span<const void* const> inputs, std::int64_t count) {
  if (inputs.empty()) fail<InvalidArgumentError>(where, "needs at least one participant, got 0 inputs");
  if (count < 0) fail<InvalidArgumentError>(where, "element count must be >= 0, got {}", count);
  if (count == 0) return;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) fail<InvalidArgumentError>(where, "input buffer of participant {} is null", i);
  }
}

void check_outputs(const char* where, std::span<void* const> outputs, std::size_t expected, std::int64_t count) {
  if (outputs.size() != expected) {
    fail<InvalidArgumentError>(where, "expected {} output buffers (one per participant), got {}", expected,
                               outputs.size());
  }
  if (count == 0) return;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i] == nullptr) fail<InvalidArgumentError>(where, "output buffer of participant {} is null", i);
  }
}

void check_divisible(const char* where, std::int64_t count, std::size_t n) {
  if (count % static_cast<std::int64_t>(n) != 0) {
    fail<InvalidArgumentError>(where, "element count {} is not divisible by the number of participants {}", count, n);
  }
}

// ---- reductions -------------------------------------------------------------------------------

// Reduces blocks of n inputs. In: element type read; A: accumulator; Out: element type written.
// kLogical: bool, handled as bytes with MAX (or) / MIN (and) and normalised to 0/1 on store.
template <typename In, typename A, typename Out, CollectiveOp Op, bool kLogical = false>
struct Reducer {
  using InArray = Eigen::Array<In, Eigen::Dynamic, 1>;
  using AccArray = Eigen::Array<A, Eigen::Dynamic, 1>;
  using OutArray = Eigen::Array<Out, Eigen::Dynamic, 1>;
  static constexpr std::int64_t kBlockElems = kBlockBytes / static_cast<std::int64_t>(sizeof(A));

  static auto load(const void* p, std::int64_t offset, std::int64_t len) {
    Eigen::Map<const InArray> m(static_cast<const In*>(p) + offset, len);
    if constexpr (std::is_same_v<In, A>) {
      return m;
    } else {
      return m.template cast<A>();
    }
  }

  template <typename X, typename Y>
  static auto combine(const X& x, const Y& y) {
    if constexpr (Op == CollectiveOp::kSum || Op == CollectiveOp::kMean) {
      return x + y;
    } else if constexpr (Op == CollectiveOp::kProd) {
      return x * y;
    } else if constexpr (Op == CollectiveOp::kMax) {
      if constexpr (std::is_floating_point_v<A>) {
        return x.binaryExpr(y, Eigen::internal::scalar_max_op<A, A, Eigen::PropagateNaN>());
      } else {
        return x.max(y);
      }
    } else {
      if constexpr (std::is_floating_point_v<A>) {
        return x.binaryExpr(y, Eigen::internal::scalar_min_op<A, A, Eigen::PropagateNaN>());
      } else {
        return x.min(y);
      }
    }
  }

  template <typename E>
  static void store(Out* out, std::int64_t len, const E& e, int n) {
    Eigen::Map<OutArray> o(out, len);
    if constexpr (kLogical) {
      o = (e != A(0)).template cast<Out>();
    } else if constexpr (Op == CollectiveOp::kMean && std::is_floating_point_v<A>) {
      o = (e / static_cast<A>(n)).template cast<Out>();
    } else if constexpr (Op == CollectiveOp::kMean) {
      // Integers: the sum wrapped in unsigned arithmetic, reinterpreted as signed, then truncating division.
      o = e.template cast<Out>() / static_cast<Out>(n);
    } else if constexpr (std::is_same_v<A, Out>) {
      o = e;
    } else {
      o = e.template cast<Out>();
    }
  }

  // Reduces elements [offset, offset + len) of every input into out[0, len); acc has kBlockElems room.
  // Pairs of inputs are folded per pass so the L1 accumulator is touched n/2 times instead of n.
  static void block(const void* const* x, int n, std::int64_t offset, std::int64_t len, Out* out, A* acc) {
    if (n == 1) return store(out, len, load(x[0], offset, len), n);
    if (n == 2) return store(out, len, combine(load(x[0], offset, len), load(x[1], offset, len)), n);
    Eigen::Map<AccArray> a(acc, len);
    a = combine(load(x[0], offset, len), load(x[1], offset, len));
    int k = 2;
    for (; n - k > 2; k += 2) a = combine(a, combine(load(x[k], offset, len), load(x[k + 1], offset, len)));
    if (n - k == 2) {
      store(out, len, combine(a, combine(load(x[k], offset, len), load(x[k + 1], offset, len))), n);
    } else {
      store(out, len, combine(a, load(x[k], offset, len)), n);
    }
  }

  // Segment j reads inputs at [j * seg_count, (j + 1) * seg_count) and writes outputs[j].
  // all_reduce is one segment; reduce_scatter is n of them.
  static void run(std::span<const void* const> inputs, std::int64_t seg_count, std::span<void* const> outputs) {
    if (seg_count == 0) return;
    const int n = static_cast<int>(inputs.size());
    const std::int64_t blocks_per_seg = (seg_count + kBlockElems - 1) / kBlockElems;
    const std::int64_t total_blocks = blocks_per_seg * static_cast<std::int64_t>(outputs.size());
    auto reduce_blocks = [&](std::int64_t begin, std::int64_t end) {
      alignas(64) A acc[kBlockElems];
      for (std::int64_t b = begin; b < end; ++b) {
        const std::int64_t seg = b / blocks_per_seg;
        const std::int64_t offset = (b % blocks_per_seg) * kBlockElems;
        const std::int64_t len = std::min(kBlockElems, seg_count - offset);
        block(inputs.data(), n, seg * seg_count + offset, len, static_cast<Out*>(outputs[seg]) + offset, acc);
      }
    };
    const std::int64_t bytes = seg_count * static_cast<std::int64_t>(outputs.size() * sizeof(In));
    if (bytes < kInlineBytes) {
      reduce_blocks(0, total_blocks);
    } else {
      parallel_for(total_blocks, kInlineBytes / kBlockBytes, reduce_blocks);
    }
  }
};

template <typename In, typename A, typename Out, bool kLogical = false>
void run_with_op(CollectiveOp op, std::span<const void* const> inputs, std::int64_t seg_count,
                 std::span<void* const> outputs) {
  switch (op) {
    case CollectiveOp::kSum:
      return Reducer<In, A, Out, CollectiveOp::kSum, kLogical>::run(inputs, seg_count, outputs);
    case CollectiveOp::kMean:
      return Reducer<In, A, Out, CollectiveOp::kMean, kLogical>::run(inputs, seg_count, outputs);
    case CollectiveOp::kMax:
      return Reducer<In, A, Out, CollectiveOp::kMax, kLogical>::run(inputs, seg_count, outputs);
    case CollectiveOp::kMin:
      return Reducer<In, A, Out, CollectiveOp::kMin, kLogical>::run(inputs, seg_count, outputs);
    case CollectiveOp::kProd:
      return Reducer<In, A, Out, CollectiveOp::kProd, kLogical>::run(inputs, seg_count, outputs);
  }
}

// Picks storage / accumulator types per dtype and op, then reduces.
void reduce_dispatch(const char* where, DType dtype, CollectiveOp op, std::span<const void* const> inputs,
                     std::int64_t seg_count, std::span<void* const> outputs) {
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      if (op == CollectiveOp::kMean) {
        fail<InvalidArgumentError>(where, "MEAN is not defined for bool; use SUM/MAX (or) or PROD/MIN (and)");
      }
      // bool is one byte holding 0 or 1 (any non-zero byte counts as true): or = max, and = min.
      const bool is_or = op == CollectiveOp::kSum || op == CollectiveOp::kMax;
      run_with_op<std::uint8_t, std::uint8_t, std::uint8_t, true>(is_or ? CollectiveOp::kMax : CollectiveOp::kMin,
                                                                  inputs, seg_count, outputs);
    } else if constexpr (std::is_integral_v<T>) {
      // SUM / PROD / MEAN's sum run in unsigned arithmetic: same bits as two's-complement wrap-around
      // (what TF produces) without signed-overflow undefined behaviour.
      using U = std::make_unsigned_t<T>;
      switch (op) {
        case CollectiveOp::kSum:
        case CollectiveOp::kProd:
          return run_with_op<U, U, U>(op, inputs, seg_count, outputs);
        case CollectiveOp::kMean:
          return run_with_op<U, U, T>(op, inputs, seg_count, outputs);
        case CollectiveOp::kMax:
        case CollectiveOp::kMin:
          return run_with_op<T, T, T>(op, inputs, seg_count, outputs);
      }
    } else {
      run_with_op<T, typename Accumulator<T>::type, T>(op, inputs, seg_count, outputs);
    }
  });
}

// ---- copies -------------------------------------------------------------------------------------

struct CopyTask {
  const std::byte* src;  // nullptr: zero-fill dst
  std::byte* dst;
  std::int64_t bytes;
};

void run_copies(const std::vector<CopyTask>& tasks) {
  std::vector<CopyTask> pieces;
  std::int64_t total = 0;
  for (const CopyTask& t : tasks) {
    if (t.bytes == 0 || t.src == t.dst) continue;
    total += t.bytes;
    for (std::int64_t off = 0; off < t.bytes; off += kCopyPieceBytes) {
      pieces.push_back({t.src ? t.src + off : nullptr, t.dst + off, std::min(kCopyPieceBytes, t.bytes - off)});
    }
  }
  auto copy_pieces = [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const CopyTask& p = pieces[static_cast<std::size_t>(i)];
      if (p.src) {
        std::memcpy(p.dst, p.src, static_cast<std::size_t>(p.bytes));
      } else {
        std::memset(p.dst, 0, static_cast<std::size_t>(p.bytes));
      }
    }
  };
  if (total < kInlineBytes) {
    copy_pieces(0, static_cast<std::int64_t>(pieces.size()));
  } else {
    parallel_for(static_cast<std::int64_t>(pieces.size()), 1, copy_pieces);
  }
}

const std::byte* as_bytes(const void* p) { return static_cast<const std::byte*>(p); }
std::byte* as_bytes(void* p) { return static_cast<std::byte*>(p); }

}  // namespace

void all_reduce(DType dtype, std::span<const void* const> inputs, std::int64_t count, CollectiveOp op, void* output) {
  constexpr const char* kWhere = "all_reduce";
  check_inputs(kWhere, inputs, count);
  if (count > 0 && output == nullptr) fail<InvalidArgumentError>(kWhere, "output buffer is null");
  void* const outputs[] = {output};
  reduce_dispatch(kWhere, dtype, op, inputs, count, outputs);
}

void all_gather(DType dtype, std::span<const void* const> inputs, std::int64_t count_per_input, void* output) {
  constexpr const char* kWhere = "all_gather";
  check_inputs(kWhere, inputs, count_per_input);
  if (count_per_input > 0 && output == nullptr) fail<InvalidArgumentError>(kWhere, "output buffer is null");
  const std::int64_t bytes = count_per_input * static_cast<std::int64_t>(dtype_size(dtype));
  std::vector<CopyTask> tasks;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    tasks.push_back({as_bytes(inputs[i]), as_bytes(output) + static_cast<std::int64_t>(i) * bytes, bytes});
  }
  run_copies(tasks);
}

void reduce_scatter(DType dtype, std::span<const void* const> inputs, std::int64_t count, CollectiveOp op,
                    std::span<void* const> outputs) {
  constexpr const char* kWhere = "reduce_scatter";
  check_inputs(kWhere, inputs, count);
  check_outputs(kWhere, outputs, inputs.size(), count);
  check_divisible(kWhere, count, inputs.size());
  reduce_dispatch(kWhere, dtype, op, inputs, count / static_cast<std::int64_t>(inputs.size()), outputs);
}

void broadcast(DType dtype, const void* source, std::int64_t count, std::span<void* const> outputs) {
  constexpr const char* kWhere = "broadcast";
  const void* const sources[] = {source};
  check_inputs(kWhere, sources, count);
  check_outputs(kWhere, outputs, outputs.size(), count);
  const std::int64_t bytes = count * static_cast<std::int64_t>(dtype_size(dtype));
  std::vector<CopyTask> tasks;
  for (void* out : outputs) tasks.push_back({as_bytes(source), as_bytes(out), bytes});
  run_copies(tasks);
}

void all_to_all(DType dtype, std::span<const void* const> inputs, std::int64_t count, std::span<void* const> outputs) {
  constexpr const char* kWhere = "all_to_all";
  check_inputs(kWhere, inputs, count);
  check_outputs(kWhere, outputs, inputs.size(), count);
  check_divisible(kWhere, count, inputs.size());
  const std::int64_t n = static_cast<std::int64_t>(inputs.size());
  const std::int64_t chunk = count / n * static_cast<std::int64_t>(dtype_size(dtype));
  std::vector<CopyTask> tasks;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      tasks.push_back({as_bytes(inputs[i]) + j * chunk, as_bytes(outputs[j]) + i * chunk, chunk});
    }
  }
  run_copies(tasks);
}

void collective_permute(DType dtype, std::span<const void* const> inputs, std::int64_t count,
                        std::span<const std::pair<int, int>> pairs, std::span<void* const> outputs) {
  constexpr const char* kWhere = "collective_permute";
  check_inputs(kWhere, inputs, count);
  check_outputs(kWhere, outputs, inputs.size(), count);
  const int n = static_cast<int>(inputs.size());
  std::vector<int> source_of(n, -1);
  std::vector<bool> is_source(n, false);
  for (const auto& [source, target] : pairs) {
    if (source < 0 || source >= n || target < 0 || target >= n) {
      fail<InvalidArgumentError>(kWhere, "pair ({}, {}) is out of range for {} participants", source, target, n);
    }
    if (is_source[source]) fail<InvalidArgumentError>(kWhere, "participant {} is the source of two pairs", source);
    if (source_of[target] >= 0) fail<InvalidArgumentError>(kWhere, "participant {} is the target of two pairs", target);
    is_source[source] = true;
    source_of[target] = source;
  }
  const std::int64_t bytes = count * static_cast<std::int64_t>(dtype_size(dtype));
  std::vector<CopyTask> tasks;
  for (int t = 0; t < n; ++t) {
    tasks.push_back({source_of[t] >= 0 ? as_bytes(inputs[source_of[t]]) : nullptr, as_bytes(outputs[t]), bytes});
  }
  run_copies(tasks);
}

}  // namespace tpustrategy
