#include "autocorrelation_chisq.hpp"

#include <cstddef>

#include "core/error.hpp"

namespace astrosweep::spiir {

TemplateAutocorrelations TemplateAutocorrelations::from_bank(const SpiirBank& bank,
                                                             const std::vector<std::string>& ifos,
                                                             const std::string& bank_path) {
  TemplateAutocorrelations out;
  out.length = bank.autocorrelation_length;
  out.n_templates = bank.n_templates();
  AS_EXPECTS(out.length % 2 == 1, InputError,
             "bank file '" + bank_path + "': the autocorrelation length " + std::to_string(out.length) + " is not odd");
  for (const auto& ifo : ifos) {
    const auto it = bank.autocorrelation.find(ifo);
    AS_EXPECTS(it != bank.autocorrelation.end() && it->second.size() == out.length * out.n_templates, InputError,
               "bank file '" + bank_path + "' has no autocorrelation for detector " + ifo,
               "make the bank with --ifos naming every detector of the strain file");
    out.per_ifo.push_back(it->second);
  }
  return out;
}

double autocorrelation_chisq_norm(const std::complex<double>* r, std::size_t length) {
  double den = 0;
  for (std::size_t i = 0; i < length; ++i) den += 2 - std::norm(r[i]);
  return den;
}

double autocorrelation_chisq(const std::complex<double>* centre, const std::complex<double>* r, std::size_t length,
                             double norm) {
  const auto k = static_cast<std::ptrdiff_t>(length / 2);
  const std::complex<double> peak = centre[0];
  double num = 0;
  for (std::ptrdiff_t s = -k; s <= k; ++s) num += std::norm(centre[s] - peak * r[s + k]);
  return num / norm;
}

namespace {

// N reads side by side: per read the same operations in the same order as the one-read loop.
template <std::size_t N>
void chisq_side_by_side(const std::complex<double>* const* centres, const std::complex<double>* const* r,
                        std::size_t length, const double* norms, double* out) {
  const auto k = static_cast<std::ptrdiff_t>(length / 2);
  std::complex<double> peak[N];
  double num[N];
  for (std::size_t i = 0; i < N; ++i) {
    peak[i] = centres[i][0];
    num[i] = 0;
  }
  for (std::ptrdiff_t s = -k; s <= k; ++s)
    for (std::size_t i = 0; i < N; ++i) num[i] += std::norm(centres[i][s] - peak[i] * r[i][s + k]);
  for (std::size_t i = 0; i < N; ++i) out[i] = num[i] / norms[i];
}

}  // namespace

void autocorrelation_chisq(std::size_t n, const std::complex<double>* const* centres,
                           const std::complex<double>* const* r, std::size_t length, const double* norms, double* out) {
  std::size_t i = 0;
  for (; i + 3 <= n; i += 3) chisq_side_by_side<3>(centres + i, r + i, length, norms + i, out + i);
  if (n - i == 2) chisq_side_by_side<2>(centres + i, r + i, length, norms + i, out + i);
  if (n - i == 1) out[i] = autocorrelation_chisq(centres[i], r[i], length, norms[i]);
}

double autocorrelation_chisq(const std::complex<double>* centre, const std::complex<double>* r, std::size_t length) {
  return autocorrelation_chisq(centre, r, length, autocorrelation_chisq_norm(r, length));
}

}  // namespace astrosweep::spiir
