#include "tpustrategy/collectives/kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tpustrategy/collectives/extended_reduce.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {
namespace {

// Reductions work in blocks of 16 KiB of accumulator: the unit split over the pool, and, for groups
// larger than 8, the L1-resident partial sum that later inputs fold into, so each input byte is read
// from memory once and each output byte written once, whatever n is.
constexpr std::int64_t kBlockBytes = std::int64_t{16} * 1024;
// Below this payload per buffer a pool hand-off costs more than the work: run on the caller.
constexpr std::int64_t kInlineBytes = std::int64_t{64} * 1024;
// A reduced output at least this large is written with non-temporal stores: it cannot stay in cache
// next to its n inputs anyway, and bypassing the cache saves the read of each output line that a
// normal store triggers (10 -> 9 buffer passes for 8 inputs).
constexpr std::int64_t kStreamingStoreBytes = 4 << 20;
// Copies are split into pieces of this size so that the pool can balance uneven copy lists.
constexpr std::int64_t kCopyPieceBytes = std::int64_t{256} * 1024;

// Copies bytes to dst with non-temporal stores where the CPU has them. Call store_fence() before the
// data is handed to another thread.
void stream_copy(void* dst, const void* src, std::size_t bytes) {
#if defined(__SSE2__)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const std::size_t head = std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  d += head, s += head, bytes -= head;
  for (; bytes >= 64; d += 64, s += 64, bytes -= 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
  }
  for (; bytes >= 16; d += 16, s += 16, bytes -= 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
  }
  std::memcpy(d, s, bytes);
#else
  std::memcpy(dst, src, bytes);
#endif
}

void store_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

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

  // combine(...combine(combine(x[0], x[1]), x[2])..., x[K-1]) as one expression: a single pass over
  // K input streams, like a hand-written loop, with no intermediate array.
  template <int K>
  static auto fold(const void* const* x, std::int64_t offset, std::int64_t len) {
    if constexpr (K == 1) {
      return load(x[0], offset, len);
    } else {
      return combine(fold<K - 1>(x, offset, len), load(x[K - 1], offset, len));
    }
  }

  // Calls fn(std::integral_constant<int, k>{}) for 1 <= k <= kMaxFold.
  static constexpr int kMaxFold = 8;
  template <typename Fn>
  static void with_arity(int k, Fn&& fn) {
    switch (k) {
      case 1:
        return fn(std::integral_constant<int, 1>{});
      case 2:
        return fn(std::integral_constant<int, 2>{});
      case 3:
        return fn(std::integral_constant<int, 3>{});
      case 4:
        return fn(std::integral_constant<int, 4>{});
      case 5:
        return fn(std::integral_constant<int, 5>{});
      case 6:
        return fn(std::integral_constant<int, 6>{});
      case 7:
        return fn(std::integral_constant<int, 7>{});
      default:
        return fn(std::integral_constant<int, 8>{});
    }
  }

  // Reduces elements [offset, offset + len) of every input into out[0, len). Up to kMaxFold inputs are
  // read in one pass straight into the output; more inputs fold kMaxFold at a time into `acc`
  // (kBlockElems, L1-resident), so every input byte is still read from memory once.
  static void block(const void* const* x, int n, std::int64_t offset, std::int64_t len, Out* out, A* acc) {
    if (n <= kMaxFold) {
      return with_arity(n, [&](auto k) { store(out, len, fold<decltype(k)::value>(x, offset, len), n); });
    }
    Eigen::Map<AccArray> a(acc, len);
    a = fold<kMaxFold>(x, offset, len);
    int k = kMaxFold;
    for (; n - k > kMaxFold; k += kMaxFold) a = combine(a, fold<kMaxFold>(x + k, offset, len));
    with_arity(n - k, [&](auto r) { store(out, len, combine(a, fold<decltype(r)::value>(x + k, offset, len)), n); });
  }

  // Segment j reads inputs at [j * seg_count, (j + 1) * seg_count) and writes outputs[j].
  // all_reduce is one segment; reduce_scatter is n of them.
  static void run(std::span<const void* const> inputs, std::int64_t seg_count, std::span<void* const> outputs) {
    if (seg_count == 0) return;
    const int n = static_cast<int>(inputs.size());
    const std::int64_t blocks_per_seg = (seg_count + kBlockElems - 1) / kBlockElems;
    const std::int64_t total_blocks = blocks_per_seg * static_cast<std::int64_t>(outputs.size());
    const bool streaming = seg_count * static_cast<std::int64_t>(sizeof(Out)) >= kStreamingStoreBytes;
    auto reduce_blocks = [&](std::int64_t begin, std::int64_t end) {
      alignas(64) A acc[kBlockElems];
      // L1 staging for the non-temporal copy; raw bytes, so that nothing is zeroed on small calls.
      static_assert(sizeof(Out) <= sizeof(A));
      alignas(64) std::byte staged_bytes[kBlockBytes];
      Out* staged = reinterpret_cast<Out*>(staged_bytes);
      for (std::int64_t b = begin; b < end; ++b) {
        const std::int64_t seg = b / blocks_per_seg;
        const std::int64_t offset = (b % blocks_per_seg) * kBlockElems;
        const std::int64_t len = std::min(kBlockElems, seg_count - offset);
        Out* out = static_cast<Out*>(outputs[seg]) + offset;
        if (streaming) {
          block(inputs.data(), n, seg * seg_count + offset, len, staged, acc);
          stream_copy(out, staged, static_cast<std::size_t>(len) * sizeof(Out));
        } else {
          block(inputs.data(), n, seg * seg_count + offset, len, out, acc);
        }
      }
      if (streaming) store_fence();
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
  if (is_extended(dtype)) return detail::reduce_extended_segments(where, dtype, op, inputs, seg_count, outputs);
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
  const auto n = static_cast<std::int64_t>(inputs.size());
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
  tasks.reserve(static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t) {
    tasks.push_back({source_of[t] >= 0 ? as_bytes(inputs[source_of[t]]) : nullptr, as_bytes(outputs[t]), bytes});
  }
  run_copies(tasks);
}

}  // namespace tpustrategy
