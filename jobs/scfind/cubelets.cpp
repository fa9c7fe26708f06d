#include "cubelets.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <numbers>
#include <optional>

#include "catalogue_files.hpp"
#include "core/error.hpp"
#include "moment_maps.hpp"
#include "pv_diagram.hpp"

namespace astrosweep::scfind {

namespace {

constexpr const char* creator = "astrosweep scfind (SoFiA 2.5.1 cubelets)";

/// A number as SoFiA-2 stores it in a header it writes (%20.11E) and reads back (strtod): the
/// cubelet's WCS is set up from those digits, so its coordinates are SoFiA-2's.
double as_written(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.11E", value);
  return std::strtod(text, nullptr);
}

/// 80-character FITS cards of `keys` after the axes: the header wcslib sees for a cubelet.
CubeHeader header_of(const std::vector<ImageMap::Keyword>& keys, const std::vector<std::size_t>& axes) {
  std::vector<std::string> cards;
  auto add = [&](const std::string& key, const std::string& value) {
    char text[96];
    std::snprintf(text, sizeof text, "%-8.8s= %s", key.c_str(), value.c_str());
    std::string c(text);
    c.resize(80, ' ');
    cards.push_back(c);
  };
  char value[48];
  add("SIMPLE", "                   T");
  add("BITPIX", "                 -32");
  std::snprintf(value, sizeof value, "%20zu", axes.size());
  add("NAXIS", value);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::snprintf(value, sizeof value, "%20zu", axes[i]);
    add("NAXIS" + std::to_string(i + 1), value);
  }
  for (const auto& k : keys) {
    if (k.kind == ImageMap::Keyword::text) {
      std::string quoted = "'";
      for (char c : k.text_value) quoted += c == '\'' ? std::string("''") : std::string(1, c);
      add(k.name, quoted + "'");
    } else if (k.kind == ImageMap::Keyword::integer) {
      std::snprintf(value, sizeof value, "%20lld", static_cast<long long>(k.number_value));
      add(k.name, value);
    } else if (std::isfinite(k.number_value)) {
      std::snprintf(value, sizeof value, "%20.11E", k.number_value);
      add(k.name, value);
    }
  }
  return CubeHeader(cards, axes);
}

/// SoFiA-2's Header_adjust_wcs_to_subregion: CRPIXi less the cut-out's first pixel on that axis.
void shift_reference_pixels(std::vector<ImageMap::Keyword>& keys, const std::size_t first[3]) {
  for (auto& k : keys)
    for (int axis = 0; axis < 3; ++axis)
      if (k.name == "CRPIX" + std::to_string(axis + 1) && k.kind == ImageMap::Keyword::number)
        k.number_value = as_written(k.number_value) - static_cast<double>(first[axis]);
}

const CatalogueColumn& column(const Catalogue& catalogue, const char* name) {
  const CatalogueColumn* c = catalogue.find(name);
  AS_EXPECTS(c != nullptr, RuntimeError, std::string("the catalogue has no column '") + name + "' for the cubelets",
             "set parameter.enable = true");
  return *c;
}

/// The flux unit as SoFiA-2's cubelets name it: BUNIT trimmed ("???" without), its usual
/// misspellings of Jy/beam fixed.
std::string flux_density_unit(const CubeHeader& header, std::vector<std::string>& warnings) {
  std::string unit = header.text("BUNIT");
  if (unit.empty()) {
    warnings.push_back("no flux unit (BUNIT) in the header");
    unit = "???";
  }
  if (unit == "JY/BEAM" || unit == "Jy/Beam") unit = "Jy/beam";
  return unit;
}

}  // namespace

void prepare_cubelet_directory(const std::string& directory, bool overwrite) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool existed = fs::exists(directory, ec);
  if (existed) {
    AS_EXPECTS(fs::is_directory(directory, ec), OutputError,
               "the cubelet directory '" + directory + "' exists and is not a directory",
               "remove or rename it (output.writeCubelets writes its files there)");
    AS_EXPECTS(overwrite, OutputError, "the cubelet directory '" + directory + "' already exists",
               "delete it, or pass --overwrite (output.overwrite = true) to replace its files");
  } else {
    fs::create_directory(directory, ec);
    AS_EXPECTS(!ec, OutputError, "cannot create the cubelet directory '" + directory + "': " + ec.message(),
               "check that its parent directory exists and is writable");
  }
}

std::string cubelet_spectrum_text(const CubeletSpectrum& spectrum, const CubeHeader& header, bool use_wcs,
                                  bool physical, const std::string& time, std::vector<std::string>& warnings) {
  const std::string flux_density = flux_density_unit(header, warnings);
  std::string flux_unit = flux_density;
  std::optional<WorldCoordinates> wcs;
  if (use_wcs) wcs = WorldCoordinates::from(header);
  // The spectral axis' name and unit as SoFiA-2 labels the column.
  std::string label = header.text("CTYPE3"), unit = header.text("CUNIT3");
  auto default_unit = [&](const char* u) {
    if (unit.empty()) unit = u;
  };
  if (header.starts_with("CTYPE3", "FREQ")) {
    label = "freq";
    default_unit("Hz");
  } else if (header.starts_with("CTYPE3", "VRAD")) {
    label = "v_rad";
    default_unit("m/s");
  } else if (header.starts_with("CTYPE3", "VOPT") || header.starts_with("CTYPE3", "FELO")) {
    label = "v_opt";
    default_unit("m/s");
  } else if (header.starts_with("CTYPE3", "VELO")) {
    label = "v_app";
    default_unit("m/s");
  } else {
    warnings.push_back("unsupported CTYPE3 value for the cubelet spectra (supported: FREQ, VRAD, VOPT, VELO)");
    default_unit("???");
  }
  // Jy/beam over the beam's solid angle in pixels (BMAJ, BMIN, CDELT2 in the same unit), as SoFiA-2.
  double beam_area = 1.0;
  if (physical && flux_density == "Jy/beam") {
    const double bmaj = header.number("BMAJ"), bmin = header.number("BMIN"), pixel = header.number("CDELT2");
    if (std::isnan(bmaj) || std::isnan(bmin) || std::isnan(pixel) || bmaj == 0.0 || bmin == 0.0 || pixel == 0.0) {
      warnings.push_back("no beam size (BMAJ, BMIN, CDELT2) in the header: cubelet spectra in " + flux_density);
    } else {
      beam_area = std::numbers::pi * bmaj * bmin / (4.0 * std::log(2.0) * pixel * pixel);
      flux_unit = "Jy";
    }
  }
  std::string out =
      "# Integrated source spectrum\n"
      "# Creator: " +
      std::string(creator) + "\n# Time:    " + time +
      "\n"
      "#\n"
      "# Description of parameters:\n"
      "#\n"
      "# - chan    Spectral channel number (zero-based).\n"
      "#\n"
      "# - v_opt / v_rad / v_app\n"
      "#           Radial velocity corresponding to the channel number as\n"
      "#           described by the WCS information in the header. The suf-\n"
      "#           fix denotes optical, radio or apparent radial velocity,\n"
      "#           respectively.\n"
      "#\n"
      "# - freq    Frequency corresponding to the channel number as described\n"
      "#           by the WCS information in the header.\n"
      "#\n"
      "# - f_sum   Sum of flux density values of all spatial pixels covered\n"
      "#           by the source in that channel. If the unit is Jy, then\n"
      "#           the flux density has already been corrected for the solid\n"
      "#           angle of the beam. If instead the unit is Jy/beam, you\n"
      "#           will need to manually divide by the beam area which, for\n"
      "#           Gaussian beams, will be\n"
      "#\n"
      "#             pi * a * b / (4 * ln(2))\n"
      "#\n"
      "#           where a and b are the major and minor axis of the beam in\n"
      "#           units of pixels.\n"
      "#\n"
      "# - n_pix   Number of spatial pixels covered by the source in that\n"
      "#           channel. This can be used to determine the statistical\n"
      "#           uncertainty of the summed flux value. Again, this has\n"
      "#           not yet been corrected for any potential spatial correla-\n"
      "#           tion of pixels due to the beam solid angle.\n"
      "#\n"
      "# Note that a WCS-related column will only be present if WCS conversion\n"
      "# was explicitly requested when running the pipeline.\n"
      "#\n"
      "# Header rows:\n"
      "#   1 = column number\n"
      "#   2 = parameter name\n"
      "#   3 = parameter unit\n"
      "#\n";
  char line[160];
  if (wcs) {
    std::snprintf(line, sizeof line, "#%9s%18s%18s%10s\n", "1", "2", "3", "4");
    out += line;
    std::snprintf(line, sizeof line, "#%9s%18s%18s%10s\n", "chan", label.c_str(), "f_sum", "n_pix");
    out += line;
    std::snprintf(line, sizeof line, "#%9s%18s%18s%10s\n", "-", unit.c_str(), flux_unit.c_str(), "-");
    out += line;
  } else {
    std::snprintf(line, sizeof line, "#%9s%18s%10s\n", "1", "2", "3");
    out += line;
    std::snprintf(line, sizeof line, "#%9s%18s%10s\n", "chan", "f_sum", "n_pix");
    out += line;
    std::snprintf(line, sizeof line, "#%9s%18s%10s\n", "-", flux_unit.c_str(), "-");
    out += line;
  }
  out += "#\n";
  for (std::size_t j = 0; j < spectrum.flux.size(); ++j) {
    const std::size_t z = j + spectrum.z_min;
    if (wcs) {
      // SoFiA-2 leaves the coordinate at 0 where wcslib refuses the pixel.
      const auto world = wcs->to_world(0, 0, static_cast<double>(z));
      std::snprintf(line, sizeof line, "%10zu%18.7e%18.7e%10zu\n", z, world ? (*world)[2] : 0.0,
                    spectrum.flux[j] / beam_area, spectrum.pixels[j]);
    } else {
      std::snprintf(line, sizeof line, "%10zu%18.7e%10zu\n", z, spectrum.flux[j] / beam_area, spectrum.pixels[j]);
    }
    out += line;
  }
  return out;
}

std::vector<std::string> write_cubelets(const std::string& directory, const std::string& stem, const CubeShape& cube,
                                        std::span<const std::int32_t> labels, std::span<const float> data,
                                        const CubeHeader& header, const Catalogue& catalogue,
                                        const CubeletSettings& settings, std::vector<std::string>& warnings) {
  AS_ASSERT(labels.size() == cube.voxels() && data.size() == cube.voxels());
  if (catalogue.size() == 0) return {};
  // The catalogue's bounding boxes as the cut-outs take them.
  std::vector<Component> boxes(catalogue.size());
  auto bound = [&](const char* name, std::size_t s) {
    return static_cast<std::size_t>(column(catalogue, name).whole[s]);
  };
  for (std::size_t s = 0; s < boxes.size(); ++s) {
    Component& b = boxes[s];
    b.x_min = bound("x_min", s), b.x_max = bound("x_max", s);
    b.y_min = bound("y_min", s), b.y_max = bound("y_max", s);
    b.z_min = bound("z_min", s), b.z_max = bound("z_max", s);
  }
  return write_cubelets(directory, stem, cut_sources(cube, boxes, settings.margin, labels, data), header, catalogue,
                        settings, warnings);
}

std::vector<std::string> write_cubelets(const std::string& directory, const std::string& stem,
                                        const SourceCutouts& cutouts, const CubeHeader& header,
                                        const Catalogue& catalogue, const CubeletSettings& settings,
                                        std::vector<std::string>& warnings) {
  const CubeShape& cube = cutouts.cube;
  AS_ASSERT(cutouts.sources.size() == catalogue.size());
  std::vector<std::string> written;
  if (catalogue.size() == 0) return written;
  const auto& ids = column(catalogue, "id");
  const auto& rms_column = column(catalogue, "rms");
  const auto& x_column = column(catalogue, "x");
  const auto& y_column = column(catalogue, "y");
  const auto& kin_pa_column = column(catalogue, "kin_pa");
  const char* bound_names[6] = {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"};
  const CatalogueColumn* bounds[6];
  for (int i = 0; i < 6; ++i) bounds[i] = &column(catalogue, bound_names[i]);
  const std::size_t size[3] = {cube.nx, cube.ny, cube.nz};
  const std::string time = catalogue_time_now();
  const std::string base = (std::filesystem::path(directory) / (stem + "_")).string();

  for (std::size_t s = 0; s < catalogue.size(); ++s) {
    const std::int64_t id = ids.whole[s];
    double rms = rms_column.real[s];
    if (std::isnan(rms)) rms = 0.0;
    // The bounding box widened by the margin, clipped to the cube.
    std::size_t first[3], last[3], n[3];
    for (int a = 0; a < 3; ++a) {
      const auto lo = static_cast<std::size_t>(bounds[2 * a]->whole[s]);
      const auto hi = static_cast<std::size_t>(bounds[2 * a + 1]->whole[s]);
      AS_ASSERT(lo <= hi && hi < size[a]);
      first[a] = settings.margin > lo ? 0 : lo - settings.margin;
      last[a] = hi + settings.margin < size[a] ? hi + settings.margin : size[a] - 1;
      n[a] = last[a] - first[a] + 1;
    }
    const SourceCutout& cut = cutouts.sources[s];
    AS_ASSERT(cut.id == id && cut.box.contains(first[0], first[1], first[2]) &&
              cut.box.contains(last[0], last[1], last[2]));
    const CubeShape shape{n[0], n[1], n[2]};
    const std::vector<std::size_t> axes{n[0], n[1], n[2]};
    const std::string& name = catalogue.names[s];

    ImageMap cubelet, masklet;
    cubelet.real.resize(shape.voxels());
    masklet.bytes.resize(shape.voxels());
    std::vector<std::int32_t> own(shape.voxels());  // the masklet as the moment maps take it
    CubeletSpectrum spectrum;
    spectrum.z_min = first[2];
    spectrum.flux.assign(n[2], 0.0);
    spectrum.pixels.assign(n[2], 0);
    std::size_t i = 0;
    for (std::size_t z = first[2]; z <= last[2]; ++z)
      for (std::size_t y = first[1]; y <= last[1]; ++y)
        for (std::size_t x = first[0]; x <= last[0]; ++x, ++i) {
          const std::size_t v = cut.box.local(x, y, z);
          const float value = cut.data[v];
          // SoFiA-2 flags infinite voxels (NaN) before anything else; the cut-out shows them so.
          cubelet.real[i] = std::isinf(value) ? std::numeric_limits<float>::quiet_NaN() : value;
          if (cut.labels[v] == id) {
            masklet.bytes[i] = 1;
            own[i] = 1;
            spectrum.flux[z - first[2]] += static_cast<double>(value);
            spectrum.pixels[z - first[2]] += 1;
          }
        }
    // Headers: the cube's WCS with CRPIXi shifted to the cut-out; the cube keeps BUNIT and the
    // beam, the mask gets BUNIT ' ' (as SoFiA-2).
    cubelet.keywords = sofia_image_keywords(header, 3, true, true);
    shift_reference_pixels(cubelet.keywords, first);
    set_keyword(cubelet.keywords, "OBJECT", name);
    masklet.keywords = sofia_image_keywords(header, 3, false, false);
    shift_reference_pixels(masklet.keywords, first);
    set_keyword(masklet.keywords, "BUNIT", " ");
    set_keyword(masklet.keywords, "OBJECT", name);

    const std::string prefix = base + std::to_string(id);
    auto write = [&](const std::string& suffix, const ImageMap& map, const std::vector<std::size_t>& shape_of) {
      write_image(prefix + suffix, map, shape_of);
      written.push_back(prefix + suffix);
    };
    write("_cube.fits", cubelet, axes);
    write("_mask.fits", masklet, axes);

    // The maps of the cut-out, from the cubelet's own header as SoFiA-2 holds it (the numbers as
    // written), so its WCS is the one SoFiA-2's maps use.
    const CubeHeader cubelet_header = header_of(cubelet.keywords, axes);
    MomentSettings moment_settings;
    moment_settings.threshold = settings.threshold_mom12 * rms;
    moment_settings.snr_rms = rms;
    moment_settings.object = name;
    MomentMaps maps = make_moment_maps(shape, own, cubelet.real, cubelet_header, settings.use_wcs, moment_settings);
    for (auto& w : maps.warnings) warnings.push_back(std::move(w));
    write("_mom0.fits", maps.mom0, {n[0], n[1]});
    if (maps.three_d) {
      write("_mom1.fits", maps.mom1, {n[0], n[1]});
      write("_mom2.fits", maps.mom2, {n[0], n[1]});
      write("_chan.fits", maps.chan, {n[0], n[1]});
      if (maps.has_snr) write("_snr.fits", maps.snr, {n[0], n[1]});
    }
    // The PV diagram through the source's centroid along its kinematic major axis (kin_pa, -1
    // when not measurable, taken as the angle all the same, as SoFiA-2).
    const double kin_pa = kin_pa_column.real[s];
    const PvDiagram pv =
        make_pv_diagram(shape, cubelet.real, cubelet_header, x_column.real[s] - static_cast<double>(first[0]),
                        y_column.real[s] - static_cast<double>(first[1]), kin_pa * std::numbers::pi / 180.0, name);
    write("_pv.fits", pv.map, {pv.width, pv.height});
    write_text_file(prefix + "_spec.txt",
                    cubelet_spectrum_text(spectrum, header, settings.use_wcs, settings.physical, time, warnings));
    written.push_back(prefix + "_spec.txt");
  }
  return written;
}

}  // namespace astrosweep::scfind
