#include "psd_product.hpp"

#include "io/h5.hpp"
#include "stretch_whitening.hpp"

namespace astrosweep::spiir {

namespace {

h5::Id detector_group(hid_t file, const std::string& ifo) {
  h5::Id detectors =
      h5::exists(file, "detectors") ? h5::open_group(file, "detectors") : h5::create_group(file, "detectors");
  return h5::create_group(detectors.get(), ifo);
}

double gps_start(const DetectorStrain& strain) {
  return static_cast<double>(strain.gps_start_s) + 1e-9 * strain.gps_start_ns;
}

// What every estimate shares: the Welch settings (psd_welch.hpp).
void describe_welch(hid_t psd, std::size_t segment_samples, double sample_rate) {
  h5::set_attribute(psd, "estimator", std::string("median-averaged Welch periodograms (spec 6)"));
  h5::set_attribute(psd, "segment_seconds", static_cast<double>(segment_samples) / sample_rate);
  h5::set_attribute(psd, "segment_samples", static_cast<std::int64_t>(segment_samples));
  h5::set_attribute(psd, "overlap", 0.5);
  h5::set_attribute(psd, "window", std::string("hann (periodic, scipy's get_window('hann', N))"));
  h5::set_attribute(psd, "average", std::string("median"));
  h5::set_attribute(psd, "bias_correction",
                    std::string("the median divided by median_bias(n_segments), LAL's XLALMedianBias"));
}

}  // namespace

void write_estimated_psd(hid_t file, const DetectorStrain& strain, const WelchPsd& estimate) {
  h5::Id ifo = detector_group(file, strain.ifo);
  h5::Id psd = write_psd_group(ifo.get(), estimate.psd);
  describe_welch(psd.get(), estimate.segment_samples, strain.sample_rate);
  const auto seconds = [&](std::size_t samples) { return static_cast<double>(samples) / strain.sample_rate; };
  h5::set_attribute(psd.get(), "median_bias", estimate.bias);
  h5::set_attribute(psd.get(), "n_segments", static_cast<std::int64_t>(estimate.n_segments));
  // The stretch the averaged segments cover (segments holding a gap are left out, so the span may
  // also contain stretches that did not contribute).
  h5::set_attribute(psd.get(), "first_sample", static_cast<std::int64_t>(estimate.first_sample));
  h5::set_attribute(psd.get(), "end_sample", static_cast<std::int64_t>(estimate.end_sample));
  h5::set_attribute(psd.get(), "span_gps_start", gps_start(strain) + seconds(estimate.first_sample));
  h5::set_attribute(psd.get(), "span_gps_end", gps_start(strain) + seconds(estimate.end_sample));
}

void write_stretch_psds(hid_t file, const DetectorStrain& strain, double stretch_seconds,
                        const std::vector<std::size_t>& starts, const std::vector<WelchPsd>& estimates) {
  h5::Id ifo = detector_group(file, strain.ifo);
  h5::Id psd = h5::create_group(ifo.get(), "psd");
  const std::vector<double>& frequency = estimates.front().psd.frequency;
  std::vector<double> start_times;
  std::vector<double> bias;
  std::vector<double> value;
  std::vector<std::int64_t> n_segments;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    start_times.push_back(gps_start(strain) + static_cast<double>(starts[k]) / strain.sample_rate);
    bias.push_back(estimates[k].bias);
    n_segments.push_back(static_cast<std::int64_t>(estimates[k].n_segments));
    value.insert(value.end(), estimates[k].psd.value.begin(), estimates[k].psd.value.end());
  }
  h5::Id f = h5::write_column(psd.get(), "frequency", frequency, "Hz", "frequencies of the PSD's samples, increasing");
  h5::Id t = h5::write_column(psd.get(), "stretch_start", start_times, "s",
                              "GPS time of each stretch's first sample; a stretch ends where the next starts (the last "
                              "at the strain's end)");
  h5::Id v =
      h5::described(h5::create_dataset(psd.get(), "value", H5T_NATIVE_DOUBLE, {starts.size(), frequency.size()}),
                    "strain^2/Hz", "one-sided power spectral density of the detector's strain, one row per stretch");
  h5::write_rows(v.get(), H5T_NATIVE_DOUBLE, 0, starts.size(), value.data());
  h5::attach_scale(v.get(), t.get(), 0, "stretch_start");
  h5::attach_scale(v.get(), f.get(), 1, "frequency");
  h5::write_column(psd.get(), "n_segments", n_segments, "",
                   "Welch segments averaged in each stretch (those without a gap)");
  h5::write_column(psd.get(), "median_bias", bias, "",
                   "median_bias(n_segments): what each stretch's median was divided by");
  describe_welch(psd.get(), estimates.front().segment_samples, strain.sample_rate);
  h5::set_attribute(psd.get(), "stretch_seconds", stretch_seconds);
  h5::set_attribute(psd.get(), "crossfade_seconds", stretch_crossfade_seconds);
  h5::set_attribute(psd.get(), "pad_seconds", stretch_pad_seconds);
}

}  // namespace astrosweep::spiir
