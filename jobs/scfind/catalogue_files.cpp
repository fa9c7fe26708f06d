#include "catalogue_files.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace astrosweep::scfind {

namespace {

constexpr int width = 14;  // SoFiA-2's CATALOG_COLUMN_WIDTH
constexpr const char* creator = "astrosweep scfind (SoFiA 2.5.1 catalogue)";

std::string ascii_number(double v) {
  if (v != 0.0 && (std::fabs(v) >= 1.0e+4 || std::fabs(v) < 1.0e-3)) return format_text("%*.5e", width, v);
  return format_text("%*.6f", width, v);
}

// A value's text in the XML and SQL files: integers as %ld, other numbers as %.15e.
std::string exact_number(const CatalogueColumn& c, std::size_t row) {
  return c.integer ? format_text("%ld", static_cast<long>(c.whole[row])) : format_text("%.15e", c.real[row]);
}

}  // namespace

std::string catalogue_file_name(const std::string& product, const char* suffix) {
  const std::filesystem::path path(product);
  return (path.parent_path() / (path.stem().string() + suffix)).string();
}

std::string catalogue_time_now() {
  char text[64];
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::strftime(text, sizeof text, "%a, %d %b %Y, %H:%M:%S", &local);
  return text;
}

std::string catalogue_ascii(const Catalogue& cat, const std::string& time) {
  std::string out = "# SoFiA source catalogue\n# Creator: " + std::string(creator) + "\n# Time:    " + time + "\n#\n";
  out +=
      "# Note that the plain-text catalogue is solely intended for\n"
      "# visual inspection and should not be used for quantitative\n"
      "# analysis due to limited precision and the lack of Unified\n"
      "# Content Descriptors.  The XML catalogue should instead be\n"
      "# imported into Python or VO-compatible software to analyse\n"
      "# the source parameters measured by SoFiA, e.g. through the\n"
      "# astropy.io.votable module of Astropy.\n#\n"
      "# Header rows:\n#   1 = column number\n#   2 = parameter name\n#   3 = parameter unit\n#\n#";
  out += format_text("%*d", 2 * width, 1);
  for (std::size_t j = 0; j < cat.columns.size(); ++j) out += format_text("%*zu", width, j + 2);
  out += "\n#" + format_text("%*s", 2 * width, "name");
  for (const auto& c : cat.columns) out += format_text("%*s", width, c.name.c_str());
  out += "\n#" + format_text("%*s", 2 * width, "-");
  for (const auto& c : cat.columns) out += format_text("%*s", width, c.unit.empty() ? "-" : c.unit.c_str());
  out += "\n\n";
  for (std::size_t i = 0; i < cat.size(); ++i) {
    out += ' ';  // (not " " + …: GCC 12 warns a false -Wrestrict on literal + temporary)
    out += format_text("%*s", 2 * width, ('"' + cat.names[i] + '"').c_str());
    for (const auto& c : cat.columns)
      out += c.integer ? format_text("%*ld", width, static_cast<long>(c.whole[i])) : ascii_number(c.real[i]);
    out += "\n";
  }
  return out;
}

std::string catalogue_votable(const Catalogue& cat, const std::string& time,
                              const std::vector<std::pair<std::string, std::string>>& settings) {
  std::string out =
      "<?xml version=\"1.0\" ?>\n"
      "<VOTABLE version=\"1.3\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
      "xmlns=\"http://www.ivoa.net/xml/VOTable/v1.3\">\n"
      "\t<RESOURCE>\n"
      "\t\t<DESCRIPTION>Source catalogue created by the Source Finding Application (SoFiA 2.5.1)</DESCRIPTION>\n";
  out += "\t\t<PARAM name=\"Time\" datatype=\"char\" arraysize=\"*\" value=\"" + time + "\" ucd=\"time.creation\"/>\n";
  out += "\t\t<PARAM name=\"Creator\" datatype=\"char\" arraysize=\"*\" value=\"" + std::string(creator) +
         "\" ucd=\"meta.id;meta.software\"/>\n";
  for (const auto& [key, value] : settings) {
    std::string clean = value;
    for (char& ch : clean)
      if (ch < '\x20' || ch > '\x7E' || ch == '"' || ch == '<' || ch == '>' || ch == '&') ch = '#';
    out += "\t\t<PARAM name=\"" + key + "\" datatype=\"char\" arraysize=\"*\" value=\"" + clean +
           "\" ucd=\"meta.note\"/>\n";
  }
  out += "\t\t<TABLE ID=\"SoFiA_source_catalogue\" name=\"SoFiA source catalogue\">\n";
  out += "\t\t\t<FIELD arraysize=\"32\" datatype=\"char\" name=\"name\" unit=\"\" ucd=\"meta.id\"/>\n";
  for (const auto& c : cat.columns)
    out += "\t\t\t<FIELD datatype=\"" + std::string(c.integer ? "long" : "double") + "\" name=\"" + c.name +
           "\" unit=\"" + c.unit + "\" ucd=\"" + c.ucd + "\"/>\n";
  out += "\t\t\t<DATA>\n\t\t\t\t<TABLEDATA>\n";
  for (std::size_t i = 0; i < cat.size(); ++i) {
    out += "\t\t\t\t\t<TR>\n\t\t\t\t\t\t<TD>" + cat.names[i] + "</TD>\n";
    for (const auto& c : cat.columns) out += "\t\t\t\t\t\t<TD>" + exact_number(c, i) + "</TD>\n";
    out += "\t\t\t\t\t</TR>\n";
  }
  out += "\t\t\t\t</TABLEDATA>\n\t\t\t</DATA>\n\t\t</TABLE>\n\t</RESOURCE>\n</VOTABLE>\n";
  return out;
}

std::string catalogue_sql(const Catalogue& cat, const std::string& time) {
  std::string out = "-- SoFiA source catalogue\n-- Creator: " + std::string(creator) + "\n-- Time:    " + time + "\n\n";
  out += "SET SQL_MODE = \"NO_AUTO_VALUE_ON_ZERO\";\n\n";
  out += "CREATE TABLE IF NOT EXISTS `SoFiA-Catalogue` (\n\t`name` VARCHAR(255) NOT NULL,\n";
  for (const auto& c : cat.columns)
    out += "\t`" + c.name + "` " + (c.integer ? "INTEGER" : "DOUBLE PRECISION") + " NOT NULL,\n";
  out +=
      "\tPRIMARY KEY (`id`),\n\tKEY (`id`)\n) COMMENT='SoFiA source catalogue; created with SoFiA version 2.5.1';\n\n";
  out += "INSERT INTO `SoFiA-Catalogue` (`name`, ";
  for (std::size_t j = 0; j < cat.columns.size(); ++j)
    out += "`" + cat.columns[j].name + "`" + (j + 1 < cat.columns.size() ? ", " : ") VALUES\n");
  for (std::size_t i = 0; i < cat.size(); ++i) {
    out += "('" + cat.names[i] + "', ";
    for (std::size_t j = 0; j < cat.columns.size(); ++j)
      out += exact_number(cat.columns[j], i) + (j + 1 < cat.columns.size() ? ", " : "");
    out += i + 1 < cat.size() ? "),\n" : ");\n";
  }
  return out;
}

void write_text_file(const std::string& path, const std::string& text) {
  // As NAME.part, renamed when whole, as the FITS masks: a stopped run never leaves a partial file.
  const std::string part = path + ".part";
  std::ofstream out(part, std::ios::binary | std::ios::trunc);
  AS_EXPECTS(out.good(), OutputError, "cannot write the catalogue '" + part + "'",
             "check that the directory exists and is writable");
  out << text;
  out.close();
  AS_EXPECTS(out.good(), OutputError, "error while writing the catalogue '" + part + "'", "check the free space");
  std::error_code error;
  std::filesystem::rename(part, path, error);
  AS_EXPECTS(!error, OutputError, "cannot rename '" + part + "' to '" + path + "': " + error.message(),
             "check the directory's permissions");
}

}  // namespace astrosweep::scfind
