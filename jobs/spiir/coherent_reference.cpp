#include "coherent_reference.hpp"

#include <cmath>

#include "core/error.hpp"
#include "detector_geometry.hpp"
#include "subsample_interpolation.hpp"

namespace astrosweep::spiir {
namespace {

struct PixelGeometry {
  std::vector<std::vector<double>> projection;  // P, n_det × n_det
  std::vector<double> arrival;                  // t_d − t_geocentre, s
};

PixelGeometry pixel_geometry(const std::vector<const Detector*>& dets, const std::vector<double>& sigma,
                             const SkyDirection& where, double gmst) {
  const std::size_t n = dets.size();
  constexpr double psi = 0.3;
  std::vector<std::array<double, 2>> a(n);
  PixelGeometry g;
  for (std::size_t d = 0; d < n; ++d) {
    const AntennaPattern f = antenna_pattern(*dets[d], where, psi, gmst);
    a[d] = {sigma[d] * f.plus, sigma[d] * f.cross};
    g.arrival.push_back(delay_from_geocentre(*dets[d], where, gmst));
  }
  double m00 = 0, m01 = 0, m11 = 0;  // AᵀA
  for (const auto& row : a) {
    m00 += row[0] * row[0];
    m01 += row[0] * row[1];
    m11 += row[1] * row[1];
  }
  const double det = m00 * m11 - m01 * m01;
  const double i00 = m11 / det, i01 = -m01 / det, i11 = m00 / det;  // (AᵀA)⁻¹
  g.projection.assign(n, std::vector<double>(n));
  for (std::size_t d = 0; d < n; ++d)
    for (std::size_t e = 0; e < n; ++e)
      g.projection[d][e] = a[d][0] * (i00 * a[e][0] + i01 * a[e][1]) + a[d][1] * (i01 * a[e][0] + i11 * a[e][1]);
  return g;
}

// ζ† M ζ for a real symmetric M.
double quadratic(const std::vector<std::vector<double>>& m, const std::vector<std::complex<double>>& z) {
  std::complex<double> s = 0;
  for (std::size_t d = 0; d < z.size(); ++d)
    for (std::size_t e = 0; e < z.size(); ++e) s += std::conj(z[d]) * m[d][e] * z[e];
  return s.real();
}

// ζ_d of candidate c at one pixel in one trial: the series read at the pixel's delay from the
// reference detector, rounded (spec §9) or, with subsample, interpolated; the slide moves whole
// samples. `samples` gets the delay read, the slide included.
std::vector<std::complex<double>> pixel_zeta(const PixelGeometry& g, const NetworkSnr& snr, const Candidate& c,
                                             int trial, const CoherentSettings& settings, double sample_rate,
                                             std::vector<double>& samples) {
  const std::size_t n = g.arrival.size();
  std::vector<std::complex<double>> zeta(n);
  samples.resize(n);
  const std::int64_t margin = settings.subsample ? interpolation_half_width : 0;
  for (std::size_t d = 0; d < n; ++d) {
    double x = (g.arrival[d] - g.arrival[c.ref_ifo]) * sample_rate;
    if (!settings.subsample) x = std::floor(x + 0.5);
    const std::int64_t slide = d == c.ref_ifo ? 0 : trial * settings.slide_samples;
    const std::int64_t at = c.sample + static_cast<std::int64_t>(std::floor(x)) - slide;
    AS_EXPECTS(at - margin >= 0 && at + margin < static_cast<std::int64_t>(snr.n_samples), UsageError,
               "a candidate lacks the margin for the delays and slides");
    const std::complex<double>* series = snr.series(d, c.tmpl) + c.sample - slide;
    zeta[d] = settings.subsample ? interpolate_at(series, x) : series[static_cast<std::int64_t>(x)];
    samples[d] = x - static_cast<double>(slide);
  }
  return zeta;
}

struct ReferenceNetwork {
  std::vector<SkyDirection> sky;
  std::vector<PixelGeometry> pixels;
};

ReferenceNetwork reference_network(int order, const std::vector<std::string>& ifos, const std::vector<double>& sigma,
                                   double gps, const NetworkSnr& snr) {
  AS_EXPECTS(snr.ifos == ifos && sigma.size() == ifos.size(), UsageError, "the network does not fit the SNR series");
  std::vector<const Detector*> dets;
  for (const auto& name : ifos) dets.push_back(&detector(name));
  const double gmst = gmst_from_gps(gps);
  ReferenceNetwork net;
  net.sky = sky_grid(order);
  for (const auto& where : net.sky) net.pixels.push_back(pixel_geometry(dets, sigma, where, gmst));
  return net;
}

}  // namespace

std::vector<CoherentResult> coherent_reference(int order, const std::vector<std::string>& ifos,
                                               const std::vector<double>& sigma, double gps, double sample_rate,
                                               const NetworkSnr& snr, const TemplateAutocorrelations& autocorrelations,
                                               std::span<const Candidate> candidates,
                                               const CoherentSettings& settings) {
  const auto net = reference_network(order, ifos, sigma, gps, snr);
  const std::size_t n = ifos.size();
  const auto stride = static_cast<std::size_t>(settings.sky_stride);
  std::vector<CoherentResult> results;
  for (const auto& c : candidates) {
    for (int trial = 0; trial <= settings.n_slides; ++trial) {
      CoherentResult best;
      std::vector<double> samples, coh;
      const std::size_t first = static_cast<std::size_t>(trial) % stride;
      for (std::size_t p = first; p < net.sky.size(); p += stride)
        coh.push_back(quadratic(net.pixels[p].projection,
                                pixel_zeta(net.pixels[p], snr, c, trial, settings, sample_rate, samples)));
      const std::size_t p = first + reported_pixel(std::span<const double>(coh)) * stride;
      const auto zeta = pixel_zeta(net.pixels[p], snr, c, trial, settings, sample_rate, samples);
      std::vector<std::vector<double>> null_projection(n, std::vector<double>(n));
      for (std::size_t d = 0; d < n; ++d)
        for (std::size_t e = 0; e < n; ++e)
          null_projection[d][e] = (d == e ? 1.0 : 0.0) - net.pixels[p].projection[d][e];
      double total = 0;
      for (const auto& z : zeta) total += std::norm(z);
      best.coh_snr2 = quadratic(net.pixels[p].projection, zeta);
      best.null_snr2 = resolved_null_energy(quadratic(null_projection, zeta), total);
      best.pixel = static_cast<std::int64_t>(p);
      best.snr = zeta;
      best.delay = samples;
      best.chisq.resize(n);
      best.offset.resize(n);
      best.network_chisq = 0;
      const std::size_t k_half = autocorrelations.half_length();
      for (std::size_t d = 0; d < n; ++d) {
        const std::int64_t slide = d == c.ref_ifo ? 0 : trial * settings.slide_samples;
        // The rounded offset (the whole-sample part of the arrival-time difference), slide included.
        const double unslid = best.delay[d] + static_cast<double>(slide);
        best.offset[d] = static_cast<std::int32_t>(std::floor(unslid + 0.5) - static_cast<double>(slide));
        std::vector<std::complex<double>> window(autocorrelations.length);
        const std::complex<double>* series = snr.series(d, c.tmpl) + c.sample - slide;
        for (std::size_t s = 0; s < window.size(); ++s) {
          const double at = unslid + static_cast<double>(s) - static_cast<double>(k_half);
          window[s] = settings.subsample ? interpolate_at(series, at) : series[static_cast<std::int64_t>(at)];
        }
        best.chisq[d] =
            autocorrelation_chisq(window.data() + k_half, autocorrelations.of(d, c.tmpl), autocorrelations.length);
        best.network_chisq += best.chisq[d];
      }
      results.push_back(std::move(best));
    }
  }
  return results;
}

std::vector<double> coherent_reference_sky_map(int order, const std::vector<std::string>& ifos,
                                               const std::vector<double>& sigma, double gps, double sample_rate,
                                               const NetworkSnr& snr, const Candidate& candidate,
                                               const CoherentSettings& settings, int trial) {
  const auto net = reference_network(order, ifos, sigma, gps, snr);
  std::vector<double> out, samples;
  for (const auto& g : net.pixels)
    out.push_back(quadratic(g.projection, pixel_zeta(g, snr, candidate, trial, settings, sample_rate, samples)));
  return out;
}

}  // namespace astrosweep::spiir
