#pragma once
// What the ranks' slabs exchange over MPI during a kernel pair: the spectral running sum handed
// down from slab to slab (SpectralCarry), and the mask of halo channels after each clip.

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "scfind_backend.hpp"

namespace astrosweep::scfind {

/// Channel ranges every rank owns: rank r owns [bounds[r], bounds[r+1]); slabs go up with rank.
std::vector<std::size_t> channel_bounds(std::size_t nz, int ranks);

/// SpectralCarry over MPI between rank r (this slab) and r ± 1. Sends are non-blocking; finish()
/// waits for them (call it before the next kernel pair).
class MpiSpectralCarry final : public SpectralCarry {
 public:
  MpiSpectralCarry(MPI_Comm comm, const Slab& slab, std::size_t row_block_count);
  ~MpiSpectralCarry() override;
  MpiSpectralCarry(const MpiSpectralCarry&) = delete;
  MpiSpectralCarry& operator=(const MpiSpectralCarry&) = delete;
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const override { return blocks_; }
  void receive(std::size_t y0, std::size_t y1, std::span<float> values) override;
  void send(std::size_t y0, std::size_t y1, std::span<const float> values) override;
  void finish();

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  std::vector<std::pair<std::size_t, std::size_t>> blocks_;
  std::deque<std::vector<float>> outgoing_;
  std::vector<MPI_Request> requests_;
};

/// Brings every rank's halo channels of the mask up to date from the ranks that own them.
/// Collective over comm; `bounds` from channel_bounds().
void exchange_mask_halos(ScfindBackend& backend, const Slab& slab, const std::vector<std::size_t>& bounds,
                         std::size_t halo_radius, MPI_Comm comm);

}  // namespace astrosweep::scfind
