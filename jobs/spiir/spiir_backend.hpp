#pragma once
// The seam between the spiir job and its filtering backends (docs/architecture.md): a backend is
// made for one rate's bank (today the single-rate bank, every filter at the top rate) and fed one
// detector's whitened strain chunk after chunk; it returns every template's complex SNR (spec §2,
// §7), its states carried from chunk to chunk as one continuous run. The CPU backend runs the
// recurrence in float (as a GPU would) or double, OpenMP over templates. Plain C++: no device code.

#include <complex>
#include <memory>
#include <span>
#include <string>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "spiir_bank.hpp"

namespace astrosweep::spiir {

/// The arithmetic of the recurrence (states, coefficients, sums).
enum class Precision { fp32, fp64 };

class SpiirBackend {
 public:
  virtual ~SpiirBackend() = default;
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] virtual std::size_t n_templates() const = 0;
  /// Filters the next `x.size()` samples; z is template-major, n_templates × x.size().
  void filter(std::span<const double> x, std::span<std::complex<double>> z) {
    AS_EXPECTS(z.size() == n_templates() * x.size(), UsageError, "the SNR buffer does not fit the chunk");
    run(x, z);
  }
  /// Forgets the states and the input history: the next chunk starts a new run.
  virtual void reset() = 0;

 protected:
  virtual void run(std::span<const double> x, std::span<std::complex<double>> z) = 0;
};

/// The OpenMP backend over `bank` (copied), in `precision`, with options.threads threads.
std::unique_ptr<SpiirBackend> make_spiir_backend_cpu(const RateBank& bank, Precision precision,
                                                     const BackendOptions& options);

/// The backend a rank runs: --backend, or on auto the CUDA backend when the rank sees a GPU
/// (defined in the job library, which alone knows whether CUDA was built).
std::unique_ptr<SpiirBackend> make_spiir_backend(const RateBank& bank, Precision precision,
                                                 const BackendOptions& options);

}  // namespace astrosweep::spiir
