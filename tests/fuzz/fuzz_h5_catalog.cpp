// Fuzz target: the HDF5 light-curve catalog reader (src/io/h5_catalog.cpp, src/io/h5.cpp), as a
// one-rank job opens it: the Catalog opens the file through MPI-IO, rank 0 reads and checks the
// index, then the rank reads every object's rows.
#include <hdf5.h>

#include <numeric>

#include "fuzz_harness.hpp"
#include "io/catalog.hpp"

using namespace astrosweep;

namespace {

// True when no catalog dataset claims more than fuzz::max_elements (checked before the reader
// allocates room for them); files HDF5 cannot open pass, for the reader to reject.
bool sizes_bounded(const std::string& path) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return true;
  bool bounded = true;
  for (const char* name : {"objects/id", "objects/offset", "objects/count", "objects/t_min", "objects/t_max",
                           "objects/n_flagged", "points/t", "points/y", "points/dy"}) {
    const hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0) continue;
    const hid_t space = H5Dget_space(ds);
    const hssize_t n = space < 0 ? 0 : H5Sget_simple_extent_npoints(space);
    bounded = bounded && n >= 0 && static_cast<std::uint64_t>(n) <= fuzz::max_elements;
    if (space >= 0) H5Sclose(space);
    H5Dclose(ds);
  }
  H5Fclose(file);
  return bounded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("input.h5", data, size);
  if (!sizes_bounded(path)) return 0;
  fuzz::expect_rejection_or_success([&] {
    io::CatalogOptions options;
    options.inputs = {path};
    options.format = io::InputFormat::hdf5;
    const io::Catalog catalog(options, MPI_COMM_SELF);
    const auto& index = catalog.index();
    fuzz::require(index.counts.size() == index.n_objects() && index.t_min.size() == index.n_objects() &&
                      index.t_max.size() == index.n_objects(),
                  "per-object index arrays");
    const std::uint64_t rows = std::accumulate(index.counts.begin(), index.counts.end(), std::uint64_t{0});
    const auto block = catalog.read(0, index.n_objects(), 0, rows);
    fuzz::require(block.ids == index.ids && block.counts == index.counts, "the rows read match the index");
    fuzz::require(block.t.size() == rows && block.y.size() == rows && block.n_flagged.size() == index.n_objects(),
                  "columns of the promised length");
    fuzz::require(block.dy.size() == (index.has_errors ? rows : 0), "uncertainties when the index says so");
  });
  return 0;
}
