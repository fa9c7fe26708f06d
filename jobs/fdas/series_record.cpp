#include "series_record.hpp"

#include <cmath>
#include <numbers>

#include "accel_statistics.hpp"
#include "sifting.hpp"

namespace astrosweep::fdas {

namespace {

SeriesRow series_row(std::uint64_t index, const io::TimeSeriesSource& source, std::size_t n_fft) {
  SeriesRow row;
  row.series = index;
  row.dm = source.info.dm;
  row.tsamp = source.info.tsamp;
  row.tstart_mjd = source.info.tstart_mjd;
  row.n_samples = source.n_samples;
  row.n_fft = n_fft;
  row.span_s = static_cast<double>(n_fft) * source.info.tsamp;
  return row;
}

}  // namespace

SeriesRecord empty_band_record(std::uint64_t index, const io::TimeSeriesSource& source, std::size_t n_fft) {
  SeriesRecord record;
  record.series = series_row(index, source, n_fft);
  record.series.status = series_status_band_empty;
  return record;
}

SeriesRecord series_record(std::uint64_t index, const io::TimeSeriesSource& source, const SeriesResult& result) {
  SeriesRecord record;
  SeriesRow& row = record.series;
  row = series_row(index, source, result.n_fft);
  row.status = result.overflowed ? series_status_overflow : series_status_ok;
  row.n_candidates = static_cast<std::uint32_t>(result.candidates.size());
  row.removed_as_harmonics = static_cast<std::uint32_t>(result.removed_as_harmonics);
  row.n_stages = static_cast<std::uint32_t>(result.stages.size());
  for (std::size_t s = 0; s < result.stages.size() && s < max_stages; ++s) {
    row.n_indep[s] = result.stages[s].n_indep;
    row.cells_above[s] = result.stages[s].above;
    row.powcut[s] = result.stages[s].powcut;
  }
  std::vector<NoteInput> note_inputs;
  for (const SeriesFound& f : result.candidates)
    note_inputs.push_back({f.polished.r, f.polished.z, f.physics.r_err, f.physics.z_err,
                           f.polished.harmonics.empty() ? 0.0 : f.polished.harmonics.front().power});
  const std::vector<std::string> notes = candidate_notes(note_inputs);
  for (std::size_t k = 0; k < result.candidates.size(); ++k) {
    const SeriesFound& f = result.candidates[k];
    CandidateRow c;
    c.series = index;
    c.number = static_cast<std::int32_t>(k + 1);
    c.numharm = f.found.numharm;
    c.sigma = f.sigma;
    c.summed_power = f.polished.summed_power;
    c.coherent_power = f.polished.coherent_power;
    c.r = f.polished.r;
    c.z = f.polished.z;
    set_physics(c, f.physics);
    c.found_r = f.found.r;
    c.found_z = f.found.z;
    c.found_sigma = f.found.sigma;
    c.found_power = f.found.power;
    c.notes = to_notes_text(notes[k]);
    record.candidates.push_back(c);
    for (const HarmonicRow& h : f.harmonics) {
      HarmonicRow numbered = h;
      numbered.series = index;
      numbered.number = c.number;
      record.harmonics.push_back(numbered);
    }
  }
  return record;
}

}  // namespace astrosweep::fdas
