// The checkpoint labels beside an unfinished scfind product (checkpoint_labels.hpp), on however
// many ranks run this program (ctest: 1 and 3): each rank writes its own channels and reads any;
// a resumed run finds them, and refuses labels that are missing or of another cube's size.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "checkpoint_labels.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"
#include "test_data.hpp"

namespace astrosweep::scfind {
namespace {

using test::world_rank;
using test::world_size;

// A product path in a directory every rank sees.
class SharedProduct {
 public:
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  test::SharedDir dir_;
  std::string path_ = dir_.path("product.h5");
};

constexpr std::uint64_t plane = 6 * 5, nz = 10, voxels = plane * nz;

// Rank r's channels: an even share, the last rank the rest.
std::pair<std::uint64_t, std::uint64_t> own_channels() {
  const auto r = static_cast<std::uint64_t>(world_rank()), n = static_cast<std::uint64_t>(world_size());
  return {nz * r / n, nz * (r + 1) / n};
}

std::uint8_t label(std::uint64_t voxel) { return static_cast<std::uint8_t>(voxel % 7 == 0 ? 0 : 1 + voxel % 13); }

TEST(CheckpointLabels, RanksWriteTheirChannelsAndAResumedRunReadsThem) {
  SharedProduct product;
  const auto [z0, z1] = own_channels();
  {
    CheckpointLabels labels(product.path(), voxels, CheckpointLabels::Open::create, MPI_COMM_WORLD);
    EXPECT_EQ(labels.path(), checkpoint_labels_path(product.path()));
    std::vector<std::uint8_t> mine((z1 - z0) * plane);
    for (std::uint64_t i = 0; i < mine.size(); ++i) mine[i] = label(z0 * plane + i);
    labels.write(z0 * plane, mine);
    labels.sync();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CheckpointLabels resumed(product.path(), voxels, CheckpointLabels::Open::resume, MPI_COMM_WORLD);
  const auto all = resumed.read(0, voxels);  // every rank reads every rank's channels
  for (std::uint64_t v = 0; v < voxels; ++v) ASSERT_EQ(all[v], label(v)) << "voxel " << v;
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    EXPECT_TRUE(remove_checkpoint_labels(product.path()));
    EXPECT_FALSE(std::filesystem::exists(checkpoint_labels_path(product.path())));
    EXPECT_TRUE(remove_checkpoint_labels(product.path()));  // nothing to remove is no failure
  }
}

void expect_refused(const std::string& product, const std::string& needle) {
  try {
    CheckpointLabels labels(product, voxels, CheckpointLabels::Open::resume, MPI_COMM_WORLD);
    ADD_FAILURE() << "labels accepted";
  } catch (const Error& e) {  // the same on every rank
    EXPECT_EQ(e.code(), ExitCode::output) << e.what();
    EXPECT_NE(std::string(e.what()).find(checkpoint_labels_path(product)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("start over"), std::string::npos) << e.hint();
  }
}

TEST(CheckpointLabels, MissingOrOfAnotherSizeAreRefused) {
  SharedProduct product;
  expect_refused(product.path(), "missing");
  if (world_rank() == 0) std::ofstream(checkpoint_labels_path(product.path())) << std::string(voxels - 1, '\0');
  MPI_Barrier(MPI_COMM_WORLD);
  expect_refused(product.path(), "have 299 bytes, not the cube's 300");
}

}  // namespace
}  // namespace astrosweep::scfind
