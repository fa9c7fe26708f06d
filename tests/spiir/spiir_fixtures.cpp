// Inputs and checks of the spiir end-to-end tests (tests/spiir/CMakeLists.txt):
//   spiir_fixtures strain OUT --rate R --seconds S --ifos H1,L1 [--inject M1,M2 --f-low F --end SAMPLE --snr X]
//                  [--seed N] [--unwhitened] [--gap FIRST,COUNT] [--psd-knee F] [--colour] [--dq FIRST,COUNT]
//       unit-variance white noise per detector (whitened = 1), plus in every detector the real part
//       of the whitened TaylorF2 template of M1,M2 ending at sample SAMPLE, scaled to matched-filter SNR X;
//       samples FIRST ... FIRST + COUNT − 1 NaN (a gap); with --psd-knee, PSD groups 0 ... f_s/2:
//       the first detector's (2/f_s)(1 + (f/F)²), the others' flat 2/f_s; with --colour, noise and
//       injection coloured as strain (colour() below: a low-frequency wall, 1e-21) and whitened = 0,
//       so the job's whitening must undo it; --dq: seconds FIRST ... FIRST + COUNT − 1 flagged 0
//   spiir_fixtures gwosc OUT --ifos IFO [the options of strain] [--start GPS] [--npoints N] [--no-strain]
//       the same detector as a GWOSC file (float64 strain, DQmask bit 0 from --dq; --npoints writes a
//       wrong Npoints, --no-strain leaves /strain/Strain out)
//   spiir_fixtures truncate IN OUT      the first half of IN's bytes (a damaged copy)
//   spiir_fixtures check PEAKS --ifo IFO --template T --sample N --snr X
//       the loudest peak of IFO is template T within ±1 sample of N, with SNR X ± 2.5 (noise σ = 1)
//   spiir_fixtures check PEAKS --ifo IFO --below X
//       IFO has peaks (so the filters were not poisoned by NaN), all with SNR below X
//   either check with --masked S: also /peaks/IFO's masked_seconds is S
// Exits 0 when done or when the check holds, 1 naming what failed, 2 on bad usage.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "fft.hpp"
#include "gw_strain.hpp"
#include "gwosc_strain.hpp"
#include "io/h5.hpp"
#include "taylorf2.hpp"

namespace spiir = astrosweep::spiir;
namespace h5 = astrosweep::h5;

namespace {

std::string option(const std::vector<std::string>& args, const std::string& name, const std::string& fallback) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == name) return args[i + 1];
  return fallback;
}

bool flag(const std::vector<std::string>& args, const std::string& name) {
  for (const auto& a : args)
    if (a == name) return true;
  return false;
}

// The amplitude that colours unit-variance white noise into strain: a steep wall below 30 Hz and a
// rise above 200 Hz, 1e-21 in between (test_whitening.cpp's shape).
double colour(double f) {
  const double g = std::max(std::abs(f), 5.0);
  return 1e-21 * std::sqrt(std::pow(30 / g, 8) / 1e3 + 1 + (g / 200) * (g / 200));
}

void colour_series(std::vector<double>& x, double rate) {
  std::vector<std::complex<double>> b(x.begin(), x.end());
  const std::size_t n = b.size();
  spiir::fft_in_place(b, spiir::FftDirection::forward);
  for (std::size_t k = 0; k < n; ++k)
    b[k] *= colour(static_cast<double>(std::min(k, n - k)) * rate / static_cast<double>(n)) / static_cast<double>(n);
  spiir::fft_in_place(b, spiir::FftDirection::backward);
  for (std::size_t i = 0; i < n; ++i) x[i] = b[i].real();
}

int strain(const std::string& out, const std::vector<std::string>& args, bool gwosc) {
  const double rate = std::stod(option(args, "--rate", "2048"));
  const double seconds = std::stod(option(args, "--seconds", "16"));
  const auto n = static_cast<std::size_t>(rate * seconds);
  std::mt19937_64 rng(std::stoull(option(args, "--seed", "1")));
  std::normal_distribution<double> g(0, 1);
  std::vector<std::string> ifos;
  std::stringstream ss(option(args, "--ifos", "H1"));
  for (std::string item; std::getline(ss, item, ',');) ifos.push_back(item);
  std::vector<double> injection(n, 0.0);
  const std::string inject = option(args, "--inject", "");
  if (!inject.empty()) {
    const auto comma = inject.find(',');
    const spiir::Binary b{std::stod(inject.substr(0, comma)), std::stod(inject.substr(comma + 1))};
    const auto t = spiir::taylorf2_template(b, {std::stod(option(args, "--f-low", "40")), rate, {}});
    const auto end = std::stoull(option(args, "--end", "0"));
    const double snr = std::stod(option(args, "--snr", "10"));
    if (end + 1 < t.h.size() || end >= n) {
      std::fprintf(stderr, "spiir_fixtures: the injection does not fit\n");
      return 2;
    }
    // Σ|h|² = 2: x = X · Re(e^{iθ} h) gives the matched filter |z| = X at the template's last sample.
    for (std::size_t s = 0; s < t.h.size(); ++s)
      injection[end + 1 - t.h.size() + s] = snr * (std::polar(1.0, 1.1) * t.h[s]).real();
  }
  std::vector<spiir::DetectorStrain> detectors;
  for (const auto& ifo : ifos) {
    spiir::DetectorStrain d;
    d.ifo = ifo;
    d.gps_start_s = 1000000000;
    d.gps_start_ns = 250000000;
    d.sample_rate = rate;
    d.whitened = !flag(args, "--unwhitened") && !flag(args, "--colour") && !gwosc;
    d.f_low = 15;
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = g(rng) + injection[i];
    if (flag(args, "--colour")) colour_series(x, rate);
    d.strain.assign(x.begin(), x.end());
    const std::string dq = option(args, "--dq", "");
    if (!dq.empty()) {
      d.dq.assign(static_cast<std::size_t>(std::ceil(seconds)), 1);
      const auto first = std::stoull(dq.substr(0, dq.find(',')));
      const auto count = std::stoull(dq.substr(dq.find(',') + 1));
      for (std::size_t i = first; i < std::min<std::size_t>(d.dq.size(), first + count); ++i) d.dq[i] = 0;
    }
    if (gwosc) {
      spiir::GwoscFile f;
      f.ifo = ifo;
      f.gps_start = std::stod(option(args, "--start", "1000000000"));
      f.sample_rate = rate;
      f.strain = x;
      for (const auto q : d.dq) f.dq_mask.push_back(q ? 0x7f : 0x7e);  // bit 0 = data present
      if (f.dq_mask.empty()) f.dq_mask.assign(static_cast<std::size_t>(std::ceil(seconds)), 0x7f);
      f.npoints = std::stoull(option(args, "--npoints", "0"));
      f.with_strain = !flag(args, "--no-strain");
      spiir::write_gwosc_strain(out, f);
      return 0;
    }
    const std::string gap = option(args, "--gap", "");
    if (!gap.empty()) {
      const auto first = std::stoull(gap.substr(0, gap.find(',')));
      const auto count = std::stoull(gap.substr(gap.find(',') + 1));
      for (std::size_t i = first; i < std::min<std::size_t>(n, first + count); ++i) d.strain[i] = NAN;
    }
    detectors.push_back(std::move(d));
  }
  std::vector<spiir::SampledPsd> psds;
  if (const auto knee = option(args, "--psd-knee", ""); !knee.empty()) {
    for (std::size_t i = 0; i < detectors.size(); ++i) {
      spiir::SampledPsd p;
      for (double f = 0; f <= rate / 2; f += 0.25) {
        p.frequency.push_back(f);
        p.value.push_back(2 / rate * (i == 0 ? 1 + std::pow(f / std::stod(knee), 2) : 1.0));
      }
      psds.push_back(std::move(p));
    }
  }
  spiir::write_gw_strain(out, detectors, psds);
  return 0;
}

int truncate(const std::string& in, const std::string& out) {
  std::ifstream src(in, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(src), {}};
  std::ofstream(out, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  return bytes.empty() ? 1 : 0;
}

int check(const std::string& path, const std::vector<std::string>& args) {
  const std::string ifo = option(args, "--ifo", "H1");
  h5::Id file = h5::open_file(path, h5::Access::read);
  const auto snr = h5::read_all<double>(file.get(), "peaks/" + ifo + "/snr");
  const auto tmpl = h5::read_all<std::int64_t>(file.get(), "peaks/" + ifo + "/template");
  const auto sample = h5::read_all<std::int64_t>(file.get(), "peaks/" + ifo + "/sample");
  if (snr.empty()) {
    std::fprintf(stderr, "spiir_check: no peak in %s\n", ifo.c_str());
    return 1;
  }
  if (const auto masked = option(args, "--masked", ""); !masked.empty()) {
    h5::Id group = h5::open_group(file.get(), "peaks/" + ifo);
    const auto value = h5::int_attribute(group.get(), "masked_seconds");
    std::printf("%s: masked_seconds %lld\n", ifo.c_str(), static_cast<long long>(value.value_or(-1)));
    if (value != std::stoll(masked)) return std::fprintf(stderr, "masked_seconds is not %s\n", masked.c_str()), 1;
  }
  std::size_t loudest = 0;
  for (std::size_t i = 1; i < snr.size(); ++i)
    if (snr[i] > snr[loudest]) loudest = i;
  const std::string below = option(args, "--below", "");
  if (!below.empty()) {
    std::printf("%s: %zu peaks, the loudest SNR %.3f at sample %lld\n", ifo.c_str(), snr.size(), snr[loudest],
                static_cast<long long>(sample[loudest]));
    for (double v : snr)
      if (!(v < std::stod(below))) return std::fprintf(stderr, "a peak reaches %.3f\n", v), 1;
    return 0;
  }
  const auto want_template = std::stoll(option(args, "--template", "0"));
  const auto want_sample = std::stoll(option(args, "--sample", "0"));
  const double want_snr = std::stod(option(args, "--snr", "10"));
  std::printf("%s: loudest peak template %lld, sample %lld, SNR %.3f (%zu peaks)\n", ifo.c_str(),
              static_cast<long long>(tmpl[loudest]), static_cast<long long>(sample[loudest]), snr[loudest], snr.size());
  int bad = 0;
  if (tmpl[loudest] != want_template) bad = std::fprintf(stderr, "wrong template (want %lld)\n", want_template);
  if (std::llabs(sample[loudest] - want_sample) > 1)
    bad = std::fprintf(stderr, "wrong sample (want %lld)\n", want_sample);
  if (std::abs(snr[loudest] - want_snr) > 2.5) bad = std::fprintf(stderr, "wrong SNR (want %.2f)\n", want_snr);
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() >= 2 && args[0] == "strain") return strain(args[1], args, false);
    if (args.size() >= 2 && args[0] == "gwosc") return strain(args[1], args, true);
    if (args.size() == 3 && args[0] == "truncate") return truncate(args[1], args[2]);
    if (args.size() >= 2 && args[0] == "check") return check(args[1], args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spiir_fixtures: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: spiir_fixtures strain|gwosc|truncate|check ... (see the source's first lines)\n");
  return 2;
}
