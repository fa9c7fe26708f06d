#include "test_data.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/mpi.hpp"
#include "io/csv_light_curves.hpp"

namespace astrosweep::test {

std::string data_path(const std::string& relative) { return std::string(ASTROSWEEP_TEST_DATA) + "/" + relative; }

io::LightCurveBlock light_curves(const std::string& file) {
  return io::read_csv_light_curves(data_path("lightcurves/" + file)).block;
}

Series object(const io::LightCurveBlock& block, std::size_t i) {
  std::size_t row = 0;
  for (std::size_t k = 0; k < i; ++k) row += block.counts[k];
  const auto n = block.counts[i];
  auto slice = [&](const std::vector<double>& v) {
    return v.empty() ? std::vector<double>{} : std::vector<double>(v.begin() + row, v.begin() + row + n);
  };
  return {block.ids[i], slice(block.t), slice(block.y), slice(block.dy)};
}

namespace {
template <class T>
std::vector<std::uint64_t> bits(const std::vector<T>& v) {
  std::vector<std::uint64_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = std::bit_cast<std::uint64_t>(static_cast<double>(v[i]));
  return out;
}
}  // namespace

void expect_same_light_curves(const io::LightCurveBlock& a, const io::LightCurveBlock& b) {
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.n_flagged, b.n_flagged);
  EXPECT_EQ(bits(a.t), bits(b.t));
  EXPECT_EQ(bits(a.y), bits(b.y));
  EXPECT_EQ(bits(a.dy), bits(b.dy));
  EXPECT_EQ(a.bjdrefi, b.bjdrefi);
  EXPECT_EQ(bits(a.bjdreff), bits(b.bjdreff));
}

void RecordingSink::append(const io::LightCurveBlock& block) {
  all.append_block(block);
  block_rows.push_back(block.t.size());
  block_objects.push_back(block.n_objects());
}

void RecordingSink::truncate(std::uint64_t n_objects) {
  all.truncate(n_objects);
  truncations.push_back(n_objects);
}

std::vector<std::map<std::string, std::string>> read_table(const std::string& relative) {
  std::ifstream in(data_path(relative));
  if (!in) throw std::runtime_error("missing test data " + relative);
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::filesystem::path scratch_directory(const std::string& prefix) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("astrosweep_" + prefix + "_" + std::to_string(::getpid()) + "_" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(dir);
  return dir;
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "astrosweep-test-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

SharedDir::SharedDir() {
  if (world_rank() == 0) dir_.emplace();
  std::string base = dir_ ? dir_->path("") : std::string();
  mpi::broadcast_string(MPI_COMM_WORLD, base);
  base_ = base;
}

SharedDir::~SharedDir() { MPI_Barrier(MPI_COMM_WORLD); }

}  // namespace astrosweep::test
