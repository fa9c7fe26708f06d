#include "period_resume.hpp"

#include <sys/stat.h>

#include <sstream>

#include "core/error.hpp"
#include "io/resume_point.hpp"
#include "period_product.hpp"

namespace astrosweep::period {

io::Fingerprint journal_fingerprint(const io::Fingerprint& product_fingerprint, const std::string& input_paths) {
  io::Fingerprint fp = product_fingerprint;
  std::istringstream paths(input_paths);
  std::string path, times;
  while (std::getline(paths, path)) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;  // the catalog opened it: cannot happen but for a race
    if (!times.empty()) times += ' ';
    times.append(std::to_string(st.st_mtim.tv_sec)).append(".").append(std::to_string(st.st_mtim.tv_nsec));
  }
  fp.emplace_back("input_mtimes", times);
  return fp;
}

JournalledObjects journalled_objects(const io::ResumePoint& point, const std::string& product,
                                     std::uint64_t n_objects) {
  JournalledObjects d;
  const io::JournalContents& journal = *point.journal;
  const std::string journal_file = io::journal_path(product);
  d.done.assign(n_objects, false);
  for (const auto& e : journal.entries) {
    AS_EXPECTS(e.first <= n_objects && e.count <= n_objects - e.first, OutputError,
               "the journal '" + journal_file + "' names objects beyond the product's " + std::to_string(n_objects),
               "remove the product and its journal to start over");
    for (std::uint64_t i = e.first; i < e.first + e.count; ++i) d.done[i] = true;
  }
  for (bool b : d.done) d.objects_done += b ? 1 : 0;
  d.units_done = journal.entries.size();
  d.note = "resuming '" + product + "': " + std::to_string(d.objects_done) + " of " + std::to_string(n_objects) +
           " objects done in " + std::to_string(d.units_done) + " units recorded in '" + journal_file + "'" +
           (journal.torn_tail ? " (an unfinished last record is dropped)" : "");
  return d;
}

}  // namespace astrosweep::period
