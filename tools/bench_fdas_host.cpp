// Benchmark of fdas's host work per series (issue 12): the raw spectrum (FFTW, double), the
// dereddening and the polishing of a list of candidates, each timed on its own, on a synthetic
// series of white noise with an accelerated 8-harmonic pulsar. The candidates are drawn as a
// search with --zmax Z --numharm 8 reports them: a stage H of 1, 2, 4 or 8, a summed-plane drift
// of −Z … Z in steps of 2 and a half-bin column, divided by H. Prints each phase's best time of
// --repeat passes and a checksum of every polished value's bits, so that two builds can be shown
// to polish identically.
// With --tim FILE it first times reading that SIGPROC series as the job does (the samples, then the
// check that every one is finite).
//   astrosweep_bench_fdas_host [--n 8388608] [--candidates 32] [--zmax 200] [--threads 2]
//                              [--repeat 3] [--seed 1] [--tim FILE]

#include <omp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "accel_statistics.hpp"
#include "bench_fdas_signal.hpp"
#include "io/sigproc_tim.hpp"
#include "io/time_series_inputs.hpp"
#include "series_pipeline.hpp"
#include "spectrum.hpp"

using namespace astrosweep::fdas;

namespace {

struct Settings {
  std::size_t n = std::size_t{1} << 23;
  int candidates = 32;
  int z_max = 200;
  int threads = 2;
  int repeat = 3;
  unsigned seed = 1;
  std::string tim;
};

std::vector<Candidate> drawn_candidates(const Settings& s, std::size_t bins) {
  std::mt19937_64 rng(s.seed + 1);
  std::vector<Candidate> list;
  for (int i = 0; i < s.candidates; ++i) {
    const int stage = static_cast<int>(rng() % 4);
    const int H = 1 << stage;
    const auto column = static_cast<double>(2000 + rng() % (2 * bins - 4000));  // half bins, away from the ends
    const auto row = static_cast<double>(rng() % static_cast<unsigned>(s.z_max + 1));
    list.push_back({0.5 * column / H, (-s.z_max + 2 * row) / H, 30.0F, 5.0F, H, stage});
  }
  return list;
}

std::uint64_t checksum(const std::vector<SeriesFound>& found) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the values' bits
  auto mix = [&](double v) {
    auto bits = std::bit_cast<std::uint64_t>(v);
    for (int b = 0; b < 8; ++b, bits >>= 8) h = (h ^ (bits & 0xffU)) * 1099511628211ULL;
  };
  for (const SeriesFound& f : found) {
    mix(f.polished.r);
    mix(f.polished.z);
    mix(f.polished.summed_power);
    mix(f.polished.coherent_power);
    mix(f.sigma);
    for (const HarmonicRow& row : f.harmonics) {
      mix(row.local_power);
      mix(row.raw_power);
      mix(row.phase_deg);
      mix(row.centroid);
      mix(row.purity);
    }
  }
  return h;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a];
    const char* value = argv[a + 1];
    if (key == "--n")
      s.n = std::strtoull(value, nullptr, 10);
    else if (key == "--candidates")
      s.candidates = std::atoi(value);
    else if (key == "--zmax")
      s.z_max = std::atoi(value);
    else if (key == "--threads")
      s.threads = std::max(1, std::atoi(value));
    else if (key == "--repeat")
      s.repeat = std::max(1, std::atoi(value));
    else if (key == "--seed")
      s.seed = static_cast<unsigned>(std::atoi(value));
    else if (key == "--tim")
      s.tim = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  std::printf("# astrosweep_bench_fdas_host --n %zu --candidates %d --zmax %d --threads %d --repeat %d --seed %u%s%s\n",
              s.n, s.candidates, s.z_max, s.threads, s.repeat, s.seed, s.tim.empty() ? "" : " --tim ", s.tim.c_str());
  if (!s.tim.empty()) {
    double best = 1e300;
    std::size_t n = 0;
    for (int pass = 0; pass < s.repeat; ++pass) {
      const auto t = std::chrono::steady_clock::now();
      const std::vector<float> samples = astrosweep::io::read_sigproc_tim(s.tim).samples;
      astrosweep::io::require_finite_samples(samples, s.tim);
      best = std::min(best, seconds_since(t));
      n = samples.size();
    }
    std::printf("read %.1f ms (%zu samples, %.2f GB/s), best of %d\n", 1e3 * best, n,
                static_cast<double>(n) * 4 / best / 1e9, s.repeat);
  }
  omp_set_num_threads(s.threads);
  const std::vector<float> x = astrosweep::tools::accelerated_pulsar_in_noise(s.n, s.seed, 64e-6);
  const std::size_t n_fft = good_fft_length(x.size());
  const double span_s = static_cast<double>(n_fft) * 64e-6;
  std::vector<StageTrials> stages;
  for (int H = 1; H <= 8; H *= 2) stages.push_back({H, 1'000'000'000, 0, 0});

  double best_spectrum = 1e300, best_deredden = 1e300, best_polish = 1e300;
  std::uint64_t sum = 0, spectrum_sum = 0;
  for (int pass = 0; pass < s.repeat; ++pass) {
    auto t = std::chrono::steady_clock::now();
    std::vector<std::complex<float>> spectrum = raw_spectrum(x, n_fft);
    best_spectrum = std::min(best_spectrum, seconds_since(t));
    t = std::chrono::steady_clock::now();
    deredden(spectrum, s.threads);
    best_deredden = std::min(best_deredden, seconds_since(t));
    spectrum_sum = 1469598103934665603ULL;
    for (const std::complex<float>& f : spectrum)
      for (const float part : {f.real(), f.imag()})
        spectrum_sum = (spectrum_sum ^ std::bit_cast<std::uint32_t>(part)) * 1099511628211ULL;
    const std::vector<Candidate> list = drawn_candidates(s, spectrum.size());
    t = std::chrono::steady_clock::now();
    const auto found = polish_candidates(spectrum, list, stages, span_s, Accuracy::low, s.threads);
    best_polish = std::min(best_polish, seconds_since(t));
    const std::uint64_t pass_sum = checksum(found);
    if (pass > 0 && pass_sum != sum) std::printf("warning: pass %d polished differently\n", pass);
    sum = pass_sum;
  }
  std::printf("spectrum %.1f ms, deredden %.1f ms, polish %.1f ms (%.2f ms per candidate), best of %d\n",
              1e3 * best_spectrum, 1e3 * best_deredden, 1e3 * best_polish,
              s.candidates > 0 ? 1e3 * best_polish / s.candidates : 0.0, s.repeat);
  std::printf("dereddened spectrum checksum %016llx, polished checksum %016llx\n",
              static_cast<unsigned long long>(spectrum_sum), static_cast<unsigned long long>(sum));
  return 0;
}
