// The OpenMP filtering backend: one thread per template at a time; each template's filters run
// one after the other over the chunk, each adding its output to the template's sum, as the
// reference does, so FP64 agrees with it to rounding. filter_max is filter() into a buffer the
// backend keeps (for snr_rows) and the plain per-sample loop over it.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "core/text.hpp"
#include "spiir_backend.hpp"

namespace astrosweep::spiir {

namespace {

template <class Real>
class SpiirBackendCpu final : public SpiirBackend {
 public:
  SpiirBackendCpu(const RateBank& bank, const BackendOptions& options)
      : n_templates_(bank.n_templates),
        width_(bank.width),
        n_filters_(bank.n_filters),
        delay_(bank.delay),
        max_delay_(static_cast<std::size_t>(bank.max_delay())),
        threads_(options.threads > 0 ? options.threads : omp_get_max_threads()) {
    const std::size_t n = bank.a1.size();
    a_re_.resize(n), a_im_.resize(n), b_re_.resize(n), b_im_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      a_re_[i] = static_cast<Real>(bank.a1[i].real());
      a_im_[i] = static_cast<Real>(bank.a1[i].imag());
      b_re_[i] = static_cast<Real>(bank.b0[i].real());
      b_im_[i] = static_cast<Real>(bank.b0[i].imag());
    }
    reset();
  }

  [[nodiscard]] std::string describe() const override {
    return format_text("OpenMP (%d threads), %s", threads_, sizeof(Real) == 4 ? "fp32" : "fp64");
  }
  [[nodiscard]] std::size_t n_templates() const override { return n_templates_; }

  void reset() override {
    y_re_.assign(a_re_.size(), 0);
    y_im_.assign(a_re_.size(), 0);
    history_.assign(max_delay_, 0);
  }

 protected:
  void run(std::span<const double> x, std::span<std::complex<double>> z) override {
    const std::size_t n = x.size();
    // The input extended by the last max_delay samples of the previous chunks.
    std::vector<Real> ext(max_delay_ + n);
    std::copy(history_.begin(), history_.end(), ext.begin());
    std::transform(x.begin(), x.end(), ext.begin() + static_cast<std::ptrdiff_t>(max_delay_),
                   [](double v) { return static_cast<Real>(v); });
#pragma omp parallel num_threads(threads_)
    {
      std::vector<Real> acc_re(n), acc_im(n);
#pragma omp for schedule(dynamic)
      for (std::size_t t = 0; t < n_templates_; ++t) {
        std::fill(acc_re.begin(), acc_re.end(), Real(0));
        std::fill(acc_im.begin(), acc_im.end(), Real(0));
        for (std::size_t l = 0; l < static_cast<std::size_t>(n_filters_[t]); ++l) {
          const std::size_t k = t * width_ + l;
          const Real ar = a_re_[k], ai = a_im_[k], br = b_re_[k], bi = b_im_[k];
          Real yr = y_re_[k], yi = y_im_[k];
          const Real* in = ext.data() + max_delay_ - static_cast<std::size_t>(delay_[k]);
          for (std::size_t i = 0; i < n; ++i) {
            const Real nr = ar * yr - ai * yi + br * in[i];
            const Real ni = ar * yi + ai * yr + bi * in[i];
            yr = nr;
            yi = ni;
            acc_re[i] += yr;
            acc_im[i] += yi;
          }
          y_re_[k] = yr;
          y_im_[k] = yi;
        }
        for (std::size_t i = 0; i < n; ++i)
          z[t * n + i] = {static_cast<double>(acc_re[i]), static_cast<double>(acc_im[i])};
      }
    }
    std::copy(ext.end() - static_cast<std::ptrdiff_t>(max_delay_), ext.end(), history_.begin());
  }

  void run_max(std::span<const double> x, std::span<SampleMax> best) override {
    kept_.resize(n_templates_ * x.size());
    run(x, kept_);
    sample_max(kept_, n_templates_, x.size(), best);
  }

  void copy_rows(std::span<const std::size_t> rows, std::size_t n, std::span<std::complex<double>> out) override {
    for (std::size_t r = 0; r < rows.size(); ++r)
      std::copy_n(kept_.begin() + static_cast<std::ptrdiff_t>(rows[r] * n), n,
                  out.begin() + static_cast<std::ptrdiff_t>(r * n));
  }

 private:
  std::size_t n_templates_, width_;
  std::vector<std::int32_t> n_filters_, delay_;
  std::size_t max_delay_;
  int threads_;
  std::vector<Real> a_re_, a_im_, b_re_, b_im_, y_re_, y_im_, history_;
  std::vector<std::complex<double>> kept_;  ///< the last filter_max's SNRs, for snr_rows
};

}  // namespace

std::unique_ptr<SpiirBackend> make_spiir_backend_cpu(const RateBank& bank, Precision precision,
                                                     const BackendOptions& options) {
  if (precision == Precision::fp32) return std::make_unique<SpiirBackendCpu<float>>(bank, options);
  return std::make_unique<SpiirBackendCpu<double>>(bank, options);
}

}  // namespace astrosweep::spiir
