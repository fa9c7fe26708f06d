// The checks of the PSD spiir writes into its product (tests/spiir/CMakeLists.txt, docs/spiir.md):
//   spiir_psd_check check PRODUCT STRAIN --ifo IFO
//       PRODUCT's /detectors/IFO/psd equals the median-Welch PSD of STRAIN's (unwhitened, gap-free)
//       IFO strain made here by psd_welch directly: frequencies exactly, values to 1e-15 relative,
//       and the attributes (segment count, bias, span) those of that estimate
//   spiir_psd_check copy PRODUCT OUT --ifos H1,L1
//       an astrosweep.gwstrain file OUT whose psd groups hold PRODUCT's PSDs (the values as read)
//   spiir_psd_check same-bank A B
//       banks A and B hold the same bits in every template column, norm, coefficient and
//       autocorrelation (the root's provenance, which names the PSD file, aside)
// Exits 0 when done or when the check holds, 1 naming what failed, 2 on bad usage.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gw_strain.hpp"
#include "io/h5.hpp"
#include "psd_welch.hpp"
#include "spiir_bank.hpp"

namespace spiir = astrosweep::spiir;
namespace h5 = astrosweep::h5;

namespace {

std::string option(const std::vector<std::string>& args, const std::string& name) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == name) return args[i + 1];
  return "";
}

spiir::SampledPsd stored_psd(const std::string& path, const std::string& ifo) {
  h5::Id file = h5::open_file(path, h5::Access::read);
  const std::string where = "detectors/" + ifo + "/psd/";
  return {h5::read_all<double>(file.get(), where + "frequency"), h5::read_all<double>(file.get(), where + "value")};
}

int check(const std::string& product, const std::string& strain, const std::string& ifo) {
  std::vector<double> x;
  double rate = 0;
  for (const auto& d : spiir::read_gw_strain(strain))
    if (d.ifo == ifo) {
      x.assign(d.strain.begin(), d.strain.end());
      rate = d.sample_rate;
    }
  const auto expected = spiir::welch_median_estimate(x, rate);
  if (!expected) return std::fprintf(stderr, "no %s strain (or too short) in '%s'\n", ifo.c_str(), strain.c_str()), 1;
  const auto got = stored_psd(product, ifo);
  int bad = 0;
  if (got.frequency != expected->psd.frequency) bad = std::fprintf(stderr, "the frequencies differ\n");
  double worst = 0;
  if (got.value.size() != expected->psd.value.size()) {
    bad = std::fprintf(stderr, "%zu values, not %zu\n", got.value.size(), expected->psd.value.size());
  } else {
    for (std::size_t k = 0; k < got.value.size(); ++k)
      worst = std::max(worst, std::abs(got.value[k] - expected->psd.value[k]) / std::abs(expected->psd.value[k]));
    if (!(worst <= 1e-15)) bad = std::fprintf(stderr, "the values differ by up to %.3g relative\n", worst);
  }
  h5::Id file = h5::open_file(product, h5::Access::read);
  h5::Id group = h5::open_group(file.get(), "detectors/" + ifo + "/psd");
  const auto n_segments = h5::int_attribute(group.get(), "n_segments");
  const auto bias = h5::double_attribute(group.get(), "median_bias");
  const auto first = h5::int_attribute(group.get(), "first_sample");
  const auto end = h5::int_attribute(group.get(), "end_sample");
  if (!n_segments || *n_segments != static_cast<std::int64_t>(expected->n_segments))
    bad = std::fprintf(stderr, "n_segments is not %zu\n", expected->n_segments);
  if (!bias || *bias != expected->bias) bad = std::fprintf(stderr, "median_bias is not %.17g\n", expected->bias);
  if (!first || !end || *first != static_cast<std::int64_t>(expected->first_sample) ||
      *end != static_cast<std::int64_t>(expected->end_sample))
    bad = std::fprintf(stderr, "the span is not samples %zu ... %zu\n", expected->first_sample, expected->end_sample);
  std::printf("%s PSD: %zu bins from %zu segments, values within %.3g relative of psd_welch's\n", ifo.c_str(),
              got.value.size(), expected->n_segments, worst);
  return bad ? 1 : 0;
}

int copy(const std::string& product, const std::string& out, const std::string& ifos) {
  std::vector<spiir::DetectorStrain> detectors;
  std::vector<spiir::SampledPsd> psds;
  for (std::size_t from = 0; from < ifos.size();) {
    const std::size_t comma = std::min(ifos.find(',', from), ifos.size());
    spiir::DetectorStrain d;
    d.ifo = ifos.substr(from, comma - from);
    d.sample_rate = 2048;
    d.strain.assign(2048, 0.0F);
    psds.push_back(stored_psd(product, d.ifo));
    detectors.push_back(std::move(d));
    from = comma + 1;
  }
  spiir::write_gw_strain(out, detectors, psds);
  return 0;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

int same_bank(const std::string& path_a, const std::string& path_b) {
  const auto a = spiir::read_spiir_bank(path_a);
  const auto b = spiir::read_spiir_bank(path_b);
  int bad = 0;
  if (a.n_templates() != b.n_templates() || a.rates.size() != b.rates.size() || a.ifos != b.ifos)
    return std::fprintf(stderr, "the banks differ in templates, rates or detectors\n"), 1;
  for (std::size_t t = 0; t < a.n_templates(); ++t) {
    const auto& x = a.templates[t];
    const auto& y = b.templates[t];
    const std::vector<double> u{x.mass1, x.mass2, x.end_offset, x.f_final, x.duration, x.match, x.epsilon};
    const std::vector<double> v{y.mass1, y.mass2, y.end_offset, y.f_final, y.duration, y.match, y.epsilon};
    if (!same_bits(u, v)) bad = std::fprintf(stderr, "template %zu's columns differ\n", t);
  }
  for (const auto& ifo : a.ifos) {
    if (!same_bits(a.sigmasq.at(ifo), b.sigmasq.at(ifo)))
      bad = std::fprintf(stderr, "%s sigmasq differ\n", ifo.c_str());
    if (!same_bits(a.autocorrelation.at(ifo), b.autocorrelation.at(ifo)))
      bad = std::fprintf(stderr, "%s autocorrelations differ\n", ifo.c_str());
  }
  for (std::size_t r = 0; r < a.rates.size(); ++r) {
    const auto& x = a.rates[r];
    const auto& y = b.rates[r];
    if (x.rate != y.rate || !same_bits(x.a1, y.a1) || !same_bits(x.b0, y.b0) || !same_bits(x.delay, y.delay) ||
        !same_bits(x.n_filters, y.n_filters))
      bad = std::fprintf(stderr, "the coefficients at %lld Hz differ\n", static_cast<long long>(x.rate));
  }
  if (!bad) std::printf("the same bank: %zu templates, %zu rates\n", a.n_templates(), a.rates.size());
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() >= 3 && args[0] == "check" && !option(args, "--ifo").empty())
      return check(args[1], args[2], option(args, "--ifo"));
    if (args.size() >= 3 && args[0] == "copy" && !option(args, "--ifos").empty())
      return copy(args[1], args[2], option(args, "--ifos"));
    if (args.size() == 3 && args[0] == "same-bank") return same_bank(args[1], args[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spiir_psd_check: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: spiir_psd_check check|copy|same-bank ... (see the source's first lines)\n");
  return 2;
}
