#pragma once
// Paths and loaders for the bundled test data (tests/data; provenance in its README files).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/light_curve_sink.hpp"
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

/// gtest expectations that two blocks hold the same objects, bit for bit (NaN equal to NaN).
void expect_same_light_curves(const io::LightCurveBlock& a, const io::LightCurveBlock& b);

/// A sink that keeps what a streaming reader passed on, and how: the blocks' sizes, the
/// truncations.
class RecordingSink final : public io::LightCurveSink {
 public:
  void append(const io::LightCurveBlock& block) override;
  void truncate(std::uint64_t n_objects) override;

  io::LightCurveBlock all;                 ///< every object passed on and not taken back
  std::vector<std::size_t> block_rows;     ///< rows of each block passed on
  std::vector<std::size_t> block_objects;  ///< objects of each block passed on
  std::vector<std::uint64_t> truncations;  ///< the n_objects of each truncate()
};

/// Rows of a reference CSV (tests/data/reference): `#` comments, then a header row.
std::vector<std::map<std::string, std::string>> read_table(const std::string& relative);

/// A fresh directory for the running gtest, named after it (temp/astrosweep_<prefix>_<pid>_<test>),
/// so tests of one program run side by side; the fixture removes it.
std::filesystem::path scratch_directory(const std::string& prefix);

/// Every byte of the file at `path` (empty when it cannot be read).
std::string file_bytes(const std::filesystem::path& path);

/// A temporary directory removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

/// This process's rank in MPI_COMM_WORLD and its size (MPI tests).
int world_rank();
int world_size();

/// One temporary directory for every rank of MPI_COMM_WORLD: rank 0 makes it and removes it after
/// every rank is done (collective construction and destruction).
class SharedDir {
 public:
  SharedDir();
  ~SharedDir();
  SharedDir(const SharedDir&) = delete;
  SharedDir& operator=(const SharedDir&) = delete;
  [[nodiscard]] std::string path(const std::string& name) const { return base_ + name; }

 private:
  std::optional<TempDir> dir_;
  std::string base_;
};

}  // namespace astrosweep::test
