#pragma once
// The period product: one HDF5 file written by all ranks through parallel HDF5. Datasets are
// created collectively with their full size and the file's metadata is flushed at once, so from
// then on the file stays readable whatever happens to the run; each rank then writes the rows of
// its work units independently (raw data only, no metadata) and makes them durable with `sync`
// before the unit is journalled; `finish` marks the product complete. Schema: docs/formats.md;
// what survives a kill: docs/reliability.md.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "io/h5.hpp"
#include "io/journal.hpp"
#include "io/light_curves.hpp"
#include "io/posix_file.hpp"
#include "io/resume_point.hpp"
#include "period_backend.hpp"
#include "period_config.hpp"

namespace astrosweep::period {

inline constexpr const char* product_format_name = "astrosweep.period";
/// 2: `status` says only whether the result is valid, `cleaned` what was removed (in 1 status held
/// both); per-object BJD references (bjdrefi, bjdreff) for FITS inputs.
inline constexpr std::int64_t product_format_version = 2;

struct ProductProvenance {
  io::InputIdentity input;
  std::string time_reference;
  bool time_references = false;  ///< each object has its own BJD reference: /objects/bjdrefi, bjdreff
  std::string grid_rule;         ///< how the grid was chosen, in words
  std::string command_line;
};

using io::ExistingProduct;  // a product found on disk, as --resume sees it

class PeriodProduct {
 public:
  /// Collective. Truncates an existing file (the caller has checked --overwrite), creates every
  /// dataset and flushes the metadata.
  PeriodProduct(const std::string& path, MPI_Comm comm, std::uint64_t n_objects, const PeriodConfig& config,
                const ProductProvenance& provenance);
  /// Collective. Reopens an incomplete product to continue it (its fingerprint was checked).
  PeriodProduct(const std::string& path, MPI_Comm comm, const PeriodConfig& config);
  ~PeriodProduct();
  PeriodProduct(const PeriodProduct&) = delete;
  PeriodProduct& operator=(const PeriodProduct&) = delete;

  /// What a product's results depend on, as the key = value text of its attributes: every root
  /// attribute except status and command_line, the object count and whether periodograms are kept.
  /// Two runs with the same fingerprint (and backend kind) write the same datasets.
  static io::Fingerprint fingerprint(std::uint64_t n_objects, const PeriodConfig& config,
                                     const ProductProvenance& provenance);
  /// Reads `path` serially (this process alone); nullopt when it is not a readable period product.
  static std::optional<ExistingProduct> inspect(const std::string& path);

  /// Independent: rows [first_object, first_object + results.size()).
  void write_results(std::uint64_t first_object, std::span<const ObjectResult> results);
  /// Independent: the BJD references of `block`'s objects, rows from `first_object` (nothing
  /// when the product has no per-object references).
  void write_time_references(std::uint64_t first_object, const io::LightCurveBlock& block);
  /// Periodogram sink for a block starting at `first_object` (null unless periodograms are kept).
  std::unique_ptr<PeriodogramSink> periodogram_sink(std::uint64_t first_object);
  /// Independent: returns once every row this rank has written is durable (fsync), so the units
  /// they belong to can be journalled; the rows then survive a kill of the run or of this node.
  void sync();
  /// Collective: flushes and closes the file, leaving status="incomplete" (an interrupted run).
  void close();
  /// Collective: records status="complete", flushes and closes the file.
  void finish();

 private:
  class Sink;
  void close_all();
  PeriodConfig config_;
  io::PosixFile durable_;  ///< this rank's descriptor of the file, for fsync
  h5::Id file_;
  h5::Id objects_, peaks_;
  h5::Id id_, status_, cleaned_, n_points_, n_nonfinite_, n_bad_errors_, n_flagged_;
  h5::Id bjdrefi_, bjdreff_;
  h5::Id t_ref_, baseline_, best_frequency_, best_period_, best_power_, fap_;
  h5::Id peak_frequency_, peak_power_, periodogram_;
};

}  // namespace astrosweep::period
