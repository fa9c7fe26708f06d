// The coherent statistic against PyCBC's (pycbc.events.coherent, spec §15's peer; values made by
// tools/spiir_pycbc_reference.py, committed in data/pycbc_coherent.txt): H1 L1 V1 and H1 L1, a
// signal in LCG noise both sides compute bit for bit, every pixel of order 2. Per pixel: F+ and F×
// (ψ = 0) and the delays rounded from H1 as PyCBC's detector model gives them, ρ_coh² of the
// search's sky map (FP64 and FP32) and of the reference, and at the search's pixel ρ_null², which
// PyCBC forms as ρ_coinc² − ρ_coh².
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "autocorrelation_chisq.hpp"
#include "coherent_reference.hpp"
#include "coherent_snr.hpp"
#include "detector_geometry.hpp"
#include "sky_grid.hpp"

namespace astrosweep::spiir {
namespace {

struct PixelRow {
  std::vector<double> fplus, fcross;
  std::vector<std::int32_t> offset;
  double coh2 = 0, null2 = 0;
};

struct PycbcCase {
  std::vector<std::string> ifos;
  std::vector<double> sigma;
  double gps = 0, rate = 0;
  std::size_t length = 0, centre = 0;
  int order = 0;
  NetworkSnr snr;
  std::vector<PixelRow> pixels;
};

// The script's lcg_noise: re then im per sample, each ((state >> 11) 2^-53 − 1/2) · 2.
std::vector<std::complex<double>> lcg_noise(std::size_t n, std::uint64_t state) {
  std::vector<std::complex<double>> out(n);
  for (auto& z : out) {
    double part[2];
    for (double& p : part) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      p = (static_cast<double>(state >> 11) * 0x1p-53 - 0.5) * 2.0;
    }
    z = {part[0], part[1]};
  }
  return out;
}

std::vector<PycbcCase> read_cases() {
  std::ifstream in(std::string(SPIIR_TEST_DATA) + "/pycbc_coherent.txt");
  EXPECT_TRUE(in) << "missing " << SPIIR_TEST_DATA << "/pycbc_coherent.txt";
  std::vector<PycbcCase> cases;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    if (line.rfind("case", 0) == 0) {
      std::string word;
      int index = 0;
      std::size_t n_det = 0;
      PycbcCase c;
      f >> word >> index >> n_det >> c.gps >> c.rate >> c.length >> c.centre >> c.order;
      c.snr.n_templates = 1;
      c.snr.n_samples = c.length;
      for (std::size_t d = 0; d < n_det && std::getline(in, line); ++d) {
        std::istringstream g(line);
        std::string ifo;
        std::uint64_t seed = 0;
        double sigma = 0, re = 0, im = 0;
        std::size_t at = 0;
        g >> ifo >> seed >> sigma >> at >> re >> im;
        c.ifos.push_back(ifo);
        c.sigma.push_back(sigma);
        auto z = lcg_noise(c.length, seed);
        z.at(at) += std::complex<double>(re, im);
        c.snr.z.push_back(std::move(z));
      }
      c.snr.ifos = c.ifos;
      cases.push_back(std::move(c));
      continue;
    }
    PixelRow row;
    std::size_t pixel = 0;
    f >> pixel;
    EXPECT_EQ(pixel, cases.back().pixels.size());
    for (std::size_t d = 0; d < cases.back().ifos.size(); ++d) {
      double fp = 0, fc = 0;
      std::int32_t offset = 0;
      f >> fp >> fc >> offset;
      row.fplus.push_back(fp);
      row.fcross.push_back(fc);
      row.offset.push_back(offset);
    }
    f >> row.coh2 >> row.null2;
    EXPECT_TRUE(f) << line;
    cases.back().pixels.push_back(row);
  }
  EXPECT_EQ(cases.size(), 2u);
  return cases;
}

const std::vector<PycbcCase>& cases() {
  static const auto c = read_cases();
  return c;
}

TEST(CoherentPycbc, GeometryMatchesPycbc) {
  for (const auto& c : cases()) {
    const SkyMap map = make_sky_map(c.order, c.ifos, c.sigma, c.gps, c.rate);
    const auto sky = sky_grid(c.order);
    ASSERT_EQ(sky.size(), c.pixels.size());
    const double gmst = gmst_from_gps(c.gps);
    for (std::size_t p = 0; p < sky.size(); ++p)
      for (std::size_t d = 0; d < c.ifos.size(); ++d) {
        const AntennaPattern f = antenna_pattern(detector(c.ifos[d]), sky[p], 0.0, gmst);
        EXPECT_NEAR(f.plus, c.pixels[p].fplus[d], 1e-6) << c.ifos[d] << " pixel " << p;
        EXPECT_NEAR(f.cross, c.pixels[p].fcross[d], 1e-6) << c.ifos[d] << " pixel " << p;
        EXPECT_EQ(map.offset(0, p, d), c.pixels[p].offset[d]) << c.ifos[d] << " pixel " << p;
      }
  }
}

TEST(CoherentPycbc, SkyMapsMatchPycbc) {
  for (const auto& c : cases()) {
    const SkyMap map = make_sky_map(c.order, c.ifos, c.sigma, c.gps, c.rate);
    const Candidate candidate{0, 0, static_cast<std::int64_t>(c.centre)};
    const CoherentSettings settings;
    const auto fp64 = coherent_sky_map(map, c.snr, candidate, settings, 0, Precision::fp64);
    const auto fp32 = coherent_sky_map(map, c.snr, candidate, settings, 0, Precision::fp32);
    const auto reference =
        coherent_reference_sky_map(c.order, c.ifos, c.sigma, c.gps, c.rate, c.snr, candidate, settings, 0);
    double top = 0, worst = 0;
    for (const auto& row : c.pixels) top = std::max(top, row.coh2);
    for (std::size_t p = 0; p < c.pixels.size(); ++p) {
      worst = std::max(worst, std::abs(fp64[p] - c.pixels[p].coh2));
    }
    std::printf("%zu detectors: largest |rho_coh^2 - PyCBC's| %.3g of the sky maximum %.4g\n", c.ifos.size(), worst,
                top);
    for (std::size_t p = 0; p < c.pixels.size(); ++p) {
      // F within 1e-6 of PyCBC's (GeometryMatchesPycbc), and pixels where the network is nearly
      // degenerate (AᵀA's condition number up to 900 here) amplify that in P: 1.2e-6 of the
      // maximum at worst with three detectors, 4e-10 with two (P is then the identity).
      EXPECT_NEAR(fp64[p], c.pixels[p].coh2, 2e-6 * top) << c.ifos.size() << " detectors, pixel " << p;
      EXPECT_NEAR(reference[p], c.pixels[p].coh2, 2e-6 * top) << c.ifos.size() << " detectors, pixel " << p;
      EXPECT_NEAR(fp32[p], c.pixels[p].coh2, 1e-5 * top) << c.ifos.size() << " detectors, pixel " << p;
    }
  }
}

// The statistic alone, given PyCBC's own F+, F× and rounded delays: our basis U of A (the one the
// search's tables hold) and ρ_coh² = |u₀†ζ|² + |u₁†ζ|², ρ_null² = Σ|ζ|² − ρ_coh² against PyCBC's
// projection matrix, to rounding: PyCBC forms P from AᵀA's determinant, which loses digits in
// proportion to its condition number (H1 and L1 are nearly co-aligned: 10⁴–10⁶ for two detectors).
TEST(CoherentPycbc, StatisticMatchesPycbcOnItsGeometry) {
  for (const auto& c : cases()) {
    const std::size_t n = c.ifos.size();
    double worst = 0, top = 0, worst_allowed = 0;
    for (const auto& row : c.pixels) top = std::max(top, row.coh2);
    for (const auto& row : c.pixels) {
      std::vector<std::array<double, 2>> a(n);
      std::vector<std::complex<double>> zeta(n);
      double total = 0;
      for (std::size_t d = 0; d < n; ++d) {
        a[d] = {c.sigma[d] * row.fplus[d], c.sigma[d] * row.fcross[d]};
        zeta[d] = c.snr.series(d, 0)[static_cast<std::int64_t>(c.centre) + row.offset[d]];
        total += std::norm(zeta[d]);
      }
      const std::vector<double> u = network_basis(a);
      double m00 = 0, m01 = 0, m11 = 0;
      for (const auto& r : a) {
        m00 += r[0] * r[0];
        m01 += r[0] * r[1];
        m11 += r[1] * r[1];
      }
      const double mean = (m00 + m11) / 2, spread = std::hypot((m00 - m11) / 2, m01);
      const double condition = (mean + spread) / (mean - spread);
      const double allowed = 1e-14 * std::max(1.0, condition) * total;
      double coh2 = 0;
      for (std::size_t k = 0; k < 2; ++k) {
        std::complex<double> projected = 0;
        for (std::size_t d = 0; d < n; ++d) projected += u[k * n + d] * zeta[d];
        coh2 += std::norm(projected);
      }
      const double difference = std::max(std::abs(coh2 - row.coh2), std::abs(std::max(0.0, total - coh2) - row.null2));
      EXPECT_LE(difference, allowed) << n << " detectors, condition " << condition;
      worst = std::max(worst, difference);
      worst_allowed = std::max(worst_allowed, allowed);
    }
    std::printf("%zu detectors on PyCBC's geometry: largest difference %.3g (largest allowed %.3g), sky maximum %.4g\n",
                n, worst, worst_allowed, top);
  }
}

TEST(CoherentPycbc, SearchMatchesPycbcAtItsPixel) {
  for (const auto& c : cases()) {
    const SkyMap map = make_sky_map(c.order, c.ifos, c.sigma, c.gps, c.rate);
    TemplateAutocorrelations ac;  // K = 0, R = 1: χ² = 0, so the candidate needs no χ² margin
    ac.length = 1;
    ac.n_templates = 1;
    ac.per_ifo.assign(c.ifos.size(), {std::complex<double>(1, 0)});
    const std::vector<Candidate> candidate{{0, 0, static_cast<std::int64_t>(c.centre)}};
    const auto results = coherent_search(map, c.snr, ac, candidate, CoherentSettings{}, Precision::fp64);
    ASSERT_EQ(results.size(), 1u);
    const auto& r = results.front();
    double top = 0;
    for (const auto& row : c.pixels) top = std::max(top, row.coh2);
    const auto& at = c.pixels.at(static_cast<std::size_t>(r.pixel));
    EXPECT_NEAR(r.coh_snr2, top, 1e-6 * top);  // the sky maximum
    EXPECT_NEAR(r.coh_snr2, at.coh2, 1e-6 * top);
    // PyCBC's ρ_coinc² − ρ_coh² (clamped at 0) against ζ†(I − P)ζ: with two detectors both are
    // rounding (the null space is empty), reported as 0 here.
    EXPECT_NEAR(r.null_snr2, at.null2, 1e-6 * top) << c.ifos.size() << " detectors, pixel " << r.pixel;
    if (c.ifos.size() == 2) {
      EXPECT_EQ(r.null_snr2, 0.0);
    }
    if (c.ifos.size() == 3) {
      std::size_t pycbc_best = 0;
      for (std::size_t p = 1; p < c.pixels.size(); ++p)
        if (c.pixels[p].coh2 > c.pixels[pycbc_best].coh2) pycbc_best = p;
      EXPECT_EQ(static_cast<std::size_t>(r.pixel), pycbc_best);
    }
  }
}

}  // namespace
}  // namespace astrosweep::spiir
