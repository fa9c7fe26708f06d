#include "checkpoint_labels.hpp"

#include <fcntl.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "io/output_path.hpp"

namespace astrosweep::scfind {

std::string checkpoint_labels_path(const std::string& product) { return product + ".labels"; }

CheckpointLabels::CheckpointLabels(const std::string& product, std::uint64_t voxels, Open open, MPI_Comm comm)
    : path_(checkpoint_labels_path(product)), voxels_(voxels) {
  if (open == Open::create) {
    io::check_output_space(path_, voxels, comm);
    mpi::on_root_then_share_failure(comm, [&] {
      io::PosixFile file(path_, O_RDWR | O_CREAT | O_TRUNC);
      file.truncate(voxels);  // zeros: every voxel outside the mask
      file.sync();
      io::sync_directory_of(path_);
    });
  } else {
    mpi::on_root_then_share_failure(comm, [&] {
      std::error_code ec;
      const auto size = std::filesystem::file_size(path_, ec);
      AS_EXPECTS(!ec && size == voxels, OutputError,
                 "the checkpoint labels '" + path_ + "' of the interrupted run " +
                     (ec ? std::string("are missing")
                         : "have " + std::to_string(size) + " bytes, not the cube's " + std::to_string(voxels)),
                 "they hold the mask its journal records; without them, remove the product and its journal to start "
                 "over");
    });
  }
  file_ = io::PosixFile(path_, O_RDWR);
}

void CheckpointLabels::write(std::uint64_t first, std::span<const std::uint8_t> labels) {
  AS_ASSERT(first + labels.size() <= voxels_);
  file_.write_at(first, labels);
}

std::vector<std::uint8_t> CheckpointLabels::read(std::uint64_t first, std::uint64_t n) const {
  AS_ASSERT(first + n <= voxels_);
  std::vector<std::uint8_t> labels(n);
  file_.read_at(first, labels);
  return labels;
}

void CheckpointLabels::sync() { file_.sync(); }

bool remove_checkpoint_labels(const std::string& product) {
  std::error_code ec;
  std::filesystem::remove(checkpoint_labels_path(product), ec);
  return !ec;
}

}  // namespace astrosweep::scfind
