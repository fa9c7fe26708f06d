// The fast method against the direct one: every model, normalization and precision on the bundled
// catalogs and on synthetic series of 10 to 10^5 points at MJD and JD times, grids of one
// frequency and around FFT sizes and piece boundaries, and values that depend only on the grid
// index. Tolerances are the issue's: FP64 within 1e-8 of each object's peak power, FP32 within
// 1e-5 and the same best frequency. The direct FP64 kernel (itself checked against the
// reference to 1e-9 in test_lomb_scargle) is the oracle where whole periodograms are compared;
// the reference, at sampled frequencies, for 10^5 points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "lomb_scargle.hpp"
#include "lomb_scargle_fast.hpp"
#include "prepared_series.hpp"
#include "test_data.hpp"

namespace astrosweep::period {
namespace {

struct Synthetic {
  std::vector<double> t, y, dy;
};

// Uneven sampling of a noisy sinusoid over 3000 days from t0 (MJD by default).
Synthetic synthetic(std::size_t n, std::uint64_t seed, double t0 = 52000.0, double span = 3000.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, 1);
  Synthetic s;
  for (std::size_t j = 0; j < n; ++j) {
    const double t = t0 + span * u(rng);
    s.t.push_back(t);
    s.dy.push_back(0.05 + 0.2 * u(rng));
    s.y.push_back(17 + 0.4 * std::sin(2 * M_PI * t / 0.3712) + s.dy.back() * g(rng));
  }
  return s;
}

template <class T>
constexpr double tolerance() {
  return sizeof(T) == 4 ? 1e-5 : 1e-8;
}

template <class T>
std::vector<T> fast(const PreparedSeries& s, const FrequencyGrid& grid, Model model, Normalization norm,
                    std::uint64_t k0 = 0, std::uint64_t n = 0) {
  std::vector<T> out(n ? n : grid.n);
  const FastSeries<T> series(s, grid);
  FastWorkspace ws;
  lomb_scargle_fast<T>(series, grid, model, norm, k0, out, ws);
  return out;
}

std::vector<double> direct(const PreparedSeries& s, const FrequencyGrid& grid, Model model, Normalization norm) {
  std::vector<double> out(grid.n);
  const CpuSeries<double> kernel(s, grid);
  lomb_scargle_cpu<double>(kernel, grid, model, norm, 0, out);
  return out;
}

// Fast against direct FP64 over a whole grid: within the precision's tolerance of the peak, and
// for FP32 the same best frequency.
template <class T>
::testing::AssertionResult agrees(const std::vector<double>& ref, const PreparedSeries& s, const FrequencyGrid& grid,
                                  Model model, Normalization norm) {
  const auto got = fast<T>(s, grid, model, norm);
  const double peak = *std::max_element(ref.begin(), ref.end());
  double err = 0;
  std::size_t worst = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    const double e = std::abs(static_cast<double>(got[k]) - ref[k]);
    if (!(e <= err)) worst = k;
    err = std::max(err, std::isnan(e) ? std::numeric_limits<double>::infinity() : e);
  }
  const auto best_ref = std::max_element(ref.begin(), ref.end()) - ref.begin();
  const auto best_got = std::max_element(got.begin(), got.end()) - got.begin();
  if (err <= tolerance<T>() * peak && (sizeof(T) == 8 || best_ref == best_got)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << to_string(model) << " " << to_string(norm)
                                       << (sizeof(T) == 4 ? " fp32" : " fp64") << ": error " << err / peak
                                       << " of the peak at k=" << worst << " (N_f " << grid.n << "), best k "
                                       << best_got << " against " << best_ref;
}

// Both precisions against one direct FP64 periodogram.
::testing::AssertionResult both_agree(const PreparedSeries& s, const FrequencyGrid& grid, Model model,
                                      Normalization norm) {
  const auto ref = direct(s, grid, model, norm);
  auto r = agrees<double>(ref, s, grid, model, norm);
  return r ? agrees<float>(ref, s, grid, model, norm) : r;
}

const Model models[] = {Model::standard, Model::generalized};
const Normalization normalizations[] = {Normalization::standard, Normalization::model, Normalization::log,
                                        Normalization::psd};

// The paper's frequency range, f in [0.5, 24) 1/day, on a coarser grid (the tests run unoptimised).
const FrequencyGrid paper_range{0.5, 23.5 / 2500, 2500};

TEST(LombScargleFast, BundledCatalogsEveryModelNormalizationAndPrecision) {
  for (const char* file : {"ztf_243ida_r.csv", "synthetic_8205.csv", "sdss_stripe82_z.csv"}) {
    const auto block = test::light_curves(file);
    for (std::size_t i = 0; i < block.n_objects(); ++i) {
      const auto o = test::object(block, i);
      for (Model model : models) {
        const auto s = prepare_series(o.t, o.y, o.dy, model);
        ASSERT_TRUE(s.computable());
        for (Normalization norm : normalizations) {
          EXPECT_TRUE(both_agree(s, paper_range, model, norm)) << file << " object " << o.id;
        }
      }
    }
  }
}

TEST(LombScargleFast, Fp32FindsTheDirectBestFrequencyOnTheFullPaperGrid) {
  // 10^5 frequencies, the grid of the known answers: the bundled 3,555-point object, where an FP32
  // NUFFT with float positions is off by 0.28 of the peak and moves the best frequency.
  const FrequencyGrid grid{0.5, 23.5 / 1e5, 100000};
  const auto o = test::object(test::light_curves("synthetic_8205.csv"), 0);
  for (Model model : models) {
    const auto s = prepare_series(o.t, o.y, o.dy, model);
    EXPECT_TRUE(
        agrees<float>(direct(s, grid, model, Normalization::standard), s, grid, model, Normalization::standard));
  }
}

// Grid lengths around FFT sizes and around the 2^15-frequency pieces: 1, 2, 2^k - 1, 2^k, 2^k + 1.
class FastGridLengths : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(FastGridLengths, AgreesWithDirect) {
  const auto data = synthetic(60, GetParam());
  const FrequencyGrid grid{0.5, 1e-4, GetParam()};
  for (Model model : models) {
    const auto s = prepare_series(data.t, data.y, data.dy, model);
    EXPECT_TRUE(both_agree(s, grid, model, Normalization::standard));
  }
}

INSTANTIATE_TEST_SUITE_P(AroundFftSizes, FastGridLengths,
                         ::testing::Values(1, 2, 3, 1023, 1024, 1025, 4095, 4097, 32767, 32768, 32769));

TEST(LombScargleFast, SeveralPiecesAgreeWithDirectAcrossTheirBoundaries) {
  // Pieces of 2^15 frequencies forced on a grid of 3 pieces and a bit.
  const auto data = synthetic(40, 5);
  const FrequencyGrid grid{0.5, 2e-4, 3 * 32768 + 5};
  for (Model model : models) {
    const auto s = prepare_series(data.t, data.y, data.dy, model);
    const auto ref = direct(s, grid, model, Normalization::standard);
    FastSeries<double> series(s, grid);
    series.layout = {32768, nufft_shape(32768, fast_tolerance<double>())};
    FastWorkspace ws;
    std::vector<double> got(grid.n);
    lomb_scargle_fast<double>(series, grid, model, Normalization::standard, 0, got, ws);
    const double peak = *std::max_element(ref.begin(), ref.end());
    for (std::uint64_t k : {0ull, 32767ull, 32768ull, 65535ull, 65536ull, 98303ull, 98304ull, 98308ull})
      EXPECT_NEAR(got[k], ref[k], 1e-8 * peak) << "k=" << k << " " << to_string(model);
    double err = 0;
    for (std::size_t k = 0; k < ref.size(); ++k) err = std::max(err, std::abs(got[k] - ref[k]));
    EXPECT_LE(err, 1e-8 * peak) << to_string(model);
  }
}

TEST(LombScargleFast, OneFrequencyOfAPureSinusoidHasUnitPower) {
  std::vector<double> t, y, dy;
  for (int j = 0; j < 200; ++j) {
    t.push_back(j * 0.37 + 0.1 * std::sin(j));
    y.push_back(2.0 + std::cos(2 * M_PI * 1.25 * t.back() + 0.3));
    dy.push_back(1.0);
  }
  const auto s = prepare_series(t, y, dy, Model::generalized);
  const FrequencyGrid g{1.25, 0.001, 1};
  EXPECT_NEAR(fast<double>(s, g, Model::generalized, Normalization::standard)[0], 1.0, 1e-10);
  EXPECT_NEAR(fast<float>(s, g, Model::generalized, Normalization::standard)[0], 1.0, 1e-5);
}

TEST(LombScargleFast, TenToTenThousandPointsAtMjdAndJdTimes) {
  for (std::size_t n : {10u, 100u, 10000u})
    for (double t0 : {52000.0, 2458600.0}) {
      const auto data = synthetic(n, n + 3, t0);
      const FrequencyGrid grid{0.05, 3e-4, n < 10000 ? 20000u : 1500u};
      for (Model model : models) {
        const auto s = prepare_series(data.t, data.y, data.dy, model);
        for (Normalization norm : normalizations) {
          EXPECT_TRUE(both_agree(s, grid, model, norm)) << "n=" << n << " t0=" << t0;
        }
      }
    }
}

TEST(LombScargleFast, HundredThousandPointsAgainstTheReference) {
  // The reference at 40 sampled frequencies, among them the peak (1 / 0.3712 d).
  const auto data = synthetic(100000, 17);
  const FrequencyGrid grid{0.5, 1e-4, 40000};
  std::vector<std::uint64_t> sample{0, 39999, static_cast<std::uint64_t>(std::lround((1 / 0.3712 - 0.5) / 1e-4))};
  for (std::uint64_t k = 1; sample.size() < 40; k += 1013) sample.push_back(k);
  for (Model model : models) {
    const auto s = prepare_series(data.t, data.y, data.dy, model);
    const auto got64 = fast<double>(s, grid, model, Normalization::standard);
    const auto got32 = fast<float>(s, grid, model, Normalization::standard);
    std::vector<double> ref(sample.size());
    for (std::size_t i = 0; i < sample.size(); ++i)
      lomb_scargle_reference(s, grid, model, Normalization::standard, sample[i], std::span<double>(&ref[i], 1));
    const double peak = ref[2];
    EXPECT_GT(peak, 0.5);
    for (std::size_t i = 0; i < sample.size(); ++i) {
      EXPECT_NEAR(got64[sample[i]], ref[i], 1e-8 * peak) << "k=" << sample[i] << " " << to_string(model);
      EXPECT_NEAR(got32[sample[i]], ref[i], 1e-5 * peak) << "k=" << sample[i] << " " << to_string(model);
    }
    EXPECT_EQ(std::max_element(got32.begin(), got32.end()) - got32.begin(), static_cast<std::ptrdiff_t>(sample[2]));
  }
}

TEST(LombScargleFast, ValueDependsOnlyOnGridIndex) {
  const auto data = synthetic(300, 3);
  const auto s = prepare_series(data.t, data.y, data.dy, Model::generalized);
  const FrequencyGrid grid{0.5, 1e-4, 70000};
  FastSeries<double> series(s, grid);
  series.layout = {32768, nufft_shape(32768, fast_tolerance<double>())};
  FastWorkspace ws;
  std::vector<double> whole(grid.n), part(40000);
  lomb_scargle_fast<double>(series, grid, Model::generalized, Normalization::standard, 0, whole, ws);
  lomb_scargle_fast<double>(series, grid, Model::generalized, Normalization::standard, 30000, part, ws);
  for (std::size_t i = 0; i < part.size(); ++i) ASSERT_EQ(part[i], whole[30000 + i]) << "k=" << 30000 + i;
  // Sums computed alone or together have the same bits.
  FastPieceSums together, alone;
  fast_piece_sums(series, grid, 1, fast_sum_y | fast_sum_w | fast_sum_w2, ws, together);
  for (unsigned which : {fast_sum_y, fast_sum_w, fast_sum_w2}) fast_piece_sums(series, grid, 1, which, ws, alone);
  EXPECT_EQ(together.y, alone.y);
  EXPECT_EQ(together.w, alone.w);
  EXPECT_EQ(together.w2, alone.w2);
}

TEST(LombScargleFast, LayoutsAndTheAutomaticChoice) {
  const FrequencyGrid small{0.5, 1e-4, 1000}, large{0.5, 1e-5, 1000000};
  EXPECT_EQ(fast_layout<double>(100, small).piece, 1000u);  // one piece: the whole grid
  for (std::uint64_t n : {10u, 3000u, 65000u, 1000000u}) {
    const auto layout = fast_layout<double>(n, large);
    EXPECT_EQ(layout.piece % 32768, 0u) << n;
    EXPECT_EQ(layout.shape.modes, layout.piece);
  }
  const FrequencyGrid tess{0.04, 1e-4, 50000}, kepler{0.01, 1e-4, 175000};
  for (Model model : models) {
    EXPECT_EQ(choose_method<double>(Method::automatic, 10, large, model), Method::direct);
    EXPECT_EQ(choose_method<double>(Method::automatic, 65000, kepler, model), Method::fast);
    EXPECT_EQ(choose_method<float>(Method::automatic, 3000, large, model), Method::fast);
    EXPECT_EQ(choose_method<double>(Method::automatic, 1500, tess, model), Method::fast);
    EXPECT_EQ(choose_method<double>(Method::direct, 65000, kepler, model), Method::direct);
    EXPECT_EQ(choose_method<double>(Method::fast, 10, large, model), Method::fast);
  }
}

}  // namespace
}  // namespace astrosweep::period
