#pragma once
// The fdas product `astrosweep.fdas` (spec §9; schema in docs/formats.md): one HDF5 file.
// While the run lasts it is a parallel file holding /series, preallocated with one row per
// series, each row written by the rank that searched it (independent I/O) and made durable before
// its unit is journalled, as the period product does; the candidates wait in the spool
// (fdas_spool.hpp). When every series is done the ranks close the file together and rank 0 alone
// adds /candidates, /harmonics and /sifted from the spool and marks the product complete: they are
// small against the search, and the cross-DM sifting needs all of them in one place.

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "candidate_rows.hpp"
#include "fdas_options.hpp"
#include "fdas_spool.hpp"
#include "io/h5.hpp"
#include "io/journal.hpp"
#include "io/posix_file.hpp"
#include "io/resume_point.hpp"
#include "sifting.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {

inline constexpr const char* product_format_name = "astrosweep.fdas";
inline constexpr std::int64_t product_format_version = 1;

/// What the product's results depend on besides the options: the inputs and the bank.
struct ProductProvenance {
  std::string input_format;
  std::string inputs;  ///< the --input arguments, newline-separated
  std::uint64_t n_series = 0;
  std::uint64_t input_samples = 0;  ///< Σ samples
  std::size_t fft_length = 0;       ///< L of the bank
  std::size_t n_templates = 0;
};

class FdasProduct {
 public:
  /// Collective: creates the file (replacing one there), its attributes and /series, and flushes.
  FdasProduct(const std::string& path, MPI_Comm comm, const FdasOptions& options, const ProductProvenance& prov);
  /// Collective: reopens an incomplete product to continue it (its fingerprint was checked).
  FdasProduct(const std::string& path, MPI_Comm comm);
  ~FdasProduct();
  FdasProduct(const FdasProduct&) = delete;
  FdasProduct& operator=(const FdasProduct&) = delete;

  static io::Fingerprint fingerprint(const FdasOptions& options, const ProductProvenance& prov);
  /// Reads `path` serially; nullopt when it is not a readable fdas product.
  static std::optional<io::ExistingProduct> inspect(const std::string& path);

  /// Independent: the /series row of each record's series.
  void write_series(std::span<const SeriesRow> rows);
  /// Independent: returns once the rows this rank wrote are on disk.
  void sync();
  /// Collective: flushes and closes the file, still "incomplete".
  void close();

 private:
  void close_all();
  io::PosixFile durable_;
  h5::Id file_, group_;
  h5::Id dm_, tsamp_, tstart_, n_samples_, n_fft_, span_, status_, n_candidates_, removed_, n_indep_, cells_above_,
      powcut_;
};

/// What rank 0 adds when every series is done.
struct FinalTables {
  const SpoolContents* spool = nullptr;     ///< one record per series
  std::vector<std::string> series_sources;  ///< each series' file (and batch index)
  SiftResult sifted;
  SiftOptions sift_options;
};

/// Rank 0 alone, after FdasProduct::close(): opens `path`, writes each series' candidate offset
/// and count and its source, /candidates, /harmonics and /sifted, and closes it. Tables a run
/// stopped in the middle of this left behind are replaced, so a resumed run can write them again.
/// OutputError naming the file when a write fails.
void write_final_tables(const std::string& path, const FinalTables& tables);
/// Rank 0 alone, the job's last write: marks the product complete (what --resume then finds).
void mark_complete(const std::string& path);

}  // namespace astrosweep::fdas
