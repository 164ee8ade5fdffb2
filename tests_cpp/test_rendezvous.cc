// Rendezvous: both front ends, match validation, cancellation, departures, kernel failures and many
// generations. Every blocking test runs under a watchdog.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/rendezvous.h"
#include "tpustrategy/runtime/stored_error.h"
#include "watchdog.h"

namespace tpustrategy {
namespace {

using ::tpustrategy::testing::bounded;

// Sums one int per participant; every participant gets the same shared result.
std::vector<CollectiveResult> sum_ints(std::span<const Contribution> contributions) {
  auto total = std::make_shared<int>(0);
  for (const Contribution& c : contributions) *total += *static_cast<const int*>(c.input);
  return std::vector<CollectiveResult>(contributions.size(), total);
}

Contribution contribution(const int* value, CollectiveOp op = CollectiveOp::kSum, std::int64_t sequence = 0,
                          std::vector<std::int64_t> shape = {1}) {
  Contribution c;
  c.desc.kind = CollectiveKind::kAllReduce;
  c.desc.op = op;
  c.desc.dtype = DType::kInt32;
  c.desc.shape = std::move(shape);
  c.desc.sequence = sequence;
  c.input = value;
  return c;
}

int value_of(const CollectiveResult& result) { return *static_cast<const int*>(result.get()); }

// Spins (bounded by the test's watchdog) until `count` participants are parked.
void wait_parked(const Rendezvous& rendezvous, std::size_t count) {
  while (rendezvous.arrived().size() < count) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

template <typename Error>
std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception of the requested type";
  return "";
}

// ---- descriptors ----

TEST(CollectiveDescTest, ToStringAndMismatchNameTheFields) {
  int v = 0;
  CollectiveDesc a = contribution(&v).desc;
  CollectiveDesc b = contribution(&v, CollectiveOp::kMax, 0, {2, 3}).desc;
  EXPECT_EQ(a.to_string(), "all_reduce{op=SUM, dtype=int32, shape=[1], group=0, seq=0}");
  EXPECT_EQ(describe_mismatch(a, a), "");
  EXPECT_EQ(describe_mismatch(a, b), "op, shape");
  b = a;
  b.kind = CollectiveKind::kAllGather;
  b.dtype = DType::kFloat16;
  EXPECT_EQ(describe_mismatch(a, b), "kind, dtype");
  // Fields that do not apply to the kind are ignored.
  CollectiveDesc g1 = b, g2 = b;
  g1.op = CollectiveOp::kMax;
  g2.root = 3;
  EXPECT_EQ(describe_mismatch(g1, g2), "");
  g1.kind = g2.kind = CollectiveKind::kCollectivePermute;
  g2.pairs = {{0, 1}};
  EXPECT_EQ(describe_mismatch(g1, g2), "pairs");
  EXPECT_EQ(g2.to_string(), "collective_permute{dtype=float16, shape=[1], group=0, seq=0, pairs=[(0, 1)]}");
}

// What processes compare (Communicator::agree): each kind of difference moves its own hash only, so that
// the MPI backend can tell a nest of another structure (ValueError) or another shape ("Shape mismatch")
// from another collective; fields that do not apply to the kind move nothing.
TEST(CollectiveDescTest, SignatureHashesEachKindOfDifferenceApart) {
  CollectiveDesc a;
  a.kind = CollectiveKind::kAllReduce;
  a.structure = "{'a': *}";
  a.leaves = {{DType::kFloat32, {2, 3}}};
  const CollectiveSignature base = signature_of(a, "replica");
  EXPECT_EQ(base.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(base.participant, "replica");
  EXPECT_EQ(base.text, a.to_string());
  auto differs = [&](const CollectiveDesc& b) {
    const CollectiveSignature s = signature_of(b);
    return std::vector<bool>{s.structure != base.structure, s.dtypes != base.dtypes, s.shapes != base.shapes,
                             s.rest != base.rest};
  };
  EXPECT_EQ(differs(a), (std::vector<bool>{false, false, false, false}));
  CollectiveDesc b = a;
  b.leaves[0].shape = {3, 2};  // the same element count
  EXPECT_EQ(differs(b), (std::vector<bool>{false, false, true, false}));
  b = a;
  b.leaves[0].dtype = DType::kInt32;
  EXPECT_EQ(differs(b), (std::vector<bool>{false, true, false, false}));
  b = a;
  b.structure = "{'b': *}";
  EXPECT_EQ(differs(b), (std::vector<bool>{true, false, false, false}));
  b = a;
  b.op = CollectiveOp::kMax;
  EXPECT_EQ(differs(b), (std::vector<bool>{false, false, false, true}));
  b = a;
  b.sequence = 1;
  EXPECT_EQ(differs(b), (std::vector<bool>{false, false, false, true}));
  b = a;
  b.root = 2;  // not a broadcast: ignored
  EXPECT_EQ(differs(b), (std::vector<bool>{false, false, false, false}));
  b = a;
  b.leaves.push_back({DType::kFloat32, {2, 3}});  // one more tensor
  EXPECT_TRUE(differs(b)[1] || differs(b)[2]);
}

// ---- cooperative front end ----

TEST(RendezvousCooperativeTest, ArriveReportsFullAndCompleteRunsKernelOnce) {
  std::atomic<int> kernel_runs{0};
  Rendezvous rendezvous(3, [&](std::span<const Contribution> cs) {
    ++kernel_runs;
    return sum_ints(cs);
  });
  int values[] = {1, 20, 300};
  EXPECT_THROW(rendezvous.complete(), FailedPreconditionError);  // nobody there yet
  EXPECT_FALSE(rendezvous.arrive(2, contribution(&values[2])));
  EXPECT_FALSE(rendezvous.arrive(0, contribution(&values[0])));
  EXPECT_EQ(rendezvous.arrived(), (std::vector<int>{0, 2}));
  EXPECT_THROW(rendezvous.complete(), FailedPreconditionError);
  EXPECT_TRUE(rendezvous.arrive(1, contribution(&values[1])));
  std::vector<CollectiveResult> results = rendezvous.complete();
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) EXPECT_EQ(value_of(r), 321);
  EXPECT_EQ(kernel_runs.load(), 1);
  EXPECT_EQ(rendezvous.generation(), 1u);
  EXPECT_TRUE(rendezvous.arrived().empty());
}

TEST(RendezvousCooperativeTest, MismatchFailsTheGenerationForEveryoneThenRecovers) {
  Rendezvous rendezvous(3, sum_ints, "replicas [0, 1, 2]");
  int v = 1;
  EXPECT_FALSE(rendezvous.arrive(0, contribution(&v)));
  std::string message =
      message_of<InvalidArgumentError>([&] { rendezvous.arrive(1, contribution(&v, CollectiveOp::kMax, 0, {2})); });
  EXPECT_NE(message.find("replicas [0, 1, 2]"), std::string::npos) << message;
  EXPECT_NE(message.find("participant 1 issued all_reduce{op=MAX"), std::string::npos) << message;
  EXPECT_NE(message.find("participant 0 issued all_reduce{op=SUM"), std::string::npos) << message;
  EXPECT_NE(message.find("differing: op, shape"), std::string::npos) << message;
  // The late participant hears about it too instead of waiting in a fresh generation.
  EXPECT_THROW(rendezvous.arrive(2, contribution(&v)), InvalidArgumentError);
  EXPECT_EQ(rendezvous.generation(), 1u);
  for (int p = 0; p < 3; ++p) rendezvous.arrive(p, contribution(&v, CollectiveOp::kSum, 1));
  EXPECT_EQ(value_of(rendezvous.complete()[0]), 3);
}

TEST(RendezvousCooperativeTest, SequenceNumbersMustAgree) {
  Rendezvous rendezvous(2, sum_ints);
  int v = 1;
  rendezvous.arrive(0, contribution(&v, CollectiveOp::kSum, 4));
  std::string message =
      message_of<InvalidArgumentError>([&] { rendezvous.arrive(1, contribution(&v, CollectiveOp::kSum, 5)); });
  EXPECT_NE(message.find("differing: seq"), std::string::npos) << message;
}

TEST(RendezvousCooperativeTest, BadParticipantsAreRejected) {
  Rendezvous rendezvous(2, sum_ints);
  int v = 1;
  EXPECT_THROW(rendezvous.arrive(2, contribution(&v)), InvalidArgumentError);
  EXPECT_THROW(rendezvous.arrive(-1, contribution(&v)), InvalidArgumentError);
  rendezvous.arrive(0, contribution(&v));
  EXPECT_THROW(rendezvous.arrive(0, contribution(&v)), FailedPreconditionError);
  EXPECT_THROW(Rendezvous(0, sum_ints), InvalidArgumentError);
}

TEST(RendezvousCooperativeTest, KernelErrorReachesTheCaller) {
  Rendezvous rendezvous(2, [](std::span<const Contribution>) -> std::vector<CollectiveResult> {
    fail<ResourceExhaustedError>("kernel", "out of HBM");
  });
  int v = 0;
  rendezvous.arrive(0, contribution(&v));
  rendezvous.arrive(1, contribution(&v));
  EXPECT_THROW(rendezvous.complete(), ResourceExhaustedError);
  // The next generation is unaffected.
  EXPECT_EQ(rendezvous.generation(), 1u);
}

TEST(RendezvousCooperativeTest, DepartureFailsAWaitingGenerationAndLaterArrivals) {
  Rendezvous rendezvous(3, sum_ints);
  int v = 1;
  EXPECT_FALSE(rendezvous.depart(2));  // nobody waiting yet: nothing fails now
  std::string message = message_of<FailedPreconditionError>([&] { rendezvous.arrive(0, contribution(&v)); });
  EXPECT_NE(message.find("participant 2 finished without joining all_reduce"), std::string::npos) << message;
  rendezvous.reset();
  EXPECT_FALSE(rendezvous.arrive(0, contribution(&v)));
  EXPECT_TRUE(rendezvous.depart(1));
  EXPECT_THROW(rendezvous.complete(), FailedPreconditionError);
}

TEST(RendezvousCooperativeTest, CancelRejectsArrivalsUntilReset) {
  Rendezvous rendezvous(2, sum_ints);
  int v = 5;
  rendezvous.arrive(0, contribution(&v));
  rendezvous.cancel("step aborted");
  EXPECT_TRUE(rendezvous.cancelled());
  std::string message = message_of<CancelledError>([&] { rendezvous.arrive(1, contribution(&v)); });
  EXPECT_NE(message.find("step aborted"), std::string::npos) << message;
  EXPECT_THROW(rendezvous.complete(), CancelledError);
  rendezvous.reset();
  EXPECT_FALSE(rendezvous.cancelled());
  rendezvous.arrive(0, contribution(&v));
  rendezvous.arrive(1, contribution(&v));
  EXPECT_EQ(value_of(rendezvous.complete()[1]), 10);
}

// ---- thread front end ----

TEST(RendezvousThreadTest, EveryParticipantGetsTheResult) {
  bounded([] {
    const int n = 8;
    Rendezvous rendezvous(n, sum_ints);
    std::vector<int> values(n), results(n);
    std::vector<std::thread> threads;
    for (int p = 0; p < n; ++p) {
      values[p] = p + 1;
      threads.emplace_back([&, p] { results[p] = value_of(rendezvous.arrive_and_wait(p, contribution(&values[p]))); });
    }
    for (auto& t : threads) t.join();
    for (int p = 0; p < n; ++p) EXPECT_EQ(results[p], 36);
  });
}

TEST(RendezvousThreadTest, CancelWakesEveryWaiterAndFutureArrivals) {
  bounded([] {
    Rendezvous rendezvous(4, sum_ints);
    int v = 1;
    std::atomic<int> cancelled{0};
    std::vector<std::thread> threads;
    for (int p = 0; p < 3; ++p) {
      threads.emplace_back([&, p] {
        try {
          rendezvous.arrive_and_wait(p, contribution(&v));
        } catch (const CancelledError& e) {
          if (std::string(e.what()).find("shutting down") != std::string::npos) ++cancelled;
        }
      });
    }
    wait_parked(rendezvous, 3);
    EXPECT_THROW(rendezvous.reset(), FailedPreconditionError);  // waiters are still blocked
    rendezvous.cancel("shutting down");
    for (auto& t : threads) t.join();
    EXPECT_EQ(cancelled.load(), 3);
    EXPECT_THROW(rendezvous.arrive_and_wait(3, contribution(&v)), CancelledError);
  });
}

TEST(RendezvousThreadTest, CancelWithAStoredErrorRethrowsIt) {
  bounded([] {
    Rendezvous rendezvous(2, sum_ints);
    int v = 1;
    std::thread waiter([&] { EXPECT_THROW(rendezvous.arrive_and_wait(0, contribution(&v)), AbortedError); });
    wait_parked(rendezvous, 1);
    rendezvous.cancel(std::make_exception_ptr(AbortedError("[test] replica 3 crashed")));
    rendezvous.cancel("second cancellation is ignored");
    waiter.join();
    EXPECT_THROW(rendezvous.arrive_and_wait(1, contribution(&v)), AbortedError);
  });
}

TEST(RendezvousThreadTest, MismatchWakesTheWaitersWithTheSameError) {
  bounded([] {
    Rendezvous rendezvous(3, sum_ints);
    int v = 1;
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int p = 0; p < 2; ++p) {
      threads.emplace_back([&, p] {
        try {
          rendezvous.arrive_and_wait(p, contribution(&v));
        } catch (const InvalidArgumentError& e) {
          if (std::string(e.what()).find("differing: shape") != std::string::npos) ++errors;
        }
      });
    }
    wait_parked(rendezvous, 2);
    EXPECT_THROW(rendezvous.arrive_and_wait(2, contribution(&v, CollectiveOp::kSum, 0, {7})), InvalidArgumentError);
    for (auto& t : threads) t.join();
    EXPECT_EQ(errors.load(), 2);
  });
}

TEST(RendezvousThreadTest, DepartureWakesTheWaiters) {
  bounded([] {
    Rendezvous rendezvous(3, sum_ints);
    int v = 1;
    std::vector<std::thread> threads;
    for (int p = 0; p < 2; ++p) {
      threads.emplace_back(
          [&, p] { EXPECT_THROW(rendezvous.arrive_and_wait(p, contribution(&v)), FailedPreconditionError); });
    }
    wait_parked(rendezvous, 2);
    EXPECT_TRUE(rendezvous.depart(2));
    for (auto& t : threads) t.join();
  });
}

TEST(RendezvousThreadTest, KernelErrorReachesEveryParticipant) {
  bounded([] {
    Rendezvous rendezvous(4, [](std::span<const Contribution>) -> std::vector<CollectiveResult> {
      fail<InvalidArgumentError>("kernel", "bad shapes");
    });
    int v = 0;
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int p = 0; p < 4; ++p) {
      threads.emplace_back([&, p] {
        try {
          rendezvous.arrive_and_wait(p, contribution(&v));
        } catch (const InvalidArgumentError&) {
          ++errors;
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(errors.load(), 4);
  });
}

TEST(RendezvousThreadTest, CancelDuringTheKernelWaitsForIt) {
  bounded([] {
    std::atomic<bool> kernel_started{false}, release{false};
    Rendezvous rendezvous(2, [&](std::span<const Contribution> cs) {
      kernel_started = true;
      while (!release) std::this_thread::yield();
      return sum_ints(cs);
    });
    int a = 2, b = 3;
    int result0 = 0;
    std::thread waiter([&] { result0 = value_of(rendezvous.arrive_and_wait(0, contribution(&a))); });
    wait_parked(rendezvous, 1);
    std::thread last([&] { rendezvous.arrive_and_wait(1, contribution(&b)); });
    while (!kernel_started) std::this_thread::yield();
    rendezvous.cancel("too late");  // the kernel reads both buffers: the waiter must not leave yet
    release = true;
    waiter.join();
    last.join();
    EXPECT_EQ(result0, 5);
  });
}

TEST(RendezvousThreadTest, ThousandsOfGenerations) {
  bounded([] {
    const int n = 4, generations = 5000;
    Rendezvous rendezvous(n, sum_ints);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int p = 0; p < n; ++p) {
      threads.emplace_back([&, p] {
        for (int g = 0; g < generations; ++g) {
          int value = g * 10 + p;
          int got = value_of(rendezvous.arrive_and_wait(p, contribution(&value, CollectiveOp::kSum, g)));
          if (got != g * 10 * n + n * (n - 1) / 2) ++wrong;
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(rendezvous.generation(), static_cast<std::uint64_t>(generations));
  });
}

}  // namespace
}  // namespace tpustrategy

namespace tpustrategy {
namespace {

TEST(StoredErrorTest, KeepsTypeAndMessageAcrossRaises) {
  StoredError none;
  EXPECT_FALSE(none);
  StoredError stored = StoredError::capture(std::make_exception_ptr(InvalidArgumentError("[f] bad")));
  EXPECT_EQ(stored.kind(), StoredError::Kind::kInvalidArgument);
  for (int i = 0; i < 2; ++i) {
    try {
      stored.raise("ctx: ");
      FAIL();
    } catch (const InvalidArgumentError& e) {
      EXPECT_STREQ(e.what(), "ctx: [f] bad");
    }
  }
  EXPECT_THROW(StoredError::capture(std::make_exception_ptr(std::out_of_range("x"))).raise(), std::out_of_range);
  EXPECT_THROW(StoredError::capture(std::make_exception_ptr(TypeError("x"))).raise(), TypeError);
  EXPECT_THROW(StoredError::capture(std::make_exception_ptr(std::bad_alloc())).raise(), RuntimeError);
  EXPECT_EQ(StoredError::capture(std::make_exception_ptr(42)).kind(), StoredError::Kind::kOther);
}

}  // namespace
}  // namespace tpustrategy
