// The Fresnel integrals, the exact response and the template bank (spec §3, §12): against
// high-precision values and an independent quadrature, with the identities the search relies on.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "core/error.hpp"
#include "fresnel.hpp"
#include "response.hpp"
#include "template_bank.hpp"

namespace astrosweep::fdas {
namespace {

struct FresnelValue {
  double x, c, s;
};

// mpmath 1.3.0, 40 digits: mp.fresnelc(x), mp.fresnels(x) (the π/2 normalisation used here).
constexpr FresnelValue fresnel_values[] = {
    {0.0, 0.0, 0.0},
    {1e-08, 1.0000000000000000209e-8, 5.2359877559829890594e-25},
    {0.001, 0.00099999999999975328071, 5.2359877559820662519e-10},
    {0.1, 0.099997532627085073601, 0.00052358954761221068668},
    {0.5, 0.49234422587144639288, 0.064732432859999277611},
    {1.0, 0.77989340037682282947, 0.43825914739035476608},
    {1.5, 0.44526117603982153506, 0.69750496008209301308},
    {1.59, 0.37202645922223944123, 0.64642975198598669126},
    {1.6, 0.36546168344048765296, 0.63888768350938083462},
    {1.61, 0.35928415347323511048, 0.63102530865638240141},
    {2.0, 0.4882534060753407545, 0.3434156783636982422},
    {2.5, 0.45741300964177704525, 0.61918175581959293611},
    {3.0, 0.60572078929768562956, 0.4963129989673750361},
    {4.5, 0.52602591505353874137, 0.43427297504870358947},
    {7.3, 0.53926801565846248225, 0.51894732785814429068},
    {10.0, 0.49989869420551572361, 0.4681699785848822404},
    {31.7, 0.50989124945850083102, 0.49827047184687733324},
    {100.0, 0.49999989867881789756, 0.49681690114783755327},
    {1000.5, 0.50012175095081008272, 0.49970606693895421723},
    {12345.6, 0.49997823046884574365, 0.49998618463506392296},
    {1000000.25, 0.50000003119981698231, 0.49999968322294211538},
    {-0.7, -0.65965235190451035902, -0.17213645786347742245},
    {-2.2, -0.63628604490331950198, -0.4557046121246570649},
    {-50.0, -0.49999918943072796796, -0.49363380258593874145},
};

TEST(Fresnel, MatchesHighPrecisionValuesTo1e13) {
  for (const auto& v : fresnel_values) {
    const Fresnel f = fresnel(v.x);
    EXPECT_NEAR(f.c, v.c, 1e-13) << "C(" << v.x << ")";
    EXPECT_NEAR(f.s, v.s, 1e-13) << "S(" << v.x << ")";
  }
}

// Where the Taylor table is at its widest step (half-way between nodes j/32, |h| = 1/64) and just
// below its end: mpmath 1.3.0 as above. The continued fraction it replaced was within 4e-16 of
// these; the table must do as well.
constexpr FresnelValue taylor_values[] = {
    {1.609375, 0.3596585566118245847, 0.63152575542141956705},
    {2.015625, 0.50385317132639571797, 0.34418404449611939507},
    {3.140625, 0.52464501594419516449, 0.59804774082184559706},
    {4.984375, 0.56172528047768307556, 0.48372241824395656238},
    {6.515625, 0.46835856807401642067, 0.53721285813961583338},
    {7.984375, 0.48457511236693462511, 0.46324104567734657222},
    {7.9999999999, 0.49980218027719713556, 0.46021421439301448399},
};

TEST(Fresnel, TaylorTableMatchesHighPrecisionValuesTo1e15) {
  for (const auto& v : taylor_values) {
    for (const double sign : {1.0, -1.0}) {
      const Fresnel f = fresnel(sign * v.x);
      EXPECT_NEAR(f.c, sign * v.c, 1e-15) << "C(" << sign * v.x << ")";
      EXPECT_NEAR(f.s, sign * v.s, 1e-15) << "S(" << sign * v.x << ")";
    }
  }
}

// Where the asymptotic expansion serves (x ≥ 8; x exact in binary, so that the value's derivative,
// up to 1, does not turn the decimal's rounding into error): mpmath 1.3.0 as above.
constexpr FresnelValue asymptotic_values[] = {
    {8.0, 0.49980218037719713556, 0.46021421439301448386},    {8.5, 0.51417759858373344688, 0.46534124898107450714},
    {12.0, 0.49994136935201138031, 0.47347456491993544793},   {20.25, 0.4984714136678245246, 0.51564448311203061833},
    {57.125, 0.4949056529134076568, 0.4977424257759741698},   {333.25, 0.49939404543337883291, 0.49926164653972679404},
    {4096.5, 0.50002973560703586243, 0.49992821189035719668},
};

TEST(Fresnel, AsymptoticExpansionMatchesHighPrecisionValuesTo1e15) {
  for (const auto& v : asymptotic_values) {
    for (const double sign : {1.0, -1.0}) {
      const Fresnel f = fresnel(sign * v.x);
      EXPECT_NEAR(f.c, sign * v.c, 1e-15) << "C(" << sign * v.x << ")";
      EXPECT_NEAR(f.s, sign * v.s, 1e-15) << "S(" << sign * v.x << ")";
    }
  }
}

TEST(Fresnel, IsContinuousWhereTheMethodChanges) {
  // 1.6: series → Taylor table; 8: table → asymptotic expansion; j/32 + 1/64: one node → the next.
  for (double x : {1.6 - 1e-12, 1.6, 8.0 - 1e-12, 8.0, 51.5 / 32, 100.5 / 32, 255.5 / 32}) {
    const Fresnel below = fresnel(std::nextafter(x, 0.0));
    const Fresnel at = fresnel(x);
    EXPECT_NEAR(below.c, at.c, 1e-13);
    EXPECT_NEAR(below.s, at.s, 1e-13);
  }
}

// R by brute force: the midpoint rule on 2·10⁵ points (error ~ (phase rate)² / n² ≈ 1e-8 here).
std::complex<double> quadrature(double delta, double z) {
  constexpr int n = 200000;
  std::complex<double> sum = 0;
  for (int i = 0; i < n; ++i) {
    const double u = (i + 0.5) / n;
    const double phase = 2 * std::numbers::pi * ((delta - z / 2) * u + z / 2 * u * u);
    sum += std::complex<double>(std::cos(phase), std::sin(phase));
  }
  return sum / static_cast<double>(n);
}

TEST(Response, MatchesQuadratureTo1e6) {
  for (double z : {0.0, 1e-3, 0.5, 2.0, 37.3, -151.6, 200.0})
    for (double delta : {0.0, 0.25, -0.5, 1.0, 3.5, -20.25, 60.0}) {
      const auto r = response(delta, z);
      const auto q = quadrature(delta, z);
      EXPECT_NEAR(r.real(), q.real(), 1e-6) << "delta " << delta << " z " << z;
      EXPECT_NEAR(r.imag(), q.imag(), 1e-6) << "delta " << delta << " z " << z;
    }
}

TEST(Response, IsContinuousAcrossTheSmallDriftCrossover) {
  for (double delta : {0.0, 0.5, 7.25}) {
    const auto below = response(delta, std::nextafter(small_drift, 0.0));
    const auto above = response(delta, small_drift);
    EXPECT_NEAR(std::abs(below - above), 0.0, 1e-9) << delta;
  }
}

TEST(Response, HasTheSymmetriesTheBankUses) {
  for (double z : {2.0, 37.3, 200.0})
    for (double delta : {0.0, 0.5, -3.25, 40.0})
      EXPECT_NEAR(std::abs(response(delta, -z) - std::conj(response(-delta, z))), 0.0, 1e-14);
  EXPECT_EQ(response(0.0, 0.0), std::complex<double>(1.0));
  EXPECT_NEAR(std::abs(response(1.0, 0.0)), 0.0, 1e-15);  // sinc zeros at whole bins
}

TEST(Response, KeepsUnitEnergyOverTheBins) {
  // Σ_k |R(r − k, z)|² = 1 for any r: summed over ±2000 bins the tail left out is below 1e-3.
  for (double z : {0.0, 10.0, -96.0, 200.0})
    for (double r : {0.0, 0.5, 0.25}) {
      double energy = 0;
      for (int k = -2000; k <= 2000; ++k) energy += std::norm(response(r - k, z));
      EXPECT_NEAR(energy, 1.0, 1e-3) << "z " << z << " r " << r;
    }
}

TEST(TemplateBank, HalfWidthsAndGridsAreThoseOfTheSpec) {
  EXPECT_EQ(half_width(0), 16);
  EXPECT_EQ(half_width(96), 68);
  EXPECT_EQ(half_width(200), 126);
  EXPECT_EQ(half_width(-200), 126);
  EXPECT_EQ(half_width(200, Accuracy::high), 158);
  EXPECT_EQ(make_drift_grid(0).n_z, 1U);
  EXPECT_EQ(make_drift_grid(96).n_z, 97U);
  EXPECT_EQ(make_drift_grid(200).n_z, 201U);
  EXPECT_EQ(make_drift_grid(95).z_max, 96.0);  // rounded up to a multiple of Δz
  EXPECT_EQ(make_drift_grid(200).z(0), -200.0);
  EXPECT_EQ(make_drift_grid(200).z(200), 200.0);
  EXPECT_THROW(make_drift_grid(-1), UsageError);
  EXPECT_THROW(make_drift_grid(1202), UsageError);
  EXPECT_THROW(make_drift_grid(std::nan("")), UsageError);
}

TEST(TemplateBank, SegmentGeometryOfPrestoDefaults) {
  const TemplateBank bank = make_template_bank(200, 2, Accuracy::low);
  EXPECT_EQ(bank.layout.fft_length, 2048U);
  EXPECT_EQ(bank.layout.half_width, 126U);
  EXPECT_EQ(bank.layout.useful_outputs(), 1544U);  // 772 bins per segment
  EXPECT_EQ(bank.taps.size(), 201U);
  const TemplateBank one = make_template_bank(96, 1, Accuracy::low);
  // numbetween 1: one output fewer than 2048 − 2·68, so the last interbin's neighbour is clean.
  EXPECT_EQ(one.layout.useful_outputs(), 2048U - 136U - 1U);
  EXPECT_EQ(one.layout.segment_columns(), 2 * one.layout.useful_outputs());
  EXPECT_THROW(make_template_bank(200, 3, Accuracy::low), UsageError);
  EXPECT_THROW(make_template_bank(200, 2, Accuracy::low, 256), UsageError);  // shorter than the kernel
}

TEST(TemplateBank, TapsAreTheConjugateResponseLaidOutCircularly) {
  const TemplateBank bank = make_template_bank(20, 2, Accuracy::low);
  const std::size_t L = bank.layout.fft_length;
  for (std::size_t t : {std::size_t{0}, std::size_t{5}, bank.taps.size() - 1}) {
    const double z = bank.grid.z(t);
    const int reach = 2 * half_width(z);
    for (int j : {0, 1, -1, reach, -reach})
      EXPECT_EQ(bank.taps[t][static_cast<std::size_t>((j + static_cast<int>(L)) % static_cast<int>(L))],
                std::conj(response(j / 2.0, z)));
    EXPECT_EQ(bank.taps[t][static_cast<std::size_t>(reach + 1)], std::complex<double>{});  // beyond the template
  }
}

}  // namespace
}  // namespace astrosweep::fdas
