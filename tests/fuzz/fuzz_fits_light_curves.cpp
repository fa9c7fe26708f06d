// Fuzz target: the TESS/Kepler FITS light-curve reader (src/io/fits_light_curves.cpp, through
// CFITSIO), as rank 0 reads FITS inputs: once with the default columns and quality flags, once as
// two files of the same input (a target's sectors merged and sorted) with SAP_FLUX and no flags.
#include <cmath>
#include <numeric>

#include "fuzz_harness.hpp"
#include "io/catalog.hpp"

using namespace astrosweep;

namespace {

void check(const io::SerialRead& read) {
  const auto& b = read.block;
  fuzz::require(b.n_objects() > 0, "a successful read has objects");
  fuzz::require(b.counts.size() == b.n_objects() && b.n_flagged.size() == b.n_objects(), "per-object arrays");
  fuzz::require(std::accumulate(b.counts.begin(), b.counts.end(), std::uint64_t{0}) == b.t.size(),
                "counts add up to the rows");
  fuzz::require(b.y.size() == b.t.size() && b.dy.size() == b.t.size(), "columns of one length");
  std::uint64_t row = 0;
  for (const auto count : b.counts) {  // cadences sorted by time, NaN times last
    for (std::uint64_t r = row + 1; r < row + count; ++r)
      fuzz::require(std::isnan(b.t[r]) || (!std::isnan(b.t[r - 1]) && b.t[r - 1] <= b.t[r]), "times sorted");
    row += count;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("input.fits", data, size);
  io::CatalogOptions options;
  options.format = io::InputFormat::fits;
  options.inputs = {path};
  fuzz::expect_rejection_or_success([&] { check(io::read_serial(io::resolve_inputs(options), options)); });
  options.inputs = {path, path};
  options.fits.flux_column = "SAP_FLUX";
  options.fits.use_quality = false;
  fuzz::expect_rejection_or_success([&] { check(io::read_serial(io::resolve_inputs(options), options)); });
  return 0;
}
