#pragma once
// In-memory light curves: a ragged block of objects (rows of one object contiguous), the index rank
// 0 plans work with, and what identifies an input in a product.

#include <cstdint>
#include <string>
#include <vector>

namespace astrosweep::io {

/// A contiguous range of objects and their rows, object after object.
struct LightCurveBlock {
  std::vector<std::int64_t> ids;
  std::vector<std::uint64_t> counts;     ///< rows per object
  std::vector<std::uint32_t> n_flagged;  ///< cadences dropped by quality flags when read (FITS)
  std::vector<double> t;                 ///< days, any zero point
  std::vector<double> y;
  std::vector<double> dy;  ///< empty when the input has no uncertainties
  /// The BJD each object's times count from, as its FITS files give it (BJDREFI + BJDREFF, kept
  /// apart so the sum stays exact): Kepler and TESS objects of one input each keep their own.
  /// Empty when the input has no such reference (CSV, a catalog without them); bjdreff is NaN
  /// (and bjdrefi 0) for an object whose files had no BJDREFI.
  std::vector<std::int64_t> bjdrefi;
  std::vector<double> bjdreff;

  [[nodiscard]] std::size_t n_objects() const noexcept { return ids.size(); }
  [[nodiscard]] bool has_errors() const noexcept { return !dy.empty(); }
  [[nodiscard]] bool has_time_references() const noexcept { return !bjdrefi.empty(); }
  /// Appends one object; dy must be empty exactly when the block has no errors.
  void append(std::int64_t id, const std::vector<double>& ot, const std::vector<double>& oy,
              const std::vector<double>& ody, std::uint32_t flagged = 0);
  /// Appends the objects of `other` (the same kind of block: with or without dy and references).
  void append_block(const LightCurveBlock& other);
  /// Keeps objects [0, n_objects) and their rows; the vectors keep their capacity.
  void truncate(std::size_t n_objects);
};

/// What rank 0 needs to plan and to choose a frequency grid: per object, id, row count and the
/// span of its finite times.
struct CatalogIndex {
  std::vector<std::int64_t> ids;
  std::vector<std::uint64_t> counts;
  std::vector<double> t_min;  ///< NaN when the object has no finite time
  std::vector<double> t_max;
  bool has_errors = false;
  bool has_time_references = false;  ///< the objects carry their own BJD reference (bjdrefi, bjdreff)
  std::string time_reference;        ///< free text, e.g. "MJD", "BTJD = BJD - 2457000"

  [[nodiscard]] std::size_t n_objects() const noexcept { return ids.size(); }
};

/// Builds the index of a block (t_min/t_max over finite times).
CatalogIndex index_of(const LightCurveBlock& block, std::string time_reference);

/// Throws InputError when an id occurs for two objects (rows of an object must be contiguous).
void require_unique_ids(const std::vector<std::int64_t>& ids, const std::string& source);

/// Where the data came from: stored with every product so a result can be traced to its input.
struct InputIdentity {
  std::string format;       ///< csv, fits, hdf5
  std::string paths;        ///< newline-separated
  std::uint64_t bytes = 0;  ///< total size of the input files
  std::string digest;       ///< FNV-1a 64 of the content read (hex), or of the index for HDF5
};

/// What a streaming reader knows once it has read all of its input (io/light_curve_sink.hpp).
struct StreamedInput {
  InputIdentity identity;
  std::string time_reference;        ///< the input's label (FITS), or empty
  bool has_time_references = false;  ///< the objects carry their own BJD reference (bjdrefi, bjdreff)
};

/// Incremental FNV-1a 64-bit hash: cheap, stable, enough to tell inputs apart (not cryptographic).
class Fnv1a64 {
 public:
  void update(const void* data, std::size_t n) noexcept;
  [[nodiscard]] std::string hex() const;
  [[nodiscard]] std::uint64_t value() const noexcept { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace astrosweep::io
