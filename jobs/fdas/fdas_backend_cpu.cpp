#include "fdas_backend.hpp"

namespace astrosweep::fdas {

namespace {

class CpuBackend final : public FdasBackend {
 public:
  CpuBackend(const TemplateBank& bank, const BackendOptions& options)
      : bank_(bank), kernels_(transform_kernels<float>(bank.taps, bank.layout.fft_length)), threads_(options.threads) {}

  [[nodiscard]] std::string describe() const override {
    std::string text = "cpu (FFTW float, " + std::to_string(kernels_.n_templates) + " templates of " +
                       std::to_string(kernels_.fft_length) + " points";
    if (threads_ > 0) text += ", " + std::to_string(threads_) + " threads";
    return text + ")";
  }

  SeriesCandidates search(std::span<const std::complex<float>> spectrum, const SearchSettings& settings) override {
    SearchSettings s = settings;
    s.threads = threads_;
    return search_spectrum(spectrum, bank_, kernels_, s);
  }

 private:
  const TemplateBank& bank_;
  KernelSpectra<float> kernels_;
  int threads_;
};

}  // namespace

std::unique_ptr<FdasBackend> make_fdas_backend_cpu(const TemplateBank& bank, const BackendOptions& options) {
  return std::make_unique<CpuBackend>(bank, options);
}

}  // namespace astrosweep::fdas
