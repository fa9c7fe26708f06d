// Benchmark of fdas's per-series device pipeline (issue 12): one CUDA backend, one synthetic
// series of white noise with an accelerated 8-harmonic pulsar (as bench_fdas_host), searched
// --repeat times through search_samples, the way the job runs it (the spectrum made, dereddened
// and zapped on the device, the plane made from it there, the harmonic sum and thresholds, the
// spectrum's host copy coming down meanwhile), and, for comparison, through the earlier route (the
// raw spectrum copied down, dereddened on the host, searched from the host copy). Prints each
// route's best and median wall time per series, the spectrum and search phases, each stage's
// threshold and the cells above it (the harmonic sum keeps them with one atomic a warp), the
// backend's device-time summary with the per-series split (CUDA events: correlation, harmonic
// sum, candidate download), and whether both routes found the same candidates. A third route is
// the first with the samples in page-locked memory (their upload at the bus's rate, as a reader
// filling pinned buffers would give; the job's series are in pageable memory today). GPU busy time
// needs a profiler (nsys) around it; this prints what one rank's lane costs per series.
//   astrosweep_bench_fdas_cuda [--n 8388608] [--zmax 200] [--numharm 8] [--repeat 5] [--seed 1]
//                              [--threads 4]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <numbers>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench_fdas_signal.hpp"
#include "cuda_memory.hpp"
#include "fdas_backend.hpp"
#include "fdas_backend_cuda.hpp"
#include "spectrum.hpp"
#include "template_bank.hpp"

using namespace astrosweep;
using namespace astrosweep::fdas;

namespace {

struct Settings {
  std::size_t n = std::size_t{1} << 23;
  double z_max = 200;
  int numharm = 8;
  int repeat = 5;
  unsigned seed = 1;
  int threads = 4;
};

struct Times {
  std::vector<double> wall, spectrum, search;
  void print(const char* route) const {
    auto best = [](std::vector<double> v) { return *std::min_element(v.begin(), v.end()) * 1e3; };
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2] * 1e3;
    };
    std::printf("%-34s per series: best %8.2f ms, median %8.2f ms (spectrum %7.2f ms, search %7.2f ms, medians)\n",
                route, best(wall), median(wall), median(spectrum), median(search));
  }
};

bool same_candidates(const SeriesCandidates& a, const SeriesCandidates& b) {
  if (a.candidates.size() != b.candidates.size()) return false;
  for (std::size_t i = 0; i < a.candidates.size(); ++i)
    if (a.candidates[i].r != b.candidates[i].r || a.candidates[i].z != b.candidates[i].z ||
        a.candidates[i].power != b.candidates[i].power || a.candidates[i].numharm != b.candidates[i].numharm)
      return false;
  return true;
}

int run(int argc, char** argv) {
  Settings s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    const char* value = argv[i + 1];
    if (arg == "--n")
      s.n = std::strtoull(value, nullptr, 10);
    else if (arg == "--zmax")
      s.z_max = std::strtod(value, nullptr);
    else if (arg == "--numharm")
      s.numharm = std::atoi(value);
    else if (arg == "--repeat")
      s.repeat = std::max(1, std::atoi(value));
    else if (arg == "--seed")
      s.seed = static_cast<unsigned>(std::strtoul(value, nullptr, 10));
    else if (arg == "--threads")
      s.threads = std::max(1, std::atoi(value));
    else {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  constexpr double tsamp = 64e-6;
  const std::vector<float> x = tools::accelerated_pulsar_in_noise(s.n, s.seed, tsamp);
  const TemplateBank bank = make_template_bank(s.z_max, 2, Accuracy::low);
  BackendOptions options;
  options.kind = BackendKind::cuda;
  options.threads = s.threads;
  const auto backend = make_fdas_backend_cuda(bank, options);
  std::printf("astrosweep_bench_fdas_cuda --n %zu --zmax %g --numharm %d --repeat %d --seed %u --threads %d\n%s\n", s.n,
              s.z_max, s.numharm, s.repeat, s.seed, s.threads, backend->describe().c_str());

  SpectrumRequest request;
  request.n_fft = good_fft_length(s.n);
  request.threads = s.threads;
  const double span = static_cast<double>(request.n_fft) * tsamp;
  SearchSettings settings;
  settings.numharm = s.numharm;
  settings.sigma_min = 2.0;
  settings.r_lo = std::max(1.0, 1.0 * span);
  settings.r_hi = std::min(10000.0 * span, static_cast<double>(request.n_fft / 2));
  settings.threads = s.threads;

  using Clock = std::chrono::steady_clock;
  Times device, host;
  SeriesCandidates on_device, via_host;
  // One series through search_samples, its times kept in `times` (none for the warm-up pass).
  auto search_on_device = [&](std::span<const float> samples, Times* times) {
    const auto t = Clock::now();
    const SpectrumSearch r = backend->search_samples(samples, request, settings);
    if (times != nullptr) {
      times->wall.push_back(std::chrono::duration<double>(Clock::now() - t).count());
      times->spectrum.push_back(r.spectrum_seconds);
      times->search.push_back(r.search_seconds);
    }
    return r.found;
  };
  // One pass each first: plans, buffers and the correlator are made for the first series.
  for (int pass = -1; pass < s.repeat; ++pass) {
    on_device = search_on_device(x, pass >= 0 ? &device : nullptr);

    const auto t = Clock::now();
    std::vector<std::complex<float>> spectrum = backend->spectrum(x, request.n_fft);
    normalise_spectrum(spectrum, request);
    const double spectrum_seconds = std::chrono::duration<double>(Clock::now() - t).count();
    via_host = backend->search(spectrum, settings);
    if (pass >= 0) {
      host.wall.push_back(std::chrono::duration<double>(Clock::now() - t).count());
      host.spectrum.push_back(spectrum_seconds);
      host.search.push_back(host.wall.back() - spectrum_seconds);
    }
  }
  cuda::PinnedMemory pinned;
  pinned.reserve(x.size() * sizeof(float));
  std::copy(x.begin(), x.end(), pinned.as<float>());
  const std::span<const float> x_pinned(pinned.as<float>(), x.size());
  Times from_pinned;
  SeriesCandidates via_pinned;
  for (int pass = -1; pass < s.repeat; ++pass)
    via_pinned = search_on_device(x_pinned, pass >= 0 ? &from_pinned : nullptr);
  device.print("spectrum kept on the device");
  from_pinned.print("the same, samples in pinned memory");
  host.print("spectrum dereddened on the host");
  const bool same = same_candidates(on_device, via_host) && same_candidates(on_device, via_pinned);
  std::printf("candidates: %zu on the device route, %zu on the host route, %s\n", on_device.candidates.size(),
              via_host.candidates.size(), same ? "the same (all three routes)" : "DIFFERENT");
  for (std::size_t st = 0; st < on_device.stages.size(); ++st) {
    const StageTrials& stage = on_device.stages[st];
    std::printf("stage %zu (%2d harmonics): powcut %.3f, n_indep %lld, %zu cells above it\n", st, stage.numharm,
                static_cast<double>(stage.powcut), static_cast<long long>(stage.n_indep), stage.above);
  }
  std::printf("%s\n", backend->usage().c_str());
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "astrosweep_bench_fdas_cuda: %s\n", e.what());
    return 1;
  }
}
