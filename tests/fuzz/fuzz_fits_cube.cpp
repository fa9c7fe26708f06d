// Fuzz target: the FITS cube reader of the scfind job (src/io/cube.cpp, src/io/fits_cube.cpp,
// src/io/cube_values.cpp): read_cube_info as the job opens a cube, then channel ranges as the
// slabs of several ranks read them (the whole cube, from channel 1 on, the last channel alone).
#include <cmath>
#include <vector>

#include "fuzz_harness.hpp"
#include "io/cube.hpp"

using namespace astrosweep;

namespace {

void read_channels(const io::CubeInfo& info, std::size_t z0, std::size_t z1) {
  std::vector<float> out((z1 - z0) * info.nx * info.ny);
  const auto counts = io::read_cube_channels(info, z0, z1, out);
  std::uint64_t nan = 0;
  for (float v : out) {
    fuzz::require(!std::isinf(v), "infinities become blanks");
    nan += std::isnan(v) ? 1 : 0;
  }
  fuzz::require(counts.blanks + counts.infinities == nan, "every NaN counted once, as blank or infinity");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("input.fits", data, size);
  fuzz::expect_rejection_or_success([&] {
    const io::CubeInfo info = io::read_cube_info(path);
    fuzz::require(info.nx > 0 && info.ny > 0 && info.nz > 0, "an accepted cube is not empty");
    for (const auto& card : info.header_cards) fuzz::require(card.size() == 80, "header cards of 80 characters");
    // The header's promise is checked against the file's size by the reader; this bound only
    // keeps integer cubes (4 floats per stored byte) from spending the fuzzer's memory.
    if (info.nx * info.ny * info.nz > fuzz::max_elements) return;
    read_channels(info, 0, info.nz);
    if (info.nz > 1) read_channels(info, 1, info.nz);
    read_channels(info, info.nz - 1, info.nz);
  });
  return 0;
}
