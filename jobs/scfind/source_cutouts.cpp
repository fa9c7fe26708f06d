#include "source_cutouts.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::scfind {

namespace {

/// One channel of a box: the unit in which voxels travel (a box's channel is contiguous in its
/// cut-out, so it lands with one copy).
struct BoxPlane {
  std::size_t source = 0;
  std::size_t z = 0;
};

/// Channel z of `box` from `owned` (which holds that channel) into `data_out`/`labels_out`, the
/// box's rows one after the other.
void copy_box_plane(const CubeShape& cube, const Box& box, std::size_t z, const OwnedChannels& owned, float* data_out,
                    std::int32_t* labels_out) {
  AS_ASSERT(z >= owned.z_begin && z < owned.z_end);
  const std::size_t nx = box.nx();
  for (std::size_t y = box.y0; y <= box.y1; ++y) {
    const std::size_t from = ((z - owned.z_begin) * cube.ny + y) * cube.nx + box.x0;
    std::memcpy(data_out, owned.data.data() + from, nx * sizeof(float));
    std::memcpy(labels_out, owned.labels.data() + from, nx * sizeof(std::int32_t));
    data_out += nx;
    labels_out += nx;
  }
}

SourceCutouts empty_cutouts(const CubeShape& cube, std::span<const Component> sources, std::size_t margin) {
  SourceCutouts out;
  out.cube = cube;
  out.margin = margin;
  out.sources.resize(sources.size());
  for (std::size_t s = 0; s < sources.size(); ++s) {
    SourceCutout& c = out.sources[s];
    c.id = static_cast<std::int32_t>(s + 1);
    c.box = grown_box(sources[s], margin, cube);
    c.data.resize(c.box.voxels());
    c.labels.resize(c.box.voxels());
  }
  return out;
}

/// Every rank's channel ranges, on rank 0: the rank owning each channel (-1 elsewhere).
std::vector<int> channel_owners(const CubeShape& cube, std::span<const OwnedChannels> mine, MPI_Comm comm, int rank,
                                int size) {
  std::vector<std::uint64_t> ranges;
  for (const OwnedChannels& o : mine) ranges.insert(ranges.end(), {o.z_begin, o.z_end});
  int count = static_cast<int>(ranges.size());
  std::vector<int> counts(rank == 0 ? size : 0), displacements(rank == 0 ? size : 0);
  AS_MPI_TRY(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<std::uint64_t> every;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displacements[r] = total;
      total += counts[r];
    }
    every.resize(static_cast<std::size_t>(total));
  }
  AS_MPI_TRY(MPI_Gatherv(ranges.data(), count, MPI_UINT64_T, every.data(), counts.data(), displacements.data(),
                         MPI_UINT64_T, 0, comm));
  std::vector<int> owner;
  if (rank != 0) return owner;
  owner.assign(cube.nz, -1);
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < counts[r]; k += 2) {
      const std::size_t at = static_cast<std::size_t>(displacements[r] + k);
      for (std::uint64_t z = every[at]; z < every[at + 1]; ++z) {
        AS_ASSERT(z < cube.nz && owner[z] == -1);
        owner[z] = r;
      }
    }
  AS_ASSERT(std::find(owner.begin(), owner.end(), -1) == owner.end());
  return owner;
}

}  // namespace

Box grown_box(const Component& source, std::size_t margin, const CubeShape& cube) {
  auto low = [&](std::size_t v) { return v > margin ? v - margin : 0; };
  auto high = [&](std::size_t v, std::size_t n) { return v + margin < n ? v + margin : n - 1; };
  AS_ASSERT(source.x_max < cube.nx && source.y_max < cube.ny && source.z_max < cube.nz);
  return {low(source.x_min),           high(source.x_max, cube.nx), low(source.y_min),
          high(source.y_max, cube.ny), low(source.z_min),           high(source.z_max, cube.nz)};
}

std::uint64_t SourceCutouts::bytes() const noexcept {
  std::uint64_t total = 0;
  for (const SourceCutout& c : sources) total += c.data.size() * sizeof(float) + c.labels.size() * sizeof(std::int32_t);
  return total;
}

SourceCutouts cut_sources(const CubeShape& cube, std::span<const Component> sources, std::size_t margin,
                          std::span<const std::int32_t> labels, std::span<const float> data) {
  AS_ASSERT(labels.size() == cube.voxels() && data.size() == cube.voxels());
  const OwnedChannels whole{0, cube.nz, data, labels};
  SourceCutouts out = empty_cutouts(cube, sources, margin);
  for (SourceCutout& c : out.sources)
    for (std::size_t z = c.box.z0; z <= c.box.z1; ++z) {
      const std::size_t at = (z - c.box.z0) * c.box.plane();
      copy_box_plane(cube, c.box, z, whole, c.data.data() + at, c.labels.data() + at);
    }
  return out;
}

SourceCutouts gather_source_cutouts(const CubeShape& cube, std::span<const Component> sources, std::size_t margin,
                                    std::span<const OwnedChannels> mine, MPI_Comm comm, std::size_t batch_voxels) {
  int rank = 0, size = 1;
  AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
  AS_MPI_TRY(MPI_Comm_size(comm, &size));
  AS_ASSERT(batch_voxels > 0 && batch_voxels <= static_cast<std::size_t>(INT_MAX));
  AS_ASSERT(cube.plane() <= static_cast<std::size_t>(INT_MAX));
  const std::vector<int> owner = channel_owners(cube, mine, comm, rank, size);
  // Which of this rank's channel ranges holds channel z (-1: another rank's).
  std::vector<int> here(cube.nz, -1);
  for (std::size_t k = 0; k < mine.size(); ++k)
    for (std::size_t z = mine[k].z_begin; z < mine[k].z_end; ++z) here[z] = static_cast<int>(k);

  SourceCutouts out;
  out.cube = cube;
  out.margin = margin;
  if (rank == 0) out = empty_cutouts(cube, sources, margin);
  std::vector<Box> boxes(sources.size());
  for (std::size_t s = 0; s < sources.size(); ++s) boxes[s] = grown_box(sources[s], margin, cube);

  // The box planes in source order, channel order within a source, cut into batches every rank
  // cuts alike (they depend on the boxes alone).
  std::vector<BoxPlane> batch;
  std::vector<float> send_data, receive_data;
  std::vector<std::int32_t> send_labels, receive_labels;
  std::vector<int> counts(static_cast<std::size_t>(size)), displacements(static_cast<std::size_t>(size));
  auto flush = [&] {
    send_data.clear();
    send_labels.clear();
    for (const BoxPlane& p : batch) {
      if (here[p.z] < 0) continue;
      const Box& b = boxes[p.source];
      const std::size_t at = send_data.size();
      send_data.resize(at + b.plane());
      send_labels.resize(at + b.plane());
      copy_box_plane(cube, b, p.z, mine[static_cast<std::size_t>(here[p.z])], send_data.data() + at,
                     send_labels.data() + at);
    }
    if (rank == 0) {
      std::fill(counts.begin(), counts.end(), 0);
      for (const BoxPlane& p : batch)
        counts[static_cast<std::size_t>(owner[p.z])] += static_cast<int>(boxes[p.source].plane());
      int total = 0;
      for (int r = 0; r < size; ++r) {
        displacements[r] = total;
        total += counts[r];
      }
      receive_data.resize(static_cast<std::size_t>(total));
      receive_labels.resize(static_cast<std::size_t>(total));
    }
    const int n = static_cast<int>(send_data.size());
    AS_MPI_TRY(MPI_Gatherv(send_data.data(), n, MPI_FLOAT, receive_data.data(), counts.data(), displacements.data(),
                           MPI_FLOAT, 0, comm));
    AS_MPI_TRY(MPI_Gatherv(send_labels.data(), n, MPI_INT32_T, receive_labels.data(), counts.data(),
                           displacements.data(), MPI_INT32_T, 0, comm));
    if (rank == 0) {
      // Each rank's planes arrive in batch order: walk the batch once, a cursor per rank.
      std::vector<std::size_t> cursor(displacements.begin(), displacements.end());
      for (const BoxPlane& p : batch) {
        SourceCutout& c = out.sources[p.source];
        const std::size_t plane = c.box.plane(), to = (p.z - c.box.z0) * plane;
        std::size_t& from = cursor[static_cast<std::size_t>(owner[p.z])];
        std::copy_n(receive_data.begin() + static_cast<std::ptrdiff_t>(from), plane,
                    c.data.begin() + static_cast<std::ptrdiff_t>(to));
        std::copy_n(receive_labels.begin() + static_cast<std::ptrdiff_t>(from), plane,
                    c.labels.begin() + static_cast<std::ptrdiff_t>(to));
        from += plane;
      }
    }
    batch.clear();
  };
  std::size_t in_batch = 0;
  for (std::size_t s = 0; s < sources.size(); ++s)
    for (std::size_t z = boxes[s].z0; z <= boxes[s].z1; ++z) {
      if (!batch.empty() && in_batch + boxes[s].plane() > batch_voxels) {
        flush();
        in_batch = 0;
      }
      batch.push_back({s, z});
      in_batch += boxes[s].plane();
    }
  if (!batch.empty()) flush();
  return out;
}

}  // namespace astrosweep::scfind
