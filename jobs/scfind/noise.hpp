#pragma once
// SoFiA-2's noise statistics (std, mad, gauss) of the whole cube, computed jointly by the ranks
// that each hold a slab: the sample is defined on the global linear index, so every rank draws
// its part of it and the statistic is reduced across ranks to exactly the value SoFiA-2 computes
// on the whole cube in one process.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "magnitude_counter.hpp"
#include "scfind_config.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

constexpr double mad_to_std = 1.482602218505602;  // SoFiA-2's MAD_TO_STD

/// The ranks' slabs form a chain along the spectral axis; `above`/`below` are the neighbouring
/// ranks (MPI_PROC_NULL at the cube's ends). SoFiA-2 walks its samples from the last voxel down,
/// so sums that depend on order run from the top slab down this chain.
struct SlabChain {
  MPI_Comm comm = MPI_COMM_SELF;
  int above = MPI_PROC_NULL;
  int below = MPI_PROC_NULL;
};

/// This rank's samples: the values at global indices highest, highest − cadence, ... (descending).
struct LocalSamples {
  std::span<const float> values;
  std::uint64_t highest_index = 0;  ///< global linear index of values[0]
  std::size_t cadence = 1;
};

/// MagnitudeCounter::count over host floats.
[[nodiscard]] MagnitudeCounter::Counts count_digits(std::span<const float> values, std::uint32_t prefix,
                                                    std::uint32_t mask, int shift);

/// The host implementation: |x| of the samples in the flux range, copied in order.
class HostMagnitudes final : public MagnitudeCounter {
 public:
  HostMagnitudes(std::span<const float> samples, FluxRange range);
  [[nodiscard]] std::uint64_t size() const override { return values_.size(); }
  void keep_first(std::uint64_t n) override;
  [[nodiscard]] Counts count(std::uint32_t prefix, std::uint32_t mask, int shift) override {
    return count_digits(values_, prefix, mask, shift);
  }
  [[nodiscard]] std::span<const float> values() const noexcept { return values_; }

 private:
  std::vector<float> values_;
};

/// SoFiA-2's mad (and histogram) walk stops above global index 0 (`> data`): `range` (samples at
/// cadence `cadence`, as samples_in gives them) without that index.
SampleRange without_index_zero(const SampleRange& range, std::size_t cadence);

/// `rms` as SoFiA-2's DataCube_stat_std / MAD_TO_STD·DataCube_stat_mad / DataCube_stat_gauss.
/// `finite_min`/`finite_max`: this rank's smallest and largest non-NaN value over its owned
/// voxels (gauss only; NaN when none). `n_voxels`: the whole cube. Collective over chain.comm.
/// Returns NaN when no sample falls in the flux range (the caller reports it).
double measure_noise(NoiseStatistic statistic, FluxRange range, const LocalSamples& samples, std::uint64_t n_voxels,
                     float finite_min, float finite_max, const SlabChain& chain);

/// MAD_TO_STD·DataCube_stat_mad from this rank's |x| of its in-range samples without global index
/// 0, in walk order (a HostMagnitudes of the samples, or what a backend keeps: ScfindBackend::
/// magnitudes). `range` is the flux range they were selected with and `cadence` the sample
/// stride (SoFiA-2's cap depends on both); keeps the first values within the cap (keep_first).
/// Collective over chain.comm, with the same calls whichever kind of counter each rank holds.
/// measure_noise's mad is this on a HostMagnitudes. NaN when no sample falls in the flux range.
double mad_noise(MagnitudeCounter& magnitudes, FluxRange range, std::uint64_t n_voxels, std::size_t cadence,
                 const SlabChain& chain);

/// The k-th smallest (0-based) of the non-negative floats spread over the ranks of `comm`, found
/// exactly by refining a histogram of their bit patterns (8 bits per round, one allreduce of 256
/// counts each; the counting is the counter's).
float distributed_select(MagnitudeCounter& values, std::uint64_t k, MPI_Comm comm);
float distributed_select(std::span<const float> values, std::uint64_t k, MPI_Comm comm);

}  // namespace astrosweep::scfind
