#include "moment_maps.hpp"

#include <fitsio.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

#include "core/error.hpp"
#include "io/fits.hpp"

namespace astrosweep::scfind {

namespace {

constexpr float not_a_number = std::numeric_limits<float>::quiet_NaN();

bool has_card(const CubeHeader& header, const std::string& key) {
  for (const auto& c : header.cards()) {
    std::string name = c.substr(0, 8);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (name == key) return true;
  }
  return false;
}

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

/// A blank 2-D image's keywords (SoFiA-2's DataCube_blank), then the cube's 2-D WCS keywords
/// copied over them (its Header_copy_wcs for two axes) and BUNIT and the beam where asked (its
/// Header_copy_misc).
std::vector<ImageMap::Keyword> image_keywords(const CubeHeader& header, bool copy_bunit, bool copy_beam) {
  std::vector<ImageMap::Keyword> keys;
  for (const char* axis : {"1", "2"}) {
    set(keys, std::string("CTYPE") + axis, " ");
    set(keys, std::string("CRPIX") + axis, 1.0);
    set(keys, std::string("CDELT") + axis, 1.0);
    set(keys, std::string("CRVAL") + axis, 1.0);
  }
  auto text = [&](const std::string& key) {
    if (has_card(header, key)) set(keys, key, header.text(key));
  };
  auto number = [&](const std::string& key) {
    if (has_card(header, key)) set(keys, key, header.number(key));
  };
  for (const char* axis : {"1", "2"}) {
    text(std::string("CTYPE") + axis);
    for (const char* key : {"CRVAL", "CRPIX", "CDELT"}) number(key + std::string(axis));
    text(std::string("CUNIT") + axis);
    number(std::string("CROTA") + axis);
  }
  for (const char* key : {"PC1_1", "PC2_1", "PC1_2",   "PC2_2",   "PC01_01", "PC02_01", "PC01_02",  "PC02_02", "PV1_1",
                          "PV2_1", "PV1_2", "PV2_2",   "PV01_01", "PV02_01", "PV01_02", "PV02_02",  "CD1_1",   "CD2_1",
                          "CD1_2", "CD2_2", "CD01_01", "CD02_01", "CD01_02", "CD02_02", "RESTFREQ", "RESTFRQ"})
    number(key);
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

}  // namespace

MomentMaps make_moment_maps(const CubeShape& cube, const std::vector<std::int32_t>& labels,
                            const std::vector<float>& data, const CubeHeader& header, bool use_wcs) {
  AS_ASSERT(labels.size() == cube.voxels() && data.size() == cube.voxels());
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
  m.mom0.keywords = image_keywords(header, true, true);
  if (m.world) set(m.mom0.keywords, "BUNIT", m.flux_unit);
  if (!m.three_d) {
    for (std::size_t i = 0; i < plane; ++i)
      if (labels[i] != 0) m.mom0.real[i] += data[i];
    return m;
  }
  m.mom1 = m.mom0;
  m.mom2 = m.mom0;
  set(m.mom1.keywords, "BUNIT", m.world ? m.spectral_unit : std::string(" "));
  set(m.mom2.keywords, "BUNIT", m.world ? m.spectral_unit : std::string(" "));
  m.chan.integer.assign(plane, 0);
  m.chan.keywords = image_keywords(header, false, true);
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
  // is added to the float map (moment 1 and 2 over positive flux only: its threshold 0).
  std::vector<float> positive(plane, 0.0F);
  for (std::size_t z = cube.nz; z-- > 0;) {
    const std::size_t base = z * plane;
    for (std::size_t i = 0; i < plane; ++i) {
      if (labels[base + i] == 0) continue;
      const double flux = data[base + i];
      m.mom0.real[i] += static_cast<float>(flux);
      m.chan.integer[i] += 1;
      if (flux > 0.0) {
        m.mom1.real[i] += static_cast<float>(flux * spectral[z]);
        positive[i] += static_cast<float>(flux);
      }
    }
  }
  for (std::size_t i = 0; i < plane; ++i)
    m.mom1.real[i] = positive[i] > 0.0F
                         ? static_cast<float>(static_cast<double>(m.mom1.real[i]) / static_cast<double>(positive[i]))
                         : not_a_number;
  for (std::size_t z = cube.nz; z-- > 0;) {
    const std::size_t base = z * plane;
    for (std::size_t i = 0; i < plane; ++i) {
      if (labels[base + i] == 0) continue;
      const double flux = data[base + i];
      if (flux > 0.0) {
        const double offset = static_cast<double>(m.mom1.real[i]) - spectral[z];
        m.mom2.real[i] += static_cast<float>(offset * offset * flux);
      }
    }
  }
  for (std::size_t i = 0; i < plane; ++i) {
    const double sum = positive[i];
    const double sigma = m.mom2.real[i];
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
  // SoFiA-2's mask cube carries the cube's WCS and BUNIT ' ' (no beam); its 2-D mask copies those.
  map.keywords = image_keywords(header, false, false);
  set(map.keywords, "BUNIT", " ");
  return map;
}

void write_image_map(const std::string& path, const ImageMap& map, std::size_t nx, std::size_t ny) {
  const bool integer = !map.integer.empty();
  AS_ASSERT((integer ? map.integer.size() : map.real.size()) == nx * ny);
  const std::string part = path + ".part";
  std::error_code ec;
  std::filesystem::remove(part, ec);
  {
    fits::File file(part, fits::create_new);
    int status = 0;
    long naxes[2] = {static_cast<long>(nx), static_cast<long>(ny)};
    fits_create_img(file.get(), integer ? LONG_IMG : FLOAT_IMG, 2, naxes, &status);
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
    if (integer)
      fits_write_img(file.get(), TINT, 1, static_cast<LONGLONG>(nx * ny), const_cast<std::int32_t*>(map.integer.data()),
                     &status);
    else
      fits_write_img(file.get(), TFLOAT, 1, static_cast<LONGLONG>(nx * ny), const_cast<float*>(map.real.data()),
                     &status);
    file.check_write(status, "writing the image");
    file.close();
  }
  std::filesystem::rename(part, path, ec);
  AS_EXPECTS(!ec, OutputError, "cannot rename '" + part + "' to '" + path + "': " + ec.message(),
             "check the permissions of the output directory");
}

}  // namespace astrosweep::scfind
