// GoogleTest main for astrosweep: unit tests run inside an MPI environment (one rank), since the
// HDF5 library is the parallel build and some tests open files through MPI-IO.
#include <gtest/gtest.h>

#include "core/mpi.hpp"

int main(int argc, char** argv) {
  astrosweep::mpi::Session session(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
