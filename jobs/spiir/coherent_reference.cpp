#include "coherent_reference.hpp"

#include <cmath>

#include "core/error.hpp"
#include "detector_geometry.hpp"

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

}  // namespace

std::vector<CoherentResult> coherent_reference(int order, const std::vector<std::string>& ifos,
                                               const std::vector<double>& sigma, double gps, double sample_rate,
                                               const NetworkSnr& snr, const TemplateAutocorrelations& autocorrelations,
                                               std::span<const Candidate> candidates,
                                               const CoherentSettings& settings) {
  AS_EXPECTS(snr.ifos == ifos && sigma.size() == ifos.size(), UsageError, "the network does not fit the SNR series");
  const std::size_t n = ifos.size();
  std::vector<const Detector*> dets;
  for (const auto& name : ifos) dets.push_back(&detector(name));
  const double gmst = gmst_from_gps(gps);
  const auto sky = sky_grid(order);
  std::vector<PixelGeometry> pixels;
  for (const auto& where : sky) pixels.push_back(pixel_geometry(dets, sigma, where, gmst));

  std::vector<CoherentResult> results;
  for (const auto& c : candidates) {
    for (int trial = 0; trial <= settings.n_slides; ++trial) {
      CoherentResult best;
      best.coh_snr2 = -1;
      std::vector<std::int32_t> offset(n);
      std::vector<std::complex<double>> zeta(n);
      for (std::size_t p = 0; p < sky.size(); ++p) {
        for (std::size_t d = 0; d < n; ++d) {
          const double samples = (pixels[p].arrival[d] - pixels[p].arrival[c.ref_ifo]) * sample_rate;
          offset[d] = static_cast<std::int32_t>(std::floor(samples + 0.5));
          if (d != c.ref_ifo) offset[d] -= static_cast<std::int32_t>(trial * settings.slide_samples);
          const std::int64_t at = c.sample + offset[d];
          AS_EXPECTS(at >= 0 && at < static_cast<std::int64_t>(snr.n_samples), UsageError,
                     "a candidate lacks the margin for the delays and slides");
          zeta[d] = snr.series(d, c.tmpl)[at];
        }
        const double coh = quadratic(pixels[p].projection, zeta);
        if (coh > best.coh_snr2) {
          std::vector<std::vector<double>> null_projection(n, std::vector<double>(n));
          for (std::size_t d = 0; d < n; ++d)
            for (std::size_t e = 0; e < n; ++e)
              null_projection[d][e] = (d == e ? 1.0 : 0.0) - pixels[p].projection[d][e];
          best.coh_snr2 = coh;
          best.null_snr2 = quadratic(null_projection, zeta);
          best.pixel = static_cast<std::int64_t>(p);
          best.snr = zeta;
          best.offset = offset;
        }
      }
      best.chisq.resize(n);
      best.network_chisq = 0;
      for (std::size_t d = 0; d < n; ++d) {
        const std::complex<double>* centre = snr.series(d, c.tmpl) + c.sample + best.offset[d];
        best.chisq[d] = autocorrelation_chisq(centre, autocorrelations.of(d, c.tmpl), autocorrelations.length);
        best.network_chisq += best.chisq[d];
      }
      results.push_back(std::move(best));
    }
  }
  return results;
}

}  // namespace astrosweep::spiir
