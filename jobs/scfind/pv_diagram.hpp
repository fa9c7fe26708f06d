#pragma once
// SoFiA-2 v2.5.1's position-velocity diagram of a cubelet (its DataCube_create_pv, read for the
// semantics): the cube sampled along a line through (x0, y0) at a position angle, one pixel a
// step, by bilinear interpolation of the four pixels around each point, for every channel.

#include <cstddef>
#include <string>
#include <vector>

#include "cube_header.hpp"
#include "moment_maps.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

struct PvDiagram {
  ImageMap map;            ///< float32, positions along the first axis, channels along the second
  std::size_t width = 0;   ///< 2 · steps + 1 positions, steps = ⌊max(nx, ny) / 2⌋
  std::size_t height = 0;  ///< the cube's channels
};

/// The PV diagram of `data` (`shape`, with its header `header`) through 0-based pixel (x0, y0) at
/// `angle` radians (anticlockwise from the second axis): position k at distance k − steps pixels.
/// As SoFiA-2, a point whose four neighbours are not all inside the cube, or that falls on a
/// pixel's row or column (its floor equals its ceiling), is NaN in every channel.
PvDiagram make_pv_diagram(const CubeShape& shape, const std::vector<float>& data, const CubeHeader& header, double x0,
                          double y0, double angle, const std::string& object);

}  // namespace astrosweep::scfind
