#pragma once
// RAII ownership of HDF5 identifiers and the small set of typed operations astrosweep needs
// (files opened serially or through MPI-IO, fixed-size and chunked datasets, row-range and
// hyperslab reads and writes, independent or collective, attributes). Raw H5*close calls live only in h5.cpp.

#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace astrosweep::h5 {

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class Id {
 public:
  Id() = default;
  explicit Id(hid_t id);  // takes ownership; throws when id < 0
  ~Id();
  Id(Id&& other) noexcept;
  Id& operator=(Id&& other) noexcept;
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  [[nodiscard]] hid_t get() const noexcept { return id_; }
  [[nodiscard]] bool valid() const noexcept { return id_ >= 0; }
  /// Gives up ownership: the caller closes the identifier.
  [[nodiscard]] hid_t release() noexcept;

 private:
  void reset() noexcept;
  hid_t id_ = H5I_INVALID_HID;
};

template <class T>
hid_t native_type();

/// read: an existing file, read-only; read_write: an existing file, to continue writing it (a
/// resumed product); create_truncate: a new file, replacing any old one.
enum class Access { read, read_write, create_truncate };

/// Opens or creates a file; with a communicator other than MPI_COMM_NULL, through MPI-IO (every rank
/// of the communicator must call). Throws InputError (read) or OutputError (read_write, create)
/// naming the path.
Id open_file(const std::string& path, Access access, MPI_Comm comm = MPI_COMM_NULL);
/// True when `path` exists and is an HDF5 file.
bool is_hdf5(const std::string& path);
/// Writes everything HDF5 holds in memory for `file` to disk (collective through MPI-IO); throws
/// OutputError naming the file when that fails (disk full, quota, file-size limit).
void flush(hid_t file);
/// Closes `file` now, which must be its last open identifier, and throws OutputError naming it
/// when the final writes fail; `file` is empty afterwards. Collective through MPI-IO.
void close_file(Id& file);
/// "FILE:/path" of an HDF5 object, for messages.
std::string name_of(hid_t object);
/// Throws the OutputError (exit 4) of a failed write to `object`, with the system's reason for
/// `error` (errno after the failing call) when a user can act on it.
[[noreturn]] void throw_write_failure(hid_t object, int error);

Id create_group(hid_t loc, const std::string& name);
Id open_group(hid_t loc, const std::string& name);
bool exists(hid_t loc, const std::string& path);

/// A fixed-size dataset with its storage allocated at creation, so ranks can later write rows
/// independently without touching metadata. dims has 1 or 2 entries.
Id create_dataset(hid_t loc, const std::string& name, hid_t type, const std::vector<std::uint64_t>& dims);
/// A chunked dataset of any rank (chunk_dims one entry per dimension, each clamped to 1..dims),
/// its storage allocated at creation and never filled, like create_dataset. Collective in a file
/// opened through MPI-IO. With `deflate_level` (1..9) every chunk is compressed with HDF5's deflate
/// filter (zlib, which h5py and every HDF5 build read); check deflate_available() first. Parallel
/// HDF5 writes such a dataset only collectively (Transfer::collective, every rank calling). Each
/// chunk takes what it compresses to: parallel HDF5 1.10 stores every chunk at creation as
/// compressed zeros (about a thousandth of its size) and stores it anew when it is written.
Id create_chunked_dataset(hid_t loc, const std::string& name, hid_t type, const std::vector<std::uint64_t>& dims,
                          const std::vector<std::uint64_t>& chunk_dims,
                          std::optional<unsigned> deflate_level = std::nullopt);
/// Whether this HDF5 library can compress with deflate (built with zlib, encoder enabled).
bool deflate_available();
/// Whether `dataset` has a filter (compression) on its chunks: parallel HDF5 then writes it only
/// collectively.
bool is_filtered(hid_t dataset);
/// Bytes the dataset's data take in the file (compressed chunks as stored).
std::uint64_t storage_size(hid_t dataset);
/// A one-dimensional dataset that grows (unlimited extent, chunks of `chunk_rows`), created empty,
/// for a file written as its rows arrive (a serial file only). Storage is allocated as rows are
/// appended; no timestamps.
Id create_growing_dataset(hid_t loc, const std::string& name, hid_t type, std::uint64_t chunk_rows);
/// Appends `n_rows` rows of `type` from `data` at the end of a dataset made by
/// create_growing_dataset; returns the first row written. Throws OutputError naming the dataset.
std::uint64_t append_rows(hid_t dataset, hid_t type, std::uint64_t n_rows, const void* data);
/// Cuts a dataset made by create_growing_dataset to its first `n_rows` rows (a writer taking back
/// what it appended). Throws OutputError naming the dataset.
void truncate_rows(hid_t dataset, std::uint64_t n_rows);
Id open_dataset(hid_t loc, const std::string& name);
std::vector<std::uint64_t> dims(hid_t dataset);
/// The length of a one-dimensional dataset of numbers (integers or floats: what read_rows<T>
/// converts from); throws InputError naming the dataset for any other rank or element type.
std::uint64_t column_length(hid_t dataset);

/// How a rank's part of a read or write reaches a file opened through MPI-IO: on its own, or in
/// one collective MPI-IO operation with every rank of the file's communicator (each must call;
/// a rank with nothing to do passes a zero count). On a file opened serially both are the same.
enum class Transfer { independent, collective };

/// Writes the block [offset, offset + count) of a dataset of any rank (one entry per dimension, C
/// order: the last dimension fastest) from `data`, packed in that order. A zero in `count` writes
/// nothing. Throws OutputError naming the file and dataset when HDF5 fails (disk full, file not
/// writable).
void write_hyperslab(hid_t dataset, hid_t type, const std::vector<std::uint64_t>& offset,
                     const std::vector<std::uint64_t>& count, const void* data,
                     Transfer transfer = Transfer::independent);
/// Reads the block [offset, offset + count) into `data`, packed; throws InputError naming the file
/// and dataset when HDF5 fails.
void read_hyperslab(hid_t dataset, hid_t type, const std::vector<std::uint64_t>& offset,
                    const std::vector<std::uint64_t>& count, void* data, Transfer transfer = Transfer::independent);

/// Writes rows [first_row, first_row + n_rows) of a 1-D or 2-D dataset (all columns) from `data`;
/// independent I/O: a rank calls it alone. n_rows == 0 is allowed.
void write_rows(hid_t dataset, hid_t type, std::uint64_t first_row, std::uint64_t n_rows, const void* data);
/// Writes one rectangular block [row0, row0+n_rows) x [col0, col0+n_cols) of a 2-D dataset.
void write_block(hid_t dataset, hid_t type, std::uint64_t row0, std::uint64_t n_rows, std::uint64_t col0,
                 std::uint64_t n_cols, const void* data);
void read_rows(hid_t dataset, hid_t type, std::uint64_t first_row, std::uint64_t n_rows, void* data);

template <class T>
void write_rows(hid_t dataset, std::uint64_t first_row, std::span<const T> rows) {
  write_rows(dataset, native_type<T>(), first_row, rows.size(), rows.data());
}
/// Rows of a one-dimensional dataset of numbers (checked: a second dimension would overrun `out`).
template <class T>
std::vector<T> read_rows(hid_t dataset, std::uint64_t first_row, std::uint64_t n_rows) {
  column_length(dataset);
  std::vector<T> out(n_rows);
  read_rows(dataset, native_type<T>(), first_row, n_rows, out.data());
  return out;
}
template <class T>
std::vector<T> read_all(hid_t loc, const std::string& name) {
  Id ds = open_dataset(loc, name);
  return read_rows<T>(ds.get(), 0, column_length(ds.get()));
}

// Attributes (scalar). In parallel files, every rank must write the same attribute value. The
// readers return nullopt for an absent attribute and for one that is not a single value of the
// asked kind (a number for double/int, a string for string: fixed-length as astrosweep writes
// them, or variable-length as h5py does by default; ASCII or UTF-8, the bytes as stored).
void set_attribute(hid_t loc, const std::string& name, const std::string& value);
void set_attribute(hid_t loc, const std::string& name, double value);
void set_attribute(hid_t loc, const std::string& name, std::int64_t value);
std::optional<std::string> string_attribute(hid_t loc, const std::string& name);
std::optional<double> double_attribute(hid_t loc, const std::string& name);
std::optional<std::int64_t> int_attribute(hid_t loc, const std::string& name);

/// `dataset` with its "units" (SI or astronomy symbols, "" for a count or a code) and its
/// "description" attributes: what makes a product readable without our docs.
Id described(Id dataset, const std::string& units, const std::string& description);

/// A new one-dimensional dataset `name` in `group` holding `values`, described as above (serial
/// files: one writer).
template <class T>
Id write_column(hid_t group, const std::string& name, const std::vector<T>& values, const std::string& units,
                const std::string& description) {
  Id ds = described(create_dataset(group, name, native_type<T>(), {values.size()}), units, description);
  write_rows(ds.get(), native_type<T>(), 0, values.size(), values.data());
  return ds;
}

/// Makes `scale` (1-D) a dimension scale named `name` and attaches it to dimension `dim` of
/// `dataset` (HDF5's dimension-scale convention: h5py shows it as dataset.dims[dim][0]).
/// Collective in a parallel file: every rank calls it with the same arguments.
void attach_scale(hid_t dataset, hid_t scale, unsigned dim, const std::string& name);

/// Raises an error when an HDF5 call returned a negative status; hides HDF5's own error stack
/// printing (we report one message).
void check(herr_t status, const char* what);
void silence_library_errors();

}  // namespace astrosweep::h5
