#include "smooth_and_clip_reference.hpp"

namespace astrosweep::scfind::reference {

std::vector<double> boxcar(const std::vector<double>& line, std::size_t radius) {
  const std::size_t n = line.size();
  const auto width = static_cast<double>(2 * radius + 1);
  std::vector<double> out(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    const std::size_t lo = i >= radius ? i - radius : 0;
    for (std::size_t j = lo; j <= i + radius && j < n; ++j) sum += line[j];
    out[i] = sum / width;
  }
  return out;
}

namespace {

// Applies `passes` boxcars to every line of the cube along an axis given by its stride.
void along(std::vector<double>& cube, std::size_t n_lines, std::size_t length, std::size_t stride, auto&& first_of_line,
           std::size_t radius, std::size_t passes) {
  std::vector<double> line(length);
  for (std::size_t l = 0; l < n_lines; ++l) {
    const std::size_t first = first_of_line(l);
    for (std::size_t i = 0; i < length; ++i) line[i] = cube[first + i * stride];
    for (std::size_t p = 0; p < passes; ++p) line = boxcar(line, radius);
    for (std::size_t i = 0; i < length; ++i) cube[first + i * stride] = line[i];
  }
}

}  // namespace

std::vector<double> smooth(const std::vector<double>& cube, const CubeShape& s, const BoxcarPlan& plan,
                           std::size_t radius_z) {
  std::vector<double> out = cube;
  const std::size_t plane = s.plane();
  if (plan.passes > 0) {
    along(
        out, s.ny * s.nz, s.nx, 1, [&](std::size_t l) { return l * s.nx; }, plan.radius, plan.passes);
    along(
        out, s.nx * s.nz, s.ny, s.nx, [&](std::size_t l) { return (l / s.nx) * plane + l % s.nx; }, plan.radius,
        plan.passes);
  }
  if (radius_z > 0)
    along(
        out, plane, s.nz, plane, [](std::size_t l) { return l; }, radius_z, 1);
  return out;
}

}  // namespace astrosweep::scfind::reference
