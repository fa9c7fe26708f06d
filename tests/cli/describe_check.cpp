// Checks that an HDF5 product describes itself: every dataset has a "units" attribute (possibly
// empty, for counts and codes) and a non-trivial "description", and each `--scale DATASET DIM`
// has a dimension scale attached to that dimension (the axis h5py shows as dataset.dims[DIM][0]).
//   describe_check FILE [--scale DATASET DIM]...
// Exits 0 when all holds, 1 naming every dataset that fails, 2 on bad usage.
#include <hdf5.h>
#include <hdf5_hl.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/h5.hpp"

namespace h5 = astrosweep::h5;

namespace {

herr_t collect(hid_t, const char* name, const H5O_info_t* info, void* out) {
  if (info->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (argc - 2) % 3 != 0) {
    std::fprintf(stderr, "usage: describe_check FILE [--scale DATASET DIM]...\n");
    return 2;
  }
  try {
    h5::Id file = h5::open_file(argv[1], h5::Access::read);
    std::vector<std::string> datasets;
    h5::check(H5Ovisit(file.get(), H5_INDEX_NAME, H5_ITER_NATIVE, collect, &datasets), "H5Ovisit");
    int failures = 0;
    for (const auto& name : datasets) {
      h5::Id ds = h5::open_dataset(file.get(), name);
      const bool units = h5::string_attribute(ds.get(), "units").has_value();
      const bool description = h5::string_attribute(ds.get(), "description").value_or("").size() > 3;
      if (!units || !description) {
        std::printf("%s: %s\n", name.c_str(), !units ? "no units attribute" : "no description");
        ++failures;
      }
    }
    for (int i = 2; i + 2 < argc; i += 3) {
      const std::string name = argv[i + 1];
      h5::Id ds = h5::open_dataset(file.get(), name);
      const int scales = H5DSget_num_scales(ds.get(), static_cast<unsigned>(std::atoi(argv[i + 2])));
      if (scales < 1) {
        std::printf("%s: no dimension scale on dimension %s\n", name.c_str(), argv[i + 2]);
        ++failures;
      }
    }
    std::printf("%zu datasets, %d without units, a description or a scale asked for\n", datasets.size(), failures);
    return failures == 0 ? 0 : 1;
  } catch (const astrosweep::Error& e) {
    std::fprintf(stderr, "describe_check: %s\n", e.what());
    return 1;
  }
}
