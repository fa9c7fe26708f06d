// astrosweep_bench_period: pairs/s (N_t x N_f per second) of the period backends on the bundled
// catalogs and a synthetic LSST-like batch, FP32/FP64 x standard/generalized, optionally with
// astropy's LombScargle on the same input and grid beside it (tools/bench_astropy.py).
//
//   astrosweep_bench_period [--data DIR] [--threads N] [--repeat R] [--astropy SECONDS]
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
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/mpi.hpp"
#include "io/csv_light_curves.hpp"
#include "period_backend.hpp"

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
                static_cast<unsigned long long>(w.grid.n), period::name_of(model), seconds);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd, "r"), pclose);
  if (!pipe) return std::nan("");
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe.get())) out += buf;
  const auto key = out.find("\"pairs_per_s\":");
  return key == std::string::npos ? std::nan("") : std::atof(out.c_str() + key + 14);
}

}  // namespace

int main(int argc, char** argv) {
  mpi::Session session(argc, argv);
  std::string data = ASTROSWEEP_SOURCE_DIR "/tests/data/lightcurves";
  std::string tools = ASTROSWEEP_SOURCE_DIR "/tools";
  int threads = omp_get_max_threads();
  int repeat = 3;
  double astropy_seconds = 0;
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
  }
  const period::FrequencyGrid paper{0.5, 23.5 / 1e5, 100000};
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

  period::BackendOptions options;
  options.kind = period::BackendKind::cpu;
  options.threads = threads;
  auto backend = period::make_period_backend(options);
  std::printf("# astrosweep_bench_period, backend %s, best of %d\n", backend->describe().c_str(), repeat);
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
        std::printf("%-34s %-12s %-5s %9zu %10llu %12.4f %14.4g %9.1f\n", w.name.c_str(), period::name_of(model),
                    period::name_of(precision), w.block.t.size(), static_cast<unsigned long long>(w.grid.n), best,
                    pairs / best, (pairs / best) / astropy);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
