#include "strain_input.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "core/text.hpp"
#include "gwosc_strain.hpp"
#include "psd_welch.hpp"
#include "stretch_whitening.hpp"
#include "whitening.hpp"

namespace astrosweep::spiir {

namespace {

constexpr const char* layout_hint = "see docs/spiir.md#strain-files";

void check_agree(const StrainInput& a, const StrainInput& b) {
  const auto fail = [&](const std::string& what) {
    return InputError(format_text("strain files '%s' (%s) and '%s' (%s) %s", a.path.c_str(), a.strain.ifo.c_str(),
                                  b.path.c_str(), b.strain.ifo.c_str(), what.c_str()),
                      "give --strain files that cover the same stretch at the same rate");
  };
  if (a.strain.ifo == b.strain.ifo) throw fail("hold the same detector");
  if (a.strain.sample_rate != b.strain.sample_rate)
    throw fail(format_text("have different sample rates (%g and %g Hz)", a.strain.sample_rate, b.strain.sample_rate));
  if (a.strain.gps_start_s != b.strain.gps_start_s || a.strain.gps_start_ns != b.strain.gps_start_ns)
    throw fail(format_text("start at different times (GPS %lld.%09d and %lld.%09d)",
                           static_cast<long long>(a.strain.gps_start_s), a.strain.gps_start_ns,
                           static_cast<long long>(b.strain.gps_start_s), b.strain.gps_start_ns));
  if (a.strain.strain.size() != b.strain.strain.size())
    throw fail(
        format_text("have different lengths (%zu and %zu samples)", a.strain.strain.size(), b.strain.strain.size()));
}

void whiten_input(StrainInput& in, double f_low, double psd_stretch_seconds) {
  const auto started = std::chrono::steady_clock::now();
  DetectorStrain& d = in.strain;
  const std::vector<double> x(d.strain.begin(), d.strain.end());
  const auto no_segment = [&](const std::string& where, std::size_t samples) {
    return InputError(
        format_text("strain file '%s': detector %s%s holds no %g-s stretch without a gap (%zu samples "
                    "at %g Hz), too short to estimate its PSD for whitening",
                    in.path.c_str(), d.ifo.c_str(), where.c_str(),
                    static_cast<double>(welch_segment_samples(d.sample_rate)) / d.sample_rate, samples, d.sample_rate),
        where.empty() ? "give at least 4 s of strain without gaps, or whitened strain (whitened = 1)"
                      : "give a longer --psd-stretch-seconds (or 0: one PSD for the file), or whitened strain "
                        "(whitened = 1)");
  };
  const WhiteningSettings settings{f_low, 32, 0.5};
  std::vector<double> white;
  if (psd_stretch_seconds > 0) {
    in.psd_stretch_starts = psd_stretch_starts(x.size(), d.sample_rate, psd_stretch_seconds);
    std::vector<SampledPsd> psds;
    for (std::size_t k = 0; k < in.psd_stretch_starts.size(); ++k) {
      const std::size_t begin = in.psd_stretch_starts[k];
      const std::size_t end = k + 1 < in.psd_stretch_starts.size() ? in.psd_stretch_starts[k + 1] : x.size();
      auto estimate = welch_median_estimate(std::span(x).subspan(begin, end - begin), d.sample_rate);
      if (!estimate)
        throw no_segment(format_text("'s PSD stretch %zu (from %g s)", k, static_cast<double>(begin) / d.sample_rate),
                         end - begin);
      psds.push_back(estimate->psd);
      in.stretch_psds.push_back(std::move(*estimate));
    }
    white = whiten_by_stretch(x, d.sample_rate, in.psd_stretch_starts, psds, settings);
  } else {
    auto estimate = welch_median_estimate(x, d.sample_rate);
    if (!estimate) throw no_segment("", d.strain.size());
    white = whiten(x, d.sample_rate, estimate->psd, settings);
    in.psd = std::move(estimate);
  }
  d.strain.assign(white.begin(), white.end());
  d.whitened = true;
  d.f_low = f_low;
  in.whitened_here = true;
  in.whitening_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

std::size_t apply_data_quality(DetectorStrain& d) {
  const auto per_second = static_cast<std::size_t>(std::llround(d.sample_rate));
  std::size_t masked = 0;
  for (std::size_t second = 0, first = 0; first < d.strain.size(); ++second, first += per_second) {
    const std::size_t end = std::min(d.strain.size(), first + per_second);
    const bool flagged = second < d.dq.size() && d.dq[second] == 0;
    bool unusable = flagged;
    for (std::size_t i = first; i < end; ++i) {
      if (flagged) d.strain[i] = NAN;
      unusable = unusable || !std::isfinite(d.strain[i]);
    }
    masked += unusable ? 1 : 0;
  }
  d.dq.clear();
  return masked;
}

std::vector<StrainInput> read_strain_inputs(const std::vector<std::string>& paths) {
  std::vector<StrainInput> inputs;
  for (const auto& path : paths) {
    if (looks_like_gwosc(path)) {
      inputs.push_back({read_gwosc_strain(path), path});
      inputs.back().injection_seconds = gwosc_injection_seconds(path);
      continue;
    }
    for (auto& d : read_gw_strain(path)) inputs.push_back({std::move(d), path});
  }
  AS_EXPECTS(!inputs.empty(), InputError, "no strain file given", layout_hint);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (std::size_t j = i + 1; j < inputs.size(); ++j) check_agree(inputs[i], inputs[j]);
  for (auto& in : inputs) {
    in.masked_seconds = apply_data_quality(in.strain);
    const auto& s = in.strain.strain;
    AS_EXPECTS(std::any_of(s.begin(), s.end(), [](float v) { return std::isfinite(v); }), InputError,
               "strain file '" + in.path + "': detector " + in.strain.ifo +
                   " holds no usable sample (all NaN or flagged by its data quality)",
               "leave the detector out of --strain");
  }
  return inputs;
}

void whiten_inputs(std::vector<StrainInput>& inputs, double f_low, double psd_stretch_seconds) {
  for (auto& in : inputs)
    if (!in.strain.whitened) whiten_input(in, f_low, psd_stretch_seconds);
}

}  // namespace astrosweep::spiir
