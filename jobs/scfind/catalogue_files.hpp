#pragma once
// SoFiA-2 v2.5.1's catalogue files (Catalog_save in its src/Catalog.c): the plain-text table
// (_cat.txt), the VOTable (_cat.xml) and the SQL script (_cat.sql), with its column names, units,
// UCDs and number formats, so the rows diff cleanly against SoFiA-2's. What differs is the time
// and the creator line (astrosweep's).

#include <string>
#include <utility>
#include <vector>

#include "catalogue.hpp"

namespace astrosweep::scfind {

/// SoFiA-2's names beside the product: <product stem>_cat.txt, _cat.xml, _cat.sql.
std::string catalogue_file_name(const std::string& product, const char* suffix);

/// The ASCII table as SoFiA-2 formats it: the name quoted in 28 characters, integers in 14, other
/// numbers in 14 as %.6f, or %.5e when not 0 and |v| >= 1e4 or < 1e-3. `time` is the header's
/// creation time line.
std::string catalogue_ascii(const Catalogue& catalogue, const std::string& time);
/// The VOTable 1.3: `settings` (key, value) become PARAM elements as SoFiA-2 writes its parameters;
/// numbers %.15e, integers %ld.
std::string catalogue_votable(const Catalogue& catalogue, const std::string& time,
                              const std::vector<std::pair<std::string, std::string>>& settings);
/// The SQL script creating and filling `SoFiA-Catalogue`.
std::string catalogue_sql(const Catalogue& catalogue, const std::string& time);

/// SoFiA-2's time stamp ("Thu, 26 Nov 2026, 06:19:12", local time) of now.
std::string catalogue_time_now();

/// Writes `text` to `path` (replacing it) through `path`.part; throws OutputError naming the path.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace astrosweep::scfind
