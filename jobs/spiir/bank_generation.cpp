#include "bank_generation.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "core/error.hpp"
#include "fft.hpp"
#include "multirate.hpp"

namespace astrosweep::spiir {

double default_sample_rate(const std::vector<Binary>& binaries) {
  double f_final = 0;
  for (const auto& b : binaries) f_final = std::max(f_final, f_isco(b));
  AS_EXPECTS(f_final > 0, UsageError, "no binaries");
  return std::exp2(std::ceil(std::log2(f_final)) + 1);
}

std::vector<std::complex<double>> template_autocorrelation(const std::vector<std::complex<double>>& h,
                                                           std::size_t length) {
  AS_EXPECTS(length % 2 == 1, UsageError, "the autocorrelation length must be odd");
  const std::size_t half = length / 2;
  std::vector<std::complex<double>> work(next_power_of_two(h.size() + half + 1));
  std::copy(h.begin(), h.end(), work.begin());
  fft_in_place(work, FftDirection::forward);
  for (auto& x : work) x = std::norm(x);
  fft_in_place(work, FftDirection::backward);  // a[s] = Σ conj(h[m]) h[m+s], times the length
  const auto n = static_cast<std::ptrdiff_t>(work.size());
  const std::complex<double> zero_lag = work[0];
  std::vector<std::complex<double>> r(length);
  for (std::size_t i = 0; i < length; ++i) {
    const auto s = static_cast<std::ptrdiff_t>(i) - static_cast<std::ptrdiff_t>(half);
    r[i] = std::conj(work[static_cast<std::size_t>((s + n) % n)]) / zero_lag.real();
  }
  return r;
}

namespace {

struct TemplateResult {
  TemplateInfo info;
  std::map<std::string, double> sigmasq;
  std::vector<std::vector<IirFilter>> per_rate;  // index log2(M)
  std::map<std::string, std::vector<std::complex<double>>> autocorrelation;
};

TemplateResult one_template(const Binary& binary, const BankSettings& s, double sample_rate, int max_factor) {
  const auto psd_of = [&](const std::string& ifo) { return s.psds.empty() ? Psd{} : s.psds.at(ifo); };
  const auto tmpl = taylorf2_template(binary, {s.f_low, sample_rate, psd_of(s.ifos.front())});
  const auto fit = fit_iir(tmpl.h, s.iir, s.requirement);
  TemplateResult out;
  out.info = {binary.mass1, binary.mass2, tmpl.end_offset, tmpl.f_final, tmpl.duration, fit.match, fit.epsilon};
  const int n_rates = static_cast<int>(std::log2(max_factor)) + 1;
  out.per_rate.resize(static_cast<std::size_t>(n_rates));
  for (const auto& f : fit.filters) {
    const int m = decimation_factor(f.a1, s.padding, max_factor);
    out.per_rate[static_cast<std::size_t>(std::log2(m))].push_back(at_rate(f, m));
  }
  // sigmasq_d = <h,h>_d · match² (spec §3) and R_d from the template whitened by detector d's PSD.
  for (const auto& ifo : s.ifos) {
    const bool same = s.psds.empty() || ifo == s.ifos.front();
    const auto own = same ? WhitenedTemplate{} : taylorf2_template(binary, {s.f_low, sample_rate, psd_of(ifo)});
    const auto& t = same ? tmpl : own;
    out.sigmasq[ifo] = t.sigmasq * fit.match * fit.match;
    out.autocorrelation[ifo] = template_autocorrelation(t.h, s.autocorrelation_length);
  }
  return out;
}

}  // namespace

SpiirBank make_spiir_bank(const std::vector<Binary>& binaries, const BankSettings& s) {
  AS_EXPECTS(!binaries.empty(), UsageError, "no binaries to make templates of");
  AS_EXPECTS(!s.ifos.empty(), UsageError, "no detectors named");
  AS_EXPECTS(s.padding >= 1, UsageError, "padding must be at least 1");
  for (const auto& ifo : s.ifos)
    AS_EXPECTS(s.psds.empty() || s.psds.count(ifo) > 0, UsageError, "no PSD for detector " + ifo);
  const double sample_rate = s.sample_rate > 0 ? s.sample_rate : default_sample_rate(binaries);
  AS_EXPECTS(std::exp2(std::round(std::log2(sample_rate))) == sample_rate, UsageError,
             "the sample rate must be a power of two in Hz");
  const int max_factor = max_decimation(sample_rate, s.f_low, s.n_rates);
  std::vector<TemplateResult> results(binaries.size());
  std::exception_ptr failure;
  const int threads = s.threads > 0 ? s.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (std::size_t t = 0; t < binaries.size(); ++t) {
    try {
      results[t] = one_template(binaries[t], s, sample_rate, max_factor);
    } catch (...) {
#pragma omp critical(spiir_bank_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);

  SpiirBank bank;
  bank.sample_rate_max = sample_rate;
  bank.f_low = s.f_low;
  bank.iir = s.iir;
  bank.padding = s.padding;
  bank.ifos = s.ifos;
  bank.psd = s.psd_name;
  bank.autocorrelation_length = s.autocorrelation_length;
  for (const auto& r : results) bank.templates.push_back(r.info);
  for (const auto& ifo : s.ifos) {
    auto& sig = bank.sigmasq[ifo];
    auto& ac = bank.autocorrelation[ifo];
    for (const auto& r : results) {
      sig.push_back(r.sigmasq.at(ifo));
      ac.insert(ac.end(), r.autocorrelation.at(ifo).begin(), r.autocorrelation.at(ifo).end());
    }
  }
  for (std::size_t level = 0; level < results.front().per_rate.size(); ++level) {
    std::vector<std::vector<IirFilter>> per_template;
    bool any = false;
    for (const auto& r : results) {
      per_template.push_back(r.per_rate[level]);
      any = any || !r.per_rate[level].empty();
    }
    if (any) bank.rates.push_back(RateBank::pack(static_cast<std::int64_t>(sample_rate) >> level, per_template));
  }
  return bank;
}

}  // namespace astrosweep::spiir
