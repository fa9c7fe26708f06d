#include "slab_samples.hpp"

#include <algorithm>
#include <climits>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::scfind {

namespace {

std::size_t group_of(const SlabLayout& layout, std::size_t slab) { return slab / layout.slabs_per_rank(); }

std::uint64_t sample_count(const SlabLayout& layout, std::size_t cadence, std::size_t slab) {
  const Slab s = layout.slab(slab);
  const std::uint64_t plane = layout.cube().plane();
  return samples_in(layout.cube().voxels(), cadence, s.own_begin * plane, s.own_end * plane).count;
}

int as_count(std::size_t n) {
  AS_ASSERT(n <= static_cast<std::size_t>(INT_MAX));
  return static_cast<int>(n);
}

}  // namespace

std::vector<float> regroup_samples(const SlabLayout& layout, std::size_t cadence, std::vector<SlabSamples> mine,
                                   MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (const auto& s : mine)
    AS_ASSERT(layout.owner(s.slab) == rank && s.values.size() == sample_count(layout, cadence, s.slab));
  if (layout.slabs_per_rank() == 1) {
    AS_ASSERT(mine.size() == 1);
    return std::move(mine.front().values);
  }
  // Within a group the slab above comes first; both sides order a rank pair's slabs that way.
  std::sort(mine.begin(), mine.end(), [](const SlabSamples& a, const SlabSamples& b) { return a.slab > b.slab; });
  const auto n_ranks = static_cast<std::size_t>(size);
  std::vector<int> send_counts(n_ranks), send_displs(n_ranks), recv_counts(n_ranks), recv_displs(n_ranks);
  std::vector<float> send_buffer;
  for (std::size_t g = 0; g < n_ranks; ++g) {
    send_displs[g] = as_count(send_buffer.size());
    for (const auto& s : mine)
      if (group_of(layout, s.slab) == g) send_buffer.insert(send_buffer.end(), s.values.begin(), s.values.end());
    send_counts[g] = as_count(send_buffer.size()) - send_displs[g];
  }
  // This group's slabs from the top down, where each one's samples start in the group's run, and
  // how much each rank sends.
  const std::size_t k = layout.slabs_per_rank();
  const std::size_t first = static_cast<std::size_t>(rank) * k;
  std::vector<std::size_t> start(k);
  std::size_t total = 0;
  for (std::size_t j = first + k; j-- > first;) {
    start[j - first] = total;
    total += sample_count(layout, cadence, j);
  }
  std::size_t received = 0;
  for (std::size_t p = 0; p < n_ranks; ++p) {
    recv_displs[p] = as_count(received);
    for (std::size_t j = first + k; j-- > first;)
      if (layout.owner(j) == static_cast<int>(p)) received += sample_count(layout, cadence, j);
    recv_counts[p] = as_count(received) - recv_displs[p];
  }
  std::vector<float> incoming(received);
  AS_MPI_TRY(MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), MPI_FLOAT, incoming.data(),
                           recv_counts.data(), recv_displs.data(), MPI_FLOAT, comm));
  std::vector<float> run(total);
  for (std::size_t p = 0; p < n_ranks; ++p) {
    std::size_t at = static_cast<std::size_t>(recv_displs[p]);
    for (std::size_t j = first + k; j-- > first;) {
      if (layout.owner(j) != static_cast<int>(p)) continue;
      const std::size_t n = sample_count(layout, cadence, j);
      std::copy_n(incoming.begin() + static_cast<std::ptrdiff_t>(at), n,
                  run.begin() + static_cast<std::ptrdiff_t>(start[j - first]));
      at += n;
    }
  }
  return run;
}

}  // namespace astrosweep::scfind
