#include "io/light_curves.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "core/error.hpp"

namespace astrosweep::io {

void LightCurveBlock::append(std::int64_t id, const std::vector<double>& ot, const std::vector<double>& oy,
                             const std::vector<double>& ody, std::uint32_t flagged) {
  AS_ASSERT(ot.size() == oy.size());
  AS_ASSERT(ody.empty() || ody.size() == ot.size());
  ids.push_back(id);
  counts.push_back(ot.size());
  n_flagged.push_back(flagged);
  t.insert(t.end(), ot.begin(), ot.end());
  y.insert(y.end(), oy.begin(), oy.end());
  dy.insert(dy.end(), ody.begin(), ody.end());
}

void LightCurveBlock::append_block(const LightCurveBlock& other) {
  AS_ASSERT(n_objects() == 0 || (other.has_time_references() == has_time_references() &&
                                 (other.t.empty() || t.empty() || other.has_errors() == has_errors())));
  ids.insert(ids.end(), other.ids.begin(), other.ids.end());
  counts.insert(counts.end(), other.counts.begin(), other.counts.end());
  n_flagged.insert(n_flagged.end(), other.n_flagged.begin(), other.n_flagged.end());
  t.insert(t.end(), other.t.begin(), other.t.end());
  y.insert(y.end(), other.y.begin(), other.y.end());
  dy.insert(dy.end(), other.dy.begin(), other.dy.end());
  bjdrefi.insert(bjdrefi.end(), other.bjdrefi.begin(), other.bjdrefi.end());
  bjdreff.insert(bjdreff.end(), other.bjdreff.begin(), other.bjdreff.end());
}

void LightCurveBlock::truncate(std::size_t n) {
  AS_ASSERT(n <= n_objects());
  std::uint64_t rows = 0;
  for (std::size_t i = 0; i < n; ++i) rows += counts[i];
  ids.resize(n);
  counts.resize(n);
  n_flagged.resize(n);
  t.resize(rows);
  y.resize(rows);
  if (has_errors()) dy.resize(rows);
  if (has_time_references()) {
    bjdrefi.resize(n);
    bjdreff.resize(n);
  }
}

CatalogIndex index_of(const LightCurveBlock& block, std::string time_reference) {
  CatalogIndex index;
  index.ids = block.ids;
  index.counts = block.counts;
  index.has_errors = block.has_errors();
  index.has_time_references = block.has_time_references();
  index.time_reference = std::move(time_reference);
  index.t_min.resize(block.n_objects());
  index.t_max.resize(block.n_objects());
  std::uint64_t row = 0;
  for (std::size_t i = 0; i < block.n_objects(); ++i) {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (std::uint64_t r = row; r < row + block.counts[i]; ++r) {
      if (!std::isfinite(block.t[r])) continue;
      lo = std::min(lo, block.t[r]);
      hi = std::max(hi, block.t[r]);
    }
    const bool any = lo <= hi;
    index.t_min[i] = any ? lo : std::numeric_limits<double>::quiet_NaN();
    index.t_max[i] = any ? hi : std::numeric_limits<double>::quiet_NaN();
    row += block.counts[i];
  }
  return index;
}

void require_unique_ids(const std::vector<std::int64_t>& ids, const std::string& source) {
  std::unordered_map<std::int64_t, std::size_t> first;
  first.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto [it, inserted] = first.emplace(ids[i], i);
    if (!inserted)
      throw InputError(source + ": object id " + std::to_string(ids[i]) + " occurs as object " +
                           std::to_string(it->second) + " and again as object " + std::to_string(i),
                       "the rows of one object must be contiguous; sort the catalog by id or give "
                       "each object a unique id");
  }
}

void Fnv1a64::update(const void* data, std::size_t n) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h_ ^= p[i];
    h_ *= 0x100000001b3ULL;
  }
}

std::string Fnv1a64::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
  return buf;
}

}  // namespace astrosweep::io
