// Stored cube values → the float32 cube of SoFiA-2 v2.5 (DataCube_load, then its flagging of
// infinities): the same arithmetic in the same order, so masks agree voxel for voxel.
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "io/cube_detail.hpp"

namespace astrosweep::io::detail {

namespace {

constexpr float nan = std::numeric_limits<float>::quiet_NaN();

// A double outside the float range is undefined behaviour to convert in C++; IEEE hardware gives
// ±inf, which is what we want (it becomes a blank).
float to_float(double x) {
  constexpr auto max = static_cast<double>(std::numeric_limits<float>::max());
  if (x > max) return std::numeric_limits<float>::infinity();
  if (x < -max) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(x);
}

// NaN stays a blank; ±inf becomes one, counted apart so the job can report it.
float finish(float x, ChannelReadCounts& counts) {
  if (std::isnan(x)) {
    ++counts.blanks;
  } else if (std::isinf(x)) {
    ++counts.infinities;
    return nan;
  }
  return x;
}

}  // namespace

template <class Raw>
void integers_to_floats(std::span<const Raw> raw, const Scaling& scaling, std::span<float> out,
                        ChannelReadCounts& counts) {
  AS_ASSERT(raw.size() == out.size());
  const bool has_blank = scaling.blank.has_value();
  const std::int64_t blank = scaling.blank.value_or(0);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (has_blank && static_cast<std::int64_t>(raw[i]) == blank) {
      out[i] = nan;
      ++counts.blanks;
      continue;
    }
    out[i] = finish(to_float(scaling.bzero + scaling.bscale * static_cast<double>(raw[i])), counts);
  }
}

template void integers_to_floats<std::uint8_t>(std::span<const std::uint8_t>, const Scaling&, std::span<float>,
                                               ChannelReadCounts&);
template void integers_to_floats<std::int8_t>(std::span<const std::int8_t>, const Scaling&, std::span<float>,
                                              ChannelReadCounts&);
template void integers_to_floats<std::int16_t>(std::span<const std::int16_t>, const Scaling&, std::span<float>,
                                               ChannelReadCounts&);
template void integers_to_floats<std::int32_t>(std::span<const std::int32_t>, const Scaling&, std::span<float>,
                                               ChannelReadCounts&);

void scale_floats(std::span<float> values, const Scaling& scaling, ChannelReadCounts& counts) {
  const bool multiply = scaling.bscale != 1.0;
  const bool add = scaling.bzero != 0.0;
  for (float& x : values) {
    if (multiply) x = to_float(static_cast<double>(x) * scaling.bscale);
    if (add) x = to_float(static_cast<double>(x) + scaling.bzero);
    x = finish(x, counts);
  }
}

void doubles_to_floats(std::span<const double> raw, const Scaling& scaling, std::span<float> out,
                       ChannelReadCounts& counts) {
  AS_ASSERT(raw.size() == out.size());
  const bool multiply = scaling.bscale != 1.0;
  const bool add = scaling.bzero != 0.0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    double x = raw[i];
    if (multiply) x *= scaling.bscale;
    if (add) x += scaling.bzero;
    out[i] = finish(to_float(x), counts);
  }
}

}  // namespace astrosweep::io::detail
