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

}  // namespace astrosweep::fdas
