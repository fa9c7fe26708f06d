// HDF5 cubes: a rank-3 dataset (channels, y, x) in C order, read a channel range at a time by
// hyperslab, with NaN and infinities handled as for FITS float data.
#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/cube_detail.hpp"
#include "io/h5.hpp"

namespace astrosweep::io::detail {

namespace {

constexpr const char* supported_hint =
    "scfind reads HDF5 datasets of rank 3, dimensions (channels, y, x), of float32, float64, int8, uint8, int16 "
    "or int32";

// The FITS BITPIX code of a dataset's element type; 0 when it is not one scfind reads.
int element_bitpix(hid_t dataset, bool* is_signed = nullptr) {
  h5::Id type(H5Dget_type(dataset));
  const auto size = H5Tget_size(type.get());
  switch (H5Tget_class(type.get())) {
    case H5T_FLOAT: return size == 4 ? -32 : size == 8 ? -64 : 0;
    case H5T_INTEGER: {
      const bool sign = H5Tget_sign(type.get()) == H5T_SGN_2;
      if (is_signed != nullptr) *is_signed = sign;
      if (size == 1) return 8;
      if (sign && size == 2) return 16;
      if (sign && size == 4) return 32;
      return 0;
    }
    default: return 0;
  }
}

std::string where(const CubeInfo& info) { return info.path + ":" + info.dataset; }

// Reads channels [z0, z1) as Raw (channel groups of at most read_piece elements) and hands each
// group to `convert(raw, out_part)`. Float32 is read in place.
template <class Raw, class Convert>
void read_channel_groups(const CubeInfo& info, hid_t dataset, std::size_t z0, std::size_t z1, std::span<float> out,
                         Convert convert) {
  constexpr bool in_place = std::is_same_v<Raw, float>;
  const std::size_t plane = info.nx * info.ny;
  const std::size_t group = std::max<std::size_t>(1, read_piece / plane);
  std::vector<Raw> buffer(in_place ? 0 : std::min(group, z1 - z0) * plane);
  for (std::size_t z = z0; z < z1; z += group) {
    const std::size_t n = std::min(group, z1 - z);
    auto part = out.subspan((z - z0) * plane, n * plane);
    Raw* raw = nullptr;
    if constexpr (in_place)
      raw = part.data();
    else
      raw = buffer.data();
    h5::read_hyperslab(dataset, h5::native_type<Raw>(), {z, 0, 0}, {n, info.ny, info.nx}, raw);  // names the file
    convert(std::span<const Raw>(raw, part.size()), part);
  }
}

}  // namespace

CubeInfo read_h5_cube_info(const std::string& path, const std::string& dataset) {
  h5::Id file = h5::open_file(path, h5::Access::read);
  constexpr const char* dataset_hint = "give the cube as FILE.h5:/path/to/dataset (the default dataset is /cube)";
  AS_EXPECTS(h5::exists(file.get(), dataset) && H5Oexists_by_name(file.get(), dataset.c_str(), H5P_DEFAULT) > 0,
             InputError, path + ": no dataset '" + dataset + "'", dataset_hint);
  h5::Id object(H5Oopen(file.get(), dataset.c_str(), H5P_DEFAULT));
  AS_EXPECTS(H5Iget_type(object.get()) == H5I_DATASET, InputError, path + ": '" + dataset + "' is not a dataset",
             dataset_hint);
  h5::Id ds = std::move(object);

  CubeInfo info;
  info.path = path;
  info.dataset = dataset;
  info.format = CubeFormat::hdf5;
  const auto d = h5::dims(ds.get());
  AS_EXPECTS(d.size() == 3, InputError,
             where(info) + ": a dataset of rank " + std::to_string(d.size()) + ", not a cube", supported_hint);
  AS_EXPECTS(d[0] > 0 && d[1] > 0 && d[2] > 0, InputError, where(info) + ": the cube is empty", supported_hint);
  info.nz = d[0];
  info.ny = d[1];
  info.nx = d[2];
  info.naxis = 3;
  info.bitpix = element_bitpix(ds.get());
  AS_EXPECTS(info.bitpix != 0, InputError, where(info) + ": element type not supported", supported_hint);
  return info;
}

ChannelReadCounts read_h5_cube_channels(const CubeInfo& info, std::size_t z0, std::span<float> out) {
  const std::size_t z1 = z0 + out.size() / (info.nx * info.ny);
  h5::Id file = h5::open_file(info.path, h5::Access::read);
  h5::Id ds = h5::open_dataset(file.get(), info.dataset);
  bool is_signed = true;
  const int bitpix = element_bitpix(ds.get(), &is_signed);
  AS_EXPECTS(bitpix == info.bitpix, InputError, where(info) + ": the dataset changed since it was opened");
  const Scaling none;  // HDF5 cubes carry no FITS scaling or BLANK
  ChannelReadCounts counts;
  auto integers = [&](auto raw, std::span<float> o) { integers_to_floats(raw, none, o, counts); };
  switch (bitpix) {
    case 8:
      if (is_signed)
        read_channel_groups<std::int8_t>(info, ds.get(), z0, z1, out, integers);
      else
        read_channel_groups<std::uint8_t>(info, ds.get(), z0, z1, out, integers);
      break;
    case 16: read_channel_groups<std::int16_t>(info, ds.get(), z0, z1, out, integers); break;
    case 32: read_channel_groups<std::int32_t>(info, ds.get(), z0, z1, out, integers); break;
    case -32:
      read_channel_groups<float>(info, ds.get(), z0, z1, out,
                                 [&](std::span<const float>, std::span<float> o) { scale_floats(o, none, counts); });
      break;
    case -64:
      read_channel_groups<double>(info, ds.get(), z0, z1, out, [&](std::span<const double> raw, std::span<float> o) {
        doubles_to_floats(raw, none, o, counts);
      });
      break;
    default: AS_ASSERT(false && "read_cube_info admits no other element type");
  }
  return counts;
}

}  // namespace astrosweep::io::detail
