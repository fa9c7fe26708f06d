#pragma once
// One series' acceleration search on the CPU, from its normalised spectrum to its candidate list
// (spec §4–§7): the correlation plane over the bins the harmonics need, the harmonic sum stage by
// stage, and at every stage the cells above that stage's threshold merged into the list.
// The reference composition the backends are compared with; the job's CPU backend runs it.

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "candidates.hpp"
#include "correlation.hpp"
#include "harmonic_tables.hpp"
#include "segment_grid.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {

struct SearchSettings {
  int numharm = 8;         ///< 1, 2, 4, …, 32
  double sigma_min = 2.0;  ///< PRESTO's -sigma
  double r_lo = 0;         ///< searched band, bins of the highest harmonic: [r_lo, r_hi)
  double r_hi = 0;
  bool block_normalise = true;
  std::size_t max_candidates = default_max_candidates;
  int threads = 0;
};

struct StageTrials {
  int numharm = 1;
  std::int64_t n_indep = 0;  ///< independent trials of the stage (spec §7)
  float powcut = 0;          ///< its power threshold
  std::size_t above = 0;     ///< cells above it
};

struct SeriesCandidates {
  std::vector<Candidate> candidates;  ///< merged, r ascending (PRESTO's list order)
  bool overflowed = false;            ///< the list reached max_candidates
  std::vector<StageTrials> stages;
};

/// Where one series' search looks, shared by the backends so that they cannot drift apart: the
/// half-bin columns [i_begin, i_end) of the summed plane (the searched band), the correlation's
/// segments (`grid`: PRESTO's, presto_segment_grid) and the bins [grid.plane_lo, grid.plane_hi)
/// they must produce so that every sub-harmonic read ⌊i·h/H + ½⌋ lies in them, and each stage's
/// trials and threshold (`above` left 0).
struct SearchGeometry {
  std::int64_t i_begin = 0;
  std::int64_t i_end = 0;
  SegmentGrid grid;
  int z_max = 0;                    ///< the summed plane's rows: z = −z_max … z_max in steps of 2
  std::vector<StageTrials> stages;  ///< stage s sums 2^s harmonics
};

/// The bin where the searched band's blocks start, PRESTO's obs.rlo: ⌊r_lo⌋ (⌊flo·T⌋).
std::size_t block_origin(double r_lo);

/// The end of the searched columns of the band [i_begin, i_end) (half bins) in a spectrum of
/// `spectrum_bins` bins, whose blocks of `layout.segment_columns()` columns start at bin `origin`
/// (block_origin): i_end, unless the band reaches the spectrum's last bin; then, as PRESTO's
/// accelsearch, the end of the last whole block that ends below the last bin (the block at the
/// top, which PRESTO leaves unsearched, is left); i_end when not even one block fits.
std::int64_t searched_band_end(std::int64_t i_begin, std::int64_t i_end, std::size_t spectrum_bins, std::size_t origin,
                               const CorrelationLayout& layout);

/// The geometry of a search of `settings`' band in a spectrum of `spectrum_bins` bins with `bank`.
/// Throws UsageError for what cannot be searched: a numbetween other than 1 or 2, numharm not a
/// power of two up to 32, an empty band.
SearchGeometry search_geometry(std::size_t spectrum_bins, const TemplateBank& bank, const SearchSettings& settings);

/// One stage's cells above its threshold, as either backend found them: z row of the summed plane,
/// half-bin column i and summed power, in z-major, r-ascending order (the order PRESTO inserts them).
struct StageCellsView {
  std::span<const int> row;
  std::span<const std::int64_t> column;
  std::span<const float> power;
};

/// Inserts `cells` of stage `stage` into `list` as detect_stage_candidates does: in their order,
/// each as Candidate{r = (i/2)/H, z = z_j/H, power, sigma = candidate_sigma(power, H, n_indep)}.
/// Returns the number of cells.
std::size_t insert_stage_cells(const StageTrials& stage, int stage_index, int z_max, const StageCellsView& cells,
                               CandidateList& list);

/// The candidates of a correlation plane that covers `geometry`'s bins [grid.plane_lo, grid.plane_hi) (rows
/// z = −z_max … z_max): the CPU harmonic sum stage by stage, each stage's cells above its threshold
/// through insert_stage_cells. search_spectrum is correlate() followed by this.
SeriesCandidates search_plane(const PowerPlaneView& plane, const SearchGeometry& geometry, std::size_t max_candidates);

/// Searches bins [settings.r_lo, settings.r_hi) of `spectrum` (normalised: noise power mean 1)
/// with `bank` (numbetween 2, or 1 with the half bins interbinned) and its kernel spectra.
template <class Real>
SeriesCandidates search_spectrum(std::span<const std::complex<float>> spectrum, const TemplateBank& bank,
                                 const KernelSpectra<Real>& kernels, const SearchSettings& settings);

}  // namespace astrosweep::fdas
