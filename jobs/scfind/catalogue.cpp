#include "catalogue.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <optional>

#include "core/error.hpp"
#include "noise.hpp"

namespace astrosweep::scfind {

const std::vector<CatalogueKey> catalogue_keys{
    {"parameter.enable", "measure the sources: positions, fluxes, widths, shapes, errors [true]"},
    {"parameter.wcs", "world coordinates and names from the cube's WCS (wcslib) [true]"},
    {"parameter.physical", "f_sum, line widths and errors in physical units (BUNIT Jy/beam only) [false]"},
    {"parameter.prefix", "source names' prefix [SoFiA]"},
    {"parameter.offset", "shift positions by input.region's origin (input.region is not supported: no effect) [false]"},
    {"output.writeCatASCII", "write SoFiA-2's plain-text catalogue <product stem>_cat.txt [true]"},
    {"output.writeCatXML", "write SoFiA-2's VOTable catalogue <product stem>_cat.xml [true]"},
    {"output.writeCatSQL", "write SoFiA-2's SQL catalogue <product stem>_cat.sql [false]"},
};

namespace {

bool parse_switch(const std::string& key, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw UsageError(key + ": '" + text + "' is not true or false", "write true or false");
}

std::string parse_prefix(const std::string& key, const std::string& text) {
  bool ok = !text.empty() && text.size() <= 20;
  for (char c : text)
    if (c <= ' ' || c > '~' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '&' || c == '`') ok = false;
  AS_EXPECTS(ok, UsageError,
             key + ": '" + text +
                 "' cannot start a source name (1 to 20 printable characters without spaces, quotes, <, > or &)",
             "write a prefix such as SoFiA or WALLABY");
  return text;
}

template <class Parse, class T>
void take(const std::map<std::string, std::string>& values, const char* key, Parse parse, T& field) {
  const auto it = values.find(key);
  if (it != values.end()) field = parse(key, it->second);
}

}  // namespace

CatalogueParameters catalogue_parameters_from_text(const std::map<std::string, std::string>& values,
                                                   const CatalogueParameters& fallback) {
  CatalogueParameters p = fallback;
  take(values, "parameter.enable", parse_switch, p.enable);
  take(values, "parameter.wcs", parse_switch, p.wcs);
  take(values, "parameter.physical", parse_switch, p.physical);
  take(values, "parameter.prefix", parse_prefix, p.prefix);
  take(values, "parameter.offset", parse_switch, p.offset);
  return p;
}

CatalogueFiles catalogue_files_from_text(const std::map<std::string, std::string>& values,
                                         const CatalogueFiles& fallback) {
  CatalogueFiles f = fallback;
  take(values, "output.writeCatASCII", parse_switch, f.ascii);
  take(values, "output.writeCatXML", parse_switch, f.xml);
  take(values, "output.writeCatSQL", parse_switch, f.sql);
  return f;
}

std::vector<std::pair<std::string, std::string>> catalogue_parameters_as_text(const CatalogueParameters& p,
                                                                              const CatalogueFiles& f) {
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  return {{"parameter.enable", flag(p.enable)},     {"parameter.wcs", flag(p.wcs)},
          {"parameter.physical", flag(p.physical)}, {"parameter.prefix", p.prefix},
          {"parameter.offset", flag(p.offset)},     {"output.writeCatASCII", flag(f.ascii)},
          {"output.writeCatXML", flag(f.xml)},      {"output.writeCatSQL", flag(f.sql)}};
}

const CatalogueColumn* Catalogue::find(const std::string& name) const {
  for (const auto& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

double local_median_magnitude(std::vector<double> values) {
  // SoFiA-2 walks the list from its end down to, but not including, its first element.
  std::vector<double> kept;
  kept.reserve(values.size());
  for (std::size_t i = values.size(); i-- > 1;)
    if (!std::isnan(values[i])) kept.push_back(std::fabs(values[i]));
  if (kept.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t half = kept.size() / 2;
  std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(half), kept.end());
  const double upper = kept[half];
  if (kept.size() % 2 == 1) return upper;
  const double lower = *std::max_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(half));
  return (upper + lower) / 2.0;
}

SampleRange global_noise_samples(const CubeShape& cube) {
  const std::size_t cadence = noise_cadence(cube);
  return without_index_zero(samples_in(cube.voxels(), cadence, 0, cube.voxels()), cadence);
}

double global_noise_of_samples(const CubeShape& cube, std::span<const float> samples) {
  AS_ASSERT(samples.size() == global_noise_samples(cube).count);
  HostMagnitudes magnitudes(samples, FluxRange::negative);
  return mad_noise(magnitudes, FluxRange::negative, cube.voxels(), noise_cadence(cube), SlabChain{});
}

double global_noise(const CubeShape& cube, std::span<const float> data) {
  const std::size_t cadence = noise_cadence(cube);
  const SampleRange range = global_noise_samples(cube);
  std::vector<float> samples(range.count);
  for (std::uint64_t k = 0; k < range.count; ++k) {
    const float v = data[range.highest - k * cadence];
    samples[k] = std::isfinite(v) ? v : std::numeric_limits<float>::quiet_NaN();  // SoFiA-2 blanks infinities
  }
  return global_noise_of_samples(cube, samples);
}

namespace {

struct Shape {
  double maj = 0, min = 0, pa = 0;
};

// SoFiA-2's moment_ellipse_fit_dbl, one of its two fits from the second moments.
Shape ellipse(double mxx, double myy, double mxy, double weight) {
  Shape s;
  mxx /= weight;
  myy /= weight;
  mxy /= weight;
  const double root = std::sqrt((mxx - myy) * (mxx - myy) + 4.0 * mxy * mxy);
  s.pa = 0.5 * std::atan2(2.0 * mxy, mxx - myy);
  s.maj = std::sqrt(2.0 * (mxx + myy + root));
  s.min = std::sqrt(2.0 * (mxx + myy - root));
  s.pa = s.pa * 180.0 / std::numbers::pi - 90.0;
  while (s.pa < -90.0) s.pa += 180.0;
  return s;
}

// w20 or w50: from each end of the spectrum inwards to the first channel at `fraction` of the
// peak, interpolated linearly against the channel outside it.
double line_width(const std::vector<double>& spectrum, double fraction) {
  double peak = -std::numeric_limits<double>::infinity();
  for (std::size_t i = spectrum.size(); i-- > 0;)
    if (spectrum[i] > peak) peak = spectrum[i];
  const double level = fraction * peak;
  const std::size_t n = spectrum.size();
  std::size_t lo = 0;
  while (lo < n && spectrum[lo] < level) ++lo;
  if (lo >= n) return 0.0;
  auto w = static_cast<double>(lo);
  if (lo > 0) w -= (spectrum[lo] - level) / (spectrum[lo] - spectrum[lo - 1]);
  std::size_t hi = n - 1;
  while (hi < n && spectrum[hi] < level) --hi;  // unsigned: stops past 0 as SoFiA-2's loop does
  w = static_cast<double>(hi) - w;
  if (hi < n - 1) w += (spectrum[hi] - level) / (spectrum[hi] - spectrum[hi + 1]);
  return w;
}

// wm50 (Courtois et al. 2009, as SoFiA-2 has it): width at half the mean flux density inside the
// window holding 90 % of the flux.
double wm50_width(const std::vector<double>& spectrum) {
  const std::size_t n = spectrum.size();
  double flux = 0.0;
  for (std::size_t i = n; i-- > 0;)
    if (!std::isnan(spectrum[i])) flux += spectrum[i];
  if (flux <= 0.0 || std::isnan(flux)) return 0.0;
  // SoFiA-2's loops have no bounds; they stay inside the spectrum for any spectrum of positive
  // flux but the most contrived, and stop at its ends here where SoFiA-2 would read past them.
  std::size_t lower = 0;
  double flux_lower = spectrum[lower];
  while (flux_lower < 0.05 * flux && lower + 1 < n) flux_lower += spectrum[++lower];
  std::size_t upper = n - 1;
  double flux_upper = spectrum[upper];
  while (flux_upper < 0.05 * flux && upper > 0) flux_upper += spectrum[--upper];
  if (upper <= lower) return 0.0;
  double lower_intp = static_cast<double>(lower) - (flux_lower - 0.05 * flux) / spectrum[lower];
  double upper_intp = static_cast<double>(upper) + (flux_upper - 0.05 * flux) / spectrum[upper];
  const double flux_mean = 0.9 * flux / (upper_intp - lower_intp);
  lower = 0;
  upper = n - 1;
  while (spectrum[lower] < 0.5 * flux_mean && lower + 1 < n) ++lower;
  while (spectrum[upper] < 0.5 * flux_mean && upper > 0) --upper;
  lower_intp = static_cast<double>(lower);
  upper_intp = static_cast<double>(upper);
  if (lower > 0) lower_intp -= (spectrum[lower] - 0.5 * flux_mean) / (spectrum[lower] - spectrum[lower - 1]);
  if (upper < n - 1) upper_intp += (spectrum[upper] - 0.5 * flux_mean) / (spectrum[upper] - spectrum[upper + 1]);
  return upper_intp - lower_intp;
}

// The kinematic major axis: an orthogonal (Deming) line through the per-channel centroids weighted
// by the channel's summed flux squared, turned towards the upper end of the channel range.
double kinematic_pa(const std::vector<double>& cx, const std::vector<double>& cy, const std::vector<double>& sum,
                    std::size_t first, std::size_t last) {
  const std::size_t n = sum.size();
  double sw = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (sum[i] > 0.0) {
      const double w = sum[i] * sum[i];
      sw += w;
      sx += w * cx[i];
      sy += w * cy[i];
    }
  sx /= sw;
  sy /= sw;
  for (std::size_t i = 0; i < n; ++i)
    if (sum[i] > 0.0) {
      const double w = sum[i] * sum[i];
      sxx += w * (cx[i] - sx) * (cx[i] - sx);
      syy += w * (cy[i] - sy) * (cy[i] - sy);
      sxy += w * (cx[i] - sx) * (cy[i] - sy);
    }
  const double slope = (syy - sxx + std::sqrt((syy - sxx) * (syy - sxx) + 4.0 * sxy * sxy)) / (2.0 * sxy);
  double pa = std::atan(slope);
  double x_first = 0, x_last = 0, y_first = 0, y_last = 0;
  std::size_t n_first = 0, n_last = 0;
  for (std::size_t i = 0; i < n / 2; ++i) {
    if (sum[i] > 0.0) {
      x_first += cx[i];
      y_first += cy[i];
      ++n_first;
    }
    if (sum[n - i - 1] > 0.0) {
      x_last += cx[n - i - 1];
      y_last += cy[n - i - 1];
      ++n_last;
    }
  }
  double full = 0.0;
  if (n_first > 0 && n_last > 0) {
    x_first /= static_cast<double>(n_first);
    y_first /= static_cast<double>(n_first);
    x_last /= static_cast<double>(n_last);
    y_last /= static_cast<double>(n_last);
    full = std::atan2(y_last - y_first, x_last - x_first);
  } else {
    full = std::atan2(cy[last] - cy[first], cx[last] - cx[first]);
  }
  const double difference = std::fabs(std::atan2(std::sin(full) * std::cos(pa) - std::cos(full) * std::sin(pa),
                                                 std::cos(full) * std::cos(pa) + std::sin(full) * std::sin(pa)));
  if (difference > std::numbers::pi / 2.0) pa += std::numbers::pi;
  pa = 180.0 * pa / std::numbers::pi - 90.0;
  while (pa < 0.0) pa += 360.0;
  while (pa >= 360.0) pa -= 360.0;
  return pa;
}

// SoFiA-2's flood fill of one source (DataCube_process_stack): from its voxel of highest index, a
// stack of voxels; each popped voxel's neighbourhood (the box of the radii less SoFiA-2's integer
// ellipsoid test) is scanned z, y, x ascending, and every voxel of the source not yet met is
// visited and pushed. `visit` gets the source's voxels in that order, as their value in `cut`
// (which holds the source's box; a neighbour outside it reads label 0, never the source's).
template <class Visit>
void linker_order(const CubeShape& cube, const SourceCutout& cut, const Component& c, const LinkerParameters& p,
                  Visit&& visit) {
  AS_ASSERT(cut.box.contains(c.x_min, c.y_min, c.z_min) && cut.box.contains(c.x_max, c.y_max, c.z_max));
  const std::int32_t id = cut.id;
  const std::size_t nx = c.size_x(), ny = c.size_y();
  std::vector<std::uint8_t> met(nx * ny * c.size_z(), 0);
  auto local = [&](std::size_t x, std::size_t y, std::size_t z) {
    return (x - c.x_min) + nx * ((y - c.y_min) + ny * (z - c.z_min));
  };
  const std::uint64_t rx2 = std::uint64_t{p.radius_xy} * p.radius_xy, ry2 = rx2,
                      rz2 = std::uint64_t{p.radius_z} * p.radius_z;
  const std::uint64_t limit = rx2 * ry2 * rz2;
  std::vector<std::uint64_t> stack{c.highest};
  const std::size_t plane = cube.plane();
  {
    const std::size_t i = c.highest;
    const std::size_t x = i % cube.nx, y = (i / cube.nx) % cube.ny, z = i / plane;
    met[local(x, y, z)] = 1;
    visit(cut.value(x, y, z));
  }
  while (!stack.empty()) {
    const std::uint64_t i = stack.back();
    stack.pop_back();
    const std::size_t x = i % cube.nx, y = (i / cube.nx) % cube.ny, z = i / plane;
    const std::size_t x1 = x > p.radius_xy ? x - p.radius_xy : 0, y1 = y > p.radius_xy ? y - p.radius_xy : 0,
                      z1 = z > p.radius_z ? z - p.radius_z : 0;
    const std::size_t x2 = std::min(x + p.radius_xy, cube.nx - 1), y2 = std::min(y + p.radius_xy, cube.ny - 1),
                      z2 = std::min(z + p.radius_z, cube.nz - 1);
    for (std::size_t zz = z1; zz <= z2; ++zz) {
      const std::uint64_t dz = zz > z ? zz - z : z - zz;
      for (std::size_t yy = y1; yy <= y2; ++yy) {
        const std::uint64_t dy = yy > y ? yy - y : y - yy;
        for (std::size_t xx = x1; xx <= x2; ++xx) {
          const std::uint64_t dx = xx > x ? xx - x : x - xx;
          if (dx * dx * ry2 * rz2 + dy * dy * rx2 * rz2 + dz * dz * rx2 * ry2 > limit) continue;
          if (cut.label(xx, yy, zz) != id) continue;
          std::uint8_t& seen = met[local(xx, yy, zz)];
          if (seen != 0) continue;
          seen = 1;
          visit(cut.value(xx, yy, zz));
          stack.push_back(zz * plane + yy * cube.nx + xx);
        }
      }
    }
  }
}

std::string formatted(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string formatted_int(const char* format, int value) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// SoFiA-2's DataCube_create_src_name, with WCS.
std::string wcs_name(const std::string& prefix, double lon, double lat, bool equatorial, const CubeHeader& header) {
  std::string name = prefix + " ";
  if (equatorial) {
    double equinox = header.number("EQUINOX");
    if (std::isnan(equinox)) equinox = header.number("EPOCH");
    name += equinox < 2000.0 ? "B" : "J";
    const double ra = lon / 15.0;
    const double rah = std::floor(ra);
    const double ram = std::floor(60.0 * (ra - rah));
    const double ras = 3600.0 * (ra - rah - ram / 60.0);
    const bool wallaby = prefix == "WALLABY";
    name += formatted_int("%02d", static_cast<int>(rah)) + formatted_int("%02d", static_cast<int>(ram));
    name += wallaby ? formatted_int("%02d", static_cast<int>(ras)) : formatted("%05.2f", ras);
    const double de = std::fabs(lat);
    const double ded = std::floor(de);
    const double dem = std::floor(60.0 * (de - ded));
    const double des = 3600.0 * (de - ded - dem / 60.0);
    name += lat < 0.0 ? "-" : "+";
    name += formatted_int("%02d", static_cast<int>(ded)) + formatted_int("%02d", static_cast<int>(dem));
    name += wallaby ? formatted_int("%02d", static_cast<int>(des)) : formatted("%04.1f", des);
  } else {
    // SoFiA-2 tests the axis label against "glon" while naming it "l", so Galactic coordinates
    // take this generic form too; its sign comes from the longitude (kept).
    name += formatted("%08.4f", lon);
    name += lon < 0.0 ? "-" : "+";
    name += formatted("%07.4f", lat);
  }
  return name;
}

/// What DataCube_get_wcs_info takes from the header.
struct AxisInfo {
  std::string unit_flux_dens, unit_flux;
  std::string label_lon = "lon", label_lat = "lat", label_spec = "spec";
  std::string ucd_lon, ucd_lat, ucd_spec;
  std::string unit_lon, unit_lat, unit_spec;
  double beam_area = 1.0, chan_size = 1.0;
};

AxisInfo axis_info(const CubeHeader& h) {
  AxisInfo a;
  a.unit_flux_dens = h.text("BUNIT");
  if (a.unit_flux_dens.empty()) a.unit_flux_dens = "???";
  if (a.unit_flux_dens == "JY/BEAM" || a.unit_flux_dens == "Jy/Beam") a.unit_flux_dens = "Jy/beam";
  a.unit_flux = a.unit_flux_dens;
  a.unit_lon = h.text("CUNIT1");
  a.unit_lat = h.text("CUNIT2");
  a.unit_spec = h.text("CUNIT3");
  if (a.unit_lon.empty()) a.unit_lon = "deg";
  if (a.unit_lat.empty()) a.unit_lat = "deg";
  if (h.starts_with("CTYPE1", "RA--")) {
    a.label_lon = "ra";
    a.ucd_lon = "pos.eq.ra";
  } else if (h.starts_with("CTYPE1", "GLON")) {
    a.label_lon = "l";
    a.ucd_lon = "pos.galactic.lon";
  }
  if (h.starts_with("CTYPE2", "DEC-")) {
    a.label_lat = "dec";
    a.ucd_lat = "pos.eq.dec";
  } else if (h.starts_with("CTYPE2", "GLAT")) {
    a.label_lat = "b";
    a.ucd_lat = "pos.galactic.lat";
  }
  auto spectral = [&](const char* label, const char* ucd, const char* unit) {
    a.label_spec = label;
    a.ucd_spec = ucd;
    if (a.unit_spec.empty()) a.unit_spec = unit;
  };
  if (h.starts_with("CTYPE3", "FREQ"))
    spectral("freq", "em.freq", "Hz");
  else if (h.starts_with("CTYPE3", "VRAD"))
    spectral("v_rad", "spect.dopplerVeloc.radio", "m/s");
  else if (h.starts_with("CTYPE3", "VOPT") || h.starts_with("CTYPE3", "FELO"))
    spectral("v_opt", "spect.dopplerVeloc.opt", "m/s");
  else if (h.starts_with("CTYPE3", "VELO"))
    spectral("v_app", "spect.dopplerVeloc", "m/s");
  else if (a.unit_spec.empty())
    a.unit_spec = "???";
  a.chan_size = std::fabs(h.number("CDELT3"));
  if (std::isnan(a.chan_size)) a.chan_size = 1.0;
  const double bmaj = h.number("BMAJ"), bmin = h.number("BMIN"), pixel = h.number("CDELT2");
  if (std::isnan(bmaj) || std::isnan(bmin) || std::isnan(pixel) || bmaj == 0.0 || bmin == 0.0 || pixel == 0.0) {
    a.beam_area = 1.0;
    a.unit_flux += "*" + a.unit_spec;
  } else {
    a.beam_area = std::numbers::pi * bmaj * bmin / (4.0 * std::log(2.0) * pixel * pixel);
    a.unit_flux = "Jy*" + a.unit_spec;
  }
  return a;
}

/// Columns by name, added in the order SoFiA-2 first sets them.
class Columns {
 public:
  CatalogueColumn& at(const std::string& name, const std::string& unit, const std::string& ucd, const char* description,
                      bool integer) {
    for (auto& c : columns)
      if (c.name == name) {
        c.unit = unit;
        c.ucd = ucd;
        return c;
      }
    CatalogueColumn c;
    c.name = name;
    c.unit = unit;
    c.ucd = ucd;
    c.description = description;
    c.integer = integer;
    columns.push_back(std::move(c));
    return columns.back();
  }
  void real(const std::string& name, double v, const std::string& unit, const std::string& ucd,
            const char* description) {
    auto& c = at(name, unit, ucd, description, false);
    c.real.resize(row + 1, 0.0);
    c.real[row] = v;
  }
  void whole(const std::string& name, std::int64_t v, const std::string& unit, const std::string& ucd,
             const char* description) {
    auto& c = at(name, unit, ucd, description, true);
    c.whole.resize(row + 1, 0);
    c.whole[row] = v;
  }
  std::vector<CatalogueColumn> columns;
  std::size_t row = 0;
};

}  // namespace

std::vector<SourceMoments> linker_moments(const SourceCutouts& cutouts, std::span<const Component> sources,
                                          const LinkerParameters& linker, double rms) {
  AS_ASSERT(cutouts.sources.size() == sources.size());
  std::vector<SourceMoments> moments(sources.size());
  const double rms_inv = 1.0 / rms;
  for (std::size_t s = 0; s < sources.size(); ++s)
    linker_order(cutouts.cube, cutouts.sources[s], sources[s], linker,
                 [&](float value) { moments[s].add(static_cast<double>(value) * rms_inv); });
  return moments;
}

std::vector<SourceMoments> linker_moments(const CubeShape& cube, std::span<const std::int32_t> labels,
                                          std::span<const float> data, std::span<const Component> sources,
                                          const LinkerParameters& linker, double rms) {
  return linker_moments(cut_sources(cube, sources, 0, labels, data), sources, linker, rms);
}

Catalogue make_catalogue(const CubeShape& cube, std::span<const std::int32_t> labels, std::span<const float> data,
                         const LinkedSources& linked, const LinkerParameters& linker, double global_rms,
                         const CubeHeader& header, const CatalogueParameters& parameters) {
  return make_catalogue(cut_sources(cube, linked.sources, 0, labels, data), linked.sources, linked.reliability, linker,
                        global_rms, header, parameters);
}

Catalogue make_catalogue(const SourceCutouts& cutouts, std::span<const Component> sources,
                         std::span<const double> reliability, const LinkerParameters& linker, double global_rms,
                         const CubeHeader& header, const CatalogueParameters& parameters) {
  AS_ASSERT(cutouts.sources.size() == sources.size());
  AS_ASSERT(reliability.empty() || reliability.size() == sources.size());
  const CubeShape& cube = cutouts.cube;
  // The unit sofia.c gives the linker's catalogue: BUNIT as written (trimmed), or ???.
  std::string bunit = header.text("BUNIT");
  if (bunit.empty()) bunit = "???";
  const AxisInfo axes = axis_info(header);
  std::optional<WorldCoordinates> wcs;
  if (parameters.enable && parameters.wcs) wcs = WorldCoordinates::from(header);
  const bool physical = parameters.enable && parameters.physical && axes.unit_flux_dens == "Jy/beam";
  const double rms_inv = 1.0 / global_rms;

  Catalogue cat;
  Columns col;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    col.row = s;
    const Component& c = sources[s];
    const SourceCutout& cut = cutouts.sources[s];
    const std::int32_t id = cut.id;
    AS_ASSERT(id == static_cast<std::int32_t>(s + 1));
    const std::size_t x0 = c.x_min, y0 = c.y_min, z0 = c.z_min;
    const std::size_t nx = c.size_x(), ny = c.size_y(), nz = c.size_z();
    const bool negative = c.sum.sign() < 0;  // SoFiA-2: its linker's sum, in double

    // The linker's statistics, in units of the global rms, in the order SoFiA-2's flood fill meets
    // the voxels (its running moments depend on that order in their last digits).
    SourceMoments moments;
    double lin_min = std::numeric_limits<double>::infinity(), lin_max = -lin_min, lin_sum = 0;
    linker_order(cube, cut, c, linker, [&](float value) {
      const double scaled = static_cast<double>(value) * rms_inv;
      moments.add(scaled);
      lin_min = std::min(lin_min, scaled);
      lin_max = std::max(lin_max, scaled);
      lin_sum += scaled;
    });
    // First pass over the bounding box, in index order.
    double f_sum = 0, f_min = std::numeric_limits<double>::infinity(), f_max = -f_min;
    double pos_x = 0, pos_y = 0, pos_z = 0, sum_pos = 0;
    std::vector<double> moment_map(nx * ny, 0.0), spectrum(nz, 0.0), around;
    std::vector<std::size_t> count_map(nx * ny, 0);
    for (std::size_t z = z0; z <= c.z_max; ++z)
      for (std::size_t y = y0; y <= c.y_max; ++y)
        for (std::size_t x = x0; x <= c.x_max; ++x) {
          const std::size_t i = cut.box.local(x, y, z);
          const float raw = cut.data[i];
          const double original =
              std::isfinite(raw) ? static_cast<double>(raw) : std::numeric_limits<double>::quiet_NaN();
          const double value = negative ? -original : original;
          if (cut.labels[i] == id) {
            f_sum += value;
            if (f_min > value) f_min = value;
            if (f_max < value) f_max = value;
            moment_map[(x - x0) + nx * (y - y0)] += value;
            count_map[(x - x0) + nx * (y - y0)] += 1;
            spectrum[z - z0] += value;
            if (value > 0.0) {
              pos_x += value * static_cast<double>(x);
              pos_y += value * static_cast<double>(y);
              pos_z += value * static_cast<double>(z);
              sum_pos += value;
            }
          } else if (cut.labels[i] == 0) {
            around.push_back(value);
          }
        }

    // The linker's catalogue (LinkerPar_make_catalog).
    const auto n = static_cast<double>(c.voxels);
    const double fill = n / static_cast<double>(nx * ny * nz);
    col.whole("id", id, "", "meta.id", "source id (SoFiA-2's numbering)");
    col.real("x", 0.0, "pix", "pos.cartesian.x",
             "flux-weighted centroid x of the positive voxels, 0-based (0 without parameter.enable)");
    col.real("y", 0.0, "pix", "pos.cartesian.y",
             "flux-weighted centroid y of the positive voxels, 0-based (0 without parameter.enable)");
    col.real("z", 0.0, "pix", "pos.cartesian.z",
             "flux-weighted centroid z of the positive voxels, 0-based (0 without parameter.enable)");
    col.whole("x_min", static_cast<std::int64_t>(c.x_min), "pix", "pos.cartesian.x;stat.min", "bounding box");
    col.whole("x_max", static_cast<std::int64_t>(c.x_max), "pix", "pos.cartesian.x;stat.max", "bounding box");
    col.whole("y_min", static_cast<std::int64_t>(c.y_min), "pix", "pos.cartesian.y;stat.min", "bounding box");
    col.whole("y_max", static_cast<std::int64_t>(c.y_max), "pix", "pos.cartesian.y;stat.max", "bounding box");
    col.whole("z_min", static_cast<std::int64_t>(c.z_min), "pix", "pos.cartesian.z;stat.min", "bounding box");
    col.whole("z_max", static_cast<std::int64_t>(c.z_max), "pix", "pos.cartesian.z;stat.max", "bounding box");
    col.whole("n_pix", static_cast<std::int64_t>(c.voxels), "", "meta.number;instr.pixel", "voxels in the source");
    const char* d_fmin = "smallest voxel value";
    const char* d_fmax = "largest voxel value";
    const char* d_fsum = "summed voxel values (physical: times channel width over beam area)";
    col.real("f_min", lin_min, bunit, "phot.flux.density;stat.min", d_fmin);
    col.real("f_max", lin_max, bunit, "phot.flux.density;stat.max", d_fmax);
    col.real("f_sum", lin_sum, bunit, "phot.flux", d_fsum);
    col.real("rel", reliability.empty() ? 0.0 : reliability[s], "", "stat.probability",
             "SoFiA-2's reliability (0: reliability filter off)");
    col.whole("flag", c.flags, "", "meta.code.qual",
              "1: touches the x/y edge, 2: the z edge, 4: a blank within the merge radius");
    col.real("fill", fill, "", "stat.filling", "voxels over bounding-box volume");
    col.real("mean", moments.m1, bunit, "phot.flux.density;stat.mean", "mean voxel value in units of the global noise");
    col.real("std", std::sqrt(moments.m2 / (n - 1.0)), bunit, "phot.flux.density;stat.stdev",
             "standard deviation of the voxel values in units of the global noise");
    col.real("skew", std::sqrt(n) * moments.m3 / std::pow(moments.m2, 1.5), "", "stat.param",
             "skewness of the voxel values");
    col.real("kurt", n * moments.m4 / (moments.m2 * moments.m2) - 3.0, "", "stat.param",
             "excess kurtosis of the voxel values");
    if (!parameters.enable) {
      cat.names.push_back(std::to_string(id));
      continue;
    }

    // DataCube_parameterise.
    pos_x /= sum_pos;
    pos_y /= sum_pos;
    pos_z /= sum_pos;
    std::size_t x_peak = 0, y_peak = 0, z_peak = 0;
    double peak = 0.0;
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x)
        if (moment_map[x + nx * y] > peak) {
          peak = moment_map[x + nx * y];
          x_peak = x + x0;
          y_peak = y + y0;
        }
    peak = 0.0;
    for (std::size_t z = 0; z < nz; ++z)
      if (spectrum[z] > peak) {
        peak = spectrum[z];
        z_peak = z + z0;
      }
    // No non-source voxel in the box: SoFiA-2 warns and takes 0. Only the first one (which its walk
    // skips) or only blanks: SoFiA-2 takes the median of nothing, an uninitialised read (a tiny
    // subnormal in practice, different from run to run): 0 here too, which gives the same 3-rms
    // selections for ell3s_* and kin_pa as a tiny positive rms does.
    const double median = around.empty() ? 0.0 : local_median_magnitude(std::move(around));
    const double rms = std::isnan(median) ? 0.0 : mad_to_std * median;

    // Second pass: position errors and the per-channel centroids above 3 rms.
    double err_x = 0, err_y = 0, err_z = 0;
    std::vector<double> kx(nz, 0.0), ky(nz, 0.0), ksum(nz, 0.0);
    std::size_t k_first = nz - 1, k_last = 0, k_count = 0;
    for (std::size_t z = z0; z <= c.z_max; ++z) {
      const std::size_t k = z - z0;
      for (std::size_t y = y0; y <= c.y_max; ++y)
        for (std::size_t x = x0; x <= c.x_max; ++x) {
          const std::size_t i = cut.box.local(x, y, z);
          if (cut.labels[i] != id) continue;
          const double value = negative ? -static_cast<double>(cut.data[i]) : static_cast<double>(cut.data[i]);
          if (value > 0.0) {
            err_x += (static_cast<double>(x) - pos_x) * (static_cast<double>(x) - pos_x);
            err_y += (static_cast<double>(y) - pos_y) * (static_cast<double>(y) - pos_y);
            err_z += (static_cast<double>(z) - pos_z) * (static_cast<double>(z) - pos_z);
          }
          if (value > 3.0 * rms) {
            kx[k] += value * static_cast<double>(x);
            ky[k] += value * static_cast<double>(y);
            ksum[k] += value;
          }
        }
      if (ksum[k] > 0.0) {
        kx[k] /= ksum[k];
        ky[k] /= ksum[k];
        ++k_count;
        k_first = std::min(k_first, k);
        k_last = std::max(k_last, k);
      }
    }
    const double kin_pa = k_count < 2 ? -1.0 : kinematic_pa(kx, ky, ksum, k_first, k_last);

    // Ellipses fitted to the moment-0 map: flux-weighted, and the pixels above 3 rms.
    Shape ell, ell3s;
    {
      const double cx = pos_x - static_cast<double>(x0), cy = pos_y - static_cast<double>(y0);
      double mx = 0, my = 0, mxy = 0, sum = 0, mx3 = 0, my3 = 0, mxy3 = 0, sum3 = 0;
      for (std::size_t y = 0; y < ny; ++y)
        for (std::size_t x = 0; x < nx; ++x) {
          const double value = moment_map[x + nx * y];
          if (!(value > 0.0)) continue;
          const double dx = static_cast<double>(x) - cx, dy = static_cast<double>(y) - cy;
          mx += dx * dx * value;
          my += dy * dy * value;
          mxy += dx * dy * value;
          sum += value;
          if (value > 3.0 * rms * std::sqrt(static_cast<double>(count_map[x + nx * y]))) {
            mx3 += dx * dx;
            my3 += dy * dy;
            mxy3 += dx * dy;
            sum3 += 1.0;
          }
        }
      if (sum > 0.0) ell = ellipse(mx, my, mxy, sum);
      if (sum3 > 0.0) ell3s = ellipse(mx3, my3, mxy3, sum3);
    }
    const double w20 = line_width(spectrum, 0.2), w50 = line_width(spectrum, 0.5), wm50 = wm50_width(spectrum);
    err_x = std::sqrt(err_x) * rms / sum_pos;
    err_y = std::sqrt(err_y) * rms / sum_pos;
    err_z = std::sqrt(err_z) * rms / sum_pos;
    const double err_f_sum = rms * std::sqrt(n);

    std::array<double, 3> world{0, 0, 0}, world_peak{0, 0, 0};
    if (wcs) {
      if (auto w = wcs->to_world(pos_x, pos_y, pos_z)) world = *w;
      if (auto w = wcs->to_world(static_cast<double>(x_peak), static_cast<double>(y_peak), static_cast<double>(z_peak)))
        world_peak = *w;
      cat.names.push_back(wcs_name(parameters.prefix, world[0], world[1], axes.label_lon == "ra", header));
    } else {
      char text[64];
      std::snprintf(text, sizeof text, "%s-%04d", parameters.prefix.c_str(), id);
      cat.names.emplace_back(text);
    }
    if (negative) {
      std::swap(f_min, f_max);
      f_min = -f_min;
      f_max = -f_max;
      f_sum = -f_sum;
    }
    const std::string& ufd = axes.unit_flux_dens;
    col.real("x", pos_x, "pix", "pos.cartesian.x", "");
    col.real("y", pos_y, "pix", "pos.cartesian.y", "");
    col.real("z", pos_z, "pix", "pos.cartesian.z", "");
    col.real("rms", rms, ufd, "instr.det.noise",
             "local noise: 1.4826 x median |value| of the bounding box's non-source voxels");
    col.real("f_min", f_min, ufd, "phot.flux.density;stat.min", d_fmin);
    col.real("f_max", f_max, ufd, "phot.flux.density;stat.max", d_fmax);
    const char* d_w20 = "line width at 20 % of the spectrum's peak";
    const char* d_w50 = "line width at 50 % of the spectrum's peak";
    const char* d_wm50 = "line width at 50 % of the mean flux density (Courtois et al. 2009)";
    if (physical) {
      col.real("f_sum", f_sum * axes.chan_size / axes.beam_area, axes.unit_flux, "phot.flux", d_fsum);
      col.real("w20", w20 * axes.chan_size, axes.unit_spec, "spect.line.width", d_w20);
      col.real("w50", w50 * axes.chan_size, axes.unit_spec, "spect.line.width", d_w50);
      col.real("wm50", wm50 * axes.chan_size, axes.unit_spec, "spect.line.width", d_wm50);
    } else {
      col.real("f_sum", f_sum, ufd, "phot.flux", d_fsum);
      col.real("w20", w20, "pix", "spect.line.width", d_w20);
      col.real("w50", w50, "pix", "spect.line.width", d_w50);
      col.real("wm50", wm50, "pix", "spect.line.width", d_wm50);
    }
    col.real("ell_maj", ell.maj, "pix", "phys.angSize", "major axis of the ellipse fitted to the moment-0 map");
    col.real("ell_min", ell.min, "pix", "phys.angSize", "minor axis of that ellipse");
    col.real("ell_pa", ell.pa, "deg", "pos.posAng", "position angle of that ellipse (pixel grid, 0 up)");
    col.real("ell3s_maj", ell3s.maj, "pix", "phys.angSize",
             "major axis of the ellipse of the moment-0 pixels above 3 rms");
    col.real("ell3s_min", ell3s.min, "pix", "phys.angSize", "minor axis of that ellipse");
    col.real("ell3s_pa", ell3s.pa, "deg", "pos.posAng", "position angle of that ellipse");
    col.real("kin_pa", kin_pa, "deg", "pos.posAng", "kinematic major axis position angle; -1: not measurable");
    const char* d_err = "statistical uncertainty of the centroid";
    const char* d_errf = "statistical uncertainty of f_sum";
    if (physical) {
      const double root_beam = std::sqrt(axes.beam_area);
      col.real("err_x", err_x * root_beam, "pix", "stat.error;pos.cartesian.x", d_err);
      col.real("err_y", err_y * root_beam, "pix", "stat.error;pos.cartesian.y", d_err);
      col.real("err_z", err_z * root_beam, "pix", "stat.error;pos.cartesian.z", d_err);
      col.real("err_f_sum", err_f_sum * axes.chan_size / root_beam, axes.unit_flux, "stat.error;phot.flux", d_errf);
    } else {
      col.real("err_x", err_x, "pix", "stat.error;pos.cartesian.x", d_err);
      col.real("err_y", err_y, "pix", "stat.error;pos.cartesian.y", d_err);
      col.real("err_z", err_z, "pix", "stat.error;pos.cartesian.z", d_err);
      col.real("err_f_sum", err_f_sum, ufd, "stat.error;phot.flux", d_errf);
    }
    if (wcs) {
      col.real(axes.label_lon, world[0], axes.unit_lon, axes.ucd_lon, "world longitude of the centroid (wcslib)");
      col.real(axes.label_lat, world[1], axes.unit_lat, axes.ucd_lat, "world latitude of the centroid (wcslib)");
      col.real(axes.label_spec, world[2], axes.unit_spec, axes.ucd_spec,
               "spectral coordinate of the centroid (wcslib)");
    }
    col.whole("x_peak", static_cast<std::int64_t>(x_peak), "pix", "pos.cartesian.x", "x of the moment-0 map's peak");
    col.whole("y_peak", static_cast<std::int64_t>(y_peak), "pix", "pos.cartesian.y", "y of the moment-0 map's peak");
    col.whole("z_peak", static_cast<std::int64_t>(z_peak), "pix", "pos.cartesian.z", "z of the spectrum's peak");
    if (wcs) {
      col.real(axes.label_lon + "_peak", world_peak[0], axes.unit_lon, axes.ucd_lon, "world longitude of the peak");
      col.real(axes.label_lat + "_peak", world_peak[1], axes.unit_lat, axes.ucd_lat, "world latitude of the peak");
      col.real(axes.label_spec + "_peak", world_peak[2], axes.unit_spec, axes.ucd_spec,
               "spectral coordinate of the peak");
    }
  }
  for (auto& c : col.columns) {
    if (c.integer)
      c.whole.resize(cat.names.size(), 0);
    else
      c.real.resize(cat.names.size(), 0.0);
  }
  cat.columns = std::move(col.columns);
  return cat;
}

}  // namespace astrosweep::scfind
