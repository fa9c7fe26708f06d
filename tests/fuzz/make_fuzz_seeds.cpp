// make_fuzz_seeds DIR: writes the binary seeds of tests/fuzz/corpus (README there) into
// DIR/<target>/: small FITS light curves in the SPOC/Kepler layouts the reader takes and small
// FITS cubes of every BITPIX with and without scaling, each with the layout of the test fixtures
// (tests/io, tests/cli/make_fits_fixtures.cpp) but a few rows or voxels only, so the fuzzer
// mutates headers and tables rather than bulk data; descriptions of HDF5 catalogs for the
// h5_catalog target; and SIGPROC time series of each nbits (tests/io/time_series_fixtures.hpp)
// with 8 samples.
#include <fitsio.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/time_series_fixtures.hpp"

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

// The h5_catalog target reads a description of a catalog, not an HDF5 file (fuzz_h5_catalog.cpp
// decodes it in this order); these choose a well-formed catalog of the given object sizes, with
// or without /points/dy, and then the variations listed.
struct CatalogSeed {
  std::vector<std::uint8_t> counts;  ///< rows per object (each below 5)
  bool with_errors = true;
  std::uint8_t id_type = 15;   ///< 15: int64 as written by convert; 0: float32, 1: int32, 5: strings
  std::uint8_t id_shape = 15;  ///< 15: one-dimensional; 0: scalar, 1: two-dimensional
};

void catalog_seed(const std::string& path, const CatalogSeed& seed) {
  // format, format_version, time_reference as convert writes them; the number of objects
  std::vector<std::uint8_t> d{7, 7, 7, static_cast<std::uint8_t>(seed.counts.size())};
  std::size_t rows = 0;
  for (const auto count : seed.counts) {
    d.insert(d.end(), {1, 1, count, 1, 2});  // id i*7, count, offset as computed, 2 flagged
    rows += count;
  }
  for (std::size_t r = 0; r < rows; ++r) d.insert(d.end(), {1, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0});  // t = r, y = 1.5
  const std::size_t objects = seed.counts.size();
  const std::size_t lengths[] = {objects, objects, objects, objects, objects, objects, rows, rows};
  for (std::size_t k = 0; k < 9; ++k) {
    if (k == 8) {
      d.push_back(seed.with_errors ? 1 : 3);  // dy present unless this byte is a multiple of 3
      if (!seed.with_errors) break;
    }
    const std::size_t n = k < 8 ? lengths[k] : rows;
    d.insert(d.end(), {1, k == 0 ? seed.id_type : std::uint8_t{15}, 1, 1});  // present, type, length
    d.insert(d.end(), n, 1);                                                 // values as they are
    const std::uint8_t shape = k == 0 ? seed.id_shape : std::uint8_t{15};
    d.push_back(shape);
    if (shape == 1) d.push_back(1);  // two columns
    if (shape != 0) d.push_back(1);  // contiguous (a scalar has no layout choice)
  }
  d.push_back(1);  // not truncated
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(d.data(), 1, d.size(), f) != d.size()) status = 1;
  if (f != nullptr) std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (const char* target : {"fits_light_curves", "fits_cube", "h5_catalog", "sigproc_tim"})
    std::filesystem::create_directories(dir + "/" + target);
  light_curve(dir + "/fits_light_curves/tess_pdcsap_quality.fits", "TICID", 101, true, true);
  light_curve(dir + "/fits_light_curves/kepler_sap_only.fits", "KEPLERID", 757076, false, false);
  light_curve(dir + "/fits_light_curves/no_target_id.fits", nullptr, 0, true, false);
  cube(dir + "/fits_cube/float32.fits", -32, {4, 3, 3}, 1.0, 0.0, false);
  cube(dir + "/fits_cube/float64_scaled.fits", -64, {3, 2, 2}, 2.0, 0.5, false);
  cube(dir + "/fits_cube/int16_scaled_blank.fits", 16, {4, 2, 3}, 0.5, 10.0, true);
  cube(dir + "/fits_cube/int32.fits", 32, {2, 2, 4}, 1.0, 0.0, true);
  cube(dir + "/fits_cube/uint8_naxis4.fits", 8, {3, 3, 2, 1}, 1.0, -5.0, false);
  catalog_seed(dir + "/h5_catalog/three_objects.bin", {{2, 1, 3}});
  catalog_seed(dir + "/h5_catalog/without_errors.bin", {{4, 0}, false});
  catalog_seed(dir + "/h5_catalog/ids_as_float32.bin", {{1, 2}, true, 0});
  // The same with a two-dimensional /objects/id: tests/fuzz/regressions/h5_catalog/ (a heap overflow).
  catalog_seed(dir + "/h5_catalog/ids_two_dimensional.bin", {{1, 1}, true, 15, 1});
  namespace t = astrosweep::test;
  const std::vector<float> samples{0, 1, 2, 3, 250, 251, 254, 255};
  t::TimSpec spec;
  spec.nsamples = 8;
  t::write_file(dir + "/sigproc_tim/float32_nsamples.tim", t::tim_file(spec, samples));
  spec.nsamples.reset();
  spec.nbits = 16;
  t::write_file(dir + "/sigproc_tim/int16.tim", t::tim_file(spec, {-32768, -1, 0, 1, 2, 3, 4, 32767}));
  spec.nbits = 8;
  t::write_file(dir + "/sigproc_tim/uint8.tim", t::tim_file(spec, samples));
  // Every keyword of the table once, in another order.
  t::TimHeader every;
  every.start().text("rawdatafile", "obs.fil").int32("pulsarcentric", 0).int32("nbeams", 1).int32("ibeam", 1);
  every.float64("foff", -0.5).float64("period", 0.1).float64("refrf", 1400).float64("az_start", 10);
  every.float64("za_start", 20).text("source_name", "B0000").int32("telescope_id", 4).int32("machine_id", 0);
  every.int32("data_type", 2).float64("src_raj", 1).float64("src_dej", 2).float64("tstart", 58000);
  every.float64("tsamp", 1e-3).int32("nbits", 32).float64("fch1", 1400).int32("nchans", 1).int32("nifs", 1);
  every.float64("refdm", 3).int32("barycentric", 1).int32("nsamples", 2).end();
  t::write_file(dir + "/sigproc_tim/every_keyword.tim", every.bytes() + t::tim_samples({1.5f, -2.5f}, 32));
  std::printf("seeds in %s (CFITSIO status %d)\n", dir.c_str(), status);
  return status == 0 ? 0 : 1;
}
