#pragma once
// The spectral running sum handed down from slab to slab (SpectralCarry) over the framework's
// carried state (dist/slab_exchange.hpp): the state is one plane of the cube, its ny rows of nx
// floats handed over in blocks of rows. Mask halos go through dist::exchange_halos directly.

#include <mpi.h>

#include <cstddef>
#include <span>

#include "dist/slab_exchange.hpp"
#include "phase_clock.hpp"
#include "scfind_backend.hpp"
#include "slab_layout.hpp"

namespace astrosweep::scfind {

/// The cube's rows in 16 blocks: a slab starts when the one above has done 1/16.
dist::RowBlocks spectral_row_blocks(const CubeShape& cube);

/// SpectralCarry over MPI for slab j: receives from the owner of slab j + 1, sends to the owner of
/// slab j − 1. Sends are non-blocking; finish() waits for them (before the buffers' next use).
/// With `record` (a plane, nx·ny floats) the values received are also kept there, so a second
/// sweep over the same slab can replay them without the other ranks (ReplaySpectralCarry). Its MPI
/// calls count as Phase::hand_over on `clock` (may be null).
class MpiSpectralCarry final : public SpectralCarry {
 public:
  MpiSpectralCarry(MPI_Comm comm, const SlabLayout& layout, std::size_t slab, std::span<float> record = {},
                   PhaseClock* clock = nullptr)
      : carry_(comm, layout, slab, spectral_row_blocks(layout.cube()), layout.cube().nx, record), clock_(clock) {}
  [[nodiscard]] dist::RowBlocks row_blocks() const override { return carry_.row_blocks(); }
  void receive(std::size_t y0, std::size_t y1, std::span<float> values) override {
    const PhaseClock::Scope phase(clock_, Phase::hand_over);
    carry_.receive(y0, y1, values);
  }
  void send(std::size_t y0, std::size_t y1, std::span<const float> values) override {
    const PhaseClock::Scope phase(clock_, Phase::hand_over);
    carry_.send(y0, y1, values);
  }
  /// Not a phase of its own: called in a loop that waits for the device (Phase::compute).
  void progress() override { carry_.progress(); }
  void finish() {
    const PhaseClock::Scope phase(clock_, Phase::hand_over);
    carry_.finish();
  }

 private:
  dist::MpiCarry<float> carry_;
  PhaseClock* clock_;
};

/// Replays the values an MpiSpectralCarry recorded for the same slab (none for the top slab);
/// sends nothing.
class ReplaySpectralCarry final : public SpectralCarry {
 public:
  ReplaySpectralCarry(const SlabLayout& layout, std::span<const float> recorded)
      : carry_(spectral_row_blocks(layout.cube()), layout.cube().nx, recorded) {}
  [[nodiscard]] dist::RowBlocks row_blocks() const override { return carry_.row_blocks(); }
  void receive(std::size_t y0, std::size_t y1, std::span<float> values) override { carry_.receive(y0, y1, values); }
  void send(std::size_t, std::size_t, std::span<const float>) override {}

 private:
  dist::ReplayCarry<float> carry_;
};

}  // namespace astrosweep::scfind
