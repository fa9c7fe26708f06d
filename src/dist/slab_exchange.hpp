#pragma once
// What the slabs of a layout (slab_layout.hpp) exchange over MPI: a running state carried from
// slab to slab along the axis, and the halos.
//
// The carry is for a stage whose result at a position depends on every position before it in the
// direction of the flow: scfind's spectral boxcar (SoFiA-2's float running sum from the top
// channel down), an IIR filter's state over time. Each slab continues the state its upstream
// neighbour ended with and hands its own on downstream. The state is rows of equal length (scfind:
// the cube's y rows of nx values) handed over in blocks of rows, so a slab starts on a block as
// soon as its upstream neighbour has sent it, and the ranks work along the axis as a pipeline.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "dist/slab_layout.hpp"

namespace astrosweep::dist {

/// Row ranges [first, second) of a carried state, in the order they are handed over.
using RowBlocks = std::vector<std::pair<std::size_t, std::size_t>>;

/// `rows` rows in min(`count`, rows) near-equal blocks (one empty block when there are no rows).
RowBlocks split_rows(std::size_t rows, std::size_t count);

/// The carried state of one slab over MPI: receives it from the owner of the slab upstream, sends
/// it to the owner of the slab downstream (layout.axis().flow; either may be this rank). The state
/// is blocks.back().second rows of `row_length` elements. Sends are non-blocking; finish() waits
/// for them. With `record` (as many elements as the state) the values received are also kept
/// there, so a second sweep over the same slab can replay them without the other ranks
/// (ReplayCarry). T: float or double (instantiated in slab_exchange.cpp).
template <class T>
class MpiCarry {
 public:
  MpiCarry(MPI_Comm comm, const SlabLayout& layout, std::size_t slab, RowBlocks blocks, std::size_t row_length,
           std::span<T> record = {});
  ~MpiCarry();
  MpiCarry(const MpiCarry&) = delete;
  MpiCarry& operator=(const MpiCarry&) = delete;

  [[nodiscard]] const RowBlocks& row_blocks() const noexcept { return blocks_; }
  /// False for the first slab of the flow, which starts the state.
  [[nodiscard]] bool receives() const noexcept { return upstream_ != MPI_PROC_NULL; }
  /// False for the last slab of the flow.
  [[nodiscard]] bool sends() const noexcept { return downstream_ != MPI_PROC_NULL; }
  /// Waits for rows [r0, r1) of the state, one of row_blocks(), in their order.
  void receive(std::size_t r0, std::size_t r1, std::span<T> values);
  /// Hands rows [r0, r1) on downstream, one of row_blocks(), in their order; `values` may be
  /// reused once send() returns.
  void send(std::size_t r0, std::size_t r1, std::span<const T> values);
  /// Moves the sends along without waiting for them: Open MPI moves a message above its eager limit
  /// only while the sender is inside the library, so a sender busy elsewhere (waiting for its GPU)
  /// would hold the slab downstream back until its next MPI call.
  void progress();
  /// Waits for the sends (before the neighbours' next use of the same tags).
  void finish();

 private:
  [[nodiscard]] int tag(std::size_t receiving_slab, std::size_t r0) const;

  MPI_Comm comm_;
  std::size_t slab_;
  std::size_t row_length_;
  RowBlocks blocks_;
  std::span<T> record_;
  std::size_t downstream_slab_ = 0;
  int upstream_ = MPI_PROC_NULL, downstream_ = MPI_PROC_NULL;
  std::deque<std::vector<T>> outgoing_;
  std::vector<MPI_Request> requests_;
};

/// Replays the state an MpiCarry recorded for the same slab (`recorded` empty for the first slab
/// of the flow); sends nothing.
template <class T>
class ReplayCarry {
 public:
  ReplayCarry(RowBlocks blocks, std::size_t row_length, std::span<const T> recorded);
  [[nodiscard]] const RowBlocks& row_blocks() const noexcept { return blocks_; }
  void receive(std::size_t r0, std::size_t r1, std::span<T> values) const;

 private:
  std::size_t row_length_;
  RowBlocks blocks_;
  std::span<const T> recorded_;
};

/// Where a rank keeps the held positions of its slabs, as bytes: get(slab, p0, p1) returns
/// positions [p0, p1), set(slab, p0, values) overwrites positions from p0 (axis positions of
/// `plane` elements of `element_bytes` each).
struct HaloAccess {
  std::function<std::vector<std::uint8_t>(std::size_t, std::size_t, std::size_t)> get;
  std::function<void(std::size_t, std::size_t, std::span<const std::uint8_t>)> set;
  std::size_t element_bytes = 1;  ///< 1: a mask
};

/// Brings the halo positions of every slab up to date from the slabs that own them, whether on
/// other ranks (one MPI_Alltoallv) or this one (copied directly). Collective over comm.
void exchange_halos(const SlabLayout& layout, const HaloAccess& halos, MPI_Comm comm);

/// A mask that only grows (an element once set stays set, where its slab owns it and in every halo
/// holding it) and is mostly empty, by the offsets of its set elements: get(slab, p0, p1) lists
/// those of positions [p0, p1), ascending, counted from position p0's first element; set(slab, p0,
/// offsets) sets the elements at those offsets from position p0's first element and leaves the
/// others as they are.
struct SparseHaloAccess {
  std::function<std::vector<std::uint64_t>(std::size_t, std::size_t, std::size_t)> get;
  std::function<void(std::size_t, std::size_t, std::span<const std::uint64_t>)> set;
};

/// exchange_halos for such a mask: each halo receives the owner's set elements (8 bytes each)
/// instead of its whole positions (a byte an element), and adds them to what it holds, which is the
/// owner's mask of the previous exchange, so the halo ends equal to the owner's mask as with
/// exchange_halos. scfind's mask halos: kilobytes instead of 17 MB a side and a kernel pair for the
/// WALLABY-region cube. Collective over comm (an MPI_Alltoall of counts, an MPI_Alltoallv).
void exchange_sparse_halos(const SlabLayout& layout, const SparseHaloAccess& halos, MPI_Comm comm);

}  // namespace astrosweep::dist
