#include "scfind_exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::scfind {

namespace {

constexpr std::size_t row_block_count = 16;  // a slab starts when the one above has done 1/16

std::vector<std::pair<std::size_t, std::size_t>> row_blocks_of(const CubeShape& cube) {
  std::vector<std::pair<std::size_t, std::size_t>> blocks;
  const std::size_t ny = cube.ny;
  const std::size_t count = std::max<std::size_t>(1, std::min(row_block_count, ny));
  for (std::size_t b = 0; b < count; ++b) blocks.emplace_back(ny * b / count, ny * (b + 1) / count);
  return blocks;
}

std::size_t block_index(const std::vector<std::pair<std::size_t, std::size_t>>& blocks, std::size_t y0) {
  const auto it = std::find_if(blocks.begin(), blocks.end(), [y0](const auto& b) { return b.first == y0; });
  AS_ASSERT(it != blocks.end());
  return static_cast<std::size_t>(it - blocks.begin());
}

int checked_count(std::size_t n) {
  AS_EXPECTS(n <= static_cast<std::size_t>(INT_MAX), RuntimeError, "a message between slabs exceeds 2 GiB",
             "use thicker slabs (fewer ranks or a larger memory budget) or smaller spectral kernels");
  return static_cast<int>(n);
}

}  // namespace

MpiSpectralCarry::MpiSpectralCarry(MPI_Comm comm, const SlabLayout& layout, std::size_t slab, std::span<float> record)
    : comm_(comm), slab_(slab), nx_(layout.cube().nx), record_(record), blocks_(row_blocks_of(layout.cube())) {
  AS_ASSERT(record.empty() || record.size() == layout.cube().plane());
  if (slab + 1 < layout.count()) above_ = layout.owner(slab + 1);
  if (slab > 0) below_ = layout.owner(slab - 1);
}

MpiSpectralCarry::~MpiSpectralCarry() {
  if (!requests_.empty() && !mpi::unwinding_in_parallel()) {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
}

int MpiSpectralCarry::tag(std::size_t receiving_slab, std::size_t y0) const {
  // Messages between two ranks arrive in the order they were sent and both sides go down the cube
  // in the same order, so tags need not be unique over the whole run; 32767 is MPI's least TAG_UB.
  return static_cast<int>((receiving_slab * blocks_.size() + block_index(blocks_, y0)) % 32767);
}

void MpiSpectralCarry::receive(std::size_t y0, std::size_t y1, std::span<float> values) {
  AS_ASSERT(above_ != MPI_PROC_NULL && values.size() == (y1 - y0) * nx_);
  AS_MPI_TRY(MPI_Recv(values.data(), checked_count(values.size()), MPI_FLOAT, above_, tag(slab_, y0), comm_,
                      MPI_STATUS_IGNORE));
  if (!record_.empty()) std::memcpy(record_.data() + y0 * nx_, values.data(), values.size_bytes());
}

void MpiSpectralCarry::send(std::size_t y0, std::size_t y1, std::span<const float> values) {
  AS_ASSERT(below_ != MPI_PROC_NULL && values.size() == (y1 - y0) * nx_);
  outgoing_.emplace_back(values.begin(), values.end());
  MPI_Request request = MPI_REQUEST_NULL;
  AS_MPI_TRY(MPI_Isend(outgoing_.back().data(), checked_count(values.size()), MPI_FLOAT, below_, tag(slab_ - 1, y0),
                       comm_, &request));
  requests_.push_back(request);
}

void MpiSpectralCarry::finish() {
  if (!requests_.empty())
    AS_MPI_TRY(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  requests_.clear();
  outgoing_.clear();
}

ReplaySpectralCarry::ReplaySpectralCarry(const SlabLayout& layout, std::span<const float> recorded)
    : nx_(layout.cube().nx), recorded_(recorded), blocks_(row_blocks_of(layout.cube())) {
  AS_ASSERT(recorded.empty() || recorded.size() == layout.cube().plane());  // empty: the top slab
}

void ReplaySpectralCarry::receive(std::size_t y0, std::size_t y1, std::span<float> values) {
  AS_ASSERT(!recorded_.empty() && values.size() == (y1 - y0) * nx_);
  std::memcpy(values.data(), recorded_.data() + y0 * nx_, values.size_bytes());
}

void exchange_mask_halos(const SlabLayout& layout, const MaskAccess& mask, MPI_Comm comm) {
  int size = 1;
  int rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (layout.count() == 1 || layout.halo_radius() == 0) return;
  const std::size_t plane = layout.cube().plane();
  auto overlap = [](const Slab& owner, const Slab& holder) {
    const std::size_t z0 = std::max(owner.own_begin, holder.held_begin);
    return std::pair{z0, std::max(z0, std::min(owner.own_end, holder.held_end))};
  };
  // A halo reaches at most radius + 1 channels, so at most that many slabs either side.
  auto near = [&layout](std::size_t i) {
    const std::size_t reach = layout.halo_radius() + 1;
    std::vector<std::size_t> slabs;
    for (std::size_t q = i > reach ? i - reach : 0; q < std::min(layout.count(), i + reach + 1); ++q)
      if (q != i) slabs.push_back(q);
    return slabs;
  };
  // Every slab's held range follows from the layout, so each rank knows what the others need from
  // it: the owned channels of its slabs inside the held ranges of other slabs. Both sides walk the
  // pairs (source slab i, holder slab q) in the same order, i then q ascending.
  const auto n_ranks = static_cast<std::size_t>(size);
  std::vector<int> send_counts(n_ranks), send_displs(n_ranks), recv_counts(n_ranks), recv_displs(n_ranks);
  std::vector<std::uint8_t> send_buffer;
  std::size_t recv_total = 0;
  for (int q_rank = 0; q_rank < size; ++q_rank) {
    const auto uq = static_cast<std::size_t>(q_rank);
    send_displs[uq] = checked_count(send_buffer.size());
    recv_displs[uq] = checked_count(recv_total);
    for (std::size_t i = 0; i < layout.count(); ++i) {
      for (const std::size_t q : near(i)) {
        const bool outgoing = layout.owner(i) == rank && layout.owner(q) == q_rank;
        const bool incoming = layout.owner(i) == q_rank && layout.owner(q) == rank;
        if (!outgoing && !incoming) continue;
        const auto [z0, z1] = overlap(layout.slab(i), layout.slab(q));
        if (z0 == z1) continue;
        if (outgoing) {
          const auto values = mask.get(i, z0, z1);
          send_buffer.insert(send_buffer.end(), values.begin(), values.end());
        }
        if (incoming) recv_total += (z1 - z0) * plane;
      }
    }
    send_counts[uq] = checked_count(send_buffer.size()) - send_displs[uq];
    recv_counts[uq] = checked_count(recv_total) - recv_displs[uq];
  }
  std::vector<std::uint8_t> recv_buffer(recv_total);
  AS_MPI_TRY(MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), MPI_BYTE, recv_buffer.data(),
                           recv_counts.data(), recv_displs.data(), MPI_BYTE, comm));
  for (int p_rank = 0; p_rank < size; ++p_rank) {
    std::size_t at = static_cast<std::size_t>(recv_displs[static_cast<std::size_t>(p_rank)]);
    for (std::size_t i = 0; i < layout.count(); ++i) {
      if (layout.owner(i) != p_rank) continue;
      for (const std::size_t q : near(i)) {
        if (layout.owner(q) != rank) continue;
        const auto [z0, z1] = overlap(layout.slab(i), layout.slab(q));
        if (z0 == z1) continue;
        const std::size_t n = (z1 - z0) * plane;
        mask.set(q, z0, std::span<const std::uint8_t>(recv_buffer).subspan(at, n));
        at += n;
      }
    }
  }
}

}  // namespace astrosweep::scfind
