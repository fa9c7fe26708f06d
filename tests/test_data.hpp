#pragma once
// Paths and loaders for the bundled test data (tests/data; provenance in its README files).

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/light_curves.hpp"

namespace astrosweep::test {

std::string data_path(const std::string& relative);
/// A bundled light-curve CSV, read with the production reader.
io::LightCurveBlock light_curves(const std::string& file);
/// Object `i` of a block as (t, y, dy) vectors.
struct Series {
  std::int64_t id;
  std::vector<double> t, y, dy;
};
Series object(const io::LightCurveBlock& block, std::size_t i);

/// Rows of a reference CSV (tests/data/reference): `#` comments, then a header row.
std::vector<std::map<std::string, std::string>> read_table(const std::string& relative);

/// A fresh directory for the running gtest, named after it (temp/astrosweep_<prefix>_<pid>_<test>),
/// so tests of one program run side by side; the fixture removes it.
std::filesystem::path scratch_directory(const std::string& prefix);

/// A temporary directory removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

}  // namespace astrosweep::test
