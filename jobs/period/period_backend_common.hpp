#pragma once
// What every period backend does the same way around its kernels: prepare the block's series on
// the host, initialise the results, and turn per-chunk peak summaries into the object's result.
// Sharing these keeps CPU and GPU products identical wherever they do not depend on arithmetic.

#include <cstdint>
#include <span>
#include <vector>

#include "io/light_curves.hpp"
#include "peaks.hpp"
#include "period_backend.hpp"
#include "prepared_series.hpp"

namespace astrosweep::period {

/// Periodograms are summarised in chunks of this many frequencies: a multiple of every kernel's
/// panel and block, so a chunk's values never depend on how a backend split the grid.
constexpr std::uint64_t chunk_freqs = 1u << 15;

/// The prepared series of every block object (OpenMP over objects).
std::vector<PreparedSeries> prepare_block(const io::LightCurveBlock& block, Model model, int threads);

/// Results with identity, counts and status filled in and every search output NaN.
void init_results(const io::LightCurveBlock& block, const std::vector<PreparedSeries>& series,
                  const PeriodConfig& config, std::span<ObjectResult> results);

/// Best peak, top-k peaks and FAP from an object's chunk summaries (in grid order).
void fill_from_peaks(ObjectResult& result, const PreparedSeries& series, const std::vector<ChunkPeaks>& chunks,
                     const PeriodConfig& config);

}  // namespace astrosweep::period
