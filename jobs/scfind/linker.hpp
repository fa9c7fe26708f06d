#pragma once
// SoFiA-2 v2.5.1's linker (DataCube_run_linker in its src/DataCube.c): the voxels of the raw mask
// linked into sources, sources outside the size and fill limits dropped, the others numbered.
//
// Semantics, as SoFiA-2 has them (docs/scfind.md, "Linker"):
//   - a voxel takes part when it is in the raw mask, its value is finite and, with
//     linker.positivity, not negative;
//   - two such voxels are linked when dx²·ry²·rz² + dy²·rx²·rz² + dz²·rx²·ry² <= rx²·ry²·rz²
//     (rx = ry = radiusXY, rz = radiusZ) with |dx| <= rx, |dy| <= ry, |dz| <= rz; a radius of 0
//     makes that a box in the other two axes, as SoFiA-2's integer test does;
//   - a source is a connected component of that graph; it is dropped when its bounding box is
//     smaller than minSize or larger than a non-zero maxSize, it has fewer than minPixels or more
//     than a non-zero maxPixels voxels, its fill (voxels over bounding-box volume) is below a
//     positive minFill or above a positive maxFill, or (without keepNegative) its summed value is
//     negative;
//   - the kept sources are numbered 1, 2, ... in the order SoFiA-2 meets them: it scans the cube
//     backwards (z, then y, then x descending), so source 1 holds the voxel of highest linear
//     index, and so on. The dropped ones take no number.
//
// Built for the multi-rank step (issue 15): components are found with a union-find whose per-
// component statistics merge associatively (Component::merge), and the numbering depends only on
// each component's highest voxel index, so slabs can be labelled apart and their boundary
// components joined afterwards. This is the plain reference on one slab.

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/exact_sum.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

/// SoFiA-2's linker.* parameters with its defaults (src/Parameter.c).
struct LinkerParameters {
  bool enable = true;
  std::size_t radius_xy = 1;
  std::size_t radius_z = 1;
  std::size_t min_size_xy = 5;
  std::size_t min_size_z = 5;
  std::size_t max_size_xy = 0;  ///< 0: no limit
  std::size_t max_size_z = 0;   ///< 0: no limit
  std::size_t min_pixels = 0;
  std::size_t max_pixels = 0;  ///< 0: no limit
  double min_fill = 0.0;       ///< <= 0: no limit
  double max_fill = 0.0;       ///< <= 0: no limit
  bool positivity = false;     ///< link only voxels whose value is >= 0
  bool keep_negative = false;  ///< keep sources whose summed value is negative
};

/// The linker's keys as the parameter file, the command line and the product spell them.
struct LinkerKey {
  const char* key;
  const char* help;
};
extern const std::vector<LinkerKey> linker_keys;

/// The parameters from SoFiA-2 "key = value" text (keys other than linker.* are not looked at);
/// `fallback` gives what an absent key means. Throws UsageError naming the key for a value that is
/// not a whole number >= 0 (radii, sizes, pixels), a number >= 0 (fills), or true/false.
LinkerParameters linker_parameters_from_text(const std::map<std::string, std::string>& values,
                                             const LinkerParameters& fallback = {});

/// One pair per key of linker_keys, numbers to 17 digits (the product's attributes, fingerprint).
std::vector<std::pair<std::string, std::string>> linker_parameters_as_text(const LinkerParameters& parameters);

/// Flags as SoFiA-2's catalogue has them.
enum LinkerFlag : std::uint8_t {
  flag_spatial_edge = 1,   ///< touches the cube's x or y edge
  flag_spectral_edge = 2,  ///< touches the first or last channel
  flag_blank_nearby = 4,   ///< a blank (NaN) voxel within the merge radius of one of its voxels
};

/// A connected component's statistics; merge() is associative and commutative, so the components
/// of several slabs join into those of the cube.
struct Component {
  std::uint64_t highest = 0;  ///< highest linear index of its voxels: SoFiA-2's numbering order
  std::size_t x_min = 0, x_max = 0, y_min = 0, y_max = 0, z_min = 0, z_max = 0;
  std::uint64_t voxels = 0;
  ExactSum sum;                        ///< summed values, exactly: the same on any number of slabs and ranks
  float value_min = 0, value_max = 0;  ///< its smallest and largest value (the reliability filter's peak)
  std::uint8_t flags = 0;

  void add(std::uint64_t index, std::size_t x, std::size_t y, std::size_t z, float value);
  void merge(const Component& other);
  [[nodiscard]] std::size_t size_x() const noexcept { return x_max - x_min + 1; }
  [[nodiscard]] std::size_t size_y() const noexcept { return y_max - y_min + 1; }
  [[nodiscard]] std::size_t size_z() const noexcept { return z_max - z_min + 1; }
};

/// Whether SoFiA-2 keeps a source with these statistics.
[[nodiscard]] bool keeps(const Component& component, const LinkerParameters& parameters);

/// An offset from a voxel to one it links with.
struct LinkOffset {
  std::ptrdiff_t dx, dy, dz;
};
/// The neighbourhood SoFiA-2's DataCube_process_stack searches: the box of the radii, less the
/// offsets its integer ellipsoid test rejects (the same products, in 64 bits); (0, 0, 0) included.
std::vector<LinkOffset> link_neighbourhood(std::size_t radius_xy, std::size_t radius_z);

struct LinkedSources {
  std::vector<std::int32_t> labels;  ///< per voxel, x fastest: the source's number, 0 outside
  std::vector<Component> sources;    ///< source n at [n - 1], with flags set
  std::vector<double> reliability;   ///< source n's SoFiA-2 rel at [n - 1]; empty: filter off (0)
};

/// The linker on a whole cube: `mask` 0/1 and `data` (float32 as the job reads it: blanks are NaN)
/// of cube.voxels() each. Throws UsageError when more sources are kept than an int32 can number.
LinkedSources link_sources(const CubeShape& cube, std::span<const std::uint8_t> mask, std::span<const float> data,
                           const LinkerParameters& parameters);

}  // namespace astrosweep::scfind
