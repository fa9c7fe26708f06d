// Which reader a cube spec needs: the file is looked at once (exists, not a directory, not empty,
// its first bytes), so a wrong input gets a message that names it and says what scfind reads.
#include "io/cube.hpp"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "io/cube_detail.hpp"
#include "io/h5.hpp"

namespace astrosweep::io {

namespace {

constexpr const char* formats_hint =
    "scfind reads FITS cubes (FILE.fits) and HDF5 datasets (FILE.h5 for /cube, or FILE.h5:/path/to/dataset)";
constexpr const char* default_dataset = "/cube";

struct Spec {
  std::string path;
  std::string dataset;  ///< empty unless given after a ':'
};

// "file.h5:/group/cube": the part after the last ':' names a dataset when it starts with '/', unless
// the whole spec is itself an existing file.
Spec split_spec(const std::string& spec) {
  std::error_code ec;
  const auto colon = spec.rfind(':');
  if (std::filesystem::exists(spec, ec) || colon == std::string::npos || colon + 1 >= spec.size() ||
      spec[colon + 1] != '/')
    return {spec, {}};
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

enum class Kind { fits, hdf5, gzip, other };

Kind sniff(const std::string& path) {
  if (h5::is_hdf5(path)) return Kind::hdf5;
  std::array<char, 6> head{};
  std::ifstream in(path, std::ios::binary);
  AS_EXPECTS(in, InputError, "cannot read '" + path + "': " + std::strerror(errno),
             "check that the file is readable by the user running astrosweep");
  in.read(head.data(), head.size());
  if (in.gcount() >= 2 && head[0] == '\x1f' && head[1] == '\x8b') return Kind::gzip;
  if (in.gcount() == 6 && std::memcmp(head.data(), "SIMPLE", 6) == 0) return Kind::fits;
  return Kind::other;
}

}  // namespace

CubeInfo read_cube_info(const std::string& spec) {
  AS_EXPECTS(!spec.empty(), InputError, "no input cube given", formats_hint);
  const auto [path, dataset] = split_spec(spec);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  AS_EXPECTS(std::filesystem::exists(status), InputError, "input cube '" + path + "' does not exist",
             "check the path (relative paths start from the directory astrosweep runs in)");
  AS_EXPECTS(!std::filesystem::is_directory(status), InputError, "input cube '" + path + "' is a directory",
             formats_hint);
  const auto bytes = std::filesystem::file_size(path, ec);
  AS_EXPECTS(ec || bytes > 0, InputError, "input cube '" + path + "' is empty",
             "the file is incomplete (an interrupted copy or download?); copy it again");
  switch (sniff(path)) {
    case Kind::hdf5: return detail::read_h5_cube_info(path, dataset.empty() ? default_dataset : dataset);
    case Kind::fits:
      AS_EXPECTS(dataset.empty(), InputError,
                 "'" + path + "' is a FITS file: a dataset path (" + dataset + ") applies to HDF5 files only",
                 formats_hint);
      return detail::read_fits_cube_info(path);
    case Kind::gzip:
      throw InputError("input cube '" + path + "' is compressed (gzip)",
                       "decompress it first (gunzip): every rank reads its channels directly from the file");
    case Kind::other: break;
  }
  throw InputError("input cube '" + path + "' is neither a FITS file (it does not start with SIMPLE) nor HDF5",
                   formats_hint);
}

ChannelReadCounts read_cube_channels(const CubeInfo& info, std::size_t z0, std::size_t z1, std::span<float> out) {
  AS_ASSERT(z0 <= z1 && z1 <= info.nz);
  AS_ASSERT(out.size() == (z1 - z0) * info.nx * info.ny);
  if (z0 == z1) return {};
  return info.format == CubeFormat::fits ? detail::read_fits_cube_channels(info, z0, out)
                                         : detail::read_h5_cube_channels(info, z0, out);
}

}  // namespace astrosweep::io
