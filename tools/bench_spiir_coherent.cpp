// astrosweep_bench_spiir_coherent: the coherent post-processing of spec §14 Table III (the seed's
// workload: C = 1000 candidates × N_bg = 100 background trials, 12288 sky pixels = HEALPix order 5,
// H1 L1 V1), through the CPU's OpenMP loop and (in a CUDA build) the GPU's sky search, in FP32 and
// FP64, rounded delays and --subsample, beside the seed's P100 9.35 ms.
//
//   astrosweep_bench_spiir_coherent [--backend cpu|cuda|all] [--threads N] [--repeat R]
//                                   [--sample-rate F] [--quick]
//
// "end to end" is coherent_search(): the windows built and sent, the pixel loop, the picks back and
// the χ² (31 lags) per task at the picked pixel on the CPU; "kernel" is the sky-search kernel's
// time in it (CUDA events, summed over its batches). Best of R after a warm-up. The SNR is white
// complex Gaussian noise (the search's cost does not depend on it). --quick: C = 100.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "coherent_snr.hpp"
#include "device.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "coherent_sky_cuda.hpp"
#endif

using namespace astrosweep;
using namespace astrosweep::spiir;

namespace {

struct Workload {
  SkyMap map;
  NetworkSnr snr;
  TemplateAutocorrelations ac;
  std::vector<Candidate> candidates;
  CoherentSettings settings;
};

Workload make_workload(std::size_t n_candidates, double rate) {
  Workload w;
  const std::vector<std::string> ifos{"H1", "L1", "V1"};
  w.map = make_sky_map(5, ifos, {1.0, 1.0, 0.5}, 1187008882.4, rate);
  w.settings.n_slides = 99;  // with the foreground, 100 trials per candidate
  w.settings.slide_samples = static_cast<std::int64_t>(0.1 * rate);
  w.ac.length = 31;
  w.ac.n_templates = 1;
  for (std::size_t d = 0; d < ifos.size(); ++d) {
    w.ac.per_ifo.emplace_back();
    for (int s = -15; s <= 15; ++s) w.ac.per_ifo.back().push_back(std::exp(-0.02 * s * s) * std::polar(1.0, 0.3 * s));
  }
  const std::int64_t spacing = 64, margin = read_margin(w.map, {0, 0, true, 1}) + 16;
  const std::int64_t first = margin + w.settings.n_slides * w.settings.slide_samples;
  w.snr.ifos = ifos;
  w.snr.n_templates = 1;
  w.snr.n_samples = static_cast<std::size_t>(first + spacing * static_cast<std::int64_t>(n_candidates) + margin);
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g(0, 1);
  for (std::size_t d = 0; d < ifos.size(); ++d) {
    w.snr.z.emplace_back(w.snr.n_samples);
    for (auto& z : w.snr.z.back()) z = {g(rng), g(rng)};
  }
  for (std::size_t c = 0; c < n_candidates; ++c)
    w.candidates.push_back({c % 3, 0, first + spacing * static_cast<std::int64_t>(c)});
  return w;
}

struct Timing {
  double end_to_end_ms = 1e300, kernel_ms = 1e300;
};

Timing time_search(const Workload& w, const CoherentSettings& settings, Precision precision, int threads,
                   SkySearchEngine* engine, int repeat) {
  Timing best;
  for (int r = 0; r <= repeat; ++r) {  // r = 0: the warm-up
    const double k0 = engine ? engine->kernel_ms() : 0;
    const auto t0 = std::chrono::steady_clock::now();
    const auto results = coherent_search(w.map, w.snr, w.ac, w.candidates, settings, precision, threads, engine);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (results.empty()) std::abort();
    if (r == 0) continue;
    best.end_to_end_ms = std::min(best.end_to_end_ms, ms);
    if (engine) best.kernel_ms = std::min(best.kernel_ms, engine->kernel_ms() - k0);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "all";
  int threads = 0, repeat = 3;
  double rate = 4096;
  std::size_t n_candidates = 1000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc)
      backend = argv[++i];
    else if (a == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--sample-rate" && i + 1 < argc)
      rate = std::atof(argv[++i]);
    else if (a == "--quick")
      n_candidates = 100;
    else {
      std::fprintf(stderr,
                   "usage: %s [--backend cpu|cuda|all] [--threads N] [--repeat R] [--sample-rate F] [--quick]\n",
                   argv[0]);
      return 2;
    }
  }
  const Workload w = make_workload(n_candidates, rate);
  const double evaluations = static_cast<double>(n_candidates) * (w.settings.n_slides + 1) * 12288.0;
  std::printf("coherent sky search: C = %zu, %d trials, 12288 pixels (order 5), H1 L1 V1, %.0f Hz, margin %lld\n",
              n_candidates, w.settings.n_slides + 1, rate, static_cast<long long>(read_margin(w.map, w.settings)));
  std::printf("%-6s %-5s %-10s %14s %12s %16s   (seed: P100 9.35 ms for C = 1000; target < 2 ms on an H100)\n", "where",
              "prec", "delays", "end to end ms", "kernel ms", "pixels/s (kern)");
  std::unique_ptr<SkySearchEngine> engine;
#ifdef ASTROSWEEP_WITH_CUDA
  if (backend != "cpu" && cuda_device_count() > 0) {
    BackendOptions options;
    options.kind = BackendKind::cuda;
    engine = make_sky_search_cuda(options);
  }
#endif
  for (bool sub : {false, true})
    for (auto precision : {Precision::fp32, Precision::fp64}) {
      CoherentSettings s = w.settings;
      s.subsample = sub;
      const char* prec = precision == Precision::fp32 ? "fp32" : "fp64";
      const char* delays = sub ? "subsample" : "rounded";
      if (backend != "cuda") {
        const Timing t = time_search(w, s, precision, threads, nullptr, 1);
        std::printf("%-6s %-5s %-10s %14.2f %12s %16.3g   (%d threads)\n", "cpu", prec, delays, t.end_to_end_ms, "-",
                    evaluations / (t.end_to_end_ms * 1e-3), threads > 0 ? threads : omp_get_max_threads());
      }
      if (engine) {
        const Timing t = time_search(w, s, precision, threads, engine.get(), repeat);
        std::printf("%-6s %-5s %-10s %14.2f %12.3f %16.3g\n", "cuda", prec, delays, t.end_to_end_ms, t.kernel_ms,
                    evaluations / (t.kernel_ms * 1e-3));
      }
    }
  return 0;
}
