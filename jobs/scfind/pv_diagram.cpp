#include "pv_diagram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace astrosweep::scfind {

namespace {

/// ⌊v⌋ or ⌈v⌉ as an index; a negative one is outside the cube (SoFiA-2 converts it to a huge
/// size_t, which its range test then refuses: the same outcome without the undefined conversion).
std::size_t index_of(double rounded, std::size_t outside) {
  return rounded < 0.0 ? outside : static_cast<std::size_t>(rounded);
}

}  // namespace

PvDiagram make_pv_diagram(const CubeShape& shape, const std::vector<float>& data, const CubeHeader& header, double x0,
                          double y0, double angle, const std::string& object) {
  AS_ASSERT(data.size() == shape.voxels());
  constexpr double step = 1.0;  // SoFiA-2's cubelets sample one pixel a step
  const std::size_t nx = shape.nx, ny = shape.ny, nz = shape.nz;
  const auto steps = static_cast<std::size_t>(static_cast<double>(std::max(nx, ny)) / (2.0 * step));
  PvDiagram pv;
  pv.width = 2 * steps + 1;
  pv.height = nz;
  pv.map.real.assign(pv.width * nz, std::numeric_limits<float>::quiet_NaN());

  // Header: SoFiA-2's blank 2-D image, then the angle axis and the cube's spectral axis.
  auto& keys = pv.map.keywords;
  for (const char* axis : {"1", "2"}) {
    set_keyword(keys, std::string("CTYPE") + axis, " ");
    set_keyword(keys, std::string("CRPIX") + axis, 1.0);
    set_keyword(keys, std::string("CDELT") + axis, 1.0);
    set_keyword(keys, std::string("CRVAL") + axis, 1.0);
  }
  auto copy_text = [&](const char* from, const char* to) {
    if (header.has(from)) set_keyword(keys, to, header.text(from));
  };
  auto copy_number = [&](const char* from, const char* to, double factor = 1.0) {
    if (header.has(from)) set_keyword(keys, to, header.number(from) * factor);
  };
  set_keyword(keys, "CTYPE1", "ANGLE");
  copy_text("CUNIT2", "CUNIT1");
  copy_number("CDELT2", "CDELT1", step);
  set_keyword(keys, "CRVAL1", 0.0);
  set_keyword(keys, "CRPIX1", static_cast<double>(steps + 1));  // FITS pixels count from 1
  copy_text("CTYPE3", "CTYPE2");
  copy_text("CUNIT3", "CUNIT2");
  copy_number("CDELT3", "CDELT2");
  copy_number("CRVAL3", "CRVAL2");
  copy_number("CRPIX3", "CRPIX2");
  copy_text("BUNIT", "BUNIT");
  if (!object.empty()) set_keyword(keys, "OBJECT", object);
  copy_number("RESTFREQ", "RESTFREQ");
  copy_number("RESTFRQ", "RESTFRQ");
  if (header.has("VELREF")) set_keyword(keys, "VELREF", std::trunc(header.number("VELREF")), true);
  copy_text("SPECSYS", "SPECSYS");

  const double s = std::sin(angle), c = std::cos(angle);
  auto at = [&](std::size_t x, std::size_t y, std::size_t z) {
    return static_cast<double>(data[(z * ny + y) * nx + x]);
  };
  for (std::size_t k = 0; k < pv.width; ++k) {
    const double dr = step * (static_cast<double>(k) - static_cast<double>(steps));
    const double x = x0 - dr * s;
    const double y = y0 + dr * c;
    const std::size_t x1 = index_of(std::floor(x), nx), x2 = index_of(std::ceil(x), nx);
    const std::size_t y1 = index_of(std::floor(y), ny), y2 = index_of(std::ceil(y), ny);
    if (x1 >= nx || x2 >= nx || y1 >= ny || y2 >= ny || x2 <= x1 || y2 <= y1) continue;  // NaN
    const double wx2 = static_cast<double>(x2) - x, wx1 = x - static_cast<double>(x1);
    const double wy2 = static_cast<double>(y2) - y, wy1 = y - static_cast<double>(y1);
    for (std::size_t z = 0; z < nz; ++z) {
      const double f1 = wx2 * at(x1, y1, z) + wx1 * at(x2, y1, z);
      const double f2 = wx2 * at(x1, y2, z) + wx1 * at(x2, y2, z);
      pv.map.real[z * pv.width + k] = static_cast<float>(wy2 * f1 + wy1 * f2);
    }
  }
  return pv;
}

}  // namespace astrosweep::scfind
