#include "linker.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "core/error.hpp"
#include "core/text.hpp"

namespace astrosweep::scfind {

const std::vector<LinkerKey> linker_keys{
    {"linker.enable", "link the mask into sources (SoFiA-2's default true; without --par: false) [true]"},
    {"linker.radiusXY", "merge radius in x and y, pixels [1]"},
    {"linker.radiusZ", "merge radius in z, channels [1]"},
    {"linker.minSizeXY", "smallest source extent in x and in y, pixels [5]"},
    {"linker.minSizeZ", "smallest source extent in z, channels [5]"},
    {"linker.maxSizeXY", "largest source extent in x and in y; 0: no limit [0]"},
    {"linker.maxSizeZ", "largest source extent in z; 0: no limit [0]"},
    {"linker.minPixels", "fewest voxels of a source [0]"},
    {"linker.maxPixels", "most voxels of a source; 0: no limit [0]"},
    {"linker.minFill", "lowest fill (voxels / bounding box); 0: no limit [0.0]"},
    {"linker.maxFill", "highest fill; 0: no limit [0.0]"},
    {"linker.positivity", "link only voxels with values >= 0 [false]"},
    {"linker.keepNegative", "keep sources with a negative summed value [false]"},
};

namespace {

bool parse_flag(const std::string& key, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw UsageError(key + ": '" + text + "' is not true or false", "write true or false");
}

std::size_t parse_count(const std::string& key, const std::string& text) {
  const std::optional<double> value = parse_number(text);
  AS_EXPECTS(value && *value >= 0 && *value < 1e9 && *value == std::floor(*value), UsageError,
             key + ": '" + text + "' is not a whole number >= 0", "write a count such as 0, 1 or 5 (0: no limit)");
  return static_cast<std::size_t>(*value);
}

double parse_fill(const std::string& key, const std::string& text) {
  const std::optional<double> value = parse_number(text);
  AS_EXPECTS(value && std::isfinite(*value) && *value >= 0, UsageError, key + ": '" + text + "' is not a number >= 0",
             "write a fill fraction such as 0.2 (0: no limit)");
  return *value;
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

}  // namespace

LinkerParameters linker_parameters_from_text(const std::map<std::string, std::string>& values,
                                             const LinkerParameters& fallback) {
  LinkerParameters p = fallback;
  auto take = [&](const char* key, auto&& parse, auto& field) {
    const auto it = values.find(key);
    if (it != values.end()) field = parse(key, it->second);
  };
  take("linker.enable", parse_flag, p.enable);
  take("linker.radiusXY", parse_count, p.radius_xy);
  take("linker.radiusZ", parse_count, p.radius_z);
  take("linker.minSizeXY", parse_count, p.min_size_xy);
  take("linker.minSizeZ", parse_count, p.min_size_z);
  take("linker.maxSizeXY", parse_count, p.max_size_xy);
  take("linker.maxSizeZ", parse_count, p.max_size_z);
  take("linker.minPixels", parse_count, p.min_pixels);
  take("linker.maxPixels", parse_count, p.max_pixels);
  take("linker.minFill", parse_fill, p.min_fill);
  take("linker.maxFill", parse_fill, p.max_fill);
  take("linker.positivity", parse_flag, p.positivity);
  take("linker.keepNegative", parse_flag, p.keep_negative);
  return p;
}

std::vector<std::pair<std::string, std::string>> linker_parameters_as_text(const LinkerParameters& p) {
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  auto count = [](std::size_t n) { return std::to_string(n); };
  return {{"linker.enable", flag(p.enable)},
          {"linker.radiusXY", count(p.radius_xy)},
          {"linker.radiusZ", count(p.radius_z)},
          {"linker.minSizeXY", count(p.min_size_xy)},
          {"linker.minSizeZ", count(p.min_size_z)},
          {"linker.maxSizeXY", count(p.max_size_xy)},
          {"linker.maxSizeZ", count(p.max_size_z)},
          {"linker.minPixels", count(p.min_pixels)},
          {"linker.maxPixels", count(p.max_pixels)},
          {"linker.minFill", number_text(p.min_fill)},
          {"linker.maxFill", number_text(p.max_fill)},
          {"linker.positivity", flag(p.positivity)},
          {"linker.keepNegative", flag(p.keep_negative)}};
}

void Component::add(std::uint64_t index, std::size_t x, std::size_t y, std::size_t z, float value) {
  Component one;
  one.highest = index;
  one.x_min = one.x_max = x;
  one.y_min = one.y_max = y;
  one.z_min = one.z_max = z;
  one.voxels = 1;
  one.sum.add(value);
  one.value_min = one.value_max = value;
  if (voxels == 0)
    *this = one;
  else
    merge(one);
}

void Component::merge(const Component& o) {
  if (o.voxels == 0) return;
  if (voxels == 0) {
    *this = o;
    return;
  }
  highest = std::max(highest, o.highest);
  x_min = std::min(x_min, o.x_min);
  x_max = std::max(x_max, o.x_max);
  y_min = std::min(y_min, o.y_min);
  y_max = std::max(y_max, o.y_max);
  z_min = std::min(z_min, o.z_min);
  z_max = std::max(z_max, o.z_max);
  voxels += o.voxels;
  sum.merge(o.sum);
  value_min = std::min(value_min, o.value_min);
  value_max = std::max(value_max, o.value_max);
  flags |= o.flags;
}

bool keeps(const Component& c, const LinkerParameters& p) {
  // SoFiA-2's test, term for term (DataCube_run_linker); fill in double of size_t products.
  const double fill = static_cast<double>(c.voxels) / static_cast<double>(c.size_x() * c.size_y() * c.size_z());
  const bool drop = c.size_x() < p.min_size_xy || c.size_y() < p.min_size_xy || c.size_z() < p.min_size_z ||
                    (p.max_size_xy != 0 && c.size_x() > p.max_size_xy) ||
                    (p.max_size_xy != 0 && c.size_y() > p.max_size_xy) ||
                    (p.max_size_z != 0 && c.size_z() > p.max_size_z) || c.voxels < p.min_pixels ||
                    (p.max_pixels != 0 && c.voxels > p.max_pixels) || (p.min_fill > 0.0 && fill < p.min_fill) ||
                    (p.max_fill > 0.0 && fill > p.max_fill) || (!p.keep_negative && c.sum.sign() < 0);
  return !drop;
}

std::vector<LinkOffset> link_neighbourhood(std::size_t rxy, std::size_t rz) {
  const std::uint64_t rx2 = std::uint64_t{rxy} * rxy, ry2 = rx2, rz2 = std::uint64_t{rz} * rz;
  const std::uint64_t limit = rx2 * ry2 * rz2;
  std::vector<LinkOffset> out;
  const auto r_xy = static_cast<std::ptrdiff_t>(rxy), r_z = static_cast<std::ptrdiff_t>(rz);
  for (std::ptrdiff_t dz = -r_z; dz <= r_z; ++dz)
    for (std::ptrdiff_t dy = -r_xy; dy <= r_xy; ++dy)
      for (std::ptrdiff_t dx = -r_xy; dx <= r_xy; ++dx) {
        const auto sq = [](std::ptrdiff_t d) { return static_cast<std::uint64_t>(d * d); };
        if (sq(dx) * ry2 * rz2 + sq(dy) * rx2 * rz2 + sq(dz) * rx2 * ry2 <= limit) out.push_back({dx, dy, dz});
      }
  return out;
}

namespace {

std::uint64_t find(std::vector<std::uint64_t>& parent, std::uint64_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving
    i = parent[i];
  }
  return i;
}

constexpr std::uint64_t outside = std::numeric_limits<std::uint64_t>::max();

}  // namespace

LinkedSources link_sources(const CubeShape& cube, std::span<const std::uint8_t> mask, std::span<const float> data,
                           const LinkerParameters& p) {
  const std::size_t n = cube.voxels();
  AS_ASSERT(mask.size() == n && data.size() == n);
  const std::size_t nx = cube.nx, ny = cube.ny, nz = cube.nz, plane = cube.plane();
  auto takes_part = [&](std::size_t i) {
    return mask[i] != 0 && std::isfinite(data[i]) && !(p.positivity && data[i] < 0.0F);
  };
  // Union-find over the voxels that take part; `outside` marks the others.
  std::vector<std::uint64_t> parent(n, outside);
  for (std::size_t i = 0; i < n; ++i)
    if (takes_part(i)) parent[i] = i;
  const std::vector<LinkOffset> around = link_neighbourhood(p.radius_xy, p.radius_z);
  std::vector<LinkOffset> before;  // the half of the neighbourhood at lower indices: each pair once
  for (const LinkOffset& o : around)
    if (o.dz < 0 || (o.dz == 0 && (o.dy < 0 || (o.dy == 0 && o.dx < 0)))) before.push_back(o);
  for (std::size_t z = 0; z < nz; ++z)
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x) {
        const std::size_t i = z * plane + y * nx + x;
        if (parent[i] == outside) continue;
        for (const LinkOffset& o : before) {
          const auto xx = static_cast<std::ptrdiff_t>(x) + o.dx, yy = static_cast<std::ptrdiff_t>(y) + o.dy,
                     zz = static_cast<std::ptrdiff_t>(z) + o.dz;
          if (xx < 0 || yy < 0 || zz < 0 || xx >= static_cast<std::ptrdiff_t>(nx) ||
              yy >= static_cast<std::ptrdiff_t>(ny))
            continue;
          const std::size_t j =
              static_cast<std::size_t>(zz) * plane + static_cast<std::size_t>(yy) * nx + static_cast<std::size_t>(xx);
          if (parent[j] == outside) continue;
          const std::uint64_t a = find(parent, i), b = find(parent, j);
          if (a != b) parent[std::max(a, b)] = std::min(a, b);
        }
      }
  // Statistics per root, in index order.
  std::vector<std::uint64_t> root_of(n, outside);
  std::vector<Component> components;
  std::vector<std::size_t> slot(n, 0);  // the component of a root
  for (std::size_t i = 0; i < n; ++i) {
    if (parent[i] == outside) continue;
    const std::uint64_t r = find(parent, i);
    root_of[i] = r;
    if (r == i) {
      slot[i] = components.size();
      components.emplace_back();
    }
    components[slot[r]].add(i, i % nx, (i / nx) % ny, i / plane, data[i]);
  }
  parent.clear();
  parent.shrink_to_fit();
  // Kept components numbered from the highest voxel index down (SoFiA-2's backward scan).
  std::vector<std::size_t> order;
  for (std::size_t c = 0; c < components.size(); ++c)
    if (keeps(components[c], p)) order.push_back(c);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return components[a].highest > components[b].highest; });
  AS_EXPECTS(order.size() <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()), UsageError,
             std::to_string(order.size()) + " sources, more than a 32-bit source mask can number",
             "raise scfind.threshold or the linker's size limits");
  std::vector<std::int32_t> number(components.size(), 0);
  LinkedSources out;
  out.sources.reserve(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    number[order[k]] = static_cast<std::int32_t>(k + 1);
    out.sources.push_back(components[order[k]]);
  }
  out.labels.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (root_of[i] != outside) out.labels[i] = number[slot[root_of[i]]];
  // Flags as SoFiA-2 sets them: edges from the bounding box; a blank within the merge radius of
  // any voxel of the source.
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t label = out.labels[i];
    if (label == 0) continue;
    Component& c = out.sources[static_cast<std::size_t>(label - 1)];
    if (c.flags & flag_blank_nearby) continue;
    const std::size_t x = i % nx, y = (i / nx) % ny, z = i / plane;
    for (const LinkOffset& o : around) {
      const auto xx = static_cast<std::ptrdiff_t>(x) + o.dx, yy = static_cast<std::ptrdiff_t>(y) + o.dy,
                 zz = static_cast<std::ptrdiff_t>(z) + o.dz;
      if (xx < 0 || yy < 0 || zz < 0 || xx >= static_cast<std::ptrdiff_t>(nx) ||
          yy >= static_cast<std::ptrdiff_t>(ny) || zz >= static_cast<std::ptrdiff_t>(nz))
        continue;
      const std::size_t j =
          static_cast<std::size_t>(zz) * plane + static_cast<std::size_t>(yy) * nx + static_cast<std::size_t>(xx);
      if (!std::isfinite(data[j])) {
        c.flags |= flag_blank_nearby;
        break;
      }
    }
  }
  for (Component& c : out.sources) {
    if (c.x_min == 0 || c.x_max + 1 == nx || c.y_min == 0 || c.y_max + 1 == ny) c.flags |= flag_spatial_edge;
    if (c.z_min == 0 || c.z_max + 1 == nz) c.flags |= flag_spectral_edge;
  }
  return out;
}

}  // namespace astrosweep::scfind
