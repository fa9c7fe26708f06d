#include "io/h5.hpp"

#include <hdf5_hl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::h5 {

namespace {
herr_t close_any(hid_t id) {
  switch (H5Iget_type(id)) {
    case H5I_FILE: return H5Fclose(id);
    case H5I_GROUP: return H5Gclose(id);
    case H5I_DATASET: return H5Dclose(id);
    case H5I_DATASPACE: return H5Sclose(id);
    case H5I_DATATYPE: return H5Tclose(id);
    case H5I_ATTR: return H5Aclose(id);
    case H5I_GENPROP_LST: return H5Pclose(id);
    default: return H5Idec_ref(id);
  }
}
}  // namespace

void check(herr_t status, const char* what) {
  if (status < 0) throw Error(ExitCode::internal, std::string("HDF5 operation failed: ") + what);
}

void silence_library_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

Id::Id(hid_t id) : id_(id) {
  if (id < 0) throw Error(ExitCode::internal, "HDF5 returned an invalid identifier");
}
Id::~Id() { reset(); }
Id::Id(Id&& other) noexcept : id_(other.id_) { other.id_ = H5I_INVALID_HID; }
Id& Id::operator=(Id&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.id_;
    other.id_ = H5I_INVALID_HID;
  }
  return *this;
}
hid_t Id::release() noexcept {
  const hid_t id = id_;
  id_ = H5I_INVALID_HID;
  return id;
}
void Id::reset() noexcept {
  // Closing may be collective (files opened through MPI-IO): not while one rank unwinds an error.
  if (id_ >= 0 && !mpi::unwinding_in_parallel()) close_any(id_);
  id_ = H5I_INVALID_HID;
}

template <>
hid_t native_type<double>() {
  return H5T_NATIVE_DOUBLE;
}
template <>
hid_t native_type<float>() {
  return H5T_NATIVE_FLOAT;
}
template <>
hid_t native_type<std::int64_t>() {
  return H5T_NATIVE_INT64;
}
template <>
hid_t native_type<std::uint64_t>() {
  return H5T_NATIVE_UINT64;
}
template <>
hid_t native_type<std::int32_t>() {
  return H5T_NATIVE_INT32;
}
template <>
hid_t native_type<std::uint32_t>() {
  return H5T_NATIVE_UINT32;
}
template <>
hid_t native_type<std::uint8_t>() {
  return H5T_NATIVE_UINT8;
}
template <>
hid_t native_type<std::int8_t>() {
  return H5T_NATIVE_INT8;
}
template <>
hid_t native_type<std::int16_t>() {
  return H5T_NATIVE_INT16;
}

bool is_hdf5(const std::string& path) {
  silence_library_errors();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  return H5Fis_hdf5(path.c_str()) > 0;
}

namespace {
// The system's reason for a failed file operation, when the last one set errno to something a
// user can act on; HDF5 and MPI-IO keep errno from the failing call but do not report it.
std::string system_reason(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EIO:
    case EROFS:
    case EACCES:
    case EPERM:
    case EISDIR: return std::string(": ") + std::strerror(error);
    default: return {};
  }
}

constexpr const char* write_hint =
    "check the free space and quota of the output's file system (and 'ulimit -f'), "
    "then run again; the product is not marked complete";
}  // namespace

void throw_write_failure(hid_t object, int error) {
  throw OutputError("writing '" + name_of(object) + "' failed" + system_reason(error), write_hint);
}

std::string name_of(hid_t object) {
  std::string file(static_cast<std::size_t>(std::max<ssize_t>(H5Fget_name(object, nullptr, 0), 0)), '\0');
  if (!file.empty()) H5Fget_name(object, file.data(), file.size() + 1);
  std::string path(static_cast<std::size_t>(std::max<ssize_t>(H5Iget_name(object, nullptr, 0), 0)), '\0');
  if (!path.empty()) H5Iget_name(object, path.data(), path.size() + 1);
  return path.empty() || path == "/" ? file : file + ":" + path;
}

void flush(hid_t file) {
  errno = 0;
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
    throw OutputError("writing '" + name_of(file) + "' failed" + system_reason(errno), write_hint);
}

void close_file(Id& file) {
  const std::string name = name_of(file.get());
  errno = 0;
  if (H5Fclose(file.release()) < 0)
    throw OutputError("writing '" + name + "' failed when closing it" + system_reason(errno), write_hint);
}

Id open_file(const std::string& path, Access access, MPI_Comm comm) {
  silence_library_errors();
  Id fapl(H5Pcreate(H5P_FILE_ACCESS));
  if (comm != MPI_COMM_NULL) {
    check(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    // Metadata is flushed collectively at close. Metadata *reads* stay independent: ranks open
    // datasets and read rows on their own schedule, and collective reads would deadlock that.
    check(H5Pset_coll_metadata_write(fapl.get(), true), "H5Pset_coll_metadata_write");
  }
  hid_t id = H5I_INVALID_HID;
  errno = 0;
  if (access == Access::read) {
    id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
    // MPI-IO does not keep errno: ask the system whether the file can be read at all.
    if (id < 0 && ::access(path.c_str(), R_OK) != 0)
      throw InputError("cannot open HDF5 file '" + path + "'" + system_reason(errno),
                       "check that it exists and is readable by the user running astrosweep");
    if (id < 0)
      throw InputError("cannot open HDF5 file '" + path + "'" + system_reason(errno),
                       "check that it exists, is readable and is a complete HDF5 file (a truncated or damaged "
                       "file cannot be opened: copy or create it again)");
  } else if (access == Access::read_write) {
    id = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get());
    if (id < 0)
      throw OutputError("cannot open '" + path + "' to continue writing it" + system_reason(errno),
                        "check that it is an HDF5 file and that it and its directory are writable");
  } else {
    Id fcpl(H5Pcreate(H5P_FILE_CREATE));
    // Attribute order tracking off and no timestamps: identical runs give identical bytes.
    id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get());
    if (id < 0)
      throw OutputError("cannot create output file '" + path + "'" + system_reason(errno),
                        "check that the directory exists and is writable and that there is free space");
  }
  return Id(id);
}

bool exists(hid_t loc, const std::string& path) {
  // Walk the path so a missing intermediate group is "does not exist", not an error.
  std::string partial;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    partial = path.substr(0, slash);
    if (!partial.empty() && H5Lexists(loc, partial.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

Id create_group(hid_t loc, const std::string& name) {
  return Id(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

Id open_group(hid_t loc, const std::string& name) {
  hid_t id = H5Gopen2(loc, name.c_str(), H5P_DEFAULT);
  if (id < 0) throw InputError(name_of(loc) + ": HDF5 group '" + name + "' is missing");
  return Id(id);
}

namespace {
// Storage allocated at creation, so ranks can later write their parts independently without
// touching metadata; never filled: every element is written by the rank that computed it. No
// timestamps: identical runs give identical bytes.
Id storage_properties() {
  Id dcpl(H5Pcreate(H5P_DATASET_CREATE));
  check(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), "H5Pset_alloc_time");
  check(H5Pset_obj_track_times(dcpl.get(), false), "H5Pset_obj_track_times");
  check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
  return dcpl;
}

Id create_with(hid_t loc, const std::string& name, hid_t type, const std::vector<std::uint64_t>& d, hid_t dcpl) {
  std::vector<hsize_t> hd(d.begin(), d.end());
  Id space(H5Screate_simple(static_cast<int>(hd.size()), hd.data(), nullptr));
  hid_t id = H5Dcreate2(loc, name.c_str(), type, space.get(), H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (id < 0) throw OutputError("cannot create dataset '" + name + "' (disk full or file not writable?)");
  return Id(id);
}
}  // namespace

Id create_dataset(hid_t loc, const std::string& name, hid_t type, const std::vector<std::uint64_t>& d) {
  return create_with(loc, name, type, d, storage_properties().get());
}

Id create_chunked_dataset(hid_t loc, const std::string& name, hid_t type, const std::vector<std::uint64_t>& d,
                          const std::vector<std::uint64_t>& chunk_dims, std::optional<unsigned> deflate_level) {
  AS_ASSERT(!d.empty() && chunk_dims.size() == d.size());
  // HDF5 refuses chunks larger than a fixed-size dataset's extent, and empty ones.
  std::vector<hsize_t> chunk(d.size());
  for (std::size_t i = 0; i < d.size(); ++i)
    chunk[i] = std::clamp<hsize_t>(chunk_dims[i], 1, std::max<hsize_t>(d[i], 1));
  Id dcpl = storage_properties();
  check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), "H5Pset_chunk");
  if (deflate_level) {
    AS_ASSERT(*deflate_level >= 1 && *deflate_level <= 9);
    // A filtered chunk is stored as what it compresses to, so it cannot be allocated at its full
    // size up front and written in place later: HDF5's defaults for chunked datasets instead.
    check(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_DEFAULT), "H5Pset_alloc_time");
    check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_IFSET), "H5Pset_fill_time");
    check(H5Pset_deflate(dcpl.get(), *deflate_level), "H5Pset_deflate");
  }
  return create_with(loc, name, type, d, dcpl.get());
}

bool deflate_available() {
  if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0) return false;
  unsigned config = 0;
  if (H5Zget_filter_info(H5Z_FILTER_DEFLATE, &config) < 0) return false;
  return (config & H5Z_FILTER_CONFIG_ENCODE_ENABLED) != 0;
}

bool is_filtered(hid_t dataset) {
  Id dcpl(H5Dget_create_plist(dataset));
  const int filters = H5Pget_nfilters(dcpl.get());
  check(filters, "H5Pget_nfilters");
  return filters > 0;
}

std::uint64_t storage_size(hid_t dataset) { return H5Dget_storage_size(dataset); }

Id create_growing_dataset(hid_t loc, const std::string& name, hid_t type, std::uint64_t chunk_rows) {
  Id dcpl(H5Pcreate(H5P_DATASET_CREATE));
  const hsize_t chunk = std::max<hsize_t>(chunk_rows, 1);
  check(H5Pset_chunk(dcpl.get(), 1, &chunk), "H5Pset_chunk");
  check(H5Pset_obj_track_times(dcpl.get(), false), "H5Pset_obj_track_times");
  check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
  Id space(H5Screate_simple(1, &zero, &unlimited));
  hid_t id = H5Dcreate2(loc, name.c_str(), type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT);
  if (id < 0) throw OutputError("cannot create dataset '" + name + "' (disk full or file not writable?)");
  return Id(id);
}

std::uint64_t append_rows(hid_t dataset, hid_t type, std::uint64_t n_rows, const void* data) {
  const auto d = dims(dataset);
  AS_ASSERT(d.size() == 1);
  const hsize_t grown = d[0] + n_rows;
  errno = 0;
  if (H5Dset_extent(dataset, &grown) < 0)
    throw OutputError("writing '" + name_of(dataset) + "' failed" + system_reason(errno), write_hint);
  write_hyperslab(dataset, type, {d[0]}, {n_rows}, data);
  return d[0];
}

void truncate_rows(hid_t dataset, std::uint64_t n_rows) {
  AS_ASSERT(dims(dataset).size() == 1 && dims(dataset)[0] >= n_rows);
  const hsize_t length = n_rows;
  errno = 0;
  if (H5Dset_extent(dataset, &length) < 0)
    throw OutputError("writing '" + name_of(dataset) + "' failed" + system_reason(errno), write_hint);
}

Id open_dataset(hid_t loc, const std::string& name) {
  hid_t id = H5Dopen2(loc, name.c_str(), H5P_DEFAULT);
  if (id < 0) throw InputError(name_of(loc) + ": HDF5 dataset '" + name + "' is missing");
  return Id(id);
}

std::vector<std::uint64_t> dims(hid_t dataset) {
  Id space(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  check(rank, "H5Sget_simple_extent_ndims");
  std::vector<hsize_t> d(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), d.data(), nullptr);
  return {d.begin(), d.end()};
}

std::uint64_t column_length(hid_t dataset) {
  const auto d = dims(dataset);
  const Id type(H5Dget_type(dataset));
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (d.size() == 1 && (type_class == H5T_INTEGER || type_class == H5T_FLOAT)) return d[0];
  std::string name(256, '\0');
  const ssize_t length = H5Iget_name(dataset, name.data(), name.size());  // the full length; cut to fit
  name.resize(static_cast<std::size_t>(std::clamp<ssize_t>(length, 0, static_cast<ssize_t>(name.size()) - 1)));
  throw InputError("HDF5 dataset '" + name + "' is " +
                       (d.size() == 1 ? std::string("not numeric") : "of rank " + std::to_string(d.size())) +
                       ", where a one-dimensional column of numbers is expected",
                   "the file does not have the layout astrosweep reads (docs/formats.md)");
}

namespace {
// The file and memory dataspaces of the block [offset, offset + count); a zero count selects
// nothing in both, so a rank with nothing to do can still take part in a collective transfer.
std::pair<Id, Id> select(hid_t dataset, const std::vector<std::uint64_t>& offset,
                         const std::vector<std::uint64_t>& count) {
  Id file_space(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(file_space.get());
  check(rank, "H5Sget_simple_extent_ndims");
  AS_ASSERT(offset.size() == static_cast<std::size_t>(rank) && count.size() == offset.size());
  const std::vector<hsize_t> start(offset.begin(), offset.end()), n(count.begin(), count.end());
  hsize_t n_mem = 1;
  for (auto c : n) n_mem *= c;
  if (n_mem == 0) {
    check(H5Sselect_none(file_space.get()), "H5Sselect_none");
  } else {
    check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, n.data(), nullptr),
          "H5Sselect_hyperslab");
  }
  // The memory space has the block's own shape: with a flat one HDF5 maps every chunk of a
  // chunked dataset onto a 1-D selection element run by element run (8 s instead of 0.2 s for
  // 256 MiB in 1 MiB chunks).
  Id mem_space = n_mem == 0 ? Id(H5Screate_simple(1, &n_mem, nullptr)) : Id(H5Screate_simple(rank, n.data(), nullptr));
  if (n_mem == 0) check(H5Sselect_none(mem_space.get()), "H5Sselect_none");
  return {std::move(file_space), std::move(mem_space)};
}

// Collective only where the file is open through MPI-IO: HDF5 refuses a collective transfer on a
// file opened serially, and a one-rank run may well have opened it so.
Id transfer_properties(hid_t dataset, Transfer transfer) {
  Id dxpl(H5Pcreate(H5P_DATASET_XFER));
  if (transfer == Transfer::collective) {
    Id file(H5Iget_file_id(dataset));
    Id fapl(H5Fget_access_plist(file.get()));
    if (H5Pget_driver(fapl.get()) == H5FD_MPIO)
      check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  }
  return dxpl;
}

// Offset and count of rows [row0, row0 + n_rows) x [col0, col0 + n_cols) of a 1-D or 2-D dataset
// (all columns when n_cols is empty).
std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>> rows_block(hid_t dataset, std::uint64_t row0,
                                                                             std::uint64_t n_rows, std::uint64_t col0,
                                                                             std::optional<std::uint64_t> n_cols) {
  auto full = dims(dataset);
  AS_EXPECTS(full.size() == 1 || full.size() == 2, InputError,
             "an HDF5 dataset of rank " + std::to_string(full.size()) + " where rows of a table are expected");
  std::vector<std::uint64_t> offset(full.size(), 0);
  offset[0] = row0;
  full[0] = n_rows;
  if (full.size() == 2) {
    offset[1] = col0;
    full[1] = n_cols.value_or(full[1]);
  }
  return {offset, full};
}
}  // namespace

void write_hyperslab(hid_t dataset, hid_t type, const std::vector<std::uint64_t>& offset,
                     const std::vector<std::uint64_t>& count, const void* data, Transfer transfer) {
  auto [file_space, mem_space] = select(dataset, offset, count);
  Id dxpl = transfer_properties(dataset, transfer);
  errno = 0;
  if (H5Dwrite(dataset, type, mem_space.get(), file_space.get(), dxpl.get(), data) < 0)
    throw_write_failure(dataset, errno);
}

void read_hyperslab(hid_t dataset, hid_t type, const std::vector<std::uint64_t>& offset,
                    const std::vector<std::uint64_t>& count, void* data, Transfer transfer) {
  auto [file_space, mem_space] = select(dataset, offset, count);
  Id dxpl = transfer_properties(dataset, transfer);
  if (H5Dread(dataset, type, mem_space.get(), file_space.get(), dxpl.get(), data) < 0)
    throw InputError("reading '" + name_of(dataset) + "' failed",
                     "the file may be truncated or damaged, or the dataset's type is not numeric; copy or create "
                     "it again");
}

void write_block(hid_t dataset, hid_t type, std::uint64_t row0, std::uint64_t n_rows, std::uint64_t col0,
                 std::uint64_t n_cols, const void* data) {
  const auto [offset, count] = rows_block(dataset, row0, n_rows, col0, n_cols);
  write_hyperslab(dataset, type, offset, count, data);
}

void write_rows(hid_t dataset, hid_t type, std::uint64_t first_row, std::uint64_t n_rows, const void* data) {
  const auto [offset, count] = rows_block(dataset, first_row, n_rows, 0, std::nullopt);
  write_hyperslab(dataset, type, offset, count, data);
}

void read_rows(hid_t dataset, hid_t type, std::uint64_t first_row, std::uint64_t n_rows, void* data) {
  const auto [offset, count] = rows_block(dataset, first_row, n_rows, 0, std::nullopt);
  read_hyperslab(dataset, type, offset, count, data);
}

namespace {
void write_attribute(hid_t loc, const std::string& name, hid_t type, const void* value) {
  if (H5Aexists(loc, name.c_str()) > 0) check(H5Adelete(loc, name.c_str()), "H5Adelete");
  Id space(H5Screate(H5S_SCALAR));
  Id attr(H5Acreate2(loc, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  check(H5Awrite(attr.get(), type, value), "H5Awrite");
}
}  // namespace

void set_attribute(hid_t loc, const std::string& name, const std::string& value) {
  // Fixed-length strings: readable by h5py and astropy, and writable collectively in parallel files.
  Id type(H5Tcopy(H5T_C_S1));
  check(H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)), "H5Tset_size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "H5Tset_strpad");
  write_attribute(loc, name, type.get(), value.empty() ? "" : value.data());
}
void set_attribute(hid_t loc, const std::string& name, double value) {
  write_attribute(loc, name, H5T_NATIVE_DOUBLE, &value);
}
void set_attribute(hid_t loc, const std::string& name, std::int64_t value) {
  write_attribute(loc, name, H5T_NATIVE_INT64, &value);
}

namespace {
// The attribute `name` of `loc` when it holds one value of `type_class` (H5T_NO_CLASS: a number);
// an invalid Id otherwise. Reading an array into one value would overrun it.
Id single_value_attribute(hid_t loc, const std::string& name, H5T_class_t type_class) {
  if (H5Aexists(loc, name.c_str()) <= 0) return {};
  Id attr(H5Aopen(loc, name.c_str(), H5P_DEFAULT));
  const Id space(H5Aget_space(attr.get()));
  const Id type(H5Aget_type(attr.get()));
  const H5T_class_t found = H5Tget_class(type.get());
  const bool kind = type_class == H5T_NO_CLASS ? found == H5T_INTEGER || found == H5T_FLOAT : found == type_class;
  if (H5Sget_simple_extent_npoints(space.get()) != 1 || !kind) return {};
  return attr;
}
}  // namespace

namespace {
// Owns the buffer HDF5 allocates for a variable-length string read into a char*.
class VariableString {
 public:
  VariableString() = default;
  ~VariableString() {
    if (text_ != nullptr) H5free_memory(text_);
  }
  VariableString(const VariableString&) = delete;
  VariableString& operator=(const VariableString&) = delete;
  [[nodiscard]] char** out() noexcept { return &text_; }
  [[nodiscard]] std::string value() const { return text_ == nullptr ? std::string() : std::string(text_); }

 private:
  char* text_ = nullptr;
};
}  // namespace

std::optional<std::string> string_attribute(hid_t loc, const std::string& name) {
  const Id attr = single_value_attribute(loc, name, H5T_STRING);
  if (!attr.valid()) return std::nullopt;
  Id type(H5Aget_type(attr.get()));
  // Read in the attribute's own character set (h5py writes UTF-8, astrosweep ASCII): HDF5 does not
  // convert strings between the two. The bytes are kept as they are.
  Id mem(H5Tcopy(H5T_C_S1));
  check(H5Tset_cset(mem.get(), H5Tget_cset(type.get())), "H5Tset_cset");
  if (H5Tis_variable_str(type.get()) > 0) {
    // h5py's default for str attributes: one variable-length string.
    check(H5Tset_size(mem.get(), H5T_VARIABLE), "H5Tset_size");
    VariableString text;
    check(H5Aread(attr.get(), mem.get(), text.out()), "H5Aread");
    return text.value();
  }
  // One byte more than stored, so a NUL-terminated read never cuts the last character.
  std::string value(H5Tget_size(type.get()) + 1, '\0');
  check(H5Tset_size(mem.get(), value.size()), "H5Tset_size");
  check(H5Aread(attr.get(), mem.get(), value.data()), "H5Aread");
  value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));
  return value;
}

std::optional<double> double_attribute(hid_t loc, const std::string& name) {
  const Id attr = single_value_attribute(loc, name, H5T_NO_CLASS);
  if (!attr.valid()) return std::nullopt;
  double v = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v), "H5Aread");
  return v;
}

std::optional<std::int64_t> int_attribute(hid_t loc, const std::string& name) {
  const Id attr = single_value_attribute(loc, name, H5T_INTEGER);
  if (!attr.valid()) return std::nullopt;
  std::int64_t v = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_INT64, &v), "H5Aread");
  return v;
}

Id described(Id dataset, const std::string& units, const std::string& description) {
  set_attribute(dataset.get(), "units", units);
  set_attribute(dataset.get(), "description", description);
  return dataset;
}

void attach_scale(hid_t dataset, hid_t scale, unsigned dim, const std::string& name) {
  check(H5DSset_scale(scale, name.c_str()), "H5DSset_scale");
  check(H5DSattach_scale(dataset, scale, dim), "H5DSattach_scale");
}

}  // namespace astrosweep::h5
