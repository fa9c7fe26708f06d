#include "scfind_exchange.hpp"

#include <algorithm>
#include <climits>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::scfind {

std::vector<std::size_t> channel_bounds(std::size_t nz, int ranks) {
  std::vector<std::size_t> bounds(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r <= ranks; ++r)
    bounds[static_cast<std::size_t>(r)] = nz * static_cast<std::size_t>(r) / static_cast<std::size_t>(ranks);
  return bounds;
}

MpiSpectralCarry::MpiSpectralCarry(MPI_Comm comm, const Slab& slab, std::size_t row_block_count) : comm_(comm) {
  MPI_Comm_rank(comm, &rank_);
  const std::size_t ny = slab.cube.ny;
  const std::size_t count = std::max<std::size_t>(1, std::min(row_block_count, ny));
  for (std::size_t b = 0; b < count; ++b) blocks_.emplace_back(ny * b / count, ny * (b + 1) / count);
}

MpiSpectralCarry::~MpiSpectralCarry() {
  if (!requests_.empty() && !mpi::unwinding_in_parallel()) {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
}

namespace {
int block_tag(const std::vector<std::pair<std::size_t, std::size_t>>& blocks, std::size_t y0) {
  const auto it = std::find_if(blocks.begin(), blocks.end(), [y0](const auto& b) { return b.first == y0; });
  AS_ASSERT(it != blocks.end());
  return static_cast<int>(it - blocks.begin());
}
}  // namespace

void MpiSpectralCarry::receive(std::size_t y0, std::size_t y1, std::span<float> values) {
  (void)y1;
  AS_ASSERT(values.size() <= static_cast<std::size_t>(INT_MAX));
  AS_MPI_TRY(MPI_Recv(values.data(), static_cast<int>(values.size()), MPI_FLOAT, rank_ + 1, block_tag(blocks_, y0),
                      comm_, MPI_STATUS_IGNORE));
}

void MpiSpectralCarry::send(std::size_t y0, std::size_t y1, std::span<const float> values) {
  (void)y1;
  AS_ASSERT(values.size() <= static_cast<std::size_t>(INT_MAX));
  outgoing_.emplace_back(values.begin(), values.end());
  MPI_Request request = MPI_REQUEST_NULL;
  AS_MPI_TRY(MPI_Isend(outgoing_.back().data(), static_cast<int>(values.size()), MPI_FLOAT, rank_ - 1,
                       block_tag(blocks_, y0), comm_, &request));
  requests_.push_back(request);
}

void MpiSpectralCarry::finish() {
  if (!requests_.empty())
    AS_MPI_TRY(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  requests_.clear();
  outgoing_.clear();
}

void exchange_mask_halos(ScfindBackend& backend, const Slab& slab, const std::vector<std::size_t>& bounds,
                         std::size_t halo_radius, MPI_Comm comm) {
  int size = 1;
  int rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (size == 1 || halo_radius == 0) return;
  const std::size_t plane = slab.cube.plane();
  auto overlap = [](std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
    return std::pair{std::max(a0, b0), std::max(std::max(a0, b0), std::min(a1, b1))};
  };
  auto bytes = [plane](std::pair<std::size_t, std::size_t> r) {
    const std::size_t n = (r.second - r.first) * plane;
    AS_EXPECTS(n <= static_cast<std::size_t>(INT_MAX), RuntimeError, "mask halo larger than 2 GiB",
               "use fewer ranks (thicker slabs) or smaller spectral kernels");
    return static_cast<int>(n);
  };
  std::vector<int> send_counts(static_cast<std::size_t>(size)), send_displs(static_cast<std::size_t>(size));
  std::vector<int> recv_counts(static_cast<std::size_t>(size)), recv_displs(static_cast<std::size_t>(size));
  std::vector<std::pair<std::size_t, std::size_t>> incoming(static_cast<std::size_t>(size));
  std::vector<std::uint8_t> send_buffer;
  int recv_total = 0;
  // Every slab's held range follows from the bounds and the halo, so each rank knows what the
  // others need from it: its owned channels inside their held ranges.
  for (int q = 0; q < size; ++q) {
    const auto uq = static_cast<std::size_t>(q);
    send_displs[uq] = static_cast<int>(send_buffer.size());
    recv_displs[uq] = recv_total;
    if (q == rank) continue;
    const Slab other = make_slab(slab.cube, bounds[uq], bounds[uq + 1], halo_radius);
    const auto out = overlap(slab.own_begin, slab.own_end, other.held_begin, other.held_end);
    send_counts[uq] = bytes(out);
    if (send_counts[uq] > 0) {
      const auto values = backend.mask_channels(out.first, out.second);
      send_buffer.insert(send_buffer.end(), values.begin(), values.end());
    }
    incoming[uq] = overlap(other.own_begin, other.own_end, slab.held_begin, slab.held_end);
    recv_counts[uq] = bytes(incoming[uq]);
    recv_total += recv_counts[uq];
  }
  std::vector<std::uint8_t> recv_buffer(static_cast<std::size_t>(recv_total));
  AS_MPI_TRY(MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), MPI_BYTE, recv_buffer.data(),
                           recv_counts.data(), recv_displs.data(), MPI_BYTE, comm));
  for (int q = 0; q < size; ++q) {
    const auto uq = static_cast<std::size_t>(q);
    if (recv_counts[uq] == 0) continue;
    backend.set_mask_channels(incoming[uq].first, std::span<const std::uint8_t>(recv_buffer)
                                                      .subspan(static_cast<std::size_t>(recv_displs[uq]),
                                                               static_cast<std::size_t>(recv_counts[uq])));
  }
}

}  // namespace astrosweep::scfind
