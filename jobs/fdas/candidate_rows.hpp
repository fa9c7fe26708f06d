#pragma once
// The rows the fdas product and PRESTO's ACCEL text files are written from (spec §9): a
// candidate's fundamental-table fields and its harmonic-table rows. One struct per table, filled
// by the per-series pipeline, spooled by the rank that searched the series, written to
// /candidates and /harmonics (fdas_product.hpp) and to `--accel-text` files (accel_text.hpp).

#include <array>
#include <cstdint>
#include <string>

#include "physics.hpp"

namespace astrosweep::fdas {

/// Status bits of a series (/series/status).
inline constexpr std::uint32_t series_status_ok = 0;
inline constexpr std::uint32_t series_status_overflow = 1;    ///< its list reached --max-candidates
inline constexpr std::uint32_t series_status_band_empty = 2;  ///< --flo/--fhi hold no bin of it

/// The harmonic-summing stages a series can have (numharm ≤ 32).
inline constexpr int max_stages = 6;

/// One series: what /series holds for it.
struct SeriesRow {
  std::uint64_t series = 0;
  double dm = 0, tsamp = 0, tstart_mjd = 0;
  std::uint64_t n_samples = 0, n_fft = 0;
  double span_s = 0;  ///< T = n_fft · tsamp
  std::uint32_t status = series_status_ok;
  std::uint32_t n_candidates = 0;
  std::uint32_t removed_as_harmonics = 0;  ///< by the within-series harmonic elimination
  std::uint32_t n_stages = 0;
  std::array<std::int64_t, max_stages> n_indep{};       ///< per stage (spec §7)
  std::array<std::uint64_t, max_stages> cells_above{};  ///< per stage, above its threshold
  std::array<float, max_stages> powcut{};               ///< per stage
};

/// PRESTO's notes column: at most 20 characters, NUL-padded.
using NotesText = std::array<char, 20>;
NotesText to_notes_text(const std::string& notes) noexcept;
std::string from_notes_text(const NotesText& notes);

/// One candidate of one series: PRESTO's fundamental table (its "Cand" is `number`).
struct CandidateRow {
  std::uint64_t series = 0;   ///< index of the series in the run's input order
  std::int32_t number = 0;    ///< 1, 2, … within the series, sigma descending (PRESTO's Cand)
  std::int32_t numharm = 1;   ///< harmonics summed
  double sigma = 0;           ///< of the polished summed power among the stage's trials
  double summed_power = 0;    ///< Σ_h |A(h r, h z)|² at the polished (r, z)
  double coherent_power = 0;  ///< |Σ_h √P_h e^{i(φ_h + φ₁ − (h φ₁ mod 2π))}|²
  double r = 0, r_err = 0;    ///< fundamental Fourier frequency (bins)
  double z = 0, z_err = 0;    ///< fundamental drift (bins over T)
  double frequency_hz = 0, frequency_err_hz = 0;
  double period_ms = 0, period_err_ms = 0;
  double fdot_hz_s = 0, fdot_err_hz_s = 0;
  double pdot = 0, pdot_err = 0;  ///< s/s
  double accel_m_s2 = 0, accel_err_m_s2 = 0;
  double found_r = 0, found_z = 0;  ///< where the search found it, before polishing
  double found_sigma = 0;           ///< its sigma there
  NotesText notes{};
  // In the 4 bytes of padding after the notes, so that the row's size and a spool written before
  // it existed (zeroed padding: found_power 0) stay as they were (tests/data/spool).
  float found_power = 0;  ///< the summed power where the search found it (PRESTO keeps it as float)
};

/// One harmonic of a candidate: PRESTO's harmonic table.
struct HarmonicRow {
  std::uint64_t series = 0;
  std::int32_t number = 0;        ///< the candidate's number within the series
  std::int32_t harmonic = 1;      ///< h = 1 … numharm
  double sigma = 0;               ///< of this harmonic's normalised power alone
  double power = 0;               ///< power / local power
  double raw_power = 0;           ///< |A|² at (r, z), before the local-power normalisation
  double local_power = 0;         ///< the level `power` is relative to (PRESTO's get_localpower3d)
  double r = 0, r_predicted = 0;  ///< where the harmonic is measured (h·r₁ polished), and h·r₁ as found
  double z = 0, z_predicted = 0;  ///< likewise for z: h·z₁ polished, and h·z₁ as found
  double phase_deg = 0;           ///< arg A, degrees in (0, 360] (PRESTO's RADIAN_PHASE, in degrees)
  double centroid = 0;            ///< where in the observation its power lies (0 … 1; ½ if steady)
  double purity = 0;              ///< rms duration of the signal over the observation (1 if steady)
};

/// Sets the row's physical columns (errors of r and z; f, P, ḟ, Ṗ, a and their errors, P in ms)
/// from `p`, to_physical's conversion of the row's (r, z).
void set_physics(CandidateRow& row, const PhysicalCandidate& p) noexcept;

}  // namespace astrosweep::fdas
