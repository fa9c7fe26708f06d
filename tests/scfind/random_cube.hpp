#pragma once
// A test cube of unit Gaussian noise with every 37th voxel blank (NaN), the same for a seed on
// every machine (std::mt19937 and its normal distribution as libstdc++ draws them).

#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "smooth_and_clip.hpp"

namespace astrosweep::scfind::test {

inline std::vector<float> random_cube(const CubeShape& s, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0F, 1.0F);
  std::vector<float> cube(s.voxels());
  for (auto& v : cube) v = noise(rng);
  for (std::size_t i = 0; i < cube.size(); i += 37) cube[i] = std::numeric_limits<float>::quiet_NaN();
  return cube;
}

}  // namespace astrosweep::scfind::test
