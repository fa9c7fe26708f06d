#include "series_search.hpp"

#include <cmath>

#include "accel_statistics.hpp"
#include "core/error.hpp"
#include "harmonic_tables.hpp"

namespace astrosweep::fdas {

template <class Real>
SeriesCandidates search_spectrum(std::span<const std::complex<float>> spectrum, const TemplateBank& bank,
                                 const KernelSpectra<Real>& kernels, const SearchSettings& settings) {
  AS_EXPECTS(bank.layout.numbetween == 2, UsageError, "the harmonic sum reads half bins: use numbetween 2");
  AS_EXPECTS(valid_numharm(settings.numharm), UsageError,
             "--numharm " + std::to_string(settings.numharm) + " is not one of 1, 2, 4, 8, 16, 32");
  const double r_hi = std::min(settings.r_hi, static_cast<double>(spectrum.size()));
  AS_EXPECTS(settings.r_lo >= 0 && settings.r_lo < r_hi, UsageError,
             "the searched band [" + std::to_string(settings.r_lo) + ", " + std::to_string(r_hi) +
                 ") bins is empty for a spectrum of " + std::to_string(spectrum.size()) + " bins",
             "widen --flo/--fhi or give a longer series");
  const int H = settings.numharm;
  // Half-bin columns of the summed plane, and the bins the plane must hold so that every
  // sub-harmonic read ⌊i·h/H + ½⌋ lies in it.
  const auto i_begin = static_cast<std::int64_t>(std::ceil(2 * settings.r_lo));
  const auto i_end = static_cast<std::int64_t>(std::floor(2 * r_hi));
  const auto plane_lo = static_cast<std::size_t>(std::max<std::int64_t>(0, i_begin / H / 2 - 1));
  const auto plane_hi = static_cast<std::size_t>((i_end + 1) / 2 + 1);
  const PowerPlane plane = correlate(spectrum, kernels, bank.layout, plane_lo, plane_hi,
                                     CorrelationOptions{settings.block_normalise, settings.threads});

  const int z_max = static_cast<int>(bank.grid.z_max);
  const PowerPlaneView view{plane.power.data(), z_max, static_cast<std::int64_t>(2 * plane_lo),
                            static_cast<std::int64_t>(plane.n_r)};
  SeriesCandidates result;
  CandidateList list(settings.max_candidates);
  harmonic_sum_reference(view, i_begin, i_end, H, [&](const HarmonicStage& stage, std::span<const float> summed) {
    StageTrials trials;
    trials.numharm = stage.numharm;
    trials.n_indep = n_independent(static_cast<double>(i_begin) / 2, static_cast<double>(i_end) / 2,
                                   static_cast<int>(bank.grid.n_z), bank.grid.dz, stage.numharm);
    trials.powcut =
        static_cast<float>(power_threshold(settings.sigma_min, stage.numharm, static_cast<double>(trials.n_indep)));
    trials.above = detect_stage_candidates(stage, StagePlane{summed, z_max, i_begin, i_end - i_begin}, trials.powcut,
                                           static_cast<double>(trials.n_indep), list);
    result.stages.push_back(trials);
  });
  result.candidates = list.candidates();
  result.overflowed = list.overflowed();
  return result;
}

template SeriesCandidates search_spectrum<float>(std::span<const std::complex<float>>, const TemplateBank&,
                                                 const KernelSpectra<float>&, const SearchSettings&);
template SeriesCandidates search_spectrum<double>(std::span<const std::complex<float>>, const TemplateBank&,
                                                  const KernelSpectra<double>&, const SearchSettings&);

}  // namespace astrosweep::fdas
