#include "linker_slabs.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "label_slab.hpp"

namespace astrosweep::scfind {

namespace {

// An MPI datatype of one record (sizeof(T) bytes), so counts are in records, not bytes.
class RecordType {
 public:
  explicit RecordType(std::size_t bytes) {
    AS_MPI_TRY(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type_));
    AS_MPI_TRY(MPI_Type_commit(&type_));
  }
  ~RecordType() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  RecordType(const RecordType&) = delete;
  RecordType& operator=(const RecordType&) = delete;
  [[nodiscard]] MPI_Datatype get() const noexcept { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

int record_count(std::size_t n) {
  AS_EXPECTS(n <= static_cast<std::size_t>(INT_MAX), UsageError,
             "the linker would send " + std::to_string(n) + " records at once, more than MPI counts",
             "raise scfind.threshold or the linker's limits");
  return static_cast<int>(n);
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  std::size_t at = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = record_count(at);
    at += static_cast<std::size_t>(counts[r]);
  }
  record_count(at);
  return displs;
}

// Every rank's records, in rank order, on every rank (all) or on rank 0 (!all).
template <class T>
std::vector<T> gather_records(MPI_Comm comm, const std::vector<T>& mine, bool all) {
  static_assert(std::is_trivially_copyable_v<T>);
  int rank = 0, size = 1;
  AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
  AS_MPI_TRY(MPI_Comm_size(comm, &size));
  const int n = record_count(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size), 0);
  if (all)
    AS_MPI_TRY(MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
  else
    AS_MPI_TRY(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<int> displs;
  std::vector<T> out;
  if (all || rank == 0) {
    displs = displacements(counts);
    out.resize(static_cast<std::size_t>(displs.back()) + static_cast<std::size_t>(counts.back()));
  }
  const RecordType type(sizeof(T));
  if (all)
    AS_MPI_TRY(MPI_Allgatherv(mine.data(), n, type.get(), out.data(), counts.data(), displs.data(), type.get(), comm));
  else
    AS_MPI_TRY(MPI_Gatherv(mine.data(), n, type.get(), out.data(), counts.data(), displs.data(), type.get(), 0, comm));
  return out;
}

// Records to each rank (to[r]); what the others sent this one.
template <class T>
std::vector<T> send_to_ranks(MPI_Comm comm, const std::vector<std::vector<T>>& to) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<int> send_counts, recv_counts(to.size(), 0);
  std::vector<T> send;
  for (const auto& records : to) {
    send_counts.push_back(record_count(records.size()));
    send.insert(send.end(), records.begin(), records.end());
  }
  AS_MPI_TRY(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm));
  const std::vector<int> send_displs = displacements(send_counts), recv_displs = displacements(recv_counts);
  std::vector<T> received(static_cast<std::size_t>(recv_displs.back()) + static_cast<std::size_t>(recv_counts.back()));
  const RecordType type(sizeof(T));
  AS_MPI_TRY(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), type.get(), received.data(),
                           recv_counts.data(), recv_displs.data(), type.get(), comm));
  return received;
}

// A slab in the cube-wide list: its channels, its rank, and the first key of its components.
struct SlabEntry {
  std::uint64_t z_begin = 0, z_end = 0;
  std::uint64_t components = 0;
  std::uint64_t first_key = 0;
  std::int32_t rank = 0;
  std::int32_t mine = -1;  ///< its index among this rank's slabs (-1: another rank's)
};

// A voxel sent to another slab (`slab`, the cube-wide index) with its component's key.
struct BoundaryVoxel {
  std::uint64_t key = 0;
  std::uint32_t x = 0, y = 0, z = 0;
  std::uint32_t slab = 0;
};

struct KeyPair {
  std::uint64_t a = 0, b = 0;
  auto operator<=>(const KeyPair&) const = default;
};

struct KeyedComponent {
  std::uint64_t key = 0;
  Component component;
};

}  // namespace

SlabLinkedSources link_sources_in_slabs(const CubeShape& cube, std::span<const LinkerSlab> slabs,
                                        const LinkerParameters& p, MPI_Comm comm) {
  int rank = 0, size = 1;
  AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
  AS_MPI_TRY(MPI_Comm_size(comm, &size));
  const std::vector<LinkOffset> around = link_neighbourhood(p.radius_xy, p.radius_z);
  std::vector<LinkOffset> before;  // the half of the neighbourhood at lower indices: each pair once
  for (const LinkOffset& o : around)
    if (o.dz < 0 || (o.dz == 0 && (o.dy < 0 || (o.dy == 0 && o.dx < 0)))) before.push_back(o);

  // 1. Each slab alone.
  std::vector<SlabView> views;
  std::vector<SlabComponents> labelled;
  std::vector<SlabEntry> mine;
  for (std::size_t k = 0; k < slabs.size(); ++k) {
    const LinkerSlab& s = slabs[k];
    AS_ASSERT(s.z_begin < s.z_end && s.z_end <= cube.nz && s.mask.size() == (s.z_end - s.z_begin) * cube.plane() &&
              s.data.size() == s.mask.size());
    views.emplace_back(cube, s, p);
    labelled.push_back(label_slab(views.back(), around, before));
    mine.push_back({s.z_begin, s.z_end, labelled.back().components.size(), 0, rank, static_cast<std::int32_t>(k)});
  }

  // 2. The cube-wide list of slabs in channel order, each with its first key.
  std::vector<SlabEntry> all = gather_records(comm, mine, true);
  std::sort(all.begin(), all.end(), [](const SlabEntry& a, const SlabEntry& b) { return a.z_begin < b.z_begin; });
  std::uint64_t keys = 0, expected_z = 0;
  for (SlabEntry& e : all) {
    AS_ASSERT(e.z_begin == expected_z);  // the slabs tile the cube
    expected_z = e.z_end;
    e.first_key = keys;
    keys += e.components;
    if (e.rank != rank) e.mine = -1;
  }
  AS_ASSERT(expected_z == cube.nz);
  std::vector<std::size_t> entry_of(slabs.size());  // this rank's slab k is all[entry_of[k]]
  for (std::size_t g = 0; g < all.size(); ++g)
    if (all[g].mine >= 0) entry_of[static_cast<std::size_t>(all[g].mine)] = g;

  // Boundary voxels to the slabs within radiusZ channels of them.
  const std::uint64_t rz = p.radius_z;
  std::vector<std::vector<BoundaryVoxel>> to(static_cast<std::size_t>(size));
  for (std::size_t k = 0; k < slabs.size() && rz > 0; ++k) {
    const SlabEntry& from = all[entry_of[k]];
    const SlabComponents& s = labelled[k];
    for (std::size_t g = 0; g < all.size(); ++g) {
      const SlabEntry& target = all[g];
      if (g == entry_of[k]) continue;
      const std::uint64_t z0 = std::max(from.z_begin, target.z_begin > rz ? target.z_begin - rz : 0);
      const std::uint64_t z1 = std::min(from.z_end, target.z_end + rz);
      if (z0 >= z1) continue;
      const auto first = std::lower_bound(s.voxels.begin(), s.voxels.end(), (z0 - from.z_begin) * cube.plane());
      const auto last = std::lower_bound(s.voxels.begin(), s.voxels.end(), (z1 - from.z_begin) * cube.plane());
      for (auto it = first; it != last; ++it) {
        const auto a = static_cast<std::size_t>(it - s.voxels.begin());
        const SlabView& v = views[k];
        to[static_cast<std::size_t>(target.rank)].push_back(
            {from.first_key + s.component[a], static_cast<std::uint32_t>(v.x_of(*it)),
             static_cast<std::uint32_t>(v.y_of(*it)), static_cast<std::uint32_t>(v.z_of(*it)),
             static_cast<std::uint32_t>(g)});
      }
    }
  }
  const std::vector<BoundaryVoxel> received = send_to_ranks(comm, to);
  std::vector<KeyPair> pairs;
  std::vector<std::uint64_t> flagged;
  for (const BoundaryVoxel& b : received) {
    const SlabEntry& target = all[b.slab];
    AS_ASSERT(target.rank == rank && target.mine >= 0);
    const auto k = static_cast<std::size_t>(target.mine);
    const SlabView& view = views[k];
    const SlabComponents& s = labelled[k];
    bool blank_seen = false;
    for (const LinkOffset& o : around) {
      const std::ptrdiff_t j = view.at(b.x, b.y, b.z, o);
      if (j < 0) continue;
      const auto i = static_cast<std::size_t>(j);
      if (view.takes_part(i)) {
        const std::uint64_t other = target.first_key + s.component[position_of(s, i)];
        pairs.push_back({std::min(b.key, other), std::max(b.key, other)});
      } else if (!blank_seen && view.blank(i)) {
        blank_seen = true;
        flagged.push_back(b.key);
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::sort(flagged.begin(), flagged.end());
  flagged.erase(std::unique(flagged.begin(), flagged.end()), flagged.end());

  // 3. Rank 0 joins them, keeps and numbers as SoFiA-2; every rank gets the numbers.
  std::vector<KeyedComponent> keyed;
  for (std::size_t k = 0; k < slabs.size(); ++k)
    for (std::size_t c = 0; c < labelled[k].components.size(); ++c)
      keyed.push_back({all[entry_of[k]].first_key + c, labelled[k].components[c]});
  const std::vector<KeyedComponent> every = gather_records(comm, keyed, false);
  keyed = {};
  const std::vector<KeyPair> every_pair = gather_records(comm, pairs, false);
  const std::vector<std::uint64_t> every_flagged = gather_records(comm, flagged, false);
  std::vector<std::int32_t> number;  // per key
  SlabLinkedSources out;
  mpi::on_root_then_share_failure(comm, [&] {
    std::vector<Component> components(keys);
    for (const KeyedComponent& kc : every) components[kc.key] = kc.component;
    for (std::uint64_t key : every_flagged) components[key].flags |= flag_blank_nearby;
    UnionFind sets(keys);
    for (const KeyPair& pair : every_pair) sets.unite(pair.a, pair.b);
    std::vector<std::uint64_t> roots;
    for (std::uint64_t key = 0; key < keys; ++key) {
      const std::uint64_t root = sets.find(key);
      if (root == key)
        roots.push_back(key);
      else
        components[root].merge(components[key]);
    }
    std::vector<std::uint64_t> kept;
    for (std::uint64_t root : roots) {
      Component& c = components[root];
      if (c.x_min == 0 || c.x_max + 1 == cube.nx || c.y_min == 0 || c.y_max + 1 == cube.ny)
        c.flags |= flag_spatial_edge;
      if (c.z_min == 0 || c.z_max + 1 == cube.nz) c.flags |= flag_spectral_edge;
      if (keeps(c, p)) kept.push_back(root);
    }
    std::sort(kept.begin(), kept.end(),
              [&](std::uint64_t a, std::uint64_t b) { return components[a].highest > components[b].highest; });
    AS_EXPECTS(kept.size() <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()), UsageError,
               std::to_string(kept.size()) + " sources, more than a 32-bit source mask can number",
               "raise scfind.threshold or the linker's size limits");
    std::vector<std::int32_t> number_of_root(keys, 0);
    for (std::size_t n = 0; n < kept.size(); ++n) {
      number_of_root[kept[n]] = static_cast<std::int32_t>(n + 1);
      out.sources.push_back(components[kept[n]]);
    }
    number.resize(keys);
    for (std::uint64_t key = 0; key < keys; ++key) number[key] = number_of_root[sets.find(key)];
  });
  mpi::broadcast_vector(comm, number);
  mpi::broadcast_vector(comm, out.sources);

  for (std::size_t k = 0; k < slabs.size(); ++k) {
    const SlabComponents& s = labelled[k];
    SlabBuffer<std::int32_t> labels = SlabBuffer<std::int32_t>::zeroed(views[k].voxels());
    for (std::size_t a = 0; a < s.voxels.size(); ++a)
      labels[s.voxels[a]] = number[all[entry_of[k]].first_key + s.component[a]];
    out.labels.push_back(std::move(labels));
  }
  return out;
}

}  // namespace astrosweep::scfind
