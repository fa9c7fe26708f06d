// What slabs exchange (dist/slab_exchange.hpp), with several slabs per rank, on however many ranks
// run this program (ctest: 1, 2 and 3): halos between slabs of other ranks and of the same rank,
// and a running state carried along the axis in blocks, recorded and replayed. Each rank checks
// its results against what one process holding the whole axis would have.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "dist/slab_exchange.hpp"

namespace astrosweep::dist {
namespace {

int world(int (*query)(MPI_Comm, int*)) {
  int value = 0;
  query(MPI_COMM_WORLD, &value);
  return value;
}

// The value every voxel's mask holds after the exchange: a function of its channel and position.
std::uint8_t truth(std::size_t z, std::size_t i) { return static_cast<std::uint8_t>((z * 7 + i) % 3 == 0); }

TEST(SlabExchange, MaskHalosComeFromTheSlabsThatOwnThem) {
  const int rank = world(MPI_Comm_rank);
  const int ranks = world(MPI_Comm_size);
  const std::size_t nz = 17, plane = 3 * 2;  // a cube of 3 × 2 × 17
  for (std::size_t radius : {0U, 1U, 4U}) {
    for (std::size_t k : {1U, 2U, 4U}) {
      if (static_cast<std::size_t>(ranks) * k > nz) continue;
      // scfind's spectral halo: radius channels below, radius + 1 above.
      const SlabLayout layout(Axis{nz, plane, Halo{radius, radius > 0 ? radius + 1 : 0}}, ranks, k);
      // Each slab knows only its owned channels; halos start as 2 (unknown).
      std::map<std::size_t, std::vector<std::uint8_t>> held;
      for (std::size_t j : layout.slabs_of(rank)) {
        const Slab s = layout.slab(j);
        auto& m = held[j];
        m.assign(s.held_positions() * plane, 2);
        for (std::size_t z = s.own_begin; z < s.own_end; ++z)
          for (std::size_t i = 0; i < plane; ++i) m[(z - s.held_begin) * plane + i] = truth(z, i);
      }
      HaloAccess access;
      access.get = [&](std::size_t j, std::size_t z0, std::size_t z1) {
        const Slab s = layout.slab(j);
        const auto first = held[j].begin() + static_cast<std::ptrdiff_t>((z0 - s.held_begin) * plane);
        return std::vector<std::uint8_t>(first, first + static_cast<std::ptrdiff_t>((z1 - z0) * plane));
      };
      access.set = [&](std::size_t j, std::size_t z0, std::span<const std::uint8_t> values) {
        const Slab s = layout.slab(j);
        std::copy(values.begin(), values.end(),
                  held[j].begin() + static_cast<std::ptrdiff_t>((z0 - s.held_begin) * plane));
      };
      exchange_halos(layout, access, MPI_COMM_WORLD);
      for (std::size_t j : layout.slabs_of(rank)) {
        const Slab s = layout.slab(j);
        for (std::size_t z = s.held_begin; z < s.held_end; ++z)
          for (std::size_t i = 0; i < plane; ++i)
            ASSERT_EQ(held[j][(z - s.held_begin) * plane + i], truth(z, i))
                << "slab " << j << " channel " << z << " radius " << radius << " k " << k;
      }
    }
  }
}

// A mask that grows, exchanged by the offsets of its set elements: after each round every halo
// equals its owner's mask, as exchange_halos would make it. Round r sets the elements truth() sets
// for rounds 0..r (a growing mask); halos start as the previous round's owner mask (none at first).
TEST(SlabExchange, SparseMaskHalosAddTheOwnersNewElements) {
  const int rank = world(MPI_Comm_rank);
  const int ranks = world(MPI_Comm_size);
  const std::size_t nz = 17, plane = 3 * 2;
  auto in_mask = [](std::size_t z, std::size_t i, std::size_t round) {
    for (std::size_t r = 0; r <= round; ++r)
      if ((z * 7 + i * 5 + r * 3) % (4 + r) == 0) return true;
    return false;
  };
  for (std::size_t radius : {0U, 1U, 4U}) {
    for (std::size_t k : {1U, 2U, 4U}) {
      if (static_cast<std::size_t>(ranks) * k > nz) continue;
      const SlabLayout layout(Axis{nz, plane, Halo{radius, radius > 0 ? radius + 1 : 0}}, ranks, k);
      std::map<std::size_t, std::vector<std::uint8_t>> held;
      for (std::size_t j : layout.slabs_of(rank)) held[j].assign(layout.slab(j).held_positions() * plane, 0);
      SparseHaloAccess access;
      std::size_t offsets_sent = 0;
      access.get = [&](std::size_t j, std::size_t z0, std::size_t z1) {
        const Slab s = layout.slab(j);
        std::vector<std::uint64_t> offsets;
        for (std::size_t o = 0; o < (z1 - z0) * plane; ++o)
          if (held[j][(z0 - s.held_begin) * plane + o] != 0) offsets.push_back(o);
        offsets_sent += offsets.size();
        return offsets;
      };
      access.set = [&](std::size_t j, std::size_t z0, std::span<const std::uint64_t> offsets) {
        const Slab s = layout.slab(j);
        for (const std::uint64_t o : offsets) {
          ASSERT_LT((z0 - s.held_begin) * plane + o, held[j].size());
          held[j][(z0 - s.held_begin) * plane + o] = 1;
        }
      };
      for (std::size_t round = 0; round < 3; ++round) {
        for (std::size_t j : layout.slabs_of(rank)) {  // the owners' clip: their mask grows
          const Slab s = layout.slab(j);
          for (std::size_t z = s.own_begin; z < s.own_end; ++z)
            for (std::size_t i = 0; i < plane; ++i)
              if (in_mask(z, i, round)) held[j][(z - s.held_begin) * plane + i] = 1;
        }
        exchange_sparse_halos(layout, access, MPI_COMM_WORLD);
        for (std::size_t j : layout.slabs_of(rank)) {
          const Slab s = layout.slab(j);
          for (std::size_t z = s.held_begin; z < s.held_end; ++z)
            for (std::size_t i = 0; i < plane; ++i)
              ASSERT_EQ(held[j][(z - s.held_begin) * plane + i], in_mask(z, i, round) ? 1 : 0)
                  << "slab " << j << " channel " << z << " radius " << radius << " k " << k << " round " << round;
        }
      }
      // Only set elements travel: no more offsets than the mask's voxels in the halos' positions.
      if (radius == 0) {
        EXPECT_EQ(offsets_sent, 0U);
      }
    }
  }
}

// A time series of doubles (plane 1, 8 bytes an element) with uneven halos: history below, a
// little look-ahead above, some reaching over several thin slabs.
TEST(SlabExchange, TimeSeriesHalosOfDoubles) {
  const int rank = world(MPI_Comm_rank);
  const int ranks = world(MPI_Comm_size);
  const std::size_t n = 40;
  auto sample = [](std::size_t t) { return 0.25 * static_cast<double>(t) - 3.0; };
  for (const Halo halo : {Halo{5, 2}, Halo{0, 1}, Halo{9, 0}}) {
    for (std::size_t k : {1U, 3U, 6U}) {
      if (static_cast<std::size_t>(ranks) * k > n) continue;
      const SlabLayout layout(Axis{n, 1, halo, Flow::up}, ranks, k);
      std::map<std::size_t, std::vector<double>> held;
      for (std::size_t j : layout.slabs_of(rank)) {
        const Slab s = layout.slab(j);
        auto& h = held[j];
        h.assign(s.held_positions(), -1e300);
        for (std::size_t t = s.own_begin; t < s.own_end; ++t) h[t - s.held_begin] = sample(t);
      }
      HaloAccess access;
      access.element_bytes = sizeof(double);
      access.get = [&](std::size_t j, std::size_t t0, std::size_t t1) {
        std::vector<std::uint8_t> bytes((t1 - t0) * sizeof(double));
        std::memcpy(bytes.data(), held[j].data() + (t0 - layout.slab(j).held_begin), bytes.size());
        return bytes;
      };
      access.set = [&](std::size_t j, std::size_t t0, std::span<const std::uint8_t> bytes) {
        std::memcpy(held[j].data() + (t0 - layout.slab(j).held_begin), bytes.data(), bytes.size());
      };
      exchange_halos(layout, access, MPI_COMM_WORLD);
      for (std::size_t j : layout.slabs_of(rank)) {
        const Slab s = layout.slab(j);
        for (std::size_t t = s.held_begin; t < s.held_end; ++t)
          ASSERT_EQ(held[j][t - s.held_begin], sample(t))
              << "slab " << j << " sample " << t << " halo " << halo.below << "/" << halo.above << " k " << k;
      }
    }
  }
}

TEST(SlabExchange, SplitRows) {
  EXPECT_EQ(split_rows(0, 16), (RowBlocks{{0, 0}}));
  EXPECT_EQ(split_rows(3, 16), (RowBlocks{{0, 1}, {1, 2}, {2, 3}}));
  const RowBlocks blocks = split_rows(100, 16);
  ASSERT_EQ(blocks.size(), 16U);
  std::size_t row = 0;
  for (const auto& [r0, r1] : blocks) {
    EXPECT_EQ(r0, row);
    EXPECT_GE(r1 - r0, 6U);
    row = r1;
  }
  EXPECT_EQ(row, 100U);
}

// A running sum along the axis, carried from slab to slab: every position adds (p + 1)·(row + 1) + e
// to element e of each row of the state (whole numbers, exact in float and double), so the state
// a slab ends with is the sum over every position up to its end, in the direction of the flow.
template <class T>
void carry_running_sum(Flow flow) {
  const int rank = world(MPI_Comm_rank);
  const int ranks = world(MPI_Comm_size);
  const std::size_t n = 31, rows = 5, row_length = 3;
  auto term = [](std::size_t p, std::size_t row, std::size_t e) { return static_cast<T>((p + 1) * (row + 1) + e); };
  // The state one process walking the whole axis has after position p, along the flow.
  auto expected = [&](std::size_t p, std::size_t row, std::size_t e) {
    T sum = 0;
    for (std::size_t q = 0; q < n; ++q)
      if (flow == Flow::up ? q <= p : q >= p) sum += term(q, row, e);
    return sum;
  };
  for (std::size_t k : {1U, 2U, 5U}) {
    if (static_cast<std::size_t>(ranks) * k > n) continue;
    const SlabLayout layout(Axis{n, 1, Halo{}, flow}, ranks, k);
    const RowBlocks blocks = split_rows(rows, 2);
    std::map<std::size_t, std::vector<T>> received, ended;
    std::vector<std::unique_ptr<MpiCarry<T>>> carries;  // their sends complete at the end
    for (std::size_t j : layout.slabs_of(rank)) {
      const Slab s = layout.slab(j);
      auto& record = received[j];
      record.assign(rows * row_length, 0);
      carries.push_back(std::make_unique<MpiCarry<T>>(MPI_COMM_WORLD, layout, j, blocks, row_length, record));
      MpiCarry<T>& carry = *carries.back();
      EXPECT_EQ(carry.receives(), flow == Flow::up ? j > 0 : j + 1 < layout.count());
      EXPECT_EQ(carry.sends(), flow == Flow::up ? j + 1 < layout.count() : j > 0);
      auto& state = ended[j];
      state.assign(rows * row_length, 0);
      for (const auto& [r0, r1] : carry.row_blocks()) {
        const std::span<T> block(state.data() + r0 * row_length, (r1 - r0) * row_length);
        if (carry.receives()) carry.receive(r0, r1, block);
        for (std::size_t row = r0; row < r1; ++row)
          for (std::size_t e = 0; e < row_length; ++e)
            for (std::size_t p = s.own_begin; p < s.own_end; ++p) state[row * row_length + e] += term(p, row, e);
        if (carry.sends()) {
          carry.send(r0, r1, block);
          carry.progress();  // moves the sends on without waiting; finish() still waits for them
        }
      }
    }
    for (auto& carry : carries) carry->finish();
    for (std::size_t j : layout.slabs_of(rank)) {
      const Slab s = layout.slab(j);
      const std::size_t last = flow == Flow::up ? s.own_end - 1 : s.own_begin;
      for (std::size_t row = 0; row < rows; ++row)
        for (std::size_t e = 0; e < row_length; ++e)
          ASSERT_EQ(ended[j][row * row_length + e], expected(last, row, e)) << "slab " << j << " k " << k;
      // A second sweep replays what the first received, without the other ranks.
      const bool first_of_flow = flow == Flow::up ? j == 0 : j + 1 == layout.count();
      const ReplayCarry<T> replay(blocks, row_length, first_of_flow ? std::span<const T>() : received[j]);
      if (first_of_flow) continue;
      std::vector<T> again(rows * row_length, -1);
      for (const auto& [r0, r1] : replay.row_blocks())
        replay.receive(r0, r1, std::span<T>(again.data() + r0 * row_length, (r1 - r0) * row_length));
      EXPECT_EQ(again, received[j]);
      const std::size_t before = flow == Flow::up ? s.own_begin - 1 : s.own_end;
      for (std::size_t row = 0; row < rows; ++row)
        EXPECT_EQ(again[row * row_length], expected(before, row, 0)) << "slab " << j << " k " << k;
    }
  }
}

TEST(SlabExchange, CarryFlowsDownInFloat) { carry_running_sum<float>(Flow::down); }
TEST(SlabExchange, CarryFlowsUpInDouble) { carry_running_sum<double>(Flow::up); }

}  // namespace
}  // namespace astrosweep::dist
