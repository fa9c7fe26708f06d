#pragma once
// What the slabs exchange over MPI during a kernel pair: the spectral running sum handed down from
// slab to slab (SpectralCarry), and the mask of halo channels after each clip.

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <vector>

#include "scfind_backend.hpp"
#include "slab_layout.hpp"

namespace astrosweep::scfind {

/// SpectralCarry over MPI for slab j: receives from the owner of slab j + 1, sends to the owner of
/// slab j − 1. Sends are non-blocking; finish() waits for them (before the buffers' next use).
/// With `record` (a plane, nx·ny floats) the values received are also kept there, so a second
/// sweep over the same slab can replay them without the other ranks (ReplaySpectralCarry).
class MpiSpectralCarry final : public SpectralCarry {
 public:
  MpiSpectralCarry(MPI_Comm comm, const SlabLayout& layout, std::size_t slab, std::span<float> record = {});
  ~MpiSpectralCarry() override;
  MpiSpectralCarry(const MpiSpectralCarry&) = delete;
  MpiSpectralCarry& operator=(const MpiSpectralCarry&) = delete;
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const override { return blocks_; }
  void receive(std::size_t y0, std::size_t y1, std::span<float> values) override;
  void send(std::size_t y0, std::size_t y1, std::span<const float> values) override;
  void finish();

 private:
  [[nodiscard]] int tag(std::size_t receiving_slab, std::size_t y0) const;

  MPI_Comm comm_;
  std::size_t slab_;
  std::size_t nx_;
  int above_ = MPI_PROC_NULL, below_ = MPI_PROC_NULL;
  std::span<float> record_;
  std::vector<std::pair<std::size_t, std::size_t>> blocks_;
  std::deque<std::vector<float>> outgoing_;
  std::vector<MPI_Request> requests_;
};

/// Replays the values an MpiSpectralCarry recorded for the same slab (none for the top slab);
/// sends nothing.
class ReplaySpectralCarry final : public SpectralCarry {
 public:
  ReplaySpectralCarry(const SlabLayout& layout, std::span<const float> recorded);
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const override { return blocks_; }
  void receive(std::size_t y0, std::size_t y1, std::span<float> values) override;
  void send(std::size_t, std::size_t, std::span<const float>) override {}

 private:
  std::size_t nx_;
  std::span<const float> recorded_;
  std::vector<std::pair<std::size_t, std::size_t>> blocks_;
};

/// Where a rank keeps the mask of its slabs' held channels: get(slab, z0, z1) returns channels
/// [z0, z1), set(slab, z0, values) overwrites channels from z0 (cube channel numbers).
struct MaskAccess {
  std::function<std::vector<std::uint8_t>(std::size_t, std::size_t, std::size_t)> get;
  std::function<void(std::size_t, std::size_t, std::span<const std::uint8_t>)> set;
};

/// Brings the halo channels of every slab's mask up to date from the slabs that own them.
/// Collective over comm.
void exchange_mask_halos(const SlabLayout& layout, const MaskAccess& mask, MPI_Comm comm);

}  // namespace astrosweep::scfind
