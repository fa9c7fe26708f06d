#include "series_search.hpp"

#include <cmath>

#include "accel_statistics.hpp"
#include "core/error.hpp"
#include "harmonic_tables.hpp"

namespace astrosweep::fdas {

std::size_t block_origin(double r_lo) { return static_cast<std::size_t>(std::floor(std::max(r_lo, 0.0))); }

std::int64_t searched_band_end(std::int64_t i_begin, std::int64_t i_end, std::size_t spectrum_bins, std::size_t origin,
                               const CorrelationLayout& layout) {
  // PRESTO searches whole blocks of U outputs from its rlo while a block ends below the last bin
  // (accelsearch's `startr + rstep < highestbin`) and leaves the rest unsearched. Where the band
  // reaches the spectrum's end that rest is the block whose segment reads furthest past the last
  // bin: the zeros there pull its block median down and its powers up (spurious candidates near
  // Nyquist), so we leave it too. The searched blocks' segments are PRESTO's (the same grid), zeros
  // past the end and all. A band that stops short of the end reads real bins to its top and is
  // searched whole; a band shorter than one block as well (PRESTO would search nothing).
  // A block is a segment's columns (layout.segment_columns(): U for numbetween 2, where PRESTO's
  // outputs are half bins, and 2U for numbetween 1, its U bins and their interbins).
  const auto U = static_cast<std::int64_t>(layout.segment_columns());
  const auto last_column = 2 * (static_cast<std::int64_t>(spectrum_bins) - 1);
  if (U <= 0 || i_end < last_column) return i_end;
  const auto first_column = 2 * static_cast<std::int64_t>(origin);
  const std::int64_t blocks = (last_column - 1 - first_column) / U;  // first_column + blocks·U < last_column
  if (blocks <= 0) return i_end;
  return std::min(i_end, std::max(i_begin, first_column + blocks * U));
}

SearchGeometry search_geometry(std::size_t spectrum_bins, const TemplateBank& bank, const SearchSettings& settings) {
  // Either numbetween gives the half-bin plane the harmonic sum reads (numbetween 1 interbinned).
  bank.layout.check();
  AS_EXPECTS(valid_numharm(settings.numharm), UsageError,
             "--numharm " + std::to_string(settings.numharm) + " is not one of 1, 2, 4, 8, 16, 32");
  const double r_hi = std::min(settings.r_hi, static_cast<double>(spectrum_bins));
  AS_EXPECTS(settings.r_lo >= 0 && settings.r_lo < r_hi, UsageError,
             "the searched band [" + std::to_string(settings.r_lo) + ", " + std::to_string(r_hi) +
                 ") bins is empty for a spectrum of " + std::to_string(spectrum_bins) + " bins",
             "widen --flo/--fhi or give a longer series");
  const int H = settings.numharm;
  SearchGeometry g;
  // Half-bin columns of the summed plane, and the bins the plane must hold so that every
  // sub-harmonic read ⌊i·h/H + ½⌋ lies in it.
  g.i_begin = static_cast<std::int64_t>(std::ceil(2 * settings.r_lo));
  g.i_end = static_cast<std::int64_t>(std::floor(2 * r_hi));
  g.z_max = static_cast<int>(bank.grid.z_max);
  // The trials count the whole band, as PRESTO's do, also where the top block is left unsearched.
  for (const HarmonicStage& stage : harmonic_stages(H)) {
    StageTrials trials;
    trials.numharm = stage.numharm;
    trials.n_indep = n_independent(static_cast<double>(g.i_begin) / 2, static_cast<double>(g.i_end) / 2,
                                   static_cast<int>(bank.grid.n_z), bank.grid.dz, stage.numharm);
    trials.powcut =
        static_cast<float>(power_threshold(settings.sigma_min, stage.numharm, static_cast<double>(trials.n_indep)));
    g.stages.push_back(trials);
  }
  // The segments on PRESTO's grid (its blocks from rlo, and from bin 8 below it), so that their
  // block medians, and with them the plane's powers, are PRESTO's.
  const std::size_t origin = block_origin(settings.r_lo);
  const auto needed_lo = static_cast<std::size_t>(std::max<std::int64_t>(0, g.i_begin / H / 2 - 1));
  g.i_end = searched_band_end(g.i_begin, g.i_end, spectrum_bins, origin, bank.layout);
  const auto plane_hi = static_cast<std::size_t>((g.i_end + 1) / 2 + 1);
  g.grid = presto_segment_grid(origin, needed_lo, plane_hi, bank.layout);
  return g;
}

std::size_t insert_stage_cells(const StageTrials& stage, int stage_index, int z_max, const StageCellsView& cells,
                               CandidateList& list) {
  AS_EXPECTS(cells.column.size() == cells.row.size() && cells.power.size() == cells.row.size(), UsageError,
             "a stage's cells: rows, columns and powers differ in number");
  const auto n_indep = static_cast<double>(stage.n_indep);
  for (std::size_t c = 0; c < cells.row.size(); ++c) {
    const float power = cells.power[c];
    const auto sigma = static_cast<float>(candidate_sigma(power, stage.numharm, n_indep));
    // As PRESTO: r = (r_lo + k·0.5)/H and z = (z_lo + j·2)/H, both exact in double before the division.
    const double r = 0.5 * static_cast<double>(cells.column[c]);
    const double z = static_cast<double>(-z_max + 2 * cells.row[c]);
    list.insert(Candidate{r / stage.numharm, z / stage.numharm, power, sigma, stage.numharm, stage_index});
  }
  return cells.row.size();
}

SeriesCandidates search_plane(const PowerPlaneView& plane, const SearchGeometry& geometry, std::size_t max_candidates) {
  AS_EXPECTS(!geometry.stages.empty() && plane.z_max == geometry.z_max, UsageError,
             "the plane's drifts are not the search geometry's");
  SeriesCandidates result;
  CandidateList list(max_candidates);
  const std::int64_t i_begin = geometry.i_begin;
  const auto n_cols = static_cast<std::size_t>(geometry.i_end - i_begin);
  std::vector<int> rows;
  std::vector<std::int64_t> columns;
  std::vector<float> powers;
  harmonic_sum_reference(
      plane, i_begin, geometry.i_end, geometry.stages.back().numharm,
      [&](const HarmonicStage& stage, std::span<const float> summed) {
        StageTrials trials = geometry.stages.at(static_cast<std::size_t>(stage.stage));
        // The cells above the threshold (compared in float, as PRESTO stores powcut), z-major and
        // r-ascending, then inserted as the GPU's are.
        rows.clear();
        columns.clear();
        powers.clear();
        for (std::size_t k = 0; k < summed.size(); ++k) {
          if (!(summed[k] > trials.powcut)) continue;
          rows.push_back(static_cast<int>(k / n_cols));
          columns.push_back(i_begin + static_cast<std::int64_t>(k % n_cols));
          powers.push_back(summed[k]);
        }
        trials.above = insert_stage_cells(trials, stage.stage, geometry.z_max, {rows, columns, powers}, list);
        result.stages.push_back(trials);
      });
  result.candidates = list.candidates();
  result.overflowed = list.overflowed();
  return result;
}

template <class Real>
SeriesCandidates search_spectrum(std::span<const std::complex<float>> spectrum, const TemplateBank& bank,
                                 const KernelSpectra<Real>& kernels, const SearchSettings& settings) {
  const SearchGeometry geometry = search_geometry(spectrum.size(), bank, settings);
  const PowerPlane plane = correlate(spectrum, kernels, bank.layout, geometry.grid,
                                     CorrelationOptions{settings.block_normalise, settings.threads});
  const PowerPlaneView view{plane.power.data(), geometry.z_max, static_cast<std::int64_t>(2 * plane.first_bin),
                            static_cast<std::int64_t>(plane.n_r)};
  return search_plane(view, geometry, settings.max_candidates);
}

template SeriesCandidates search_spectrum<float>(std::span<const std::complex<float>>, const TemplateBank&,
                                                 const KernelSpectra<float>&, const SearchSettings&);
template SeriesCandidates search_spectrum<double>(std::span<const std::complex<float>>, const TemplateBank&,
                                                  const KernelSpectra<double>&, const SearchSettings&);

}  // namespace astrosweep::fdas
