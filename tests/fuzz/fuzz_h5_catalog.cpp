// Fuzz target: the HDF5 light-curve catalog reader (src/io/h5_catalog.cpp, src/io/h5.cpp), as a
// one-rank job opens it: the Catalog opens the file through MPI-IO, rank 0 reads and checks the
// index, then the rank reads every object's rows.
//
// The input is not the file's bytes: it describes a catalog (which datasets exist, with which
// element type, rank, length, layout and values; which attributes, of which type), which this
// target writes with HDF5 and the reader then reads, optionally cut short. A well-formed HDF5
// file with hostile contents is what our reader must get right; byte-level mutations of the file
// mostly exercise HDF5's own decoder, and HDF5 1.10 has memory errors there we cannot fix (a
// heap overflow in H5Aexists within a minute of fuzzing; docs/testing.md).
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <vector>

#include "fuzz_harness.hpp"
#include "io/catalog.hpp"
#include "io/h5.hpp"
#include "io/h5_catalog.hpp"

using namespace astrosweep;

namespace {

// Reads the description: each call takes the next bytes; past the end, zeros.
class Description {
 public:
  Description(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::size_t below(std::size_t n) { return byte() % n; }
  bool one_in(std::size_t n) { return below(n) == 0; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | byte();
    return v;
  }
  double f64() {
    const std::uint64_t bits = u64();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

hid_t string_type(std::size_t size) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, size);
  return type;
}

void attribute(hid_t file, const char* name, Description& d, const std::string& good, std::int64_t good_int) {
  const h5::Id space(H5Screate(H5S_SCALAR));
  switch (d.below(8)) {
    case 0: return;  // absent
    case 1: {        // the wrong text
      const std::string wrong = good.substr(0, d.below(good.size() + 1)) + "x";
      h5::set_attribute(file, name, wrong);
      return;
    }
    case 2: h5::set_attribute(file, name, static_cast<std::int64_t>(d.u64())); return;
    case 3: h5::set_attribute(file, name, d.f64()); return;
    case 4: {  // a variable-length string
      const h5::Id type(H5Tcopy(H5T_C_S1));
      H5Tset_size(type.get(), H5T_VARIABLE);
      const h5::Id attr(H5Acreate2(file, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
      const char* text = good.c_str();
      H5Awrite(attr.get(), type.get(), &text);
      return;
    }
    case 5: {  // an array of two
      const hsize_t two = 2;
      const h5::Id space2(H5Screate_simple(1, &two, nullptr));
      const h5::Id attr(H5Acreate2(file, name, H5T_NATIVE_INT64, space2.get(), H5P_DEFAULT, H5P_DEFAULT));
      const std::int64_t values[2] = {good_int, good_int};
      H5Awrite(attr.get(), H5T_NATIVE_INT64, values);
      return;
    }
    default:  // as astrosweep convert writes it
      if (good.empty())
        h5::set_attribute(file, name, good_int);
      else
        h5::set_attribute(file, name, good);
  }
}

// One catalog dataset: its natural values (as double or int64), written with a fuzzed element
// type, rank, length and layout.
template <class T>
void dataset(hid_t group, const char* name, std::vector<T> values, Description& d) {
  if (d.one_in(16)) return;  // missing
  static_assert(sizeof(T) == 8);
  const hid_t memory_type = std::is_same_v<T, double>          ? H5T_NATIVE_DOUBLE
                            : std::is_same_v<T, std::uint64_t> ? H5T_NATIVE_UINT64
                                                               : H5T_NATIVE_INT64;
  hid_t file_type = memory_type;
  bool text = false;
  switch (d.below(16)) {
    case 0: file_type = H5T_NATIVE_FLOAT; break;
    case 1: file_type = H5T_NATIVE_INT32; break;
    case 2: file_type = H5T_NATIVE_UINT8; break;
    case 3: file_type = H5T_NATIVE_UINT64; break;
    case 4: file_type = H5T_NATIVE_DOUBLE; break;
    case 5: text = true; break;
    default: break;
  }
  if (d.one_in(8)) values.resize(values.size() + d.below(5), T{});  // longer than the others
  if (d.one_in(8)) values.resize(values.size() - std::min(values.size(), d.below(3) + 1));
  for (auto& v : values) {
    if (!d.one_in(16)) continue;
    if constexpr (std::is_same_v<T, double>)
      v = d.f64();
    else
      v = static_cast<T>(d.u64());
  }
  std::vector<hsize_t> dims{values.size()};
  const std::size_t shape = d.below(16);
  if (shape == 0) dims.clear();                    // a scalar
  if (shape == 1) dims.push_back(1 + d.below(3));  // two-dimensional
  if (shape == 2) dims.insert(dims.begin(), 1);    // leading axis of one
  std::size_t n = 1;
  for (auto x : dims) n *= x;
  values.resize(n, T{});
  const h5::Id space(dims.empty() ? H5Screate(H5S_SCALAR)
                                  : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  const h5::Id dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (!dims.empty() && d.one_in(4)) {
    std::vector<hsize_t> chunk(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i)
      chunk[i] = std::max<hsize_t>(1, std::min<hsize_t>(dims[i], 1 + d.below(4)));
    H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data());
    if (d.one_in(2)) H5Pset_deflate(dcpl.get(), 1);
  }
  const h5::Id type(text ? string_type(8) : H5Tcopy(file_type));
  const hid_t ds = H5Dcreate2(group, name, type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT);
  if (ds < 0) return;
  const h5::Id owned(ds);
  if (!text && n > 0) H5Dwrite(ds, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
}

// Writes the catalog the input describes; returns false when HDF5 refused the description.
bool write_catalog(const std::string& path, Description& d) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) return false;
  {
    const h5::Id owned(file);
    attribute(file, "format", d, io::catalog_format_name, 0);
    attribute(file, "format_version", d, "", io::catalog_format_version);
    attribute(file, "time_reference", d, "MJD", 0);

    const std::size_t n_objects = d.below(7);
    std::vector<std::int64_t> ids(n_objects), flagged(n_objects);
    std::vector<std::uint64_t> counts(n_objects), offsets(n_objects);
    std::vector<double> t_min(n_objects), t_max(n_objects);
    std::uint64_t rows = 0;  // the rows written: huge counts promise rows that are not there
    for (std::size_t i = 0; i < n_objects; ++i) {
      ids[i] = d.one_in(4) ? static_cast<std::int8_t>(d.byte()) : static_cast<std::int64_t>(i) * 7;
      counts[i] = d.one_in(16) ? d.u64() : d.below(5);
      offsets[i] = d.one_in(16) ? d.u64() : rows;
      flagged[i] = d.byte();
      t_min[i] = 1.0;
      t_max[i] = 2.0;
      rows += counts[i] < 8 ? counts[i] : 0;
    }
    std::vector<double> t(rows), y(t.size()), dy(t.size());
    for (std::size_t r = 0; r < t.size(); ++r) {
      t[r] = d.one_in(8) ? d.f64() : static_cast<double>(r);
      y[r] = d.f64();
      dy[r] = 0.1;
    }
    const hid_t objects = H5Gcreate2(file, "objects", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t points = H5Gcreate2(file, "points", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (objects < 0 || points < 0) return false;
    const h5::Id owned_objects(objects), owned_points(points);
    dataset(objects, "id", ids, d);
    dataset(objects, "offset", offsets, d);
    dataset(objects, "count", counts, d);
    dataset(objects, "t_min", t_min, d);
    dataset(objects, "t_max", t_max, d);
    dataset(objects, "n_flagged", flagged, d);
    dataset(points, "t", t, d);
    dataset(points, "y", y, d);
    if (!d.one_in(3)) dataset(points, "dy", dy, d);
  }
  // Sometimes the file is cut short, as an interrupted copy leaves it.
  if (d.one_in(16)) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > 0 && ::truncate(path.c_str(), static_cast<off_t>(d.u64() % size)) != 0) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_path("input.h5");
  Description description(data, size);
  if (!write_catalog(path, description)) return 0;
  fuzz::expect_rejection_or_success([&] {
    io::CatalogOptions options;
    options.inputs = {path};
    options.format = io::InputFormat::hdf5;
    const io::Catalog catalog(options, MPI_COMM_SELF);
    const auto& index = catalog.index();
    fuzz::require(index.counts.size() == index.n_objects() && index.t_min.size() == index.n_objects() &&
                      index.t_max.size() == index.n_objects(),
                  "per-object index arrays");
    std::uint64_t rows = 0;
    for (const auto count : index.counts) {
      fuzz::require(count <= fuzz::max_elements && rows + count >= rows, "counts the file can hold");
      rows += count;
    }
    const auto block = catalog.read(0, index.n_objects(), 0, rows);
    fuzz::require(block.ids == index.ids && block.counts == index.counts, "the rows read match the index");
    fuzz::require(block.t.size() == rows && block.y.size() == rows && block.n_flagged.size() == index.n_objects(),
                  "columns of the promised length");
    fuzz::require(block.dy.size() == (index.has_errors ? rows : 0), "uncertainties when the index says so");
  });
  return 0;
}
