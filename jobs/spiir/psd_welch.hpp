#pragma once
// The one-sided PSD of a strain series by median-averaged Welch periodograms (spec §6): segments
// of 4 s under a periodic Hann window, 50 % overlap, the median of the periodograms per frequency
// divided by the bias of a median of exponentially distributed values. The median, not the mean,
// so that a glitch or a loud signal in a few segments does not raise the PSD. Same conventions as
// scipy.signal.welch(window='hann', detrend=False, average='median') and LAL's
// XLALREAL8AverageSpectrumMedian (tests/spiir/data/welch_reference.txt, tools/spiir_lal_reference.py).

#include <cstddef>
#include <optional>
#include <span>

#include "gw_strain.hpp"

namespace astrosweep::spiir {

/// The median of n values drawn from an exponential distribution of mean 1 is, on average,
/// median_bias(n) = 1 + Σ_{i=1}^{⌊(n−1)/2⌋} (1/(2i+1) − 1/(2i)) (LAL's XLALMedianBias, scipy's
/// and PyCBC's median_bias; ln 2 for large n). The same formula for odd and even n, as theirs.
double median_bias(std::size_t n);

/// A median-Welch estimate and how it was made (written beside the PSD in spiir's product).
struct WelchPsd {
  SampledPsd psd;
  std::size_t segment_samples = 0;  ///< N
  std::size_t n_segments = 0;       ///< segments averaged (those without a gap)
  double bias = 1;                  ///< median_bias(n_segments), divided out
  std::size_t first_sample = 0;     ///< the first used segment's first sample
  std::size_t end_sample = 0;       ///< one past the last used segment's last sample
};

/// The PSD at k·f_s/N, k = 0 … N/2 (N = segment_seconds·f_s samples, even), in units of x² per Hz:
/// each segment's periodogram |X_k|²/(f_s Σw²), doubled except at 0 and f_s/2, then the median
/// over segments (the mean of the middle two for an even count) over median_bias(count).
/// Segments start every N/2 samples; those holding a non-finite sample (a gap) are left out.
/// nullopt when no segment is left (series shorter than N, or gaps everywhere).
std::optional<SampledPsd> welch_median_psd(std::span<const double> x, double sample_rate, double segment_seconds = 4.0);

/// The same estimate with its segment count, bias and the samples its segments cover.
std::optional<WelchPsd> welch_median_estimate(std::span<const double> x, double sample_rate,
                                              double segment_seconds = 4.0);

/// The number of samples of one Welch segment (even, ≥ 2).
std::size_t welch_segment_samples(double sample_rate, double segment_seconds = 4.0);

}  // namespace astrosweep::spiir
