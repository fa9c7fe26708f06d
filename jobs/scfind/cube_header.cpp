#include "cube_header.hpp"

#include <wcslib/wcs.h>
#include <wcslib/wcsfix.h>
#include <wcslib/wcshdr.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace astrosweep::scfind {

namespace {

std::string card(const std::string& text) {
  std::string c = text.substr(0, 80);
  c.resize(80, ' ');
  return c;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

CubeHeader::CubeHeader(std::vector<std::string> cards, std::vector<std::size_t> dims)
    : cards_(std::move(cards)), dims_(std::move(dims)) {
  for (auto& c : cards_) c = card(c);
  if (cards_.empty()) {
    // The axes alone: what a FITS file of that shape without any other keyword holds.
    auto value_card = [](const std::string& key, const std::string& value) {
      char text[81];
      std::snprintf(text, sizeof text, "%-8s= %20s", key.c_str(), value.c_str());
      return card(text);
    };
    cards_.push_back(value_card("SIMPLE", "T"));
    cards_.push_back(value_card("BITPIX", "-32"));
    cards_.push_back(value_card("NAXIS", std::to_string(dims_.size())));
    for (std::size_t i = 0; i < dims_.size(); ++i)
      cards_.push_back(value_card("NAXIS" + std::to_string(i + 1), std::to_string(dims_[i])));
  }
}

std::optional<std::string> CubeHeader::value_field(const std::string& key) const {
  std::string name = key.substr(0, 8);
  name.resize(8, ' ');
  for (const auto& c : cards_)
    if (c.compare(0, 8, name) == 0 && c.compare(8, 2, "= ") == 0) return c.substr(10);
  return std::nullopt;
}

bool CubeHeader::has(const std::string& key) const {
  for (const auto& c : cards_) {
    std::string name = c.substr(0, 8);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (name == key) return true;
  }
  return false;
}

double CubeHeader::number(const std::string& key) const {
  const auto field = value_field(key);
  if (!field) return std::numeric_limits<double>::quiet_NaN();
  return std::strtod(field->c_str(), nullptr);
}

std::string CubeHeader::text(const std::string& key) const {
  const auto field = value_field(key);
  if (!field) return {};
  const auto left = field->find('\'');
  if (left == std::string::npos) return {};
  std::string out;
  for (std::size_t i = left + 1; i < field->size(); ++i) {
    if ((*field)[i] == '\'') {
      if (i + 1 < field->size() && (*field)[i + 1] == '\'') {
        out.push_back('\'');
        ++i;
        continue;
      }
      break;
    }
    out.push_back((*field)[i]);
  }
  return trimmed(out);
}

bool CubeHeader::starts_with(const std::string& key, const std::string& prefix) const {
  return text(key).compare(0, prefix.size(), prefix) == 0;
}

void WcsFree::operator()(wcsprm* p) const noexcept {
  int n = count;
  wcsvfree(&n, &p);
}

WorldCoordinates::WorldCoordinates(WorldCoordinates&&) noexcept = default;
WorldCoordinates& WorldCoordinates::operator=(WorldCoordinates&&) noexcept = default;
WorldCoordinates::~WorldCoordinates() = default;

std::optional<WorldCoordinates> WorldCoordinates::from(const CubeHeader& header) {
  // SoFiA-2's WCS_setup: every card (and END) to wcspih with all relaxations, then wcsfix, wcsset,
  // wcsfix on the first system found; any failure: no coordinates.
  std::string text;
  for (const auto& c : header.cards()) text += c;
  text += card("END");
  int rejected = 0, count = 0;
  wcsprm* found = nullptr;
  int status = wcspih(text.data(), static_cast<int>(text.size() / 80), WCSHDR_all, 0, &rejected, &count, &found);
  WorldCoordinates w;
  w.wcs_ = std::unique_ptr<wcsprm, WcsFree>(found, WcsFree{count});
  if (status != 0 || found == nullptr || count < 1) return std::nullopt;
  std::vector<int> dims;
  for (std::size_t d : header.dims()) dims.push_back(d != 0 ? static_cast<int>(d) : 1);
  dims.resize(static_cast<std::size_t>(std::max(found->naxis, static_cast<int>(dims.size()))), 1);
  int stat[NWCSFIX];
  status = wcsfix(1, dims.data(), found, stat);
  if (status == 0) status = wcsset(found);
  if (status == 0) status = wcsfix(1, dims.data(), found, stat);
  if (status != 0) return std::nullopt;
  return w;
}

std::optional<std::array<double, 3>> WorldCoordinates::to_world(double x, double y, double z) const {
  const int n = wcs_->naxis;
  if (n < 1) return std::nullopt;
  std::vector<double> pixel(static_cast<std::size_t>(n), 1.0), image(pixel.size()), world(pixel.size());
  const double at[3] = {x, y, z};
  for (int i = 0; i < n && i < 3; ++i) pixel[static_cast<std::size_t>(i)] = 1.0 + at[i];  // wcslib is 1-based
  double phi = 0, theta = 0;
  int stat = 0;
  if (wcsp2s(wcs_.get(), 1, n, pixel.data(), image.data(), &phi, &theta, world.data(), &stat) != 0) return std::nullopt;
  std::array<double, 3> out{0, 0, 0};
  for (int i = 0; i < n && i < 3; ++i) out[static_cast<std::size_t>(i)] = world[static_cast<std::size_t>(i)];
  return out;
}

std::optional<std::array<double, 2>> WorldCoordinates::to_pixel(double longitude, double latitude) const {
  const int n = wcs_->naxis;
  if (n < 2) return std::nullopt;
  std::vector<double> world(static_cast<std::size_t>(n), 0.0), image(world.size()), pixel(world.size());
  world[0] = longitude;
  world[1] = latitude;
  double phi = 0, theta = 0;
  int stat = 0;
  if (wcss2p(wcs_.get(), 1, n, world.data(), &phi, &theta, image.data(), pixel.data(), &stat) != 0) return std::nullopt;
  return std::array<double, 2>{pixel[0] - 1.0, pixel[1] - 1.0};  // wcslib is 1-based
}

}  // namespace astrosweep::scfind
