#include "moment_maps.hpp"

#include <fitsio.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>

#include "core/error.hpp"
#include "io/fits.hpp"

namespace astrosweep::scfind {

namespace {

constexpr float not_a_number = std::numeric_limits<float>::quiet_NaN();

bool has_card(const CubeHeader& header, const std::string& key) { return header.has(key); }

void set(std::vector<ImageMap::Keyword>& keys, const std::string& name, const std::string& value) {
  for (auto& k : keys)
    if (k.name == name) {
      k.kind = ImageMap::Keyword::text;
      k.text_value = value;
      return;
    }
  keys.push_back({name, ImageMap::Keyword::text, value, 0});
}

void set(std::vector<ImageMap::Keyword>& keys, const std::string& name, double value, bool integer = false) {
  const auto kind = integer ? ImageMap::Keyword::integer : ImageMap::Keyword::number;
  for (auto& k : keys)
    if (k.name == name) {
      k.kind = kind;
      k.number_value = value;
      return;
    }
  keys.push_back({name, kind, {}, value});
}

}  // namespace

void set_keyword(std::vector<ImageMap::Keyword>& keys, const std::string& name, const std::string& value) {
  set(keys, name, value);
}

void set_keyword(std::vector<ImageMap::Keyword>& keys, const std::string& name, double value, bool integer) {
  set(keys, name, value, integer);
}

/// SoFiA-2's DataCube_blank defaults for `naxis` axes, then the cube's WCS keywords for those axes
/// copied over them (its Header_copy_wcs) and BUNIT and the beam where asked (its Header_copy_misc).
std::vector<ImageMap::Keyword> sofia_image_keywords(const CubeHeader& header, int naxis, bool copy_bunit,
                                                    bool copy_beam) {
  AS_ASSERT(naxis == 2 || naxis == 3);
  std::vector<ImageMap::Keyword> keys;
  for (int axis = 1; axis <= naxis; ++axis) {
    const std::string n = std::to_string(axis);
    set(keys, "CTYPE" + n, " ");
    set(keys, "CRPIX" + n, 1.0);
    set(keys, "CDELT" + n, 1.0);
    set(keys, "CRVAL" + n, 1.0);
  }
  auto text = [&](const std::string& key) {
    if (has_card(header, key)) set(keys, key, header.text(key));
  };
  auto number = [&](const std::string& key) {
    if (has_card(header, key)) set(keys, key, header.number(key));
  };
  for (int axis = 1; axis <= naxis; ++axis) {
    const std::string n = std::to_string(axis);
    text("CTYPE" + n);
    for (const char* key : {"CRVAL", "CRPIX", "CDELT"}) number(key + n);
    text("CUNIT" + n);
    number("CROTA" + n);
  }
  if (naxis == 3) text("CELLSCAL");
  // PCi_j, PVi_j, CDi_j (and their 0-padded spellings) of the axes the image has, in SoFiA-2's order.
  for (const char* matrix : {"PC", "PV", "CD"})
    for (const bool padded : {false, true})
      for (int j = 1; j <= 3; ++j)
        for (int i = 1; i <= 3; ++i) {
          if (i > naxis || j > naxis) continue;
          char key[16];
          std::snprintf(key, sizeof key, padded ? "%s%02d_%02d" : "%s%d_%d", matrix, i, j);
          number(key);
        }
  number("RESTFREQ");
  number("RESTFRQ");
  if (has_card(header, "VELREF")) set(keys, "VELREF", std::trunc(header.number("VELREF")), true);
  text("SPECSYS");
  number("EQUINOX");
  number("EPOCH");
  text("RADESYS");
  number("LONPOLE");
  number("LATPOLE");
  if (copy_bunit) text("BUNIT");
  if (copy_beam)
    for (const char* key : {"BMAJ", "BMIN", "BPA"}) number(key);
  return keys;
}

namespace {

/// The maps, with `channel(z, add)` calling add(pixel, value) once for each source voxel of
/// channel z (a pixel has at most one voxel in a channel, so the order within it does not matter).
template <class Channel>
MomentMaps moment_maps_of(const CubeShape& cube, const CubeHeader& header, bool use_wcs, const MomentSettings& settings,
                          Channel&& channel) {
  MomentMaps m;
  m.three_d = cube.nz > 1;
  std::optional<WorldCoordinates> wcs;
  if (use_wcs && m.three_d) wcs = WorldCoordinates::from(header);
  m.world = wcs.has_value();

  // Units as SoFiA-2 derives them: CUNIT3, else from CTYPE3; BUNIT with its usual misspellings
  // fixed, times the spectral unit when moment 0 is integrated over world coordinates.
  m.spectral_unit = header.text("CUNIT3");
  if (m.spectral_unit.empty() && m.three_d) {
    if (header.starts_with("CTYPE3", "FREQ"))
      m.spectral_unit = "Hz";
    else if (header.starts_with("CTYPE3", "VRAD") || header.starts_with("CTYPE3", "VOPT") ||
             header.starts_with("CTYPE3", "VELO") || header.starts_with("CTYPE3", "FELO"))
      m.spectral_unit = "m/s";
    else
      m.warnings.push_back("unsupported CTYPE3 value for the moment maps' unit (supported: FREQ, VRAD, VOPT, VELO)");
  }
  m.flux_unit = header.text("BUNIT");
  if (m.flux_unit == "JY/BEAM" || m.flux_unit == "Jy/Beam") m.flux_unit = "Jy/beam";
  if (m.world) {
    if (m.flux_unit.empty())
      m.warnings.push_back("no flux unit (BUNIT) in the header");
    else
      m.flux_unit += "*";
    m.flux_unit += m.spectral_unit;
  }

  const std::size_t plane = cube.plane();
  m.mom0.real.assign(plane, 0.0F);
  m.mom0.keywords = sofia_image_keywords(header, 2, true, true);
  if (m.world) set(m.mom0.keywords, "BUNIT", m.flux_unit);
  if (!settings.object.empty()) set(m.mom0.keywords, "OBJECT", settings.object);
  if (!m.three_d) {
    channel(0, [&](std::size_t i, float value) { m.mom0.real[i] += value; });
    return m;
  }
  m.mom1 = m.mom0;
  m.mom2 = m.mom0;
  set(m.mom1.keywords, "BUNIT", m.world ? m.spectral_unit : std::string(" "));
  set(m.mom2.keywords, "BUNIT", m.world ? m.spectral_unit : std::string(" "));
  m.chan.integer.assign(plane, 0);
  m.chan.keywords = sofia_image_keywords(header, 2, false, true);
  if (!settings.object.empty()) set(m.chan.keywords, "OBJECT", settings.object);
  set(m.chan.keywords, "BUNIT", " ");

  // The spectral coordinate of each channel: world (of pixel (0, 0, z)) or the channel number.
  std::vector<double> spectral(cube.nz);
  for (std::size_t z = 0; z < cube.nz; ++z) {
    spectral[z] = static_cast<double>(z);
    if (m.world) {
      const auto w = wcs->to_world(0, 0, static_cast<double>(z));
      if (w) spectral[z] = (*w)[2];
    }
  }
  // SoFiA-2's order and precision: channels from the last down, each term rounded to float as it
  // is added to the float map (moments 1 and 2 over the flux above the threshold only).
  const double threshold = settings.threshold;
  std::vector<float> positive(plane, 0.0F);
  for (std::size_t z = cube.nz; z-- > 0;) {
    channel(z, [&](std::size_t i, float value) {
      const auto flux = static_cast<double>(value);
      m.mom0.real[i] += static_cast<float>(flux);
      m.chan.integer[i] += 1;
      if (flux > threshold) {
        m.mom1.real[i] += static_cast<float>(flux * spectral[z]);
        positive[i] += static_cast<float>(flux);
      }
    });
  }
  // The SNR map (SoFiA-2's cubelets): moment 0 before any |CDELT3| over rms·√channels.
  if (settings.snr_rms > 0.0) {
    m.has_snr = true;
    m.snr.real.assign(plane, not_a_number);
    m.snr.keywords = sofia_image_keywords(header, 2, false, true);
    set(m.snr.keywords, "BUNIT", " ");
    if (!settings.object.empty()) set(m.snr.keywords, "OBJECT", settings.object);
    for (std::size_t i = 0; i < plane; ++i)
      if (m.chan.integer[i] > 0)
        m.snr.real[i] = static_cast<float>(static_cast<double>(m.mom0.real[i]) /
                                           (settings.snr_rms * std::sqrt(static_cast<double>(m.chan.integer[i]))));
  }
  for (std::size_t i = 0; i < plane; ++i)
    m.mom1.real[i] = positive[i] > 0.0F
                         ? static_cast<float>(static_cast<double>(m.mom1.real[i]) / static_cast<double>(positive[i]))
                         : not_a_number;
  for (std::size_t z = cube.nz; z-- > 0;) {
    channel(z, [&](std::size_t i, float value) {
      const auto flux = static_cast<double>(value);
      if (flux > threshold) {
        const double offset = static_cast<double>(m.mom1.real[i]) - spectral[z];
        m.mom2.real[i] += static_cast<float>(offset * offset * flux);
      }
    });
  }
  for (std::size_t i = 0; i < plane; ++i) {
    const auto sum = static_cast<double>(positive[i]);
    const auto sigma = static_cast<double>(m.mom2.real[i]);
    m.mom2.real[i] = sum > 0.0 && sigma > 0.0 ? static_cast<float>(std::sqrt(sigma / sum)) : not_a_number;
  }
  // Moment 0 integrated over the spectral axis' world units: times |CDELT3| (NaN without it, as
  // SoFiA-2).
  if (m.world) {
    const double factor = std::fabs(header.number("CDELT3"));
    for (float& v : m.mom0.real) v = static_cast<float>(static_cast<double>(v) * factor);
  }
  return m;
}

/// SoFiA-2's mask cube carries the cube's WCS and BUNIT ' ' (no beam); its 2-D mask copies those.
void mask_2d_keywords(ImageMap& map, const CubeHeader& header) {
  map.keywords = sofia_image_keywords(header, 2, false, false);
  set(map.keywords, "BUNIT", " ");
}

}  // namespace

MomentMaps make_moment_maps(const CubeShape& cube, const std::vector<std::int32_t>& labels,
                            const std::vector<float>& data, const CubeHeader& header, bool use_wcs,
                            const MomentSettings& settings) {
  AS_ASSERT(labels.size() == cube.voxels() && data.size() == cube.voxels());
  const std::size_t plane = cube.plane();
  return moment_maps_of(cube, header, use_wcs, settings, [&](std::size_t z, auto&& add) {
    const std::size_t base = z * plane;
    for (std::size_t i = 0; i < plane; ++i)
      if (labels[base + i] != 0) add(i, data[base + i]);
  });
}

MomentMaps make_moment_maps(const SourceCutouts& cutouts, const CubeHeader& header, bool use_wcs) {
  const CubeShape& cube = cutouts.cube;
  // The sources whose boxes reach each channel, so a channel's walk visits only those.
  std::vector<std::vector<std::size_t>> in_channel(cube.nz);
  for (std::size_t s = 0; s < cutouts.sources.size(); ++s)
    for (std::size_t z = cutouts.sources[s].box.z0; z <= cutouts.sources[s].box.z1; ++z) in_channel[z].push_back(s);
  return moment_maps_of(cube, header, use_wcs, MomentSettings{}, [&](std::size_t z, auto&& add) {
    for (const std::size_t s : in_channel[z]) {
      const SourceCutout& c = cutouts.sources[s];
      for (std::size_t y = c.box.y0; y <= c.box.y1; ++y)
        for (std::size_t x = c.box.x0; x <= c.box.x1; ++x) {
          const std::size_t i = c.box.local(x, y, z);
          if (c.labels[i] == c.id) add(y * cube.nx + x, c.data[i]);
        }
    }
  });
}

ImageMap make_mask_2d(const CubeShape& cube, const std::vector<std::int32_t>& labels, const CubeHeader& header) {
  AS_ASSERT(labels.size() == cube.voxels());
  ImageMap map;
  const std::size_t plane = cube.plane();
  map.integer.assign(plane, 0);
  for (std::size_t i = 0; i < plane; ++i)
    for (std::size_t z = cube.nz; z-- > 0;)
      if (labels[z * plane + i] != 0) {
        map.integer[i] = labels[z * plane + i];
        break;
      }
  mask_2d_keywords(map, header);
  return map;
}

ImageMap make_mask_2d(const SourceCutouts& cutouts, const CubeHeader& header) {
  const CubeShape& cube = cutouts.cube;
  ImageMap map;
  map.integer.assign(cube.plane(), 0);
  // Per pixel the highest channel holding a source voxel, over every source's box (a voxel
  // belongs to one source, so the highest one is the same whichever box shows it).
  std::vector<std::int64_t> highest(cube.plane(), -1);
  for (const SourceCutout& c : cutouts.sources)
    for (std::size_t y = c.box.y0; y <= c.box.y1; ++y)
      for (std::size_t x = c.box.x0; x <= c.box.x1; ++x)
        for (std::size_t z = c.box.z1 + 1; z-- > c.box.z0;)
          if (c.labels[c.box.local(x, y, z)] == c.id) {
            const std::size_t i = y * cube.nx + x;
            if (static_cast<std::int64_t>(z) > highest[i]) {
              highest[i] = static_cast<std::int64_t>(z);
              map.integer[i] = c.id;
            }
            break;
          }
  mask_2d_keywords(map, header);
  return map;
}

void write_image_map(const std::string& path, const ImageMap& map, std::size_t nx, std::size_t ny) {
  write_image(path, map, {nx, ny});
}

void write_image(const std::string& path, const ImageMap& map, const std::vector<std::size_t>& axes) {
  std::size_t pixels = 1;
  for (const std::size_t n : axes) pixels *= n;
  const int kind = !map.bytes.empty() ? BYTE_IMG : !map.integer.empty() ? LONG_IMG : FLOAT_IMG;
  AS_ASSERT((kind == BYTE_IMG ? map.bytes.size() : kind == LONG_IMG ? map.integer.size() : map.real.size()) == pixels);
  const std::string part = path + ".part";
  std::error_code ec;
  std::filesystem::remove(part, ec);
  {
    fits::File file(part, fits::create_new);
    int status = 0;
    std::vector<long> naxes(axes.begin(), axes.end());
    fits_create_img(file.get(), kind, static_cast<int>(naxes.size()), naxes.data(), &status);
    file.check_write(status, "creating the image");
    for (const auto& k : map.keywords) {
      if (k.kind == ImageMap::Keyword::text) {
        fits_update_key_str(file.get(), k.name.c_str(), k.text_value.c_str(), nullptr, &status);
      } else if (k.kind == ImageMap::Keyword::integer) {
        fits_update_key_lng(file.get(), k.name.c_str(), static_cast<LONGLONG>(k.number_value), nullptr, &status);
      } else if (std::isfinite(k.number_value)) {
        // SoFiA-2 writes its numbers as %.11E: the same digits, so the cards read back equal.
        fits_update_key_dbl(file.get(), k.name.c_str(), k.number_value, 11, nullptr, &status);
      } else {
        fits_update_key_null(file.get(), k.name.c_str(), nullptr, &status);  // a card SoFiA-2 reads as NaN
      }
      file.check_write(status, "writing keyword " + k.name);
    }
    const auto n = static_cast<LONGLONG>(pixels);
    if (kind == BYTE_IMG)
      fits_write_img(file.get(), TBYTE, 1, n, const_cast<std::uint8_t*>(map.bytes.data()), &status);
    else if (kind == LONG_IMG)
      fits_write_img(file.get(), TINT, 1, n, const_cast<std::int32_t*>(map.integer.data()), &status);
    else
      fits_write_img(file.get(), TFLOAT, 1, n, const_cast<float*>(map.real.data()), &status);
    file.check_write(status, "writing the image");
    file.close();
  }
  std::filesystem::rename(part, path, ec);
  AS_EXPECTS(!ec, OutputError, "cannot rename '" + part + "' to '" + path + "': " + ec.message(),
             "check the permissions of the output directory");
}

}  // namespace astrosweep::scfind
