#include "noise.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::scfind {

namespace {

// Running double sums in SoFiA-2's order: the top slab starts, each rank continues its upper
// neighbour's partial sum and hands it down; the bottom rank's total is shared.
struct SumAndCount {
  double sum = 0;
  std::uint64_t count = 0;
};

SumAndCount chained_square_sum(const LocalSamples& samples, FluxRange range, const SlabChain& chain) {
  SumAndCount acc;
  AS_MPI_TRY(MPI_Recv(&acc, sizeof acc, MPI_BYTE, chain.above, 0, chain.comm, MPI_STATUS_IGNORE));
  for (float x : samples.values) {
    if (!in_flux_range(x, range)) continue;
    const double d = static_cast<double>(x);
    acc.sum += d * d;
    ++acc.count;
  }
  AS_MPI_TRY(MPI_Send(&acc, sizeof acc, MPI_BYTE, chain.below, 0, chain.comm));
  // The bottom rank holds the total; it is the one whose below is MPI_PROC_NULL.
  int bottom_flag = chain.below == MPI_PROC_NULL ? 1 : 0;
  int rank = 0;
  MPI_Comm_rank(chain.comm, &rank);
  int bottom = bottom_flag ? rank : 0;
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &bottom, 1, MPI_INT, MPI_MAX, chain.comm));
  mpi::broadcast_value(chain.comm, acc, bottom);
  return acc;
}

// Samples of SoFiA-2's mad and histogram walks: global index 0 is never reached (`> data`).
std::span<const float> without_index_zero(const LocalSamples& s) {
  if (!s.values.empty() && s.highest_index == (s.values.size() - 1) * s.cadence)
    return s.values.first(s.values.size() - 1);
  return s.values;
}

std::uint64_t exclusive_from_top(std::uint64_t mine, const SlabChain& chain) {
  std::uint64_t before = 0;
  AS_MPI_TRY(MPI_Recv(&before, 1, MPI_UINT64_T, chain.above, 1, chain.comm, MPI_STATUS_IGNORE));
  const std::uint64_t through = before + mine;
  AS_MPI_TRY(MPI_Send(&through, 1, MPI_UINT64_T, chain.below, 1, chain.comm));
  return before;
}

std::uint64_t sum_all(std::uint64_t value, MPI_Comm comm) {
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_SUM, comm));
  return value;
}

constexpr std::size_t gauss_bins = 101;
using Histogram = std::array<std::uint64_t, gauss_bins>;

Histogram histogram(std::span<const float> values, float lo, float hi, MPI_Comm comm) {
  // SoFiA-2's create_histogram_flt, float arithmetic as written there.
  Histogram h{};
  const float slope = static_cast<float>(gauss_bins - 1) / (hi - lo);
  const float offset = static_cast<float>(0.5 - static_cast<double>(slope * lo));
  for (float x : values) {
    if (x >= lo && x <= hi) ++h[static_cast<std::size_t>(slope * x + offset)];
  }
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, h.data(), gauss_bins, MPI_UINT64_T, MPI_SUM, comm));
  return h;
}

double gauss_noise(const LocalSamples& samples, FluxRange range, float local_min, float local_max, MPI_Comm comm) {
  // SoFiA-2's gaufit_flt: min and max over the whole cube (not the sample), NaN ignored.
  float lo = std::isnan(local_min) ? std::numeric_limits<float>::infinity() : local_min;
  float hi = std::isnan(local_max) ? -std::numeric_limits<float>::infinity() : local_max;
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_FLOAT, MPI_MIN, comm));
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_FLOAT, MPI_MAX, comm));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (!(lo < 0.0F && hi > 0.0F)) return nan;  // SoFiA-2: "Maximum is not greater than minimum"
  if (range == FluxRange::negative) {
    hi = 0.0F;
  } else if (range == FluxRange::positive) {
    lo = 0.0F;
  } else {
    const float limit = std::min(std::fabs(lo), std::fabs(hi));
    lo = -limit;
    hi = limit;
  }
  const std::size_t origin = range == FluxRange::negative   ? gauss_bins - 1
                             : range == FluxRange::positive ? 0
                                                            : gauss_bins / 2;
  const auto inv_optimal_mom2 = static_cast<float>(5.0 / static_cast<double>(gauss_bins));
  const std::span<const float> values = without_index_zero(samples);

  Histogram h = histogram(values, lo, hi, comm);
  float mom0 = 0.0F;
  float mom1 = 0.0F;
  float mom2 = 0.0F;
  for (std::size_t i = gauss_bins; i-- > 0;) {
    mom0 += static_cast<float>(h[i]);
    mom1 += static_cast<float>(h[i]) * static_cast<float>(i);
  }
  mom1 /= mom0;
  for (std::size_t i = gauss_bins; i-- > 0;) {
    const float d = mom1 - static_cast<float>(i);
    mom2 += static_cast<float>(h[i]) * d * d;
  }
  mom2 = static_cast<float>(std::sqrt(static_cast<double>(mom2 / mom0)));
  // Rescale so the histogram's second moment spans a fifth of its range, then fit again.
  if (range == FluxRange::negative) {
    lo *= mom2 * inv_optimal_mom2;
  } else if (range == FluxRange::positive) {
    hi *= mom2 * inv_optimal_mom2;
  } else {
    lo *= mom2 * inv_optimal_mom2;
    hi *= mom2 * inv_optimal_mom2;
  }
  h = histogram(values, lo, hi, comm);

  // Linear fit of ln h against x² over the inner bins, float sums as in SoFiA-2 (the log is
  // evaluated in double and each sum rounded back to float).
  float mean_x = 0.0F;
  float mean_y = 0.0F;
  std::size_t counter = 0;
  auto x_of = [origin](std::size_t i) {
    const long ii = static_cast<long>(i) - static_cast<long>(origin);
    return static_cast<float>(ii * ii);
  };
  for (std::size_t i = gauss_bins - 1; i-- > 1;) {
    if (h[i] == 0) continue;
    mean_x += x_of(i);
    mean_y = static_cast<float>(static_cast<double>(mean_y) + std::log(static_cast<double>(static_cast<float>(h[i]))));
    ++counter;
  }
  if (counter == 0) return nan;
  mean_x /= static_cast<float>(counter);
  mean_y /= static_cast<float>(counter);
  float upper_sum = 0.0F;
  float lower_sum = 0.0F;
  for (std::size_t i = gauss_bins - 1; i-- > 1;) {
    if (h[i] == 0) continue;
    const float x = x_of(i);
    const auto y = static_cast<float>(std::log(static_cast<double>(static_cast<float>(h[i]))));
    upper_sum += (x - mean_x) * (y - mean_y);
    lower_sum += (x - mean_x) * (x - mean_x);
  }
  const double sigma = std::sqrt(-0.5 * static_cast<double>(lower_sum) / static_cast<double>(upper_sum)) *
                       static_cast<double>(hi - lo) / static_cast<double>(gauss_bins - 1);
  return static_cast<double>(static_cast<float>(sigma));
}

/// A counter over a span of magnitudes the caller already holds.
class SpanCounter final : public MagnitudeCounter {
 public:
  explicit SpanCounter(std::span<const float> values) : values_(values) {}
  [[nodiscard]] std::uint64_t size() const override { return values_.size(); }
  void keep_first(std::uint64_t n) override { values_ = values_.first(n); }
  [[nodiscard]] Counts count(std::uint32_t prefix, std::uint32_t mask, int shift) override {
    return count_digits(values_, prefix, mask, shift);
  }

 private:
  std::span<const float> values_;
};

}  // namespace

MagnitudeCounter::Counts count_digits(std::span<const float> values, std::uint32_t prefix, std::uint32_t mask,
                                      int shift) {
  MagnitudeCounter::Counts counts{};
  for (float v : values) {
    const auto bits = std::bit_cast<std::uint32_t>(v);
    if ((bits & mask) == prefix) ++counts[(bits >> shift) & 0xFFU];
  }
  return counts;
}

HostMagnitudes::HostMagnitudes(std::span<const float> samples, FluxRange range) {
  for (float x : samples)
    if (in_flux_range(x, range)) values_.push_back(std::fabs(x));
}

void HostMagnitudes::keep_first(std::uint64_t n) {
  AS_ASSERT(n <= values_.size());
  values_.resize(n);
}

SampleRange without_index_zero(const SampleRange& range, std::size_t cadence) {
  SampleRange r = range;
  if (r.count > 0 && r.highest == (r.count - 1) * cadence) --r.count;
  return r;
}

double mad_noise(MagnitudeCounter& magnitudes, FluxRange range, std::uint64_t n_voxels, std::size_t cadence,
                 const SlabChain& chain) {
  // SoFiA-2 copies |x| of in-range samples walking down until its buffer of N/cadence (full
  // range) or N/(2·cadence) values is full; the cap keeps the first ones met from the top.
  const std::uint64_t cap = range == FluxRange::full ? n_voxels / cadence : n_voxels / (2 * cadence);
  const std::uint64_t before = exclusive_from_top(magnitudes.size(), chain);
  const std::uint64_t room = cap > before ? cap - before : 0;
  if (magnitudes.size() > room) magnitudes.keep_first(room);
  const std::uint64_t n = sum_all(magnitudes.size(), chain.comm);
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const float upper = distributed_select(magnitudes, n / 2, chain.comm);
  float median = upper;
  if (n % 2 == 0) {
    // SoFiA-2's median_flt: (value + largest below) / 2.0, the sum in float.
    const float lower = distributed_select(magnitudes, n / 2 - 1, chain.comm);
    median = static_cast<float>(static_cast<double>(upper + lower) / 2.0);
  }
  return mad_to_std * static_cast<double>(median);
}

float distributed_select(std::span<const float> values, std::uint64_t k, MPI_Comm comm) {
  SpanCounter counter(values);
  return distributed_select(counter, k, comm);
}

float distributed_select(MagnitudeCounter& values, std::uint64_t k, MPI_Comm comm) {
  // Non-negative floats order like their bit patterns; find the pattern byte by byte from the top.
  std::uint32_t prefix = 0;
  std::uint32_t prefix_mask = 0;
  for (int shift = 24; shift >= 0; shift -= 8) {
    MagnitudeCounter::Counts counts = values.count(prefix, prefix_mask, shift);
    AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, counts.data(), 256, MPI_UINT64_T, MPI_SUM, comm));
    std::uint32_t digit = 0;
    while (digit < 255 && k >= counts[digit]) k -= counts[digit++];
    AS_ASSERT(k < counts[digit]);
    prefix |= digit << shift;
    prefix_mask |= 0xFFU << shift;
  }
  return std::bit_cast<float>(prefix);
}

double measure_noise(NoiseStatistic statistic, FluxRange range, const LocalSamples& samples, std::uint64_t n_voxels,
                     float finite_min, float finite_max, const SlabChain& chain) {
  switch (statistic) {
    case NoiseStatistic::std: {
      const SumAndCount total = chained_square_sum(samples, range, chain);
      return total.count ? std::sqrt(total.sum / static_cast<double>(total.count))
                         : std::numeric_limits<double>::quiet_NaN();
    }
    case NoiseStatistic::mad: {
      HostMagnitudes magnitudes(without_index_zero(samples), range);
      return mad_noise(magnitudes, range, n_voxels, samples.cadence, chain);
    }
    case NoiseStatistic::gauss: return gauss_noise(samples, range, finite_min, finite_max, chain.comm);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace astrosweep::scfind
