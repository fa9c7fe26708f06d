#pragma once
// Harmonic summing of the (r, z) power plane as PRESTO's accelsearch does it in memory (spec
// fdas.md §6): the summed plane is indexed by the highest harmonic's (r, z); stage s (H = 2^s)
// adds, for each odd h < H, the power at the nearest half bin of r·h/H and the nearest even z of
// z·h/H. The lookup tables, not floating-point products, define which cell is read, so every
// backend reads the same cells: these functions are that definition, in integer arithmetic.
// (For h/H with H a power of two, PRESTO's double products are exact, so the two agree; the tests
// check it for every stage and all i < 10⁵.)

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace astrosweep::fdas {

/// The numharm values accelsearch accepts: 1, 2, 4, 8, 16, 32.
bool valid_numharm(int numharm);

/// One harmonic-summing stage: after it the plane holds Σ_{h=1}^{numharm} P(r·h/numharm, z·h/numharm).
struct HarmonicStage {
  int stage = 0;               ///< s
  int numharm = 1;             ///< H = 2^s
  std::vector<int> harmonics;  ///< the odd h < H added at this stage (none at stage 0: the plane itself)
};

/// Stages 0 … log₂ numharm. UsageError unless valid_numharm(numharm).
std::vector<HarmonicStage> harmonic_stages(int numharm);

/// PRESTO's NEAREST_INT of the exact rational n/d (d > 0): the nearest integer, halves rounded
/// away from zero.
std::int64_t nearest_int_ratio(std::int64_t n, std::int64_t d);

/// The half-bin index of harmonic h of H read for summed half-bin index i ≥ 0: ⌊i·h/H + ½⌋.
std::int64_t sub_harmonic_index(std::int64_t i, int h, int harmonics);

/// The z read for summed z (any integer, even on the grid): 2·nearest_int(z·h/(2H)).
int sub_harmonic_z(int z, int h, int harmonics);

/// i → sub_harmonic_index(i) for i = i_begin … i_begin + count − 1.
std::vector<std::int64_t> sub_harmonic_index_table(std::int64_t i_begin, std::int64_t count, int h, int harmonics);

/// Row j → row of sub_harmonic_z on the grid z_j = −z_max + 2j, j = 0 … z_max (z_max even).
std::vector<int> sub_harmonic_z_row_table(int z_max, int h, int harmonics);

/// For each summed row j = 0 … z_max, the z row that each of its numharm harmonics reads, in
/// harmonic_stages' order (the fundamental's, j itself, then stage by stage with h ascending):
/// row-major, numharm entries a row, the layout the GPU's harmonic sum reads
/// (kernels/fdas/harmonic_sum_launch.hpp: a row's entries in one or a few 16-byte loads).
std::vector<int> harmonic_z_rows(int z_max, int numharm);

/// A z-major float power plane P[j][k] on the grid z_j = −z_max + 2j (z_max + 1 rows) and half-bin
/// indices i = i_first + k (k = 0 … n_i − 1), i.e. r = i/2; row stride n_i.
struct PowerPlaneView {
  const float* data = nullptr;
  int z_max = 0;
  std::int64_t i_first = 0;
  std::int64_t n_i = 0;

  [[nodiscard]] int n_z() const { return z_max + 1; }
  [[nodiscard]] float at(int row, std::int64_t i) const {
    return data[static_cast<std::size_t>(row) * static_cast<std::size_t>(n_i) + static_cast<std::size_t>(i - i_first)];
  }
};

/// Called after each stage with the summed plane: n_z rows of (i_end − i_begin) floats, z-major.
using StageVisitor = std::function<void(const HarmonicStage& stage, std::span<const float> summed)>;

/// The plain CPU harmonic sum (the reference the backends are tested against). Sums the columns
/// i_begin … i_end − 1 of `plane` stage by stage up to `numharm`, in float and in PRESTO's order
/// (stage by stage, h ascending, one add per cell and h), calling `visit` after every stage,
/// stage 0 included. Every cell read must lie in the plane: ⌊i_begin/numharm + ½⌋ ≥ i_first.
void harmonic_sum_reference(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end, int numharm,
                            const StageVisitor& visit);

}  // namespace astrosweep::fdas
