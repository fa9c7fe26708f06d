#include "harmonic_tables.hpp"

#include <string>

#include "core/error.hpp"

namespace astrosweep::fdas {

bool valid_numharm(int numharm) {
  return numharm == 1 || numharm == 2 || numharm == 4 || numharm == 8 || numharm == 16 || numharm == 32;
}

std::vector<HarmonicStage> harmonic_stages(int numharm) {
  AS_EXPECTS(valid_numharm(numharm), UsageError, "numharm must be 1, 2, 4, 8, 16 or 32, not " + std::to_string(numharm),
             "accelsearch sums harmonics in powers of two up to 32");
  std::vector<HarmonicStage> stages;
  for (int s = 0, h_max = 1; h_max <= numharm; ++s, h_max *= 2) {
    HarmonicStage stage{s, h_max, {}};
    // Even h were added at an earlier stage: h/H = (h/2)/(H/2).
    if (h_max > 1)
      for (int h = 1; h < h_max; h += 2) stage.harmonics.push_back(h);
    stages.push_back(std::move(stage));
  }
  return stages;
}

std::int64_t nearest_int_ratio(std::int64_t n, std::int64_t d) {
  AS_ASSERT(d > 0);
  // |n|/d + ½ rounded down, with the sign restored: halves go away from zero.
  const std::int64_t magnitude = (2 * (n < 0 ? -n : n) + d) / (2 * d);
  return n < 0 ? -magnitude : magnitude;
}

std::int64_t sub_harmonic_index(std::int64_t i, int h, int harmonics) {
  AS_ASSERT(i >= 0 && h >= 1 && h <= harmonics);
  return (2 * i * h + harmonics) / (2 * static_cast<std::int64_t>(harmonics));
}

int sub_harmonic_z(int z, int h, int harmonics) {
  AS_ASSERT(h >= 1 && h <= harmonics);
  return static_cast<int>(
      2 * nearest_int_ratio(static_cast<std::int64_t>(z) * h, 2 * static_cast<std::int64_t>(harmonics)));
}

std::vector<std::int64_t> sub_harmonic_index_table(std::int64_t i_begin, std::int64_t count, int h, int harmonics) {
  AS_ASSERT(i_begin >= 0 && count >= 0);
  std::vector<std::int64_t> table(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < count; ++k)
    table[static_cast<std::size_t>(k)] = sub_harmonic_index(i_begin + k, h, harmonics);
  return table;
}

std::vector<int> sub_harmonic_z_row_table(int z_max, int h, int harmonics) {
  AS_ASSERT(z_max >= 0 && z_max % 2 == 0);
  std::vector<int> rows(static_cast<std::size_t>(z_max + 1));
  for (int j = 0; j <= z_max; ++j)
    rows[static_cast<std::size_t>(j)] = (sub_harmonic_z(-z_max + 2 * j, h, harmonics) + z_max) / 2;
  return rows;
}

std::vector<int> harmonic_z_rows(int z_max, int numharm) {
  const auto n_rows = static_cast<std::size_t>(z_max) + 1;
  const auto width = static_cast<std::size_t>(numharm);
  std::vector<int> table(n_rows * width);
  std::size_t m = 0;
  for (const auto& stage : harmonic_stages(numharm)) {
    // Stage 0 reads the fundamental, harmonic 1 of 1: its own row.
    const std::vector<int> stage_harmonics = stage.stage == 0 ? std::vector<int>{1} : stage.harmonics;
    for (const int h : stage_harmonics) {
      const auto rows = sub_harmonic_z_row_table(z_max, h, stage.numharm);
      for (std::size_t j = 0; j < n_rows; ++j) table[j * width + m] = rows[j];
      ++m;
    }
  }
  return table;
}

void harmonic_sum_reference(const PowerPlaneView& plane, std::int64_t i_begin, std::int64_t i_end, int numharm,
                            const StageVisitor& visit) {
  const auto stages = harmonic_stages(numharm);
  AS_EXPECTS(plane.data != nullptr || plane.n_i == 0, UsageError, "harmonic sum: no power plane");
  AS_EXPECTS(
      i_begin >= 0 && i_begin <= i_end && i_end <= plane.i_first + plane.n_i, UsageError,
      "harmonic sum: columns [" + std::to_string(i_begin) + ", " + std::to_string(i_end) + ") are not in the plane");
  AS_EXPECTS(i_begin == i_end || sub_harmonic_index(i_begin, 1, numharm) >= plane.i_first, UsageError,
             "harmonic sum: the plane starts above the lowest sub-harmonic read (half bin " +
                 std::to_string(sub_harmonic_index(i_begin, 1, numharm)) + ")");
  const auto n_cols = static_cast<std::size_t>(i_end - i_begin);
  const int n_z = plane.n_z();
  std::vector<float> summed(static_cast<std::size_t>(n_z) * n_cols);
  for (int j = 0; j < n_z; ++j)
    for (std::size_t k = 0; k < n_cols; ++k)
      summed[static_cast<std::size_t>(j) * n_cols + k] = plane.at(j, i_begin + static_cast<std::int64_t>(k));
  for (const auto& stage : stages) {
    for (const int h : stage.harmonics) {
      const auto cols = sub_harmonic_index_table(i_begin, static_cast<std::int64_t>(n_cols), h, stage.numharm);
      const auto rows = sub_harmonic_z_row_table(plane.z_max, h, stage.numharm);
      for (int j = 0; j < n_z; ++j) {
        float* out = summed.data() + static_cast<std::size_t>(j) * n_cols;
        for (std::size_t k = 0; k < n_cols; ++k) out[k] += plane.at(rows[static_cast<std::size_t>(j)], cols[k]);
      }
    }
    visit(stage, summed);
  }
}

}  // namespace astrosweep::fdas
