// Fuzz target: the CSV light-curve reader (src/io/csv_light_curves.cpp), as rank 0 reads a CSV
// input (read_serial: the reader, then the unique-id check), and the index rank 0 plans with.
#include <numeric>

#include "fuzz_harness.hpp"
#include "io/catalog.hpp"

using namespace astrosweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("input.csv", data, size);
  fuzz::expect_rejection_or_success([&] {
    io::CatalogOptions options;
    options.inputs = {path};
    options.format = io::InputFormat::csv;
    const auto read = io::read_serial(io::resolve_inputs(options), options);
    const auto& b = read.block;
    fuzz::require(b.n_objects() > 0, "a successful read has objects");
    fuzz::require(b.counts.size() == b.n_objects() && b.n_flagged.size() == b.n_objects(), "per-object arrays");
    fuzz::require(std::accumulate(b.counts.begin(), b.counts.end(), std::uint64_t{0}) == b.t.size(),
                  "counts add up to the rows");
    fuzz::require(b.y.size() == b.t.size() && (b.dy.empty() || b.dy.size() == b.t.size()), "columns of one length");
    const auto index = io::index_of(b, read.time_reference);
    fuzz::require(index.n_objects() == b.n_objects(), "index of every object");
  });
  return 0;
}
