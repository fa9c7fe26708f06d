// make_fuzz_seeds DIR: writes the binary seeds of tests/fuzz/corpus (README there) into
// DIR/<target>/: small FITS light curves in the SPOC/Kepler layouts the reader takes, small FITS
// cubes of every BITPIX with and without scaling, and small HDF5 catalogs, each with the layout of
// the test fixtures (tests/io, tests/cli/make_fits_fixtures.cpp) but a few rows or voxels only, so
// the fuzzer mutates headers and tables rather than bulk data.
#include <fitsio.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/h5_catalog.hpp"

namespace {

int status = 0;  // CFITSIO's running status: every call is a no-op after the first failure

void light_curve(const std::string& path, const char* id_key, long id, bool pdcsap, bool quality) {
  fitsfile* f = nullptr;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  fits_create_img(f, 8, 0, nullptr, &status);
  if (id_key != nullptr) fits_write_key(f, TLONG, id_key, &id, nullptr, &status);
  std::vector<std::string> names{"TIME"};
  if (pdcsap) names.insert(names.end(), {"PDCSAP_FLUX", "PDCSAP_FLUX_ERR"});
  names.insert(names.end(), {"SAP_FLUX", "SAP_FLUX_ERR"});
  if (quality) names.push_back("QUALITY");
  std::vector<std::string> forms;
  std::vector<char*> ttype, tform;
  for (const auto& n : names) forms.push_back(n == "TIME" ? "1D" : n == "QUALITY" ? "1J" : "1E");
  for (std::size_t i = 0; i < names.size(); ++i) {
    ttype.push_back(names[i].data());
    tform.push_back(forms[i].data());
  }
  char extname[] = "LIGHTCURVE";
  fits_create_tbl(f, BINARY_TBL, 0, static_cast<int>(names.size()), ttype.data(), tform.data(), nullptr, extname,
                  &status);
  long refi = 2457000;
  double reff = 0.5;
  char timesys[] = "TDB";
  fits_write_key(f, TLONG, "BJDREFI", &refi, nullptr, &status);
  fits_write_key(f, TDOUBLE, "BJDREFF", &reff, nullptr, &status);
  fits_write_key(f, TSTRING, "TIMESYS", timesys, nullptr, &status);
  for (long r = 0; r < 8; ++r) {
    // Out of time order, a NaN time and a NaN flux, a flagged cadence: the reader's cases.
    double t = r == 5 ? std::numeric_limits<double>::quiet_NaN() : 1325.0 + 0.02 * static_cast<double>((r * 3) % 8);
    float flux = r == 2 ? std::numeric_limits<float>::quiet_NaN() : 1000.0F + static_cast<float>(r);
    float err = 0.5F;
    int q = r == 6 ? 128 : 0;
    int col = 1;
    fits_write_col(f, TDOUBLE, col++, r + 1, 1, 1, &t, &status);
    for (int k = 0; k < (pdcsap ? 2 : 1); ++k) {
      fits_write_col(f, TFLOAT, col++, r + 1, 1, 1, &flux, &status);
      fits_write_col(f, TFLOAT, col++, r + 1, 1, 1, &err, &status);
    }
    if (quality) fits_write_col(f, TINT, col++, r + 1, 1, 1, &q, &status);
  }
  fits_close_file(f, &status);
}

void cube(const std::string& path, int bitpix, std::vector<long> axes, double bscale, double bzero, bool blank) {
  fitsfile* f = nullptr;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  fits_create_img(f, bitpix, static_cast<int>(axes.size()), axes.data(), &status);
  if (bscale != 1.0) fits_write_key(f, TDOUBLE, "BSCALE", &bscale, nullptr, &status);
  if (bzero != 0.0) fits_write_key(f, TDOUBLE, "BZERO", &bzero, nullptr, &status);
  long long blank_value = -1;
  if (blank) fits_write_key(f, TLONGLONG, "BLANK", &blank_value, nullptr, &status);
  char ctype3[] = "FREQ";
  double crval3 = 1.4e9;
  fits_write_key(f, TSTRING, "CTYPE3", ctype3, nullptr, &status);
  fits_write_key(f, TDOUBLE, "CRVAL3", &crval3, nullptr, &status);
  fits_set_bscale(f, 1.0, 0.0, &status);  // raw values as given
  long n = 1;
  for (long a : axes) n *= a;
  std::vector<double> raw(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) raw[static_cast<std::size_t>(i)] = static_cast<double>((i * 7) % 11) - 5.0;
  if (bitpix < 0) {
    raw[1] = std::numeric_limits<double>::quiet_NaN();
    raw[2] = std::numeric_limits<double>::infinity();
  }
  if (bitpix == 8)
    for (double& v : raw) v += 5;  // unsigned
  fits_write_img(f, TDOUBLE, 1, n, raw.data(), &status);
  fits_close_file(f, &status);
}

void catalog(const std::string& path, bool with_errors) {
  astrosweep::io::LightCurveBlock block;
  const std::vector<double> no_errors;
  block.append(7, {1.0, 2.0, 3.5}, {0.1, 0.2, 0.3}, with_errors ? std::vector<double>{0.01, 0.01, 0.02} : no_errors);
  block.append(-3, {5.0}, {1.0}, with_errors ? std::vector<double>{0.5} : no_errors, 2);
  block.append(42, {std::nan(""), 4.0}, {0.0, 1.0}, with_errors ? std::vector<double>{1.0, 1.0} : no_errors);
  astrosweep::io::InputIdentity source{"csv", "seed.csv", 0, "0"};
  astrosweep::io::write_h5_catalog(path, block, "MJD", source);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (const char* target : {"fits_light_curves", "fits_cube", "h5_catalog"})
    std::filesystem::create_directories(dir + "/" + target);
  light_curve(dir + "/fits_light_curves/tess_pdcsap_quality.fits", "TICID", 101, true, true);
  light_curve(dir + "/fits_light_curves/kepler_sap_only.fits", "KEPLERID", 757076, false, false);
  light_curve(dir + "/fits_light_curves/no_target_id.fits", nullptr, 0, true, false);
  cube(dir + "/fits_cube/float32.fits", -32, {4, 3, 3}, 1.0, 0.0, false);
  cube(dir + "/fits_cube/float64_scaled.fits", -64, {3, 2, 2}, 2.0, 0.5, false);
  cube(dir + "/fits_cube/int16_scaled_blank.fits", 16, {4, 2, 3}, 0.5, 10.0, true);
  cube(dir + "/fits_cube/int32.fits", 32, {2, 2, 4}, 1.0, 0.0, true);
  cube(dir + "/fits_cube/uint8_naxis4.fits", 8, {3, 3, 2, 1}, 1.0, -5.0, false);
  catalog(dir + "/h5_catalog/with_errors.h5", true);
  catalog(dir + "/h5_catalog/without_errors.h5", false);
  std::printf("seeds in %s (CFITSIO status %d)\n", dir.c_str(), status);
  return status == 0 ? 0 : 1;
}
