// Times the scfind product's /mask write on this machine's cores: a WALLABY-size mask (default
// 1500 x 1500 x 1400, 736,723 ones: the raw mask of the WALLABY-region cube) written from the
// offsets of its ones (h5::write_deflated_mask_offsets) and, with --dense, from the dense mask
// (h5::write_deflated_channels, zlib on every core), into a dataset made as ScfindProduct makes
// /mask (chunks of one channel, about 1 MiB, deflate level 1). The ones are scattered uniformly,
// the worst case for skipping chunks. Run under mpirun: every rank writes its own channels. Prints
// the figures and the command line (docs/performance.md).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "io/h5_deflate_chunks.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  namespace h5 = astrosweep::h5;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::uint64_t nx = 1500, ny = 1500, nz = 1400, ones = 736723;
  bool dense = false;
  std::string path = "bench_mask_write.h5";
  std::string command = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    command += " " + a;
    auto next = [&] {
      command += std::string(" ") + argv[i + 1];
      return std::strtoull(argv[++i], nullptr, 10);
    };
    if (a == "--nx" && i + 1 < argc)
      nx = next();
    else if (a == "--ny" && i + 1 < argc)
      ny = next();
    else if (a == "--nz" && i + 1 < argc)
      nz = next();
    else if (a == "--ones" && i + 1 < argc)
      ones = next();
    else if (a == "--dense")
      dense = true;
    else if (a == "-o" && i + 1 < argc)
      path = argv[++i], command += " " + path;
    else {
      if (rank == 0) std::fprintf(stderr, "usage: %s [--nx N --ny N --nz N --ones N --dense -o FILE]\n", argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  const std::uint64_t plane = nx * ny;
  const std::uint64_t z0 = nz * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(size);
  const std::uint64_t z1 = nz * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(size);
  // This rank's share of the ones, uniform over its channels, ascending.
  std::mt19937_64 rng(static_cast<std::uint64_t>(rank) + 1);
  const std::uint64_t mine = ones * (z1 - z0) / nz;
  std::vector<std::uint64_t> offsets(mine);
  for (auto& o : offsets) o = rng() % ((z1 - z0) * plane);
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  const std::uint64_t rows = std::max<std::uint64_t>(1, (1U << 20) / nx);  // as ScfindProduct makes /mask
  auto write = [&](bool from_offsets) {
    h5::Id file = h5::open_file(path, h5::Access::create_truncate, MPI_COMM_WORLD);
    h5::Id mask = h5::create_chunked_dataset(file.get(), "mask", H5T_NATIVE_UINT8, {nz, ny, nx}, {1, rows, nx}, 1U);
    std::vector<std::uint8_t> block;
    if (!from_offsets) {
      block.assign((z1 - z0) * plane, 0);
      for (const auto o : offsets) block[o] = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    const h5::DeflatedChannels done =
        from_offsets ? h5::write_deflated_mask_offsets(mask.get(), z0, z1 - z0, offsets, MPI_COMM_WORLD)
                     : h5::write_deflated_channels(mask.get(), H5T_NATIVE_UINT8, z0,
                                                   std::as_bytes(std::span<const std::uint8_t>(block)), MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double seconds = seconds_since(t0);
    h5::flush(file.get());
    if (rank == 0)
      std::printf("%-12s %.3f s  %llu of %llu chunks written, %.1f MB compressed%s\n",
                  from_offsets ? "from offsets" : "dense", seconds, static_cast<unsigned long long>(done.written),
                  static_cast<unsigned long long>(done.chunks), static_cast<double>(done.compressed_bytes) / 1e6,
                  done.through_hdf5 ? " (through HDF5)" : "");
  };
  if (rank == 0)
    std::printf("# %s\n# %llu x %llu x %llu, %llu ones, %d rank(s), chunks (1, %llu, %llu)\n", command.c_str(),
                static_cast<unsigned long long>(nx), static_cast<unsigned long long>(ny),
                static_cast<unsigned long long>(nz), static_cast<unsigned long long>(ones), size,
                static_cast<unsigned long long>(rows), static_cast<unsigned long long>(nx));
  write(true);
  if (dense) write(false);
  MPI_Finalize();
  return 0;
}
