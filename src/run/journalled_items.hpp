#pragma once
// --resume for jobs whose journal entries are finished work units of items (period's objects,
// fdas's series): the items an interrupted run's journal records (run/lifecycle.hpp decides how a
// run starts; io::with_input_files adds the inputs' sizes and times to the journal's fingerprint).

#include <cstdint>
#include <string>
#include <vector>

#include "io/resume_point.hpp"

namespace astrosweep::run {

struct JournalledItems {
  std::vector<bool> done;        ///< per item: its results are in the product
  std::uint64_t items_done = 0;  ///< items marked in `done`
  std::uint64_t units_done = 0;  ///< journal entries (units finished by earlier runs)
  std::string note;              ///< what was found, for the log
};

/// Rank 0, when --resume continues `product`: the items (`noun`, plural, e.g. "series") its
/// journal records. OutputError when an entry names items beyond `n_items`.
JournalledItems journalled_items(const io::ResumePoint& point, const std::string& product, std::uint64_t n_items,
                                 const std::string& noun);

}  // namespace astrosweep::run
