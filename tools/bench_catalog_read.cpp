// Benchmark of reading an HDF5 light-curve catalog the way a period lane does: the index, then
// units of N consecutive objects (t, y, dy) into one block whose buffers are reused, one process,
// the file opened serially. Prints the
// time and GB/s of each pass (the first pass may read from disk, the next from the page cache),
// and the best. Compares storage layouts: contiguous datasets, and convert's chunked ones.
//   astrosweep_bench_catalog_read CATALOG.h5 [--unit N] [--repeat R]

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/h5_catalog.hpp"

using namespace astrosweep;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CATALOG.h5 [--unit N] [--repeat R]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const std::string path = argv[1];
  std::uint64_t unit = 1000;
  int repeat = 5;
  for (int a = 2; a + 1 < argc; a += 2) {
    const std::string name = argv[a];
    if (name == "--unit") unit = std::max<std::uint64_t>(1, std::strtoull(argv[a + 1], nullptr, 10));
    if (name == "--repeat") repeat = std::max(1, std::atoi(argv[a + 1]));
  }
  std::printf("# astrosweep_bench_catalog_read %s --unit %llu --repeat %d\n", path.c_str(),
              static_cast<unsigned long long>(unit), repeat);
  double best = 0;
  double gb = 0;
  for (int pass = 0; pass < repeat; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    io::H5Catalog catalog(path, MPI_COMM_NULL);
    const auto index = catalog.read_index();
    std::uint64_t row = 0, bytes = 0;
    io::LightCurveBlock block;
    for (std::uint64_t first = 0; first < index.n_objects(); first += unit) {
      const std::uint64_t n = std::min<std::uint64_t>(unit, index.n_objects() - first);
      std::uint64_t rows = 0;
      for (std::uint64_t i = first; i < first + n; ++i) rows += index.counts[i];
      catalog.read(first, n, row, rows, block);
      bytes += (block.t.size() + block.y.size() + block.dy.size()) * sizeof(double);
      row += rows;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    gb = static_cast<double>(bytes) / 1e9;
    std::printf("pass %d: %.3f s, %.2f GB/s\n", pass, seconds, gb / seconds);
    if (pass == 0 || seconds < best) best = seconds;
  }
  std::printf("best: %.3f s, %.2f GB/s (%.3f GB of t, y, dy in units of %llu objects)\n", best, gb / best, gb,
              static_cast<unsigned long long>(unit));
  MPI_Finalize();
  return 0;
}
