// make_fdas_beam: a beam of dedispersed time series for the fdas job's end-to-end tests — one per
// DM trial, each white Gaussian noise (its own seed) plus, near the pulsar's DM, an accelerated
// pulsar whose strength falls off with the DM error as a dedispersion search sees it.
//
//   make_fdas_beam -o DIR [--format tim|presto] [--n-dm 5] [--dm0 10] [--ddm 2] [--pulsar-dm 14]
//                  [--dm-width 3] [--n 131072] [--tsamp 64e-6] [--f0 137.1] [--z 17.3]
//                  [--power 60] [--harmonics 8] [--seed 1] [--nan-at K]
//
// The pulsar: x(t) = Σ_h a cos(2π h φ(t) + 0.3 h), φ(t) = (f0 − ḟT/2) t + ḟ t²/2, so that f0 is the
// mean frequency over the span T = n·tsamp and ḟ = z/T² (spec §10); a = √(4·power/n) gives each
// harmonic a normalised power of `power` at the pulsar's DM (spec §13 item 3). Files are named
// beam_DM<dm>.tim (or .dat/.inf), sorted by DM. --nan-at K puts a NaN at sample K of the first
// series (a bad input).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "io/time_series_fixtures.hpp"

namespace {

struct Options {
  std::string out, format = "tim";
  int n_dm = 5;
  double dm0 = 10, ddm = 2, pulsar_dm = 14, dm_width = 3;
  std::size_t n = 131072;
  double tsamp = 64e-6, f0 = 137.1, z = 17.3, power = 60;
  int harmonics = 8;
  unsigned seed = 1;
  long nan_at = -1;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "make_fdas_beam: %s\n", why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) usage("missing value for " + key);
    const std::string v = argv[i + 1];
    if (key == "-o")
      o.out = v;
    else if (key == "--format")
      o.format = v;
    else if (key == "--n-dm")
      o.n_dm = std::stoi(v);
    else if (key == "--dm0")
      o.dm0 = std::stod(v);
    else if (key == "--ddm")
      o.ddm = std::stod(v);
    else if (key == "--pulsar-dm")
      o.pulsar_dm = std::stod(v);
    else if (key == "--dm-width")
      o.dm_width = std::stod(v);
    else if (key == "--n")
      o.n = std::stoul(v);
    else if (key == "--tsamp")
      o.tsamp = std::stod(v);
    else if (key == "--f0")
      o.f0 = std::stod(v);
    else if (key == "--z")
      o.z = std::stod(v);
    else if (key == "--power")
      o.power = std::stod(v);
    else if (key == "--harmonics")
      o.harmonics = std::stoi(v);
    else if (key == "--seed")
      o.seed = static_cast<unsigned>(std::stoul(v));
    else if (key == "--nan-at")
      o.nan_at = std::stol(v);
    else
      usage("unknown option " + key);
  }
  if (o.out.empty()) usage("-o DIR is required");
  if (o.format != "tim" && o.format != "presto") usage("--format must be tim or presto");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::filesystem::create_directories(o.out);
  const double T = static_cast<double>(o.n) * o.tsamp;
  const double fdot = o.z / (T * T);
  const double a = std::sqrt(4 * o.power / static_cast<double>(o.n));
  for (int k = 0; k < o.n_dm; ++k) {
    const double dm = o.dm0 + k * o.ddm;
    const double e = (dm - o.pulsar_dm) / o.dm_width;
    const double scale = std::exp(-0.5 * e * e);
    std::mt19937_64 rng(o.seed * 1000003ULL + static_cast<unsigned>(k));
    std::normal_distribution<double> g(0.0, 1.0);
    std::vector<float> x(o.n);
    for (std::size_t i = 0; i < o.n; ++i) {
      const double t = static_cast<double>(i) * o.tsamp;
      const double phase = (o.f0 - fdot * T / 2) * t + fdot * t * t / 2;
      double v = g(rng);
      for (int h = 1; h <= o.harmonics; ++h) v += scale * a * std::cos(2 * std::numbers::pi * h * phase + 0.3 * h);
      x[i] = static_cast<float>(v);
    }
    if (k == 0 && o.nan_at >= 0 && static_cast<std::size_t>(o.nan_at) < o.n)
      x[static_cast<std::size_t>(o.nan_at)] = NAN;
    char name[64];
    std::snprintf(name, sizeof name, "beam_DM%07.3f", dm);
    const std::string base = (std::filesystem::path(o.out) / name).string();
    if (o.format == "tim") {
      astrosweep::test::TimSpec spec;
      spec.source_name = "FDAS_TEST";
      spec.tsamp = o.tsamp;
      spec.refdm = dm;
      astrosweep::test::write_file(base + ".tim", astrosweep::test::tim_file(spec, x));
    } else {
      astrosweep::test::PrestoSpec spec;
      spec.tsamp = o.tsamp;
      spec.dm = dm;
      spec.object = "FDAS_TEST";
      astrosweep::test::write_presto(base, spec, x);
    }
  }
  std::printf(
      "make_fdas_beam: %d series of %zu samples (T = %.6f s) in %s; pulsar f0 = %.6f Hz, z = %.3f "
      "(fdot = %.6g Hz/s) at DM %.3f\n",
      o.n_dm, o.n, T, o.out.c_str(), o.f0, o.z, fdot, o.pulsar_dm);
  return 0;
}
