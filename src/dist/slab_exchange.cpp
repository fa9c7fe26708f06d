#include "dist/slab_exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::dist {

namespace {

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <>
MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}

std::size_t block_index(const RowBlocks& blocks, std::size_t r0) {
  const auto it = std::find_if(blocks.begin(), blocks.end(), [r0](const auto& b) { return b.first == r0; });
  AS_ASSERT(it != blocks.end());
  return static_cast<std::size_t>(it - blocks.begin());
}

// The hint names scfind's remedies, scfind being the only job over slabs so far.
int checked_count(std::size_t n) {
  AS_EXPECTS(n <= static_cast<std::size_t>(INT_MAX), RuntimeError, "a message between slabs exceeds 2 GiB",
             "use thicker slabs (fewer ranks or a larger memory budget) or smaller spectral kernels");
  return static_cast<int>(n);
}

/// The positions slab `owner` owns inside slab `holder`'s held range, [first, end) (empty: equal).
std::pair<std::size_t, std::size_t> overlap(const Slab& owner, const Slab& holder) {
  const std::size_t p0 = std::max(owner.own_begin, holder.held_begin);
  return {p0, std::max(p0, std::min(owner.own_end, holder.held_end))};
}

/// The slabs other than i that slab i's halo may reach: every slab owns at least one position,
/// so a halo of h positions reaches at most h slabs either side.
std::vector<std::size_t> near_slabs(const SlabLayout& layout, std::size_t i) {
  const std::size_t reach = std::max(layout.axis().halo.below, layout.axis().halo.above);
  std::vector<std::size_t> slabs;
  for (std::size_t q = i > reach ? i - reach : 0; q < std::min(layout.count(), i + reach + 1); ++q)
    if (q != i) slabs.push_back(q);
  return slabs;
}

}  // namespace

RowBlocks split_rows(std::size_t rows, std::size_t count) {
  RowBlocks blocks;
  const std::size_t n = std::max<std::size_t>(1, std::min(count, rows));
  for (std::size_t b = 0; b < n; ++b) blocks.emplace_back(rows * b / n, rows * (b + 1) / n);
  return blocks;
}

template <class T>
MpiCarry<T>::MpiCarry(MPI_Comm comm, const SlabLayout& layout, std::size_t slab, RowBlocks blocks,
                      std::size_t row_length, std::span<T> record)
    : comm_(comm), slab_(slab), row_length_(row_length), blocks_(std::move(blocks)), record_(record) {
  AS_ASSERT(slab < layout.count() && !blocks_.empty());
  AS_ASSERT(record.empty() || record.size() == blocks_.back().second * row_length);
  // Upstream and downstream: slab j + 1 and slab j - 1 when the state flows down, the reverse up.
  const bool down = layout.axis().flow == Flow::down;
  const std::size_t last = layout.count() - 1;
  const bool starts_flow = down ? slab == last : slab == 0;
  const bool ends_flow = down ? slab == 0 : slab == last;
  if (!starts_flow) upstream_ = layout.owner(down ? slab + 1 : slab - 1);
  if (!ends_flow) {
    downstream_slab_ = down ? slab - 1 : slab + 1;
    downstream_ = layout.owner(downstream_slab_);
  }
}

template <class T>
MpiCarry<T>::~MpiCarry() {
  if (!requests_.empty() && !mpi::unwinding_in_parallel()) {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
}

template <class T>
int MpiCarry<T>::tag(std::size_t receiving_slab, std::size_t r0) const {
  // Messages between two ranks arrive in the order they were sent and both sides go along the
  // axis in the same order, so tags need not be unique over the whole run; 32767 is MPI's least
  // TAG_UB.
  return static_cast<int>((receiving_slab * blocks_.size() + block_index(blocks_, r0)) % 32767);
}

template <class T>
void MpiCarry<T>::receive(std::size_t r0, std::size_t r1, std::span<T> values) {
  AS_ASSERT(receives() && values.size() == (r1 - r0) * row_length_);
  AS_MPI_TRY(MPI_Recv(values.data(), checked_count(values.size()), mpi_type<T>(), upstream_, tag(slab_, r0), comm_,
                      MPI_STATUS_IGNORE));
  if (!record_.empty()) std::memcpy(record_.data() + r0 * row_length_, values.data(), values.size_bytes());
}

template <class T>
void MpiCarry<T>::send(std::size_t r0, std::size_t r1, std::span<const T> values) {
  AS_ASSERT(sends() && values.size() == (r1 - r0) * row_length_);
  outgoing_.emplace_back(values.begin(), values.end());
  MPI_Request request = MPI_REQUEST_NULL;
  AS_MPI_TRY(MPI_Isend(outgoing_.back().data(), checked_count(values.size()), mpi_type<T>(), downstream_,
                       tag(downstream_slab_, r0), comm_, &request));
  requests_.push_back(request);
}

template <class T>
void MpiCarry<T>::progress() {
  if (requests_.empty()) return;
  int done = 0;  // the requests stay for finish() until all are done (Testall then frees them)
  AS_MPI_TRY(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE));
  if (done != 0) {
    requests_.clear();
    outgoing_.clear();
  }
}

template <class T>
void MpiCarry<T>::finish() {
  if (!requests_.empty())
    AS_MPI_TRY(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  requests_.clear();
  outgoing_.clear();
}

template <class T>
ReplayCarry<T>::ReplayCarry(RowBlocks blocks, std::size_t row_length, std::span<const T> recorded)
    : row_length_(row_length), blocks_(std::move(blocks)), recorded_(recorded) {
  AS_ASSERT(!blocks_.empty() && (recorded.empty() || recorded.size() == blocks_.back().second * row_length));
}

template <class T>
void ReplayCarry<T>::receive(std::size_t r0, std::size_t r1, std::span<T> values) const {
  AS_ASSERT(!recorded_.empty() && values.size() == (r1 - r0) * row_length_);
  std::memcpy(values.data(), recorded_.data() + r0 * row_length_, values.size_bytes());
}

template class MpiCarry<float>;
template class MpiCarry<double>;
template class ReplayCarry<float>;
template class ReplayCarry<double>;

void exchange_halos(const SlabLayout& layout, const HaloAccess& halos, MPI_Comm comm) {
  int size = 1;
  int rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const Halo halo = layout.axis().halo;
  if (layout.count() == 1 || (halo.below == 0 && halo.above == 0)) return;
  const std::size_t plane_bytes = layout.axis().plane * halos.element_bytes;
  // Every slab's held range follows from the layout, so each rank knows what the others need from
  // it: the owned positions of its slabs inside the held ranges of other slabs. Both sides walk
  // the pairs (source slab i, holder slab q) in the same order, i then q ascending.
  const auto n_ranks = static_cast<std::size_t>(size);
  std::vector<int> send_counts(n_ranks), send_displs(n_ranks), recv_counts(n_ranks), recv_displs(n_ranks);
  std::vector<std::uint8_t> send_buffer;
  std::size_t recv_total = 0;
  for (int q_rank = 0; q_rank < size; ++q_rank) {
    const auto uq = static_cast<std::size_t>(q_rank);
    send_displs[uq] = checked_count(send_buffer.size());
    recv_displs[uq] = checked_count(recv_total);
    for (std::size_t i = 0; i < layout.count(); ++i) {
      for (const std::size_t q : near_slabs(layout, i)) {
        const bool outgoing = layout.owner(i) == rank && layout.owner(q) == q_rank;
        const bool incoming = layout.owner(i) == q_rank && layout.owner(q) == rank;
        if ((!outgoing && !incoming) || q_rank == rank) continue;  // a rank's own pairs: copied below
        const auto [p0, p1] = overlap(layout.slab(i), layout.slab(q));
        if (p0 == p1) continue;
        if (outgoing) {
          const auto values = halos.get(i, p0, p1);
          AS_ASSERT(values.size() == (p1 - p0) * plane_bytes);
          send_buffer.insert(send_buffer.end(), values.begin(), values.end());
        }
        if (incoming) recv_total += (p1 - p0) * plane_bytes;
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
    if (p_rank == rank) continue;
    for (std::size_t i = 0; i < layout.count(); ++i) {
      if (layout.owner(i) != p_rank) continue;
      for (const std::size_t q : near_slabs(layout, i)) {
        if (layout.owner(q) != rank) continue;
        const auto [p0, p1] = overlap(layout.slab(i), layout.slab(q));
        if (p0 == p1) continue;
        const std::size_t n = (p1 - p0) * plane_bytes;
        halos.set(q, p0, std::span<const std::uint8_t>(recv_buffer).subspan(at, n));
        at += n;
      }
    }
  }
  // Pairs within this rank (streamed slabs): straight from the source's owned positions into the
  // holder's halo, without packing them for MPI and receiving them from itself.
  for (std::size_t i = 0; i < layout.count(); ++i) {
    if (layout.owner(i) != rank) continue;
    for (const std::size_t q : near_slabs(layout, i)) {
      if (layout.owner(q) != rank) continue;
      const auto [p0, p1] = overlap(layout.slab(i), layout.slab(q));
      if (p0 != p1) halos.set(q, p0, halos.get(i, p0, p1));
    }
  }
}

void exchange_sparse_halos(const SlabLayout& layout, const SparseHaloAccess& halos, MPI_Comm comm) {
  int size = 1;
  int rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const Halo halo = layout.axis().halo;
  if (layout.count() == 1 || (halo.below == 0 && halo.above == 0)) return;
  // As exchange_halos, pairs (source slab i, holder slab q) in the same order on both sides; each
  // pair's part of a message is its count of offsets, then the offsets.
  const auto n_ranks = static_cast<std::size_t>(size);
  std::vector<int> send_counts(n_ranks), send_displs(n_ranks), recv_counts(n_ranks), recv_displs(n_ranks);
  std::vector<std::uint64_t> send_buffer;
  for (int q_rank = 0; q_rank < size; ++q_rank) {
    const auto uq = static_cast<std::size_t>(q_rank);
    send_displs[uq] = checked_count(send_buffer.size());
    if (q_rank != rank)
      for (std::size_t i = 0; i < layout.count(); ++i) {
        if (layout.owner(i) != rank) continue;
        for (const std::size_t q : near_slabs(layout, i)) {
          if (layout.owner(q) != q_rank) continue;
          const auto [p0, p1] = overlap(layout.slab(i), layout.slab(q));
          if (p0 == p1) continue;
          const std::vector<std::uint64_t> offsets = halos.get(i, p0, p1);
          send_buffer.push_back(offsets.size());
          send_buffer.insert(send_buffer.end(), offsets.begin(), offsets.end());
        }
      }
    send_counts[uq] = checked_count(send_buffer.size()) - send_displs[uq];
  }
  AS_MPI_TRY(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm));
  std::size_t recv_total = 0;
  for (std::size_t p = 0; p < n_ranks; ++p) {
    recv_displs[p] = checked_count(recv_total);
    recv_total += static_cast<std::size_t>(recv_counts[p]);
  }
  std::vector<std::uint64_t> recv_buffer(recv_total);
  AS_MPI_TRY(MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), MPI_UINT64_T, recv_buffer.data(),
                           recv_counts.data(), recv_displs.data(), MPI_UINT64_T, comm));
  for (int p_rank = 0; p_rank < size; ++p_rank) {
    if (p_rank == rank) continue;
    const auto up = static_cast<std::size_t>(p_rank);
    std::size_t at = static_cast<std::size_t>(recv_displs[up]);
    const std::size_t end = at + static_cast<std::size_t>(recv_counts[up]);
    for (std::size_t i = 0; i < layout.count(); ++i) {
      if (layout.owner(i) != p_rank) continue;
      for (const std::size_t q : near_slabs(layout, i)) {
        if (layout.owner(q) != rank) continue;
        const auto [p0, p1] = overlap(layout.slab(i), layout.slab(q));
        if (p0 == p1) continue;
        AS_ASSERT(at < end);
        const auto n = static_cast<std::size_t>(recv_buffer[at++]);
        AS_ASSERT(n <= end - at);
        halos.set(q, p0, std::span<const std::uint64_t>(recv_buffer).subspan(at, n));
        at += n;
      }
    }
    AS_ASSERT(at == end);
  }
  // Pairs within this rank (streamed slabs): straight from the source into the holder's halo.
  for (std::size_t i = 0; i < layout.count(); ++i) {
    if (layout.owner(i) != rank) continue;
    for (const std::size_t q : near_slabs(layout, i)) {
      if (layout.owner(q) != rank) continue;
      const auto [p0, p1] = overlap(layout.slab(i), layout.slab(q));
      if (p0 != p1) halos.set(q, p0, halos.get(i, p0, p1));
    }
  }
}

}  // namespace astrosweep::dist
