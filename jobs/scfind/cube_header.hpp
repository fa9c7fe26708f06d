#pragma once
// What SoFiA-2's catalogue takes from the cube's FITS header: keyword values read as SoFiA-2 reads
// them (Header_get_flt / Header_get_string: the first card of that name, strtod of its value, the
// text between the quotes), and the world coordinate system through wcslib, set up with the same
// wcslib calls SoFiA-2 makes (wcspih, wcsfix, wcsset, wcsfix), so the coordinates are wcslib's to
// the last bit. An HDF5 cube has no header: it reads as a FITS header with only the axes, which is
// what SoFiA-2 sees in a FITS cube without WCS keywords (wcslib's default linear system).

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct wcsprm;

namespace astrosweep::scfind {

class CubeHeader {
 public:
  /// `cards`: 80-character FITS cards (END excluded); empty: the axes alone (`naxis` of `dims`).
  CubeHeader(std::vector<std::string> cards, std::vector<std::size_t> dims);

  /// strtod of the value of the first card named `key`; NaN when there is none (as SoFiA-2).
  [[nodiscard]] double number(const std::string& key) const;
  /// The text between the quotes of the first card named `key` ('' is a quote), trimmed of spaces
  /// at both ends; empty when there is none.
  [[nodiscard]] std::string text(const std::string& key) const;
  /// Whether a card is named `key` (SoFiA-2's Header_check).
  [[nodiscard]] bool has(const std::string& key) const;
  /// Whether the string value of `key` starts with `prefix` (SoFiA-2's DataCube_cmphd).
  [[nodiscard]] bool starts_with(const std::string& key, const std::string& prefix) const;

  [[nodiscard]] const std::vector<std::string>& cards() const noexcept { return cards_; }
  [[nodiscard]] const std::vector<std::size_t>& dims() const noexcept { return dims_; }

 private:
  [[nodiscard]] std::optional<std::string> value_field(const std::string& key) const;
  std::vector<std::string> cards_;
  std::vector<std::size_t> dims_;
};

/// Frees the `count` wcsprm structures wcspih allocated (wcsvfree).
struct WcsFree {
  int count = 0;
  void operator()(wcsprm* p) const noexcept;
};

/// The cube's world coordinate system (wcslib). Owns wcslib's structures.
class WorldCoordinates {
 public:
  /// nullopt when wcslib finds no usable system in the header (SoFiA-2 then writes no coordinates).
  static std::optional<WorldCoordinates> from(const CubeHeader& header);
  WorldCoordinates(WorldCoordinates&& other) noexcept;
  WorldCoordinates& operator=(WorldCoordinates&& other) noexcept;
  WorldCoordinates(const WorldCoordinates&) = delete;
  WorldCoordinates& operator=(const WorldCoordinates&) = delete;
  ~WorldCoordinates();

  /// World coordinates of 0-based pixel (x, y, z) along the first three axes (other axes at their
  /// first pixel); nullopt when wcslib refuses the point (SoFiA-2 then leaves the values at 0).
  [[nodiscard]] std::optional<std::array<double, 3>> to_world(double x, double y, double z) const;
  /// 0-based pixel (x, y) of world (longitude, latitude), the third axis at world 0 and others at
  /// 0, as SoFiA-2's WCS_convertToPixel; nullopt when wcslib refuses the point.
  [[nodiscard]] std::optional<std::array<double, 2>> to_pixel(double longitude, double latitude) const;

 private:
  WorldCoordinates() = default;
  std::unique_ptr<wcsprm, WcsFree> wcs_;
};

}  // namespace astrosweep::scfind
