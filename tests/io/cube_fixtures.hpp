#pragma once
// Small FITS cubes written with CFITSIO for the cube reader and mask writer tests, and the check
// of a refused cube.

#include <optional>
#include <string>
#include <vector>

namespace astrosweep::test {

struct FitsCubeKeys {
  std::optional<double> bscale, bzero;
  std::optional<long long> blank;
};

/// A cube in the primary HDU with a spectral WCS (CTYPE3 'FREQ', CRVAL3 1.4e9, ...), BUNIT,
/// DATAMIN/DATAMAX and a HISTORY card. `raw` holds the values as stored (CFITSIO does not scale
/// them on the way), x fastest; it may be empty for headers whose data unit is never read.
void write_fits_cube(const std::string& path, int bitpix, const std::vector<long>& naxes,
                     const std::vector<double>& raw, const FitsCubeKeys& keys = {});

/// Expects read_cube_info(spec) to throw an InputError whose message holds every needle, with a hint.
void expect_cube_input_error(const std::string& spec, const std::vector<std::string>& needles);

/// The CRVAL3 every fixture carries.
inline constexpr double fixture_crval3 = 1.4e9;

}  // namespace astrosweep::test
