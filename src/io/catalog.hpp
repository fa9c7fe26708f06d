#pragma once
// One entry point for every light-curve input (CSV, TESS/Kepler FITS, HDF5 catalog), opened by all
// ranks together. CSV and FITS inputs are read by rank 0 and broadcast (they are the small-input
// paths); the HDF5 catalog is read by each rank for its own rows (the path that scales).

#include <mpi.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "io/fits_light_curves.hpp"
#include "io/light_curve_sink.hpp"
#include "io/light_curves.hpp"

namespace astrosweep::io {

class H5Catalog;

enum class InputFormat { automatic, csv, fits, hdf5 };
InputFormat parse_input_format(const std::string& name);
const char* input_format_name(InputFormat format);

struct CatalogOptions {
  std::vector<std::string> inputs;  ///< files or directories; "@list.txt" names a file listing paths
  InputFormat format = InputFormat::automatic;
  FitsReadOptions fits;
  std::string time_reference;  ///< overrides/sets the time reference label (CSV has none)
};

/// The arguments with each "@LIST" replaced by the paths it names (one per line; blank lines and
/// lines starting with '#' skipped; relative paths relative to the list's directory). Throws
/// InputError for a list that cannot be read or names no files.
std::vector<std::string> expand_input_lists(const std::vector<std::string>& inputs);

/// Resolves "@list" arguments and the format; throws InputError / UsageError.
struct ResolvedInputs {
  std::vector<std::string> paths;
  InputFormat format;
};
ResolvedInputs resolve_inputs(const CatalogOptions& options);

class Catalog {
 public:
  /// Collective over `comm`. A bad input ends every rank with the same InputError.
  Catalog(const CatalogOptions& options, MPI_Comm comm);
  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  /// The index and the input identity; complete on rank 0 only.
  [[nodiscard]] const CatalogIndex& index() const noexcept { return index_; }
  [[nodiscard]] const InputIdentity& identity() const noexcept { return identity_; }
  [[nodiscard]] InputFormat format() const noexcept { return format_; }

  /// Rows of objects [first_object, first_object + n_objects) = rows [first_row, first_row + n_rows).
  [[nodiscard]] LightCurveBlock read(std::uint64_t first_object, std::uint64_t n_objects, std::uint64_t first_row,
                                     std::uint64_t n_rows) const;
  /// The same into `into`, whose buffers are reused: a rank reading unit after unit then neither
  /// faults in nor zeroes fresh memory for each (a third of a TESS-like unit's reading time).
  /// Threads of a rank may read at once when they pass the lock that guards their HDF5 calls: an
  /// HDF5 catalog's points are then read without it where their storage allows (h5_raw_column.hpp).
  void read(std::uint64_t first_object, std::uint64_t n_objects, std::uint64_t first_row, std::uint64_t n_rows,
            LightCurveBlock& into, std::mutex* hdf5_lock = nullptr) const;

 private:
  InputFormat format_ = InputFormat::automatic;
  CatalogIndex index_;
  InputIdentity identity_;
  std::optional<LightCurveBlock> memory_;
  std::unique_ptr<H5Catalog> h5_;
};

/// Reads CSV or FITS inputs in this process alone, passing the objects on to `sink` in blocks of
/// about `block_rows` rows; options.time_reference, when given, replaces the input's label.
StreamedInput stream_serial(const ResolvedInputs& inputs, const CatalogOptions& options, LightCurveSink& sink,
                            std::uint64_t block_rows = default_block_rows);

/// The same, every object in one block (rank 0 of a job on CSV or FITS inputs).
struct SerialRead {
  LightCurveBlock block;
  InputIdentity identity;
  std::string time_reference;
};
SerialRead read_serial(const ResolvedInputs& inputs, const CatalogOptions& options);

/// CSV or FITS inputs -> the HDF5 catalog `output`, streamed: `astrosweep convert`, holding a block
/// of `block_rows` rows at a time (tests ask for small blocks; the product is the same).
struct ConvertedCatalog {
  std::uint64_t n_objects = 0;
  std::uint64_t n_rows = 0;
  bool has_errors = false;
};
ConvertedCatalog convert_to_catalog(const ResolvedInputs& inputs, const CatalogOptions& options,
                                    const std::string& output, std::uint64_t block_rows = default_block_rows);

}  // namespace astrosweep::io
