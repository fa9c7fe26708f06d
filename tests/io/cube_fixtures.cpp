#include "io/cube_fixtures.hpp"

#include <fitsio.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/error.hpp"
#include "io/cube.hpp"

namespace astrosweep::test {

void write_fits_cube(const std::string& path, int bitpix, const std::vector<long>& naxes,
                     const std::vector<double>& raw, const FitsCubeKeys& keys) {
  int status = 0;
  fitsfile* f = nullptr;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  std::vector<long> axes(naxes);
  fits_create_img(f, bitpix, static_cast<int>(axes.size()), axes.data(), &status);
  auto key_double = [&](const char* name, double value) { fits_write_key(f, TDOUBLE, name, &value, nullptr, &status); };
  auto key_string = [&](const char* name, const char* value) {
    fits_write_key(f, TSTRING, name, const_cast<char*>(value), nullptr, &status);
  };
  if (keys.bscale) key_double("BSCALE", *keys.bscale);
  if (keys.bzero) key_double("BZERO", *keys.bzero);
  if (keys.blank) {
    long long blank = *keys.blank;
    fits_write_key(f, TLONGLONG, "BLANK", &blank, nullptr, &status);
  }
  key_string("CTYPE1", "RA---SIN");
  key_string("CTYPE2", "DEC--SIN");
  key_string("CTYPE3", "FREQ");
  key_double("CRVAL1", 150.0);
  key_double("CRVAL2", 2.0);
  key_double("CRVAL3", fixture_crval3);
  key_double("CDELT3", 18518.5);
  key_double("CRPIX3", 1.0);
  key_string("BUNIT", "Jy/beam");
  key_double("DATAMIN", -1.0);
  key_double("DATAMAX", 1.0);
  fits_write_history(f, "written by the astrosweep tests", &status);
  // Stored values as given: no scaling and no null substitution on the way out.
  fits_set_bscale(f, 1.0, 0.0, &status);
  if (!raw.empty())
    fits_write_img(f, TDOUBLE, 1, static_cast<LONGLONG>(raw.size()), const_cast<double*>(raw.data()), &status);
  fits_close_file(f, &status);
  if (status != 0) {
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    throw std::runtime_error("writing the fixture " + path + " failed: " + text);
  }
}

void expect_cube_input_error(const std::string& spec, const std::vector<std::string>& needles) {
  try {
    io::read_cube_info(spec);
    ADD_FAILURE() << "no error for " << spec;
  } catch (const InputError& e) {
    for (const auto& needle : needles)
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "'" << needle << "' not in: " << e.what();
    EXPECT_FALSE(e.hint().empty()) << e.what();
  }
}

}  // namespace astrosweep::test
