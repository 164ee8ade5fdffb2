// All-reduce across processes: the MPI Communicator (handshake + local combine + MPI_Iallreduce polled
// under a deadline) vs a plain blocking MPI_Allreduce on the same buffers (the baseline) vs the
// in-process kernel reducing the same number of buffers inside one process. Run under mpirun:
//   mpirun -n 4 --oversubscribe build/benchmarks/bench_mpi_all_reduce [--tiny] [--reps N]
// One participant per process, float32 SUM, buffers of 1, 16 and 64 MiB per participant. Each rep's
// time is the slowest process's (a barrier before, a max-reduction of the times after); the printed
// figure is the median over reps. algbw = bytes per participant / time (nccl-tests' definition);
// busbw = algbw * 2 (n-1) / n. Rank 0 prints one JSON object per line.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tpustrategy/collectives/kernels.h"
#include "tpustrategy/collectives/mpi/mpi_communicator.h"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median over `reps` of the slowest process's time for `body`, after one warm-up.
double time_collective(int reps, const std::function<void()>& body) {
  body();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    body();
    double mine = std::chrono::duration<double>(Clock::now() - start).count(), slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times.push_back(slowest);
  }
  return median(times);
}

void report(int rank, const char* impl, int processes, std::size_t bytes, double seconds) {
  if (rank != 0) return;
  const double algbw = static_cast<double>(bytes) / seconds / 1e9;
  const double busbw = algbw * 2.0 * (processes - 1) / processes;
  std::printf(
      "{\"bench\": \"mpi_all_reduce\", \"impl\": \"%s\", \"processes\": %d, \"bytes\": %zu, \"median_s\": %.6g, "
      "\"algbw_GBps\": %.3f, \"busbw_GBps\": %.3f}\n",
      impl, processes, bytes, seconds, algbw, busbw);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  bool tiny = false;
  int reps = 9;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tiny") == 0) {
      tiny = true;
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--tiny] [--reps N]\n", argv[0]);
      return 2;
    }
  }
  tpustrategy::mpi_initialize();
  const int rank = tpustrategy::mpi_world_rank();
  const int processes = tpustrategy::mpi_world_size();
  auto comm = tpustrategy::make_mpi_communicator(1);
  const std::vector<std::size_t> sizes =
      tiny ? std::vector<std::size_t>{4096} : std::vector<std::size_t>{1u << 20, 16u << 20, 64u << 20};
  if (tiny) reps = 2;
  int failures = 0;
  for (std::size_t bytes : sizes) {
    const std::int64_t count = static_cast<std::int64_t>(bytes / sizeof(float));
    std::vector<float> input(count, 1.0f + rank), output(count);
    const void* in = input.data();

    const double plain = time_collective(reps, [&] {
      MPI_Allreduce(input.data(), output.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
    report(rank, "MPI_Allreduce", processes, bytes, plain);

    const double ours = time_collective(reps, [&] {
      comm->all_reduce(tpustrategy::DType::kFloat32, {&in, 1}, count, tpustrategy::CollectiveOp::kSum, output.data());
    });
    report(rank, "MpiCommunicator", processes, bytes, ours);
    const float expected = static_cast<float>(processes * (processes + 1) / 2);
    if (output[0] != expected || output[count - 1] != expected) {
      std::fprintf(stderr, "rank %d: wrong sum %g (expected %g)\n", rank, output[0], expected);
      ++failures;
    }

    // The in-process kernel over `processes` buffers, in process 0 only (the others wait).
    if (rank == 0) {
      std::vector<std::vector<float>> buffers(processes, std::vector<float>(count, 1.0f));
      std::vector<const void*> pointers;
      for (auto& b : buffers) pointers.push_back(b.data());
      std::vector<double> times;
      for (int i = 0; i <= reps; ++i) {
        const auto start = Clock::now();
        tpustrategy::all_reduce(tpustrategy::DType::kFloat32, pointers, count, tpustrategy::CollectiveOp::kSum,
                                output.data());
        if (i > 0) times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
      }
      report(rank, "in_process_kernel", processes, bytes, median(times));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  comm.reset();
  tpustrategy::mpi_finalize();
  return failures == 0 ? 0 : 1;
}
