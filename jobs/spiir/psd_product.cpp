#include "psd_product.hpp"

#include "io/h5.hpp"

namespace astrosweep::spiir {

void write_estimated_psd(hid_t file, const DetectorStrain& strain, const WelchPsd& estimate) {
  h5::Id detectors =
      h5::exists(file, "detectors") ? h5::open_group(file, "detectors") : h5::create_group(file, "detectors");
  h5::Id ifo = h5::create_group(detectors.get(), strain.ifo);
  h5::Id psd = write_psd_group(ifo.get(), estimate.psd);
  const double start = static_cast<double>(strain.gps_start_s) + 1e-9 * strain.gps_start_ns;
  const auto seconds = [&](std::size_t samples) { return static_cast<double>(samples) / strain.sample_rate; };
  h5::set_attribute(psd.get(), "estimator", std::string("median-averaged Welch periodograms (spec 6)"));
  h5::set_attribute(psd.get(), "segment_seconds", seconds(estimate.segment_samples));
  h5::set_attribute(psd.get(), "segment_samples", static_cast<std::int64_t>(estimate.segment_samples));
  h5::set_attribute(psd.get(), "overlap", 0.5);
  h5::set_attribute(psd.get(), "window", std::string("hann (periodic, scipy's get_window('hann', N))"));
  h5::set_attribute(psd.get(), "average", std::string("median"));
  h5::set_attribute(psd.get(), "median_bias", estimate.bias);
  h5::set_attribute(psd.get(), "bias_correction",
                    std::string("the median divided by median_bias(n_segments), LAL's XLALMedianBias"));
  h5::set_attribute(psd.get(), "n_segments", static_cast<std::int64_t>(estimate.n_segments));
  // The stretch the averaged segments cover (segments holding a gap are left out, so the span may
  // also contain stretches that did not contribute).
  h5::set_attribute(psd.get(), "first_sample", static_cast<std::int64_t>(estimate.first_sample));
  h5::set_attribute(psd.get(), "end_sample", static_cast<std::int64_t>(estimate.end_sample));
  h5::set_attribute(psd.get(), "span_gps_start", start + seconds(estimate.first_sample));
  h5::set_attribute(psd.get(), "span_gps_end", start + seconds(estimate.end_sample));
}

}  // namespace astrosweep::spiir
