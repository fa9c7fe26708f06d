#pragma once
// The HDF5 light-curve catalog: the scalable input path. Layout (docs/formats.md):
//   /            attrs format="astrosweep.lightcurves", format_version=1, time_unit="d",
//                      time_reference, source_format, source_paths, source_digest
//   /objects/id        int64  [n_objects]
//   /objects/offset    uint64 [n_objects]   first row of the object in /points
//   /objects/count     uint64 [n_objects]   rows of the object
//   /objects/t_min     float64 [n_objects]  smallest finite time (NaN if none)
//   /objects/t_max     float64 [n_objects]
//   /objects/n_flagged uint32 [n_objects]   cadences dropped by quality flags on conversion
//   /objects/bjdrefi int64, /objects/bjdreff float64 [n_objects] (optional, both or neither):
//                      the BJD each object's times count from (FITS inputs; missions may mix)
//   /points/t, /points/y float64 [n_rows];  /points/dy float64 [n_rows] (optional)
// Rows of an object are contiguous and objects follow each other (offset[i+1] = offset[i]+count[i]).

#include <mpi.h>

#include <mutex>
#include <string>

#include "io/h5.hpp"
#include "io/h5_raw_column.hpp"
#include "io/light_curve_sink.hpp"
#include "io/light_curves.hpp"
#include "io/posix_file.hpp"

namespace astrosweep::io {

inline constexpr const char* catalog_format_name = "astrosweep.lightcurves";
inline constexpr std::int64_t catalog_format_version = 1;

/// Writes a catalog block by block from one process (the converter): what it holds is the block
/// being appended and, for inputs with per-object BJD references, 16 bytes an object (written at
/// the end, when the input says whether they mean anything). The rows and the per-object columns
/// grow as blocks arrive (chunked datasets); the root attributes are written by finish(). The file
/// is written as PATH.part and renamed to PATH by finish(), so a conversion that fails leaves
/// neither a partial catalog nor a changed PATH (an old one replaced with --overwrite stays until
/// the new one is whole); a writer destroyed before finish() removes PATH.part.
class H5CatalogWriter final : public LightCurveSink {
 public:
  /// Creates PATH.part (replacing a file there); OutputError when it cannot.
  explicit H5CatalogWriter(const std::string& path);
  ~H5CatalogWriter() override;
  H5CatalogWriter(const H5CatalogWriter&) = delete;
  H5CatalogWriter& operator=(const H5CatalogWriter&) = delete;

  /// Appends whole objects; every block of a catalog has dy or none has (a block of objects
  /// without rows may have none), and the same for bjdrefi/bjdreff.
  void append(const LightCurveBlock& block) override;
  void truncate(std::uint64_t n_objects) override;
  /// Writes the root attributes and, when input.has_time_references, the objects' references;
  /// closes the file and renames it to PATH (OutputError when that fails).
  void finish(const StreamedInput& input);

  [[nodiscard]] std::uint64_t n_objects() const noexcept { return n_objects_; }
  [[nodiscard]] std::uint64_t n_rows() const noexcept { return n_rows_; }
  [[nodiscard]] bool has_errors() const noexcept { return has_errors_; }

 private:
  std::string path_, part_;
  h5::Id file_, objects_, points_;
  h5::Id id_, offset_, count_, t_min_, t_max_, n_flagged_, t_, y_, dy_;
  std::vector<std::int64_t> bjdrefi_;
  std::vector<double> bjdreff_;
  std::uint64_t n_objects_ = 0;
  std::uint64_t n_rows_ = 0;
  bool has_errors_ = false;
  bool finished_ = false;
};

/// Writes a whole catalog from one block (H5CatalogWriter with one append).
void write_h5_catalog(const std::string& path, const LightCurveBlock& block, const std::string& time_reference,
                      const InputIdentity& source);

/// A catalog each rank opens for itself (read-only; `comm` MPI_COMM_NULL: POSIX reads, or a
/// communicator: MPI-IO); each rank reads only the rows it works on.
class H5Catalog {
 public:
  H5Catalog(const std::string& path, MPI_Comm comm);
  /// Throws InputError naming the file when a dataset is not a 1-D column of numbers or the
  /// columns' lengths disagree (metadata only: nothing is read).
  void check_layout() const;
  /// Reads and validates the index (rank 0 plans with it).
  [[nodiscard]] CatalogIndex read_index() const;
  [[nodiscard]] InputIdentity identity(const CatalogIndex& index) const;
  /// Objects [first_object, first_object + n_objects) whose rows are [first_row, first_row + n_rows).
  [[nodiscard]] LightCurveBlock read(std::uint64_t first_object, std::uint64_t n_objects, std::uint64_t first_row,
                                     std::uint64_t n_rows) const;
  /// The same into `into`, reusing its buffers. With `hdf5_lock`, threads may call this at once:
  /// HDF5 calls are made holding it, the points' bytes read raw without it where their storage
  /// allows (RawColumn).
  void read(std::uint64_t first_object, std::uint64_t n_objects, std::uint64_t first_row, std::uint64_t n_rows,
            LightCurveBlock& into, std::mutex* hdf5_lock = nullptr) const;

 private:
  std::string path_;
  h5::Id file_;
  // Opened once by all ranks together, then read independently.
  h5::Id ids_, counts_, n_flagged_, bjdrefi_, bjdreff_, t_, y_, dy_;
  // The points' raw readers (their chunk addresses fill in as units are read) and the file they read.
  PosixFile raw_file_;
  mutable RawColumn raw_t_, raw_y_, raw_dy_;
};

}  // namespace astrosweep::io
