// main() of the MPI GoogleTest executables: MPI initialised around the tests, at least 2 processes.
#include <gtest/gtest.h>

#include <cstdio>

#include "tpustrategy/collectives/mpi/mpi_communicator.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpustrategy::mpi_initialize();
  if (tpustrategy::mpi_world_size() < 2) {
    std::fprintf(stderr, "%s needs at least 2 processes (mpirun -n 2)\n", argv[0]);
    tpustrategy::mpi_finalize();
    return 1;
  }
  const int status = RUN_ALL_TESTS();
  tpustrategy::mpi_finalize();
  return status;
}
