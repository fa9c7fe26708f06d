// Inputs and checks of the spiir end-to-end tests (tests/spiir/CMakeLists.txt):
//   spiir_fixtures strain OUT --rate R --seconds S --ifos H1,L1 [--inject M1,M2 --f-low F --end SAMPLE --snr X]
//                  [--seed N] [--unwhitened] [--gap FIRST,COUNT] [--psd-knee F] [--sky RA,DEC] [--colour]
//                  [--dq FIRST,COUNT] [--exact-delays]
//       unit-variance white noise per detector (whitened = 1), plus in every detector the real part
//       of the whitened TaylorF2 template of M1,M2 ending at sample SAMPLE, scaled to matched-filter SNR X;
//       samples FIRST ... FIRST + COUNT − 1 NaN (a gap); with --psd-knee, PSD groups 0 ... f_s/2:
//       the first detector's (2/f_s)(1 + (f/F)²), the others' flat 2/f_s; with --sky (rad) a source
//       there instead (ψ 0.4, ι 0.6): each detector gets F+ h+ + F× h× at its own end sample
//       SAMPLE + round(delay from the geocentre · f_s) (with --exact-delays, shifted further by the
//       fraction in the frequency domain: the exact delay), X the network SNR √Σ ρ_d²; with --colour, noise and
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
//   spiir_fixtures check-triggers PRODUCT --template T --coh X
//       the loudest coherent trigger (/triggers) is template T at the end time of the loudest
//       single-detector peak of its reference detector (±1 sample), with ρ_coh X ± 3 and, for two
//       detectors, ρ_null 0; /background holds n_slides trials of every candidate; with
//       --ra R --dec D [--within DEG] its pixel within DEG (10) of there; with --max-null Y ρ_null ≤ Y;
//       with --skymaps a /skymaps map per trigger, the loudest's maximum its ρ_coh² at its pixel
//   either check with --masked S: also /peaks/IFO's masked_seconds is S
//   spiir_fixtures check-snr PRODUCT --first F --last L [--first-sample S]
//       /snr holds rows F ... L (/snr/template) for every detector of /peaks, /snr/time the samples' GPS
//       times (from /snr's first_sample, S if given), no sample left unwritten (0), and at every peak
//       of those templates and samples the series equals the peak's SNR and phase to float32
//       rounding (which also pins the multi-rate latency)
// Exits 0 when done or when the check holds, 1 naming what failed, 2 on bad usage.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "detector_geometry.hpp"
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

// Delays x by `samples` (|samples| <= 0.5) as a band-limited series: each frequency k of the
// DFT times e^{-2πi f_k samples / N}, k signed (the template is band-limited and far from the ends,
// so the circular shift wraps nothing). The Nyquist bin, real, keeps cos of its phase.
void shift_series(std::vector<double>& x, double samples) {
  const std::size_t n = x.size();
  std::vector<std::complex<double>> b(x.begin(), x.end());
  spiir::fft_in_place(b, spiir::FftDirection::forward);
  for (std::size_t k = 0; k < n; ++k) {
    const double f = k <= n / 2 ? static_cast<double>(k) : static_cast<double>(k) - static_cast<double>(n);
    const double phase = -2 * M_PI * f * samples / static_cast<double>(n);
    b[k] *= (2 * k == n ? std::complex<double>(std::cos(phase), 0) : std::polar(1.0, phase)) / static_cast<double>(n);
  }
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
  std::vector<std::vector<double>> injection(ifos.size(), std::vector<double>(n, 0.0));
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
    std::vector<std::complex<double>> amplitude(ifos.size(), std::polar(snr, 1.1));
    std::vector<std::int64_t> shift(ifos.size(), 0);
    std::vector<double> fractional(ifos.size(), 0.0);  // --exact-delays: samples, shifted in frequency
    const bool exact = flag(args, "--exact-delays");
    if (const auto sky = option(args, "--sky", ""); !sky.empty()) {
      const spiir::SkyDirection where{std::stod(sky.substr(0, sky.find(','))),
                                      std::stod(sky.substr(sky.find(',') + 1))};
      const double gmst = spiir::gmst_from_gps(1000000000.25 + static_cast<double>(end) / rate);
      const double psi = 0.4, ci = std::cos(0.6);
      double norm = 0;
      for (std::size_t d = 0; d < ifos.size(); ++d) {
        const auto& det = spiir::detector(ifos[d]);
        const auto f = spiir::antenna_pattern(det, where, psi, gmst);
        amplitude[d] =
            f.plus * 0.5 * (1 + ci * ci) * std::polar(1.0, 1.1) + f.cross * ci * std::polar(1.0, 1.1 - M_PI / 2);
        norm += std::norm(amplitude[d]);
        const double delay = spiir::delay_from_geocentre(det, where, gmst) * rate;
        shift[d] = static_cast<std::int64_t>(std::floor(delay + 0.5));
        if (exact) fractional[d] = delay - static_cast<double>(shift[d]);
      }
      for (auto& a : amplitude) a *= snr / std::sqrt(norm);
    }
    for (std::size_t d = 0; d < ifos.size(); ++d) {
      const std::int64_t last = static_cast<std::int64_t>(end) + shift[d];
      if (last + 1 < static_cast<std::int64_t>(t.h.size()) || last >= static_cast<std::int64_t>(n)) {
        std::fprintf(stderr, "spiir_fixtures: the injection does not fit\n");
        return 2;
      }
      for (std::size_t s = 0; s < t.h.size(); ++s)
        injection[d][static_cast<std::size_t>(last + 1) - t.h.size() + s] = (amplitude[d] * t.h[s]).real();
      if (fractional[d] != 0) shift_series(injection[d], fractional[d]);
    }
  }
  std::vector<spiir::DetectorStrain> detectors;
  for (std::size_t k = 0; k < ifos.size(); ++k) {
    spiir::DetectorStrain d;
    d.ifo = ifos[k];
    d.gps_start_s = 1000000000;
    d.gps_start_ns = 250000000;
    d.sample_rate = rate;
    d.whitened = !flag(args, "--unwhitened") && !flag(args, "--colour") && !gwosc;
    d.f_low = 15;
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = g(rng) + injection[k][i];
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
      f.ifo = ifos[k];
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

int check_triggers(const std::string& path, const std::vector<std::string>& args) {
  h5::Id file = h5::open_file(path, h5::Access::read);
  const auto coh = h5::read_all<double>(file.get(), "triggers/coh_snr");
  const auto null = h5::read_all<double>(file.get(), "triggers/null_snr");
  const auto tmpl = h5::read_all<std::int64_t>(file.get(), "triggers/template");
  const auto ref = h5::read_all<std::int64_t>(file.get(), "triggers/ref_ifo");
  const auto end_s = h5::read_all<std::int64_t>(file.get(), "triggers/end_time_gps_s");
  const auto end_ns = h5::read_all<std::int64_t>(file.get(), "triggers/end_time_gps_ns");
  if (coh.empty()) return std::fprintf(stderr, "spiir_check: no trigger\n"), 1;
  std::size_t loudest = 0;
  for (std::size_t i = 1; i < coh.size(); ++i)
    if (coh[i] > coh[loudest]) loudest = i;
  h5::Id triggers = h5::open_group(file.get(), "triggers");
  const auto ifos_text = h5::string_attribute(triggers.get(), "ifos").value_or("");
  std::vector<std::string> ifos;
  std::stringstream list(ifos_text);
  for (std::string i; std::getline(list, i, ',');) ifos.push_back(i);
  const std::string ref_ifo = ifos.at(static_cast<std::size_t>(ref[loudest]));
  const auto p_snr = h5::read_all<double>(file.get(), "peaks/" + ref_ifo + "/snr");
  const auto p_s = h5::read_all<std::int64_t>(file.get(), "peaks/" + ref_ifo + "/end_time_gps_s");
  const auto p_ns = h5::read_all<std::int64_t>(file.get(), "peaks/" + ref_ifo + "/end_time_gps_ns");
  std::size_t peak = 0;
  for (std::size_t i = 1; i < p_snr.size(); ++i)
    if (p_snr[i] > p_snr[peak]) peak = i;
  const double dt =
      static_cast<double>(end_s[loudest] - p_s[peak]) + 1e-9 * static_cast<double>(end_ns[loudest] - p_ns[peak]);
  const auto n_slides = h5::int_attribute(triggers.get(), "n_slides").value_or(-1);
  const auto trials = h5::read_all<std::int64_t>(file.get(), "background/trial");
  const auto candidates = h5::read_all<std::int64_t>(file.get(), "background/candidates/template");
  std::printf(
      "%zu triggers; the loudest: template %lld, reference %s, rho_coh %.3f, rho_null %.3g, %.3g s from the "
      "loudest %s peak; background %zu rows for %zu candidates x %lld slides\n",
      coh.size(), static_cast<long long>(tmpl[loudest]), ref_ifo.c_str(), coh[loudest], null[loudest], dt,
      ref_ifo.c_str(), trials.size(), candidates.size(), static_cast<long long>(n_slides));
  int bad = 0;
  if (tmpl[loudest] != std::stoll(option(args, "--template", "0"))) bad = std::fprintf(stderr, "wrong template\n");
  if (std::abs(dt) > 1.0 / 2048) bad = std::fprintf(stderr, "not at the loudest peak's time\n");
  if (std::abs(coh[loudest] - std::stod(option(args, "--coh", "10"))) > 3)
    bad = std::fprintf(stderr, "wrong rho_coh\n");
  if (ifos.size() == 2 && null[loudest] > 1e-3) bad = std::fprintf(stderr, "two detectors with a null stream\n");
  if (const auto ra = option(args, "--ra", ""); !ra.empty()) {
    const auto t_ra = h5::read_all<double>(file.get(), "triggers/ra");
    const auto t_dec = h5::read_all<double>(file.get(), "triggers/dec");
    const double off = spiir::angular_distance({t_ra[loudest], t_dec[loudest]},
                                               {std::stod(ra), std::stod(option(args, "--dec", "0"))}) *
                       180 / M_PI;
    std::printf("the loudest trigger's pixel is %.2f deg from the source\n", off);
    if (off > std::stod(option(args, "--within", "10"))) bad = std::fprintf(stderr, "wrong sky position\n");
  }
  if (const auto max_null = option(args, "--max-null", ""); !max_null.empty() && null[loudest] > std::stod(max_null))
    bad = std::fprintf(stderr, "rho_null above %s\n", max_null.c_str());
  if (flag(args, "--skymaps")) {
    // One map per trigger; the loudest's maximum is its rho_coh^2 (float32 storage) at its pixel.
    std::size_t maps = 0;
    while (h5::exists(file.get(), "skymaps/" + std::to_string(maps))) ++maps;
    if (maps != coh.size()) bad = std::fprintf(stderr, "%zu sky maps for %zu triggers\n", maps, coh.size());
    const auto map =
        maps > loudest ? h5::read_all<float>(file.get(), "skymaps/" + std::to_string(loudest)) : std::vector<float>{};
    const auto pixel = h5::read_all<std::int64_t>(file.get(), "triggers/pixel");
    std::size_t top = 0;
    for (std::size_t p = 1; p < map.size(); ++p)
      if (map[p] > map[top]) top = p;
    const double top_coh = std::sqrt(static_cast<double>(map.empty() ? 0.0f : map[top]));
    std::printf("sky maps: %zu; the loudest's maximum rho_coh %.4f at pixel %zu of %zu\n", maps, top_coh, top,
                map.size());
    if (map.empty() || static_cast<std::int64_t>(top) != pixel[loudest] ||
        std::abs(top_coh - coh[loudest]) > 1e-5 * coh[loudest])
      bad = std::fprintf(stderr, "the sky map's maximum is not the trigger's rho_coh at its pixel\n");
  }
  if (trials.size() != candidates.size() * static_cast<std::size_t>(n_slides))
    bad = std::fprintf(stderr, "background rows are not candidates x slides\n");
  return bad ? 1 : 0;
}

int check_snr(const std::string& path, const std::vector<std::string>& args) {
  h5::Id file = h5::open_file(path, h5::Access::read);
  const auto first = std::stoll(option(args, "--first", "0")), last = std::stoll(option(args, "--last", "0"));
  const auto rows = h5::read_all<std::int64_t>(file.get(), "snr/template");
  const auto time = h5::read_all<double>(file.get(), "snr/time");
  h5::Id group = h5::open_group(file.get(), "snr");
  const double start = static_cast<double>(h5::int_attribute(group.get(), "gps_start_s").value_or(-1)) +
                       1e-9 * static_cast<double>(h5::int_attribute(group.get(), "gps_start_ns").value_or(-1));
  const double rate = h5::double_attribute(group.get(), "sample_rate").value_or(0);
  const auto first_sample = h5::int_attribute(group.get(), "first_sample").value_or(-1);
  if (const auto want = option(args, "--first-sample", ""); !want.empty() && first_sample != std::stoll(want))
    return std::fprintf(stderr, "/snr's first_sample is %lld, not %s\n", static_cast<long long>(first_sample),
                        want.c_str()),
           1;
  int bad = 0;
  if (rows.size() != static_cast<std::size_t>(last - first + 1) || rows.front() != first || rows.back() != last)
    bad = std::fprintf(stderr, "/snr/template is not rows %lld ... %lld\n", first, last);
  for (std::size_t s = 0; s < time.size(); ++s)
    if (std::abs(time[s] - (start + static_cast<double>(first_sample + static_cast<std::int64_t>(s)) / rate)) > 1e-6) {
      bad = std::fprintf(stderr, "/snr/time[%zu] is not the sample's GPS time\n", s);
      break;
    }
  for (const std::string ifo : {"H1", "L1", "V1"}) {
    if (!h5::exists(file.get(), "peaks/" + ifo)) continue;
    h5::Id ds = h5::open_dataset(file.get(), "snr/" + ifo);
    const auto dims = h5::dims(ds.get());
    if (dims.size() != 2 || dims[0] != rows.size() || dims[1] != time.size()) {
      bad = std::fprintf(stderr, "/snr/%s is not templates x samples\n", ifo.c_str());
      continue;
    }
    h5::Id memory(H5Tcreate(H5T_COMPOUND, sizeof(std::complex<double>)));
    h5::check(H5Tinsert(memory.get(), "r", 0, H5T_NATIVE_DOUBLE), "H5Tinsert");
    h5::check(H5Tinsert(memory.get(), "i", sizeof(double), H5T_NATIVE_DOUBLE), "H5Tinsert");
    std::vector<std::complex<double>> z(dims[0] * dims[1]);
    h5::check(H5Dread(ds.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, z.data()), "H5Dread");
    std::size_t unwritten = 0, checked = 0;
    for (const auto& v : z) unwritten += v == std::complex<double>(0, 0);
    const auto snr = h5::read_all<double>(file.get(), "peaks/" + ifo + "/snr");
    const auto phase = h5::read_all<double>(file.get(), "peaks/" + ifo + "/phase");
    const auto tmpl = h5::read_all<std::int64_t>(file.get(), "peaks/" + ifo + "/template");
    const auto sample = h5::read_all<std::int64_t>(file.get(), "peaks/" + ifo + "/sample");
    for (std::size_t p = 0; p < snr.size(); ++p) {
      const std::int64_t column = sample[p] - first_sample;
      if (tmpl[p] < first || tmpl[p] > last || column < 0 || column >= static_cast<std::int64_t>(dims[1])) continue;
      const auto v = z[static_cast<std::size_t>(tmpl[p] - first) * dims[1] + static_cast<std::size_t>(column)];
      ++checked;
      if (std::abs(std::abs(v) - snr[p]) > 1e-6 * snr[p] ||
          std::abs(std::remainder(std::arg(v) - phase[p], 2 * M_PI)) > 1e-6)
        bad = std::fprintf(stderr,
                           "%s peak %zu (template %lld, sample %lld): SNR %.7g phase %.7g, /snr holds %.7g %.7g\n",
                           ifo.c_str(), p, static_cast<long long>(tmpl[p]), static_cast<long long>(sample[p]), snr[p],
                           phase[p], std::abs(v), std::arg(v));
    }
    std::printf("%s: /snr %llu x %llu, %zu unwritten, %zu peaks checked\n", ifo.c_str(),
                static_cast<unsigned long long>(dims[0]), static_cast<unsigned long long>(dims[1]), unwritten, checked);
    if (unwritten) bad = std::fprintf(stderr, "/snr/%s has %zu samples never written\n", ifo.c_str(), unwritten);
    if (!checked) bad = std::fprintf(stderr, "no peak of %s to check /snr against\n", ifo.c_str());
  }
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
    if (args.size() >= 2 && args[0] == "check-triggers") return check_triggers(args[1], args);
    if (args.size() >= 2 && args[0] == "check-snr") return check_snr(args[1], args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spiir_fixtures: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: spiir_fixtures strain|gwosc|truncate|check|check-triggers|check-snr ... (see the source's first "
               "lines)\n");
  return 2;
}
