// astrosweep_bench_spiir_coherent_host: the host's share of the GPU's coherent stage for one 1-s
// chunk of astrosweep_bench_spiir_latency (issue 13), measurable without a GPU. coherent_search
// runs with a stand-in device engine that copies each batch's samples as the CUDA engine stages
// them and picks the task's first searched pixel instead of searching: what is timed is exactly
// the host work the CUDA route does around its kernel (the inputs' checks, the pixel tables, the
// windows built per batch, their staging copy, the χ² and results per task).
//
//   astrosweep_bench_spiir_coherent_host [--candidates C] [--n-slides S] [--rate HZ] [--threads T]
//       [--repeat R] [--batch-mib M]
//
// The workload is the latency bench's: C candidates (1,875 at its threshold 4), each in its own
// SNR row (as the bench and the job's second pass lay them), references H1, L1, V1 in turn,
// HEALPix order 5, S = 100 slides of 0.1 s, χ² over 201 lags, FP32. --batch-mib: the engine's host
// staging cap (the CUDA engine's 512 MiB; 0: one batch, so that the phases separate cleanly).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "coherent_snr.hpp"

using namespace astrosweep;
using namespace astrosweep::spiir;

namespace {

using Clock = std::chrono::steady_clock;

double ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

/// A device engine that only does the CUDA engine's host part: each batch's samples in its own
/// buffer (the CUDA engine's pinned one: written there by coherent_search through host_samples,
/// else copied there as its staging copies them, on one thread), and the first searched pixel as
/// every task's pick.
class HostOnlyEngine final : public SkySearchEngine {
 public:
  explicit HostOnlyEngine(std::size_t cap_bytes) : cap_bytes_(cap_bytes) {}
  void load(const SkySearchTables<float>&) override {}
  void load(const SkySearchTables<double>&) override {}
  void search(const SkySearchBatch<float>& b, std::span<SkyPick> out) override { run(b, out); }
  void search(const SkySearchBatch<double>& b, std::span<SkyPick> out) override { run(b, out); }
  [[nodiscard]] std::size_t max_batch(std::size_t bytes_per_task) const override {
    return cap_bytes_ == 0 ? std::size_t{1} << 40 : std::max<std::size_t>(1, cap_bytes_ / bytes_per_task);
  }
  [[nodiscard]] double kernel_ms() const override { return 0; }
  std::span<std::byte> host_samples(std::size_t bytes) override {
    if (staging_.size() < bytes) staging_.resize(bytes + bytes / 2);
    return {staging_.data(), bytes};
  }

  std::vector<Clock::time_point> entered, left;  // per search() call
  std::size_t staged_bytes = 0, batches = 0;

 private:
  template <class Real>
  void run(const SkySearchBatch<Real>& b, std::span<SkyPick> out) {
    entered.push_back(Clock::now());
    if (static_cast<const void*>(b.samples.data()) != staging_.data()) {
      staging_.resize(std::max(staging_.size(), b.samples.size_bytes()));
      std::memcpy(staging_.data(), b.samples.data(), b.samples.size_bytes());
    }
    staged_bytes += b.samples.size_bytes() + b.window.size_bytes() + b.ref.size_bytes() + b.first.size_bytes();
    ++batches;
    for (std::size_t t = 0; t < b.n_tasks; ++t) out[t] = {b.first[t], 0.0, 0.0};
    left.push_back(Clock::now());
  }
  std::size_t cap_bytes_;
  std::vector<std::byte> staging_;
};

}  // namespace

int main(int argc, char** argv) {
  std::size_t n_candidates = 1875;
  int n_slides = 100, threads = 0, repeat = 3;
  double rate = 4096, batch_mib = 512;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr,
                   "usage: %s [--candidates C] [--n-slides S] [--rate HZ] [--threads T] [--repeat R] "
                   "[--batch-mib M]\n",
                   argv[0]);
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--candidates")
      n_candidates = static_cast<std::size_t>(std::atoll(v));
    else if (a == "--n-slides")
      n_slides = std::atoi(v);
    else if (a == "--rate")
      rate = std::atof(v);
    else if (a == "--threads")
      threads = std::atoi(v);
    else if (a == "--repeat")
      repeat = std::max(1, std::atoi(v));
    else if (a == "--batch-mib")
      batch_mib = std::atof(v);
    else
      return std::fprintf(stderr, "unknown option %s\n", a.c_str()), 2;
  }
  if (threads > 0) omp_set_num_threads(threads);
  threads = omp_get_max_threads();

  const std::vector<std::string> ifos{"H1", "L1", "V1"};
  const SkyMap map = make_sky_map(5, ifos, {1.0, 1.0, 0.5}, 1187008882.4, rate);
  CoherentSettings settings;
  settings.n_slides = n_slides;
  settings.slide_samples = static_cast<std::int64_t>(std::llround(0.1 * rate));
  constexpr std::size_t chisq_half = 100;
  const std::int64_t reach = read_margin(map, settings) + static_cast<std::int64_t>(chisq_half);
  const std::int64_t before = reach + settings.n_slides * settings.slide_samples, after = reach;
  const auto window = static_cast<std::size_t>(before + after + 1);

  NetworkSnr snr;
  snr.ifos = ifos;
  snr.n_templates = n_candidates;
  snr.n_samples = window;
  TemplateAutocorrelations ac;
  ac.length = 2 * chisq_half + 1;
  ac.n_templates = n_candidates;
  std::vector<Candidate> candidates;
  {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> g(0, 1);
    std::vector<std::complex<double>> pool(window * 8);
    for (auto& z : pool) z = {g(rng), g(rng)};
    std::vector<std::complex<double>> acf;
    for (int s = -static_cast<int>(chisq_half); s <= static_cast<int>(chisq_half); ++s)
      acf.push_back(std::exp(-0.002 * s * s) * std::polar(1.0, 0.3 * s));
    for (std::size_t d = 0; d < ifos.size(); ++d) {
      snr.z.emplace_back(n_candidates * window);
      ac.per_ifo.emplace_back();
      for (std::size_t k = 0; k < n_candidates; ++k) {
        const auto* noise = pool.data() + (k * 3 + d) % 8 * window / 8;
        std::copy(noise, noise + window, snr.z[d].data() + k * window);
        ac.per_ifo[d].insert(ac.per_ifo[d].end(), acf.begin(), acf.end());
      }
    }
    for (std::size_t k = 0; k < n_candidates; ++k) candidates.push_back({k % ifos.size(), k, before});
  }

  const std::size_t tasks = n_candidates * static_cast<std::size_t>(n_slides + 1);
  std::printf(
      "# astrosweep_bench_spiir_coherent_host --candidates %zu --n-slides %d --rate %g --threads %d --batch-mib %g\n"
      "# %zu tasks, %zu chi^2 of %zu lags, read margin %lld, windows of %lld samples per detector\n",
      n_candidates, n_slides, rate, threads, batch_mib, tasks, tasks * ifos.size(), ac.length,
      static_cast<long long>(read_margin(map, settings)), static_cast<long long>(2 * read_margin(map, settings) + 1));
  std::printf("%-8s %12s %12s %12s %12s %12s %8s %12s\n", "run", "total ms", "to 1st batch", "staging", "after batches",
              "between", "batches", "staged MB");
  HostOnlyEngine engine(static_cast<std::size_t>(batch_mib * (1 << 20)));
  for (int r = 0; r <= repeat; ++r) {
    engine.entered.clear();
    engine.left.clear();
    engine.staged_bytes = 0;
    engine.batches = 0;
    const auto t0 = Clock::now();
    auto results = coherent_search(map, snr, ac, candidates, settings, Precision::fp32, threads, &engine);
    { const auto gone = std::move(results); }  // freed inside the timing, as a chunk's results are
    const auto t2 = Clock::now();
    double staging = 0, between = 0;
    for (std::size_t b = 0; b < engine.entered.size(); ++b) {
      staging += ms(engine.entered[b], engine.left[b]);
      if (b > 0) between += ms(engine.left[b - 1], engine.entered[b]);
    }
    std::printf("%-8s %12.1f %12.1f %12.1f %12.1f %12.1f %8zu %12.1f\n", r == 0 ? "warm-up" : "timed", ms(t0, t2),
                engine.entered.empty() ? 0.0 : ms(t0, engine.entered.front()), staging,
                engine.left.empty() ? 0.0 : ms(engine.left.back(), t2), between, engine.batches,
                static_cast<double>(engine.staged_bytes) / 1e6);
    std::fflush(stdout);
  }
  return 0;
}
