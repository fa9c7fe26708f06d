// astrosweep_bench_period: pairs/s (N_t x N_f per second) of the period backends on the bundled
// catalogs and a synthetic LSST-like batch, FP32/FP64 x standard/generalized, optionally with
// astropy's LombScargle on the same input and grid beside it (tools/bench_astropy.py).
//
//   astrosweep_bench_period [--data DIR] [--backend cpu|cuda|auto] [--suite table|targets|methods|calibrate]
//                           [--threads N] [--repeat R] [--astropy SECONDS]
//
// --suite table (default) runs every workload in both models and precisions; --suite targets runs
// the rows of the GPU targets in docs/performance.md (N_f = 1e6, periodograms returned where the
// target says so), printing the device's kernel time beside the end-to-end time of search().
// --suite methods compares the direct and the fast method (--method) on the rows end to end
// on --threads: one object of 3,000 points with N_f = 10^6, a Kepler-like object of 65,000 points
// with N_f = 1.75e5, and a TESS-like batch (on a GPU also one of 10^4 objects, with each method's
// kernel seconds: the GPU's cost constants, kernels/period/fast_layout_cuda.cpp), then the fast
// method's accuracy against direct FP64. --suite calibrate times single objects on one core against
// the cost estimate the CPU's --method auto uses (its constants were measured this way).
// "Returned" means delivered to the sink in host memory; the sink here only counts the values.
//
// The LSST-like batch: 1,000 objects with the observation counts of the paper's synthetic
// asteroids (tests/data/lightcurves/synthetic_asteroids_truth.dat, column obsno), random times
// over 3 years, sinusoids of the listed light-curve periods and amplitudes, N_f = 2e5.

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "io/csv_light_curves.hpp"
#include "lomb_scargle.hpp"
#include "lomb_scargle_fast.hpp"
#include "period_backend.hpp"
#include "prepared_series.hpp"

using namespace astrosweep;
using period::Model;
using period::Precision;

namespace {

struct Workload {
  std::string name;
  std::string csv;  // file the astropy comparison reads
  io::LightCurveBlock block;
  period::FrequencyGrid grid;
};

io::LightCurveBlock lsst_like(const std::string& truth_path) {
  std::ifstream in(truth_path);
  std::mt19937_64 rng(20211);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> noise(0, 1);
  io::LightCurveBlock block;
  std::int64_t id = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    double index, color, period_h, amplitude, obsno, absmag;
    if (!(row >> index >> color >> period_h >> amplitude >> obsno >> absmag)) continue;
    const auto n = static_cast<std::size_t>(std::max(3.0, std::round(obsno)));
    std::vector<double> t(n), y(n), dy(n, 0.02);
    for (auto& v : t) v = 60000 + 1095 * u(rng);
    std::sort(t.begin(), t.end());
    const double phase = 2 * M_PI * u(rng);
    for (std::size_t j = 0; j < n; ++j)
      y[j] = absmag + 0.5 * amplitude * std::sin(2 * M_PI * t[j] / (period_h / 24) + phase) + 0.02 * noise(rng);
    block.append(id++, t, y, dy);
  }
  return block;
}

void write_csv(const io::LightCurveBlock& b, const std::string& path) {
  std::ofstream out(path);
  std::size_t row = 0;
  char line[160];
  for (std::size_t i = 0; i < b.n_objects(); ++i)
    for (std::uint64_t j = 0; j < b.counts[i]; ++j, ++row) {
      std::snprintf(line, sizeof line, "%lld, %.10f, %.8f, %.6f\n", static_cast<long long>(b.ids[i]), b.t[row],
                    b.y[row], b.dy[row]);
      out << line;
    }
}

double astropy_pairs_per_s(const Workload& w, Model model, double seconds, const std::string& tools) {
  char cmd[1024];
  std::snprintf(cmd, sizeof cmd,
                "python3 %s/bench_astropy.py --input %s --fmin %.17g --fmax %.17g --n-freq %llu --model %s "
                "--max-seconds %g 2>/dev/null",
                tools.c_str(), w.csv.c_str(), w.grid.f0, w.grid.f0 + w.grid.df * static_cast<double>(w.grid.n),
                static_cast<unsigned long long>(w.grid.n), period::to_string(model), seconds);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd, "r"), pclose);
  if (!pipe) return std::nan("");
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe.get())) out += buf;
  const auto key = out.find("\"pairs_per_s\":");
  return key == std::string::npos ? std::nan("") : std::atof(out.c_str() + key + 14);
}

// Counts what arrives, as a job's product would receive it.
class CountingSink final : public period::PeriodogramSink {
 public:
  void write(std::uint64_t, std::uint64_t, std::uint64_t n, const void*) override { values += n; }
  std::uint64_t values = 0;
};

// Keeps every periodogram row, in double.
class RowSink final : public period::PeriodogramSink {
 public:
  RowSink(std::uint64_t n, bool fp32) : n_(n), fp32_(fp32) {}
  void write(std::uint64_t object, std::uint64_t k0, std::uint64_t n, const void* values) override {
    auto& row = rows[object];
    row.resize(n_);
    for (std::uint64_t k = 0; k < n; ++k)
      row[k0 + k] =
          fp32_ ? static_cast<double>(static_cast<const float*>(values)[k]) : static_cast<const double*>(values)[k];
  }
  std::map<std::uint64_t, std::vector<double>> rows;

 private:
  std::uint64_t n_;
  bool fp32_;
};

struct Timing {
  double end_to_end = 1e300;
  double kernel = 1e300;
};

Timing time_search(period::PeriodBackend& backend, const Workload& w, const period::PeriodConfig& c, int repeat,
                   bool periodograms) {
  std::vector<period::ObjectResult> results(w.block.n_objects());
  CountingSink sink;
  period::PeriodogramSink* s = periodograms ? &sink : nullptr;
  period::search_block(backend, w.block, c, results, s);  // warm-up: pages, caches, threads, buffers
  Timing best;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    period::search_block(backend, w.block, c, results, s);
    best.end_to_end =
        std::min(best.end_to_end, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    best.kernel = std::min(best.kernel, backend.last_kernel_seconds());
  }
  return best;
}

void run_targets(period::PeriodBackend& backend, const std::vector<Workload>& workloads, int repeat) {
  struct Row {
    std::size_t workload;
    Model model;
    Precision precision;
    bool periodograms;
  };
  const std::vector<Row> rows = {
      {1, Model::standard, Precision::fp64, false},    {1, Model::standard, Precision::fp32, false},
      {1, Model::generalized, Precision::fp64, false}, {1, Model::generalized, Precision::fp32, false},
      {2, Model::generalized, Precision::fp64, true},  {2, Model::generalized, Precision::fp32, true},
      {2, Model::generalized, Precision::fp64, false}, {3, Model::generalized, Precision::fp64, true},
      {3, Model::standard, Precision::fp64, true},     {3, Model::generalized, Precision::fp32, true}};
  std::printf("%-34s %-12s %-5s %5s %9s %10s %11s %13s %11s %13s\n", "workload", "model", "prec", "pgram", "N_t", "N_f",
              "kernel[ms]", "kernel pairs/s", "e2e[ms]", "e2e pairs/s");
  for (const auto& row : rows) {
    const auto& w = workloads[row.workload];
    period::PeriodConfig c;
    c.grid = w.grid;
    c.model = row.model;
    c.precision = row.precision;
    const Timing t = time_search(backend, w, c, repeat, row.periodograms);
    const double pairs = static_cast<double>(w.block.t.size()) * static_cast<double>(w.grid.n);
    std::printf("%-34s %-12s %-5s %5s %9zu %10llu %11.3f %13.4g %11.3f %13.4g\n", w.name.c_str(),
                period::to_string(row.model), period::to_string(row.precision), row.periodograms ? "yes" : "no",
                w.block.t.size(), static_cast<unsigned long long>(w.grid.n), t.kernel * 1e3, pairs / t.kernel,
                t.end_to_end * 1e3, pairs / t.end_to_end);
    if (const auto profile = backend.last_host_profile(); !profile.empty())
      std::printf("#   host seconds of the last run: %s\n", profile.c_str());
    std::fflush(stdout);
  }
}

// One object of n points: uneven times over `span` days from MJD 55000 (or evenly spaced with
// gaps, Kepler-like, when `cadence` > 0), a sinusoid in noise, errors between 0.5 and 1.5.
io::LightCurveBlock one_object(std::size_t n, double span, double cadence, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> t(n), y(n), dy(n);
  for (std::size_t j = 0; j < n; ++j) {
    // Kepler-like: 29.4-minute cadence, a 1-day gap every 90 days (quarterly downlinks).
    t[j] = cadence > 0 ? 55000 + cadence * static_cast<double>(j) + std::floor(cadence * static_cast<double>(j) / 90)
                       : 55000 + span * u(rng);
    dy[j] = 0.5 + u(rng);
  }
  std::sort(t.begin(), t.end());
  for (std::size_t j = 0; j < n; ++j) y[j] = 0.3 * std::sin(2 * M_PI * t[j] / 2.345) + dy[j] * g(rng);
  io::LightCurveBlock block;
  block.append(static_cast<std::int64_t>(seed), t, y, dy);
  return block;
}

double seconds_of(const std::function<void()>& f, int repeat) {
  f();  // warm-up: pages, plans, caches
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// Single objects on one core: the measured time of each method beside --method auto's estimate.
// The direct method is timed on at most 20,000 frequencies and scaled (its cost is linear in N_f).
template <class T>
void calibrate(Model model, int repeat) {
  std::printf("# one core, %s %s: measured seconds and auto's estimate\n", period::to_string(model),
              sizeof(T) == 4 ? "fp32" : "fp64");
  std::printf("%9s %10s %12s %12s %12s %12s %8s %8s\n", "N_t", "N_f", "direct[s]", "est", "fast[s]", "est", "auto",
              "faster");
  for (std::size_t n : {10u, 100u, 1000u, 10000u, 100000u})
    for (std::uint64_t nf : {10000u, 100000u, 1000000u}) {
      const auto block = one_object(n, 1000, 0, n + nf);
      const auto s = period::prepare_series(block.t, block.y, block.dy, model);
      const period::FrequencyGrid grid{0.01, 24.0 / static_cast<double>(nf), nf};
      const std::uint64_t nd = std::min<std::uint64_t>(nf, 20000);
      const period::FrequencyGrid direct_grid{grid.f0, grid.df, nd};
      std::vector<T> out(nf);
      const double direct = seconds_of(
                                [&] {
                                  const period::CpuSeries<T> k(s, direct_grid);
                                  period::lomb_scargle_cpu<T>(k, direct_grid, model, period::Normalization::standard, 0,
                                                              std::span<T>(out.data(), nd));
                                },
                                repeat) *
                            static_cast<double>(nf) / static_cast<double>(nd);
      period::FastWorkspace ws;
      const double fast = seconds_of(
          [&] {
            const period::FastSeries<T> f(s, grid);
            period::lomb_scargle_fast<T>(f, grid, model, period::Normalization::standard, 0, out, ws);
          },
          repeat);
      const auto choice = period::choose_method<T>(period::Method::automatic, n, grid, model);
      std::printf("%9zu %10llu %12.4g %12.4g %12.4g %12.4g %8s %8s\n", n, static_cast<unsigned long long>(nf), direct,
                  period::direct_seconds<T>(n, grid, model), fast, period::fast_seconds<T>(n, grid, model),
                  period::to_string(choice), fast < direct ? "fast" : "direct");
      std::fflush(stdout);
    }
}

// The rows through the backend (search_block, peaks only) with each method.
void run_methods(period::PeriodBackend& backend, int repeat) {
  const bool gpu = !std::isnan(backend.last_kernel_seconds());
  struct Row {
    std::string name;
    io::LightCurveBlock block;
    period::FrequencyGrid grid;
  };
  std::vector<Row> rows;
  rows.push_back({"one object, 3,000 pts (120 d)", one_object(3000, 120, 0, 1), {0.01, 24.0 / 1e6, 1000000}});
  // Kepler: ~1,470 days; df = 1/(5 T), N_f = 1.75e5 (f up to 23.8 / day).
  rows.push_back({"Kepler-like, 65,000 pts (1,340 d)", one_object(65000, 0, 29.4 / 1440, 2), {0.01, 1.36e-4, 175000}});
  io::LightCurveBlock tess;
  for (std::uint64_t i = 0; i < 200; ++i) {
    const auto o = one_object(1500, 27, 0, 100 + i);
    tess.append(static_cast<std::int64_t>(i), o.t, o.y, o.dy);
  }
  rows.push_back({"TESS-like batch, 200 x 1,500 pts", std::move(tess), {0.04, 1e-3, 50000}});
  if (gpu) {  // a batch that fills the device (too long for the direct method on a few cores)
    io::LightCurveBlock large;
    for (std::uint64_t i = 0; i < 10000; ++i) {
      const auto o = one_object(1500, 27, 0, 1000 + i);
      large.append(static_cast<std::int64_t>(i), o.t, o.y, o.dy);
    }
    rows.push_back({"TESS-like batch, 10^4 x 1,500 pts", std::move(large), {0.04, 1e-3, 50000}});
  }
  std::printf("%-34s %-12s %-5s %9s %10s %12s %12s %12s %9s%s\n", "workload", "model", "prec", "N_t", "N_f",
              "direct[s]", "fast[s]", "auto[s]", "speed-up", gpu ? "  kernels: direct[s] fast[s]" : "");
  for (const auto& row : rows)
    for (Model model : {Model::standard, Model::generalized})
      for (Precision precision : {Precision::fp64, Precision::fp32}) {
        double t[3], kernel[3];
        int m = 0;
        for (period::Method method : {period::Method::direct, period::Method::fast, period::Method::automatic}) {
          period::PeriodConfig c;
          c.grid = row.grid;
          c.model = model;
          c.precision = precision;
          c.method = method;
          std::vector<period::ObjectResult> results(row.block.n_objects());
          t[m] = seconds_of([&] { period::search_block(backend, row.block, c, results, nullptr); },
                            method == period::Method::direct ? 1 : repeat);
          kernel[m++] = backend.last_kernel_seconds();
        }
        std::printf("%-34s %-12s %-5s %9zu %10llu %12.4f %12.4f %12.4f %9.1f", row.name.c_str(),
                    period::to_string(model), period::to_string(precision), row.block.t.size(),
                    static_cast<unsigned long long>(row.grid.n), t[0], t[1], t[2], t[0] / t[1]);
        if (gpu) std::printf("  %12.4f %12.4f", kernel[0], kernel[1]);
        std::printf("\n");
        std::fflush(stdout);
      }
  // The fast periodograms against the direct FP64 ones: the largest difference over each object's
  // grid relative to its peak power, and objects whose best frequency differs.
  std::printf(
      "# fast against direct fp64: max |difference| / peak power over the objects, best frequencies that "
      "differ\n%-34s %-12s %-5s %14s %10s\n",
      "workload", "model", "prec", "max err/peak", "best diff");
  for (const auto& row : rows)
    for (Model model : {Model::standard, Model::generalized}) {
      auto periodograms = [&](period::Method method, Precision precision) {
        period::PeriodConfig c;
        c.grid = row.grid;
        c.model = model;
        c.precision = precision;
        c.method = method;
        RowSink sink(row.grid.n, precision == Precision::fp32);
        std::vector<period::ObjectResult> results(row.block.n_objects());
        period::search_block(backend, row.block, c, results, &sink);
        return std::move(sink.rows);
      };
      const auto ref = periodograms(period::Method::direct, Precision::fp64);
      for (Precision precision : {Precision::fp64, Precision::fp32}) {
        const auto got = periodograms(period::Method::fast, precision);
        double worst = 0;
        int moved = 0;
        for (const auto& [object, r] : ref) {
          const auto& g = got.at(object);
          const double peak = *std::max_element(r.begin(), r.end());
          double err = 0;
          for (std::size_t k = 0; k < r.size(); ++k) err = std::max(err, std::abs(g[k] - r[k]));
          worst = std::max(worst, err / peak);
          moved += std::max_element(r.begin(), r.end()) - r.begin() != std::max_element(g.begin(), g.end()) - g.begin();
        }
        std::printf("%-34s %-12s %-5s %14.3g %10d\n", row.name.c_str(), period::to_string(model),
                    period::to_string(precision), worst, moved);
        std::fflush(stdout);
      }
    }
}

}  // namespace

int main(int argc, char** argv) {
  mpi::Session session(argc, argv);
  std::string data = ASTROSWEEP_SOURCE_DIR "/tests/data/lightcurves";
  std::string tools = ASTROSWEEP_SOURCE_DIR "/tools";
  int threads = omp_get_max_threads();
  int repeat = 3;
  double astropy_seconds = 0;
  std::string backend_name = "cpu";
  std::string suite = "table";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--data")
      data = argv[i + 1];
    else if (a == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (a == "--repeat")
      repeat = std::atoi(argv[i + 1]);
    else if (a == "--astropy")
      astropy_seconds = std::atof(argv[i + 1]);
    else if (a == "--backend")
      backend_name = argv[i + 1];
    else if (a == "--suite")
      suite = argv[i + 1];
  }
  const std::uint64_t n_freq = suite == "targets" ? 1000000 : 100000;
  const period::FrequencyGrid paper{0.5, 23.5 / static_cast<double>(n_freq), n_freq};
  std::vector<Workload> workloads;
  for (const auto& [name, file] : {std::pair{"ztf_243ida (1 obj)", "ztf_243ida_r.csv"},
                                   std::pair{"synthetic_8205 (1 obj, 3555 pts)", "synthetic_8205.csv"},
                                   std::pair{"sdss_stripe82 (136 obj)", "sdss_stripe82_z.csv"}})
    workloads.push_back({name, data + "/" + file, io::read_csv_light_curves(data + "/" + file).block, paper});
  Workload lsst{"lsst-like (1000 obj)",
                "/tmp/astrosweep_bench_lsst.csv",
                lsst_like(data + "/synthetic_asteroids_truth.dat"),
                {0.5, 23.5 / 2e5, 200000}};
  write_csv(lsst.block, lsst.csv);
  workloads.push_back(std::move(lsst));

  BackendOptions options;
  options.kind = parse_backend(backend_name);
  options.threads = threads;
  // The job's default buffer budget, so the end-to-end figures are what a run gets.
  options.host_memory_budget = static_cast<std::uint64_t>(period::default_buffer_budget_mb * 1024 * 1024);
  auto backend = period::make_period_backend(options);
  std::printf("# astrosweep_bench_period --suite %s, backend %s, best of %d\n", suite.c_str(),
              backend->describe().c_str(), repeat);
  if (suite == "methods") {
    run_methods(*backend, repeat);
    return 0;
  }
  if (suite == "calibrate") {  // the CPU's cost constants, one core; a GPU's come from --suite methods
    for (Model model : {Model::standard, Model::generalized}) {
      calibrate<double>(model, repeat);
      calibrate<float>(model, repeat);
    }
    return 0;
  }
  if (suite == "targets") {
    run_targets(*backend, workloads, repeat);
    return 0;
  }
  std::printf("%-34s %-12s %-5s %9s %10s %12s %14s %9s\n", "workload", "model", "prec", "N_t", "N_f", "seconds",
              "pairs/s", "x astropy");
  for (const auto& w : workloads) {
    const double pairs = static_cast<double>(w.block.t.size()) * static_cast<double>(w.grid.n);
    for (Model model : {Model::standard, Model::generalized}) {
      const double astropy = astropy_seconds > 0 ? astropy_pairs_per_s(w, model, astropy_seconds, tools) : std::nan("");
      for (Precision precision : {Precision::fp64, Precision::fp32}) {
        period::PeriodConfig c;
        c.grid = w.grid;
        c.model = model;
        c.precision = precision;
        std::vector<period::ObjectResult> results(w.block.n_objects());
        period::search_block(*backend, w.block, c, results, nullptr);  // warm-up: pages, caches, threads
        double best = 1e300;
        for (int r = 0; r < repeat; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          period::search_block(*backend, w.block, c, results, nullptr);
          best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::printf("%-34s %-12s %-5s %9zu %10llu %12.4f %14.4g %9.1f\n", w.name.c_str(), period::to_string(model),
                    period::to_string(precision), w.block.t.size(), static_cast<unsigned long long>(w.grid.n), best,
                    pairs / best, (pairs / best) / astropy);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
