#pragma once
// A random mask over random values, the linker tests' input (test_linker_slabs, test_label_slab):
// mask voxels at `density`, values mostly positive, some negative, a fraction `blank_fraction` NaN.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

struct RandomMaskCube {
  CubeShape shape;
  std::vector<std::uint8_t> mask;
  std::vector<float> data;
  RandomMaskCube(CubeShape s, double density, double blank_fraction, unsigned seed)
      : shape(s), mask(s.voxels(), 0), data(s.voxels(), 0.0F) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::size_t i = 0; i < s.voxels(); ++i) {
      data[i] = static_cast<float>(u(rng) * 2.0 - 0.6);
      if (u(rng) < blank_fraction) data[i] = std::numeric_limits<float>::quiet_NaN();
      if (u(rng) < density) mask[i] = 1;
    }
  }
  [[nodiscard]] std::size_t at(std::size_t x, std::size_t y, std::size_t z) const {
    return (z * shape.ny + y) * shape.nx + x;
  }
};

}  // namespace astrosweep::scfind
