#include "candidate_rows.hpp"

#include <algorithm>

namespace astrosweep::fdas {

NotesText to_notes_text(const std::string& notes) noexcept {
  NotesText text{};
  std::copy_n(notes.begin(), std::min(notes.size(), text.size()), text.begin());
  return text;
}

std::string from_notes_text(const NotesText& notes) {
  const auto end = std::find(notes.begin(), notes.end(), '\0');
  return {notes.begin(), end};
}

void set_physics(CandidateRow& row, const PhysicalCandidate& p) noexcept {
  row.r_err = p.r_err;
  row.z_err = p.z_err;
  row.frequency_hz = p.frequency_hz;
  row.frequency_err_hz = p.frequency_err_hz;
  row.period_ms = 1e3 * p.period_s;
  row.period_err_ms = 1e3 * p.period_err_s;
  row.fdot_hz_s = p.fdot_hz_s;
  row.fdot_err_hz_s = p.fdot_err_hz_s;
  row.pdot = p.pdot;
  row.pdot_err = p.pdot_err;
  row.accel_m_s2 = p.accel_m_s2;
  row.accel_err_m_s2 = p.accel_err_m_s2;
}

}  // namespace astrosweep::fdas
