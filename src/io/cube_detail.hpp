#pragma once
// Private to the cube readers (cube.cpp, fits_cube.cpp, h5_cube.cpp): the per-format entry points
// and the conversion of stored values to the float32 cube SoFiA-2 works on.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "io/cube.hpp"

namespace astrosweep::io::detail {

/// Elements read per library call: bounds the temporary buffer of a conversion.
inline constexpr std::size_t read_piece = std::size_t{1} << 22;

CubeInfo read_fits_cube_info(const std::string& path);
/// Channels from z0 on, as many as `out` holds (whole planes; checked by read_cube_channels).
ChannelReadCounts read_fits_cube_channels(const CubeInfo& info, std::size_t z0, std::span<float> out);
CubeInfo read_h5_cube_info(const std::string& path, const std::string& dataset);
ChannelReadCounts read_h5_cube_channels(const CubeInfo& info, std::size_t z0, std::span<float> out);

/// FITS value scaling; absent keywords are the FITS defaults (SoFiA-2 would read an absent BSCALE
/// as NaN and turn a cube with only BZERO into NaNs; the standard says 1).
struct Scaling {
  double bscale = 1.0;
  double bzero = 0.0;
  std::optional<std::int64_t> blank;  ///< integer data only
};

/// Integer samples as SoFiA-2 converts them: (float)(bzero + bscale·(double)value), BLANK → NaN.
template <class Raw>
void integers_to_floats(std::span<const Raw> raw, const Scaling& scaling, std::span<float> out,
                        ChannelReadCounts& counts);
/// Float32 samples in place: x = (float)((double)x·bscale) when bscale ≠ 1, then
/// x = (float)((double)x + bzero) when bzero ≠ 0 (two roundings, as SoFiA-2's two passes).
void scale_floats(std::span<float> values, const Scaling& scaling, ChannelReadCounts& counts);
/// Float64 samples: scaled in double as SoFiA-2 does, then rounded once to float32.
void doubles_to_floats(std::span<const double> raw, const Scaling& scaling, std::span<float> out,
                       ChannelReadCounts& counts);

}  // namespace astrosweep::io::detail
