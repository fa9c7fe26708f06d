#pragma once
// The plain double-precision reference of the smoothing filters: direct sums over each window
// (no running sums, no float), the oracle the OpenMP and CUDA filters are tested against with a
// tolerance for float rounding. Whole cube in memory, x fastest.

#include <cstddef>
#include <vector>

#include "smooth_and_clip.hpp"

namespace astrosweep::scfind::reference {

/// One boxcar of radius r along a line: out[i] = Σ_{|j−i|≤r} in[j] / (2r+1), outside = 0.
std::vector<double> boxcar(const std::vector<double>& line, std::size_t radius);

/// Steps 3-4 of a kernel pair on a whole cube (blanks already 0): `plan.passes` boxcars along x
/// then along y in every plane, then one spectral boxcar of radius_z.
std::vector<double> smooth(const std::vector<double>& cube, const CubeShape& shape, const BoxcarPlan& plan,
                           std::size_t radius_z);

}  // namespace astrosweep::scfind::reference
