// The recurrence and the OpenMP backend (spec §11, §12 tolerances 1 and 2): the reference against
// closed-form impulse and step responses; the backend in FP64 and FP32 against the reference over
// chunks of awkward sizes, with padding filters and several templates; the factory's choice (CUDA only
// where the rank sees a GPU, refused otherwise).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "device.hpp"
#include "filter_test_support.hpp"
#include "spiir_backend.hpp"
#include "spiir_reference.hpp"

namespace astrosweep::spiir {
namespace {

double peak(const std::vector<std::complex<double>>& z) {
  double m = 0;
  for (const auto& v : z) m = std::max(m, std::abs(v));
  return m;
}

TEST(SpiirReference, ImpulseResponseIsTheClosedForm) {
  std::mt19937_64 rng(1);
  const auto filters = random_filters(rng, 17, 40);
  const std::size_t n = 300, n0 = 13;
  std::vector<double> x(n, 0.0);
  x[n0] = 1;
  const auto z = iir_filter_reference(filters, x);
  for (std::size_t i = 0; i < n; ++i) {
    std::complex<double> want = 0;
    for (const auto& f : filters) {
      const auto lag = static_cast<std::int64_t>(i) - static_cast<std::int64_t>(n0) - f.delay;
      if (lag >= 0) want += f.b0 * std::pow(f.a1, static_cast<double>(lag));
    }
    EXPECT_LE(std::abs(z[i] - want), 1e-12 * (1 + std::abs(want))) << i;
  }
}

TEST(SpiirReference, StepResponseIsTheGeometricSum) {
  std::mt19937_64 rng(2);
  const auto filters = random_filters(rng, 9, 30);
  const std::size_t n = 400, n0 = 7;
  std::vector<double> x(n, 0.0);
  for (std::size_t i = n0; i < n; ++i) x[i] = 1;
  const auto z = iir_filter_reference(filters, x);
  for (std::size_t i = 0; i < n; ++i) {
    std::complex<double> want = 0;
    for (const auto& f : filters) {
      const auto m = static_cast<std::int64_t>(i) - static_cast<std::int64_t>(n0) - f.delay;
      if (m >= 0) want += f.b0 * (1.0 - std::pow(f.a1, static_cast<double>(m + 1))) / (1.0 - f.a1);
    }
    EXPECT_LE(std::abs(z[i] - want), 1e-11 * (1 + std::abs(want))) << i;
  }
}

// Three templates of 1, 40 and 23 filters (padding in the matrix), delays up to 500 samples.
RateBank test_bank() {
  std::mt19937_64 rng(3);
  return RateBank::pack(2048, {random_filters(rng, 1, 10), random_filters(rng, 40, 500), random_filters(rng, 23, 200)});
}

// Runs the backend over x in chunks of the given sizes (cycled), template-major output for all x.
std::vector<std::complex<double>> run_chunked(SpiirBackend& backend, const std::vector<double>& x,
                                              const std::vector<std::size_t>& sizes) {
  const std::size_t nt = backend.n_templates();
  std::vector<std::complex<double>> out(nt * x.size());
  std::size_t first = 0;
  for (std::size_t c = 0; first < x.size(); ++c) {
    const std::size_t n = std::min(sizes[c % sizes.size()], x.size() - first);
    std::vector<std::complex<double>> z(nt * n);
    backend.filter(std::span(x).subspan(first, n), z);
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t i = 0; i < n; ++i) out[t * x.size() + first + i] = z[t * n + i];
    first += n;
  }
  return out;
}

void compare_with_reference(Precision precision, double tolerance) {
  const auto bank = test_bank();
  const auto x = white_noise(2500, 4);
  BackendOptions options;
  options.threads = 2;
  auto backend = make_spiir_backend_cpu(bank, precision, options);
  // Chunks of 1, 33, 32, 700 and 257 samples: shorter and longer than the longest delay.
  const auto z = run_chunked(*backend, x, {1, 33, 32, 700, 257});
  for (std::size_t t = 0; t < bank.n_templates; ++t) {
    const auto want = iir_filter_reference(bank.filters(t), x);
    const double scale = peak(want);
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(z[t * x.size() + i] - want[i]));
    EXPECT_LE(worst, tolerance * scale) << "template " << t;
  }
  // reset(): a new run from zero states gives the same numbers again.
  backend->reset();
  const auto again = run_chunked(*backend, x, {2500});
  for (std::size_t i = 0; i < z.size(); ++i) EXPECT_LE(std::abs(again[i] - z[i]), tolerance * peak(z));
}

TEST(SpiirBackendCpu, Fp64MatchesTheReference) { compare_with_reference(Precision::fp64, 1e-12); }

// Tolerance 1 of spec §12: max |z32 − z64| ≤ 1e−3 · max |z64|.
TEST(SpiirBackendCpu, Fp32WithinTolerance1) { compare_with_reference(Precision::fp32, 1e-3); }

TEST(SpiirBackendCpu, RefusesAMismatchedBuffer) {
  auto backend = make_spiir_backend_cpu(test_bank(), Precision::fp64, {});
  const std::vector<double> x(10, 0.0);
  std::vector<std::complex<double>> z(10);  // needs 3 × 10
  EXPECT_THROW(backend->filter(x, z), UsageError);
  EXPECT_NE(backend->describe().find("fp64"), std::string::npos);
}

TEST(SpiirBackendFactory, CpuWhenAskedAndCudaOnlyWhereItCanRun) {
  BackendOptions options;
  options.kind = BackendKind::cpu;
  EXPECT_EQ(make_spiir_backend(test_bank(), Precision::fp32, options)->describe().rfind("OpenMP", 0), 0u);
  // auto: the GPU exactly where the rank sees one.
  options.kind = BackendKind::automatic;
  const bool gpu = make_spiir_backend(test_bank(), Precision::fp32, options)->describe().rfind("cuda (", 0) == 0;
  EXPECT_EQ(gpu, cuda_device_count() > 0);
  // cuda: refused (RuntimeError, exit 5) without a CUDA build or a device, the GPU's backend otherwise.
  options.kind = BackendKind::cuda;
  if (cuda_device_count() > 0) {
    EXPECT_EQ(make_spiir_backend(test_bank(), Precision::fp32, options)->describe().rfind("cuda (", 0), 0u);
    return;
  }
  try {
    (void)make_spiir_backend(test_bank(), Precision::fp32, options);
    FAIL() << "expected a RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace astrosweep::spiir
