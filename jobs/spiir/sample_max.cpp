#include "sample_max.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/error.hpp"

namespace astrosweep::spiir {

void sample_max(std::span<const std::complex<double>> z, std::size_t n_templates, std::size_t n,
                std::span<SampleMax> out) {
  AS_ASSERT(z.size() >= n_templates * n && out.size() >= n);
  AS_ASSERT(n_templates <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()));
  // Template by template over the samples: z is read in its order (the sample-major loop strides
  // by a whole row per template and misses the cache on every read).
  std::vector<sample_max_rule::Best> best(n);
  for (std::size_t t = 0; t < n_templates; ++t) {
    const std::complex<double>* row = z.data() + t * n;
    for (std::size_t i = 0; i < n; ++i)
      sample_max_rule::consider(best[i], sample_max_rule::power(row[i].real(), row[i].imag()),
                                static_cast<std::int32_t>(t));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto t = static_cast<std::size_t>(best[i].index);
    out[i] = {best[i].power, best[i].index, n_templates > 0 ? z[t * n + i] : std::complex<double>()};
  }
}

}  // namespace astrosweep::spiir
