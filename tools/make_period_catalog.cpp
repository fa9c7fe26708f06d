// make_period_catalog: writes a synthetic HDF5 light-curve catalog (astrosweep.lightcurves, the
// format `astrosweep convert` writes) for the period job's scaling runs: TESS-like by default, one
// sector of 27.4 days on the 2-minute cadence grid with the mid-sector downlink gap, each object
// sampled at --points random cadences, times in BTJD (BJD - 2457000), a sinusoid of random period
// (0.05..10 d, log-uniform) and amplitude plus Gaussian noise with per-object errors. Objects are
// generated in parallel from their own seeds, so the catalog is the same for any thread count.
//
//   make_period_catalog --objects N [--points M] [--days D] [--seed S] -o catalog.h5
//
// The whole catalog is built in memory before it is written (24 bytes a point: 36 GB for the
// 10^6 x 1,500 TESS-like catalog).

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "io/h5_catalog.hpp"

using namespace astrosweep;

namespace {

struct Request {
  std::uint64_t objects = 0;
  std::uint64_t points = 1500;
  double days = 27.4;
  std::uint64_t seed = 2026;
  std::string output;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "make_period_catalog: %s\nusage: make_period_catalog --objects N [--points M] [--days D] "
               "[--seed S] -o catalog.h5\n",
               why);
  std::exit(2);
}

Request parse(int argc, char** argv) {
  Request r;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    const char* v = argv[++i];
    char* end = nullptr;
    if (a == "--objects") {
      r.objects = std::strtoull(v, &end, 10);
    } else if (a == "--points") {
      r.points = std::strtoull(v, &end, 10);
    } else if (a == "--days") {
      r.days = std::strtod(v, &end);
    } else if (a == "--seed") {
      r.seed = std::strtoull(v, &end, 10);
    } else if (a == "-o" || a == "--output") {
      r.output = v;
      end = const_cast<char*>(v) + r.output.size();
    } else {
      usage(("unknown option " + a).c_str());
    }
    if (end == v || *end != '\0') usage(("bad value for " + a + ": " + v).c_str());
  }
  if (r.objects == 0 || r.output.empty()) usage("--objects and -o are required");
  if (r.points < 3 || !(r.days > 0)) usage("--points must be >= 3 and --days > 0");
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const Request req = parse(argc, argv);
  constexpr double cadence = 2.0 / 1440;  // days
  constexpr double t_start = 2000.0;      // BTJD
  const auto slots = static_cast<std::uint64_t>(req.days / cadence);
  const double gap_begin = req.days / 2 - 0.5, gap_end = req.days / 2 + 0.5;  // the orbit's downlink
  if (req.points > slots / 2) usage("--points must be at most half the cadences of --days");

  io::LightCurveBlock block;
  const std::uint64_t n_rows = req.objects * req.points;
  block.ids.resize(req.objects);
  block.counts.assign(req.objects, req.points);
  block.n_flagged.assign(req.objects, 0);
  block.t.resize(n_rows);
  block.y.resize(n_rows);
  block.dy.resize(n_rows);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::uint64_t i = 0; i < req.objects; ++i) {
    std::mt19937_64 rng(req.seed * 0x9E3779B97F4A7C15ULL + i);
    std::uniform_real_distribution<double> u(0, 1);
    std::normal_distribution<double> gauss(0, 1);
    // Distinct random cadences outside the gap, in time order (a sparse draw, then sorted).
    std::vector<std::uint64_t> picked;
    picked.reserve(req.points);
    while (picked.size() < req.points) {
      const auto k = static_cast<std::uint64_t>(u(rng) * static_cast<double>(slots));
      const double dt = static_cast<double>(k) * cadence;
      if (k < slots && !(dt >= gap_begin && dt < gap_end)) picked.push_back(k);
      if (picked.size() == req.points) {
        std::sort(picked.begin(), picked.end());
        picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
      }
    }
    const double period = 0.05 * std::pow(200.0, u(rng));
    const double amplitude = 0.001 * std::pow(100.0, u(rng));
    const double phase = 2 * std::numbers::pi * u(rng);
    const double sigma = 0.002 * (1 + u(rng));
    block.ids[i] = static_cast<std::int64_t>(i + 1);
    const std::uint64_t row0 = i * req.points;
    for (std::uint64_t j = 0; j < req.points; ++j) {
      const double t = t_start + static_cast<double>(picked[j]) * cadence;
      const double err = sigma * (0.9 + 0.2 * u(rng));
      block.t[row0 + j] = t;
      block.y[row0 + j] = 1 + amplitude * std::sin(2 * std::numbers::pi * t / period + phase) + err * gauss(rng);
      block.dy[row0 + j] = err;
    }
  }
  io::InputIdentity source{"synthetic",
                           "make_period_catalog --objects " + std::to_string(req.objects) + " --points " +
                               std::to_string(req.points) + " --days " + std::to_string(req.days) + " --seed " +
                               std::to_string(req.seed),
                           0, "0"};
  io::write_h5_catalog(req.output, block, "BTJD (BJD - 2457000, TDB)", source);
  std::printf("%s: %llu objects x %llu points over %.1f days (%.2f GB of points), %d threads\n", req.output.c_str(),
              static_cast<unsigned long long>(req.objects), static_cast<unsigned long long>(req.points), req.days,
              static_cast<double>(n_rows) * 24 / 1e9, omp_get_max_threads());
  return 0;
}
