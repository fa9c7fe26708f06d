#pragma once
// The period product: one HDF5 file written by all ranks through parallel HDF5. Datasets are
// created collectively with their full size; each rank then writes the rows of its work units
// independently as they complete; `finish` marks the product complete. Schema: docs/formats.md.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "io/h5.hpp"
#include "io/light_curves.hpp"
#include "period_backend.hpp"
#include "period_config.hpp"

namespace astrosweep::period {

inline constexpr const char* product_format_name = "astrosweep.period";
inline constexpr std::int64_t product_format_version = 1;

struct ProductProvenance {
  io::InputIdentity input;
  std::string time_reference;
  std::string grid_rule;  ///< how the grid was chosen, in words
  std::string command_line;
};

class PeriodProduct {
 public:
  /// Collective. Truncates an existing file (the caller has checked --overwrite).
  PeriodProduct(const std::string& path, MPI_Comm comm, std::uint64_t n_objects, const PeriodConfig& config,
                const ProductProvenance& provenance);
  ~PeriodProduct();
  PeriodProduct(const PeriodProduct&) = delete;
  PeriodProduct& operator=(const PeriodProduct&) = delete;

  /// Independent: rows [first_object, first_object + results.size()).
  void write_results(std::uint64_t first_object, std::span<const ObjectResult> results);
  /// Periodogram sink for a block starting at `first_object` (null unless periodograms are kept).
  std::unique_ptr<PeriodogramSink> periodogram_sink(std::uint64_t first_object);
  /// Collective: records run facts and status="complete", then closes the file.
  void finish();

 private:
  class Sink;
  PeriodConfig config_;
  h5::Id file_;
  h5::Id objects_, peaks_;
  h5::Id id_, status_, n_points_, n_nonfinite_, n_bad_errors_, n_flagged_;
  h5::Id t_ref_, baseline_, best_frequency_, best_period_, best_power_, fap_;
  h5::Id peak_frequency_, peak_power_, periodogram_;
};

}  // namespace astrosweep::period
