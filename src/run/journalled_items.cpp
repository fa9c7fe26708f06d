#include "run/journalled_items.hpp"

#include "core/error.hpp"

namespace astrosweep::run {

JournalledItems journalled_items(const io::ResumePoint& point, const std::string& product, std::uint64_t n_items,
                                 const std::string& noun) {
  JournalledItems d;
  const io::JournalContents& journal = *point.journal;
  const std::string journal_file = io::journal_path(product);
  d.done.assign(n_items, false);
  for (const auto& e : journal.entries) {
    AS_EXPECTS(e.first <= n_items && e.count <= n_items - e.first, OutputError,
               "the journal '" + journal_file + "' names " + noun + " beyond the product's " + std::to_string(n_items),
               "remove the product and its journal to start over");
    for (std::uint64_t i = e.first; i < e.first + e.count; ++i) d.done[i] = true;
  }
  for (bool b : d.done) d.items_done += b ? 1 : 0;
  d.units_done = journal.entries.size();
  d.note = "resuming '" + product + "': " + std::to_string(d.items_done) + " of " + std::to_string(n_items) + " " +
           noun + " done in " + std::to_string(d.units_done) + " units recorded in '" + journal_file + "'" +
           (journal.torn_tail ? " (an unfinished last record is dropped)" : "");
  return d;
}

}  // namespace astrosweep::run
