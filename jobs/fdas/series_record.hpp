#pragma once
// One searched series as the product records it: its /series row, its candidates' fundamental-
// table rows (numbered by sigma, with PRESTO's notes) and their harmonic-table rows.

#include <cstdint>

#include "fdas_spool.hpp"
#include "io/time_series_inputs.hpp"
#include "series_pipeline.hpp"

namespace astrosweep::fdas {

/// The record of series `index` (read from `source`) searched to `result`.
SeriesRecord series_record(std::uint64_t index, const io::TimeSeriesSource& source, const SeriesResult& result);

/// The record of a series with no bin in the searched band (status band_empty, no candidates).
SeriesRecord empty_band_record(std::uint64_t index, const io::TimeSeriesSource& source, std::size_t n_fft);

}  // namespace astrosweep::fdas
