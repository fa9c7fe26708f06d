// bad_inputs: fixtures and checks for the bad-input suite (tests/cli/bad_input_suite.cmake).
//   bad_inputs fixtures DIR         writes small bad (and borderline) inputs of every format into DIR
//   bad_inputs product FILE         prints a period product's status and one line per object
//                                   (with its time reference, and each object's when it has one)
//   bad_inputs state FILE           prints absent, unreadable, or the product's status attribute
//   bad_inputs fsize BYTES CMD ...  runs CMD with a file-size limit (RLIMIT_FSIZE) of BYTES: a full
//                                   disk that is the same on every machine
// Everything is generated from code, so no binary fixture is committed; corrupted files are good
// files with bytes cut or overwritten where a damaged download or disk would have them.
#include <fitsio.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "io/h5_catalog.hpp"
#include "io/time_series_fixtures.hpp"

namespace fs = std::filesystem;
namespace h5 = astrosweep::h5;

namespace {

// --- bytes ---

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Offset of the header card `keyword` (80-character cards on 80-byte boundaries) from `from` on.
std::size_t card_offset(const std::string& bytes, const std::string& keyword, std::size_t from = 0) {
  std::string key = keyword;
  key.resize(8, ' ');
  for (std::size_t at = from / 80 * 80; at + 80 <= bytes.size(); at += 80)
    if (bytes.compare(at, 8, key) == 0) return at;
  throw std::runtime_error("no card " + keyword);
}

// The card's value field (columns 11-30) replaced by `value`, right-justified as FITS writes numbers.
std::string with_value(std::string bytes, const std::string& keyword, const std::string& value, std::size_t from = 0) {
  const std::size_t at = card_offset(bytes, keyword, from);
  std::string field(20, ' ');
  field.replace(20 - value.size(), value.size(), value);
  bytes.replace(at + 10, 20, field);
  return bytes;
}

// --- deterministic numbers ---

struct Lcg {
  std::uint64_t state = 12345;
  double uniform() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  }
  double normal() {
    const double u = uniform() + 1e-300, v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
  }
};

// A byte 0..255 (through unsigned: a double above 127 converted to char is undefined behaviour).
char random_byte(Lcg& random) {
  return static_cast<char>(static_cast<unsigned char>(static_cast<unsigned>(random.uniform() * 256) & 0xFFU));
}

void fits_ok(int status, const std::string& what) {
  if (status == 0) return;
  char text[FLEN_STATUS] = {};
  fits_get_errstatus(status, text);
  throw std::runtime_error(what + ": " + text);
}

// --- CSV light curves ---

void csv_fixtures(const std::string& dir) {
  fs::create_directories(dir + "/not-fits");
  auto text = [&](const std::string& name, const std::string& body) { write_bytes(dir + "/" + name, body); };
  std::string good;
  for (int k = 0; k < 40; ++k) {
    char line[96];
    std::snprintf(line, sizeof line, "7, %.6f, %.6f, 0.05\n", 0.37 * k, std::sin(2 * M_PI * 0.37 * k / 1.3));
    good += line;
  }
  text("good.csv", good);
  text("truncated.csv", good.substr(0, good.size() / 2 + 7));  // cut inside a line
  text("garbage.csv", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe", 18) + "\n");
  text("missing_column.csv", "1, 1.0, 2.0\n1, 2.0\n");
  text("header.csv", "id, t, y, dy\n" + good);
  text("out_of_range.csv", "1, 1.0, 2.0\n1, 2.0, 1e999\n1, 3.0, 2.5\n");
  text("comments_only.csv", "# id, t, y\n\n# nothing here\n");
  text("not-fits/readme.txt", "a directory without light curves\n");
  // Objects the search cannot use but must keep, each with its status bits: only NaNs, N_t = 1
  // and 2, N_t = 3, negative and zero errors, constant data.
  std::string kept;
  for (int k = 0; k < 5; ++k) kept += "1, " + std::to_string(k) + ", nan, 0.1\n";
  kept += "2, 1.0, 3.0, 0.1\n";
  kept += "3, 1.0, 3.0, 0.1\n3, 2.0, 2.0, 0.1\n";
  kept += "4, 1.0, 3.0, 0.1\n4, 2.0, 2.0, 0.1\n4, 3.5, 2.5, 0.1\n";
  for (int k = 0; k < 6; ++k) kept += "5, " + std::to_string(k) + ", " + std::to_string(k % 3) + ", -0.1\n";
  for (int k = 0; k < 6; ++k) kept += "6, " + std::to_string(k) + ", " + std::to_string(k % 3) + ", 0\n";
  for (int k = 0; k < 6; ++k) kept += "8, " + std::to_string(k) + ", 4.25, 0.1\n";
  text("unusable.csv", kept);
  // Absurd magnitudes: 1e300 fluxes, 1e300 and 1e-300 errors, one time of 1e300 days, times in
  // units of 1e300 days; an ordinary object (7) for comparison.
  std::string absurd;
  for (int id : {7, 11, 12, 13, 14, 15, 16}) {
    for (int k = 0; k < 40; ++k) {
      double t = 0.37 * k, y = std::sin(2 * M_PI * t / 1.3), dy = 0.05;
      if (id == 11 || id == 16) y *= 1e300;
      if (id == 12 || id == 16) dy = 1e300;
      if (id == 13) dy = 1e-300;
      if (id == 14 && k == 5) t = 1e300;
      if (id == 15) t *= 1e300;
      char line[128];
      std::snprintf(line, sizeof line, "%d, %.17g, %.17g, %.17g\n", id, t, y, dy);
      absurd += line;
    }
  }
  text("absurd.csv", absurd);
  // The ordinary object with its lines in reverse time order, and shuffled.
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < good.size();) {
    const std::size_t eol = good.find('\n', at);
    lines.push_back(good.substr(at, eol - at + 1));
    at = eol + 1;
  }
  std::string reversed, shuffled;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) reversed += *it;
  for (std::size_t k = 0; k < lines.size(); ++k) shuffled += lines[(k * 17) % lines.size()];
  text("reversed.csv", reversed);
  text("shuffled.csv", shuffled);
}

// --- TESS-like FITS light curves ---

struct LightCurveSpec {
  long rows = 500;
  long first = 0;  ///< index of the first cadence (sectors of one target follow each other)
  std::optional<long> ticid = 101;
  bool nan_flux = false;
  bool descending = false;
  bool time_as_text = false;
  bool without_time = false;
};

void write_light_curve(const std::string& path, const LightCurveSpec& spec) {
  int status = 0;
  fitsfile* f = nullptr;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  fits_create_img(f, 8, 0, nullptr, &status);
  if (spec.ticid) {
    long ticid = *spec.ticid;
    fits_write_key(f, TLONG, "TICID", &ticid, nullptr, &status);
  }
  char c_time[] = "TIME", c_flux[] = "PDCSAP_FLUX", c_err[] = "PDCSAP_FLUX_ERR", c_q[] = "QUALITY";
  char f_d[] = "1D", f_e[] = "1E", f_j[] = "1J", f_a[] = "16A";
  std::vector<char*> ttype{c_flux, c_err, c_q}, tform{f_e, f_e, f_j};
  if (!spec.without_time) {
    ttype.insert(ttype.begin(), c_time);
    tform.insert(tform.begin(), spec.time_as_text ? f_a : f_d);
  }
  char extname[] = "LIGHTCURVE";
  fits_create_tbl(f, BINARY_TBL, 0, static_cast<int>(ttype.size()), ttype.data(), tform.data(), nullptr, extname,
                  &status);
  long refi = 2457000;
  fits_write_key(f, TLONG, "BJDREFI", &refi, nullptr, &status);
  const int c0 = spec.without_time ? 0 : 1;
  for (long r = 0; r < spec.rows; ++r) {
    const long k = spec.first + (spec.descending ? spec.rows - 1 - r : r);
    double t = 1325.0 + 0.02 * static_cast<double>(k);
    float flux = spec.nan_flux ? std::numeric_limits<float>::quiet_NaN()
                               : static_cast<float>(1000 + 5 * std::sin(2 * M_PI * t / 1.7));
    float err = 0.5f;
    int q = 0;
    if (!spec.without_time) {
      if (spec.time_as_text) {
        char text[17] = "not a time";
        char* cell = text;
        fits_write_col(f, TSTRING, 1, r + 1, 1, 1, &cell, &status);
      } else {
        fits_write_col(f, TDOUBLE, 1, r + 1, 1, 1, &t, &status);
      }
    }
    fits_write_col(f, TFLOAT, c0 + 1, r + 1, 1, 1, &flux, &status);
    fits_write_col(f, TFLOAT, c0 + 2, r + 1, 1, 1, &err, &status);
    fits_write_col(f, TINT, c0 + 3, r + 1, 1, 1, &q, &status);
  }
  fits_close_file(f, &status);
  fits_ok(status, "writing " + path);
}

void fits_light_curve_fixtures(const std::string& dir) {
  fs::create_directories(dir + "/sectors");
  const std::string good = dir + "/good_lc.fits";
  write_light_curve(good, {});
  // One target in two sectors given out of time order, each sector's cadences descending: the
  // reader merges them and sorts by time.
  write_light_curve(dir + "/sectors/s1_lc.fits", {.rows = 250, .first = 250, .descending = true});
  write_light_curve(dir + "/sectors/s2_lc.fits", {.rows = 250, .first = 0, .descending = true});
  write_light_curve(dir + "/zero_rows_lc.fits", {.rows = 0, .ticid = 200});
  write_light_curve(dir + "/one_row_lc.fits", {.rows = 1, .ticid = 201});
  write_light_curve(dir + "/two_rows_lc.fits", {.rows = 2, .ticid = 202});
  write_light_curve(dir + "/nan_flux_lc.fits", {.ticid = 203, .nan_flux = true});
  write_light_curve(dir + "/text_time_lc.fits", {.time_as_text = true});
  write_light_curve(dir + "/no_time_lc.fits", {.without_time = true});
  {
    int status = 0;
    fitsfile* f = nullptr;
    long axes[2] = {8, 8};
    fits_create_file(&f, ("!" + dir + "/image.fits").c_str(), &status);
    fits_create_img(f, 16, 2, axes, &status);
    std::vector<short> zeros(64, 0);
    fits_write_img(f, TSHORT, 1, 64, zeros.data(), &status);
    fits_close_file(f, &status);
    fits_ok(status, "writing image.fits");
  }
  const std::string bytes = read_bytes(good);
  const std::size_t table = card_offset(bytes, "XTENSION");
  const std::size_t table_end = card_offset(bytes, "END", table);
  const std::size_t data = (table_end / 2880 + 1) * 2880;
  write_bytes(dir + "/empty.fits", "");
  write_bytes(dir + "/truncated_header_lc.fits", bytes.substr(0, 1000));
  write_bytes(dir + "/truncated_rows_lc.fits", bytes.substr(0, data + 10 * 20 + 7));  // row 11 cut short
  std::string no_end = bytes;
  no_end.replace(card_offset(no_end, "END"), 3, "   ");
  write_bytes(dir + "/no_end_lc.fits", no_end);
  std::string bad_card = bytes;
  bad_card.replace(card_offset(bad_card, "TICID") + 2, 1, "\x07");
  write_bytes(dir + "/bad_card_lc.fits", bad_card);
  write_bytes(dir + "/bad_ticid_lc.fits", with_value(bytes, "TICID", "'not-a-number'"));
  write_bytes(dir + "/bad_bitpix_lc.fits", with_value(bytes, "BITPIX", "12"));
  write_bytes(dir + "/bad_naxis_lc.fits", with_value(bytes, "NAXIS", "-1", table));
  std::string garbage = bytes.substr(0, 80);
  Lcg random;
  while (garbage.size() < bytes.size()) garbage.push_back(random_byte(random));
  write_bytes(dir + "/garbage_lc.fits", garbage);
}

// --- HDF5 light-curve catalogs ---

void h5_catalog_fixtures(const std::string& dir) {
  fs::create_directories(dir);
  astrosweep::io::LightCurveBlock block;
  Lcg random;
  auto object = [&](std::int64_t id, int n, bool nan = false) {
    std::vector<double> t, y, dy;
    for (int k = 0; k < n; ++k) {
      t.push_back(0.37 * k);
      y.push_back(nan ? std::numeric_limits<double>::quiet_NaN()
                      : std::sin(2 * M_PI * 0.37 * k / 1.3) + 0.1 * random.normal());
      dy.push_back(0.1);
    }
    block.append(id, t, y, dy);
  };
  object(1, 40);
  object(2, 0);  // N_t = 0 is possible in a catalog
  object(3, 1);
  object(4, 2);
  object(5, 30, true);
  object(6, 40);
  const astrosweep::io::InputIdentity source{"csv", "generated", 0, "0"};
  const std::string good = dir + "/good.h5";
  astrosweep::io::write_h5_catalog(good, block, "MJD", source);
  astrosweep::io::write_h5_catalog(dir + "/no_objects.h5", astrosweep::io::LightCurveBlock{}, "MJD", source);

  // Variants of the good catalog with one dataset replaced.
  auto variant = [&](const std::string& name, const std::string& dataset, hid_t type,
                     const std::vector<hsize_t>& dims) {
    fs::copy_file(good, dir + "/" + name, fs::copy_options::overwrite_existing);
    h5::Id file(H5Fopen((dir + "/" + name).c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    h5::check(H5Ldelete(file.get(), dataset.c_str(), H5P_DEFAULT), "H5Ldelete");
    if (type < 0) return;
    h5::Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    h5::Id ds(H5Dcreate2(file.get(), dataset.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (H5Tget_class(type) != H5T_STRING) {
      hsize_t n = 1;
      for (auto d : dims) n *= d;
      std::vector<double> zeros(n, 0.0);
      h5::check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()), "H5Dwrite");
    }
  };
  const hsize_t rows = block.t.size();
  variant("missing_y.h5", "points/y", H5I_INVALID_HID, {});
  variant("short_y.h5", "points/y", H5T_NATIVE_DOUBLE, {rows - 5});
  variant("rank2_t.h5", "points/t", H5T_NATIVE_DOUBLE, {rows, 2});
  h5::Id text(H5Tcopy(H5T_C_S1));
  H5Tset_size(text.get(), 8);
  variant("text_t.h5", "points/t", text.get(), {rows});
  variant("short_count.h5", "objects/count", H5T_NATIVE_UINT64, {3});

  // Ids that repeat, and offsets with a gap (objects not stored one after the other).
  auto rewrite = [&](const std::string& name, const std::string& dataset, auto values) {
    fs::copy_file(good, dir + "/" + name, fs::copy_options::overwrite_existing);
    h5::Id file(H5Fopen((dir + "/" + name).c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    h5::Id ds(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT));
    using T = typename decltype(values)::value_type;
    h5::check(H5Dwrite(ds.get(), h5::native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "H5Dwrite");
  };
  rewrite("duplicate_ids.h5", "objects/id", std::vector<std::int64_t>{1, 2, 3, 4, 5, 1});
  auto offsets = h5::read_all<std::uint64_t>(h5::open_file(good, h5::Access::read).get(), "objects/offset");
  offsets[4] += 1;
  rewrite("gap_offsets.h5", "objects/offset", offsets);

  const std::string bytes = read_bytes(good);
  write_bytes(dir + "/truncated.h5", bytes.substr(0, bytes.size() / 2));
  std::string damaged = bytes;  // the superblock intact, the object headers after it overwritten
  Lcg noise;
  for (std::size_t i = 96; i < std::min<std::size_t>(damaged.size(), 4096); ++i) damaged[i] = random_byte(noise);
  write_bytes(dir + "/damaged.h5", damaged);
  write_bytes(dir + "/empty.h5", "");
}

// --- cubes ---

std::vector<double> noise_cube(std::size_t n, double sigma) {
  Lcg random;
  std::vector<double> v(n);
  for (auto& x : v) x = sigma * random.normal();
  return v;
}

void write_fits_cube(const std::string& path, int bitpix, std::vector<long> axes, const std::vector<double>& values) {
  int status = 0;
  fitsfile* f = nullptr;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  fits_create_img(f, bitpix, static_cast<int>(axes.size()), axes.data(), &status);
  char ctype3[] = "FREQ";
  fits_write_key(f, TSTRING, "CTYPE3", ctype3, nullptr, &status);
  fits_write_img(f, TDOUBLE, 1, static_cast<LONGLONG>(values.size()), const_cast<double*>(values.data()), &status);
  fits_close_file(f, &status);
  fits_ok(status, "writing " + path);
}

void write_h5_cube(const std::string& path, const std::string& dataset, hid_t type, const std::vector<hsize_t>& dims,
                   const std::vector<double>& values) {
  h5::Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  h5::Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  h5::Id ds(H5Dcreate2(file.get(), dataset.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!values.empty())
    h5::check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "H5Dwrite");
}

void cube_fixtures(const std::string& dir) {
  fs::create_directories(dir);
  const long nx = 16, ny = 16, nz = 32;
  const auto values = noise_cube(nx * ny * nz, 0.01);
  const std::string good = dir + "/good.fits";
  write_fits_cube(good, FLOAT_IMG, {nx, ny, nz}, values);
  // A cube large enough that its mask does not fit under the file-size limit of the full-disk tests.
  write_fits_cube(dir + "/large.fits", FLOAT_IMG, {128, 128, 32}, noise_cube(128 * 128 * 32, 0.01));
  auto huge = values;
  for (std::size_t i = 0; i < huge.size(); i += 7) huge[i] = 1e300;
  write_fits_cube(dir + "/huge_values.fits", DOUBLE_IMG, {nx, ny, nz}, huge);
  write_fits_cube(dir + "/all_nan.fits", FLOAT_IMG, {nx, ny, nz},
                  std::vector<double>(values.size(), std::numeric_limits<double>::quiet_NaN()));

  const std::string bytes = read_bytes(good);
  const std::size_t data = (card_offset(bytes, "END") / 2880 + 1) * 2880;
  const std::size_t plane = nx * ny * 4;
  write_bytes(dir + "/truncated_header.fits", bytes.substr(0, 1000));
  write_bytes(dir + "/truncated_mid_channel.fits", bytes.substr(0, data + 3 * plane + plane / 2));
  write_bytes(dir + "/truncated_padding.fits", bytes.substr(0, bytes.size() - 1));
  std::string no_end = bytes;
  no_end.replace(card_offset(no_end, "END"), 3, "   ");
  write_bytes(dir + "/no_end.fits", no_end);
  std::string bad_card = bytes;
  bad_card.replace(card_offset(bad_card, "CTYPE3") + 1, 1, "\x07");
  write_bytes(dir + "/bad_card.fits", bad_card);
  // BSCALE = 'abc': a value that is not a number must not silently become 1.
  std::string bad_bscale = bytes;
  bad_bscale.replace(card_offset(bad_bscale, "CTYPE3"), 80,
                     "BSCALE  = 'abc'                / damaged                                        ");
  write_bytes(dir + "/bad_bscale.fits", bad_bscale);
  write_bytes(dir + "/bitpix12.fits", with_value(bytes, "BITPIX", "12"));
  write_bytes(dir + "/naxis3_zero.fits", with_value(bytes, "NAXIS3", "0"));
  std::string garbage = "SIMPLE  =";  // a FITS signature, then noise
  Lcg random;
  while (garbage.size() < 2 * 2880) garbage.push_back(random_byte(random));
  write_bytes(dir + "/garbage_header.fits", garbage);

  // HDF5 cubes (channels, y, x).
  const std::vector<hsize_t> dims{static_cast<hsize_t>(nz), static_cast<hsize_t>(ny), static_cast<hsize_t>(nx)};
  write_h5_cube(dir + "/good.h5", "cube", H5T_NATIVE_FLOAT, dims, values);
  write_h5_cube(dir + "/rank2.h5", "cube", H5T_NATIVE_FLOAT, {static_cast<hsize_t>(ny), static_cast<hsize_t>(nx)},
                std::vector<double>(values.begin(), values.begin() + nx * ny));
  write_h5_cube(dir + "/int64.h5", "cube", H5T_NATIVE_INT64, dims, std::vector<double>(values.size(), 0.0));
  write_h5_cube(dir + "/no_channels.h5", "cube", H5T_NATIVE_FLOAT, {0, dims[1], dims[2]}, {});
  write_h5_cube(dir + "/all_nan.h5", "cube", H5T_NATIVE_FLOAT, dims,
                std::vector<double>(values.size(), std::numeric_limits<double>::quiet_NaN()));
  {
    h5::Id file(H5Fcreate((dir + "/group.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    h5::Id group(H5Gcreate2(file.get(), "cube", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  }
  const std::string h5_bytes = read_bytes(dir + "/good.h5");
  write_bytes(dir + "/truncated.h5", h5_bytes.substr(0, h5_bytes.size() / 2));
}

// --- SoFiA-2 parameter files ---

void parameter_fixtures(const std::string& dir, const std::string& cube) {
  fs::create_directories(dir);
  write_bytes(dir + "/bad_value.par", "input.data = " + cube + "\nscfind.enable = true\nscfind.threshold = five\n");
  write_bytes(dir + "/bad_list.par", "input.data = " + cube + "\nscfind.kernelsZ = 0, 3, x\n");
  write_bytes(dir + "/garbage.par", std::string("\x7f"
                                                "ELF\x02\x01\x01\0\0\0",
                                                10) +
                                        "\n");
  write_bytes(dir + "/empty.par", "");
  write_bytes(dir + "/good.par", "input.data = " + cube + "\nscfind.enable = true\nscfind.threshold = 5\n");
  write_bytes(dir + "/missing_cube.par", "input.data = " + dir + "/no-such-cube.fits\n");
}

// --- time series (SIGPROC .tim, PRESTO .dat/.inf), converted by `astrosweep convert` ---

void time_series_fixtures(const std::string& dir) {
  namespace t = astrosweep::test;
  for (const char* sub : {"good", "mixed_tsamp", "nan_batch", "empty_dir"}) fs::create_directories(dir + "/" + sub);
  const auto samples = t::noise_series(1024, 7);
  t::TimSpec spec;
  t::write_file(dir + "/good/a_DM0.tim", t::tim_file(spec, samples));
  spec.refdm = 10;
  t::write_file(dir + "/good/b_DM10.tim", t::tim_file(spec, t::noise_series(1024, 8)));
  const std::string good = t::tim_file({}, samples);
  const std::string header = t::tim_header({});
  // The length of the second keyword ("source_name" is the first) overwritten: a damaged disk block.
  std::string damaged = good;
  const std::size_t second = 16 + 4 + 11 + 4 + 10;  // HEADER_START, source_name and its value
  damaged.replace(second, 4, "\xff\xff\xff\x7f");
  write_bytes(dir + "/damaged_header.tim", damaged);
  write_bytes(dir + "/truncated_header.tim", header.substr(0, header.size() / 2));
  t::TimHeader unknown;
  unknown.start().text("source_name", "J0000+0000").int32("signed", 1).float64("tsamp", 64e-6).end();
  write_bytes(dir + "/unknown_keyword.tim", unknown.bytes() + t::tim_samples(samples, 32));
  t::TimSpec counted;
  counted.nsamples = 1000;
  write_bytes(dir + "/truncated_data.tim",
              t::tim_file(counted, samples).substr(0, t::tim_header(counted).size() + 600 * 4));
  t::TimSpec filterbank;
  filterbank.nchans = 64;
  filterbank.data_type = 1;
  write_bytes(dir + "/filterbank.tim", t::tim_file(filterbank, samples));
  // Two series of one directory with different sampling intervals.
  write_bytes(dir + "/mixed_tsamp/a.tim", good);
  t::TimSpec slow;
  slow.tsamp = 128e-6;
  write_bytes(dir + "/mixed_tsamp/b.tim", t::tim_file(slow, samples));
  // A NaN: alone, and in the second series of a batch (the first is already written then).
  auto with_nan = samples;
  with_nan[37] = std::numeric_limits<float>::quiet_NaN();
  write_bytes(dir + "/nan.tim", t::tim_file({}, with_nan));
  write_bytes(dir + "/nan_batch/a.tim", good);
  write_bytes(dir + "/nan_batch/b.tim", t::tim_file({}, with_nan));
  // PRESTO: a .dat without its .inf (samples with zeros: binary, not text), an .inf with a bad
  // line, a .dat shorter than its .inf says.
  auto with_zero = samples;
  with_zero[0] = 0;
  write_bytes(dir + "/alone.dat", t::tim_samples(with_zero, 32));
  t::write_presto(dir + "/good_presto", {}, samples);
  std::string inf = t::presto_inf({.n_samples = 1024}, "bad_line");
  inf.insert(inf.find(" Object"), "Telescope GBT\n");
  write_bytes(dir + "/bad_line.inf", inf);
  write_bytes(dir + "/bad_line.dat", t::tim_samples(samples, 32));
  t::write_presto(dir + "/short", {.n_samples = 1024}, std::vector<float>(samples.begin(), samples.begin() + 1000));
}

// Files nobody but their owner may read (and root: the suite runs those tests as user nobody), a
// directory that cannot be listed, one that cannot be written to, and a directory everyone may
// write to for the outputs of the tests run as nobody.
void permission_fixtures(const std::string& dir) {
  using fs::perms;
  for (const auto& [from, to] :
       {std::pair{"csv/good.csv", "csv/unreadable.csv"}, std::pair{"fitslc/good_lc.fits", "fitslc/unreadable_lc.fits"},
        std::pair{"h5cat/good.h5", "h5cat/unreadable.h5"}, std::pair{"cube/good.fits", "cube/unreadable.fits"},
        std::pair{"cube/good.h5", "cube/unreadable.h5"}, std::pair{"par/good.par", "par/unreadable.par"}}) {
    const std::string path = dir + "/" + to;
    fs::remove(path);
    fs::copy_file(dir + "/" + from, path);
    fs::permissions(path, perms::owner_write);
  }
  fs::create_directories(dir + "/fitslc/locked");
  fs::copy_file(dir + "/fitslc/good_lc.fits", dir + "/fitslc/locked/a_lc.fits", fs::copy_options::overwrite_existing);
  fs::permissions(dir + "/fitslc/locked", perms::owner_write | perms::owner_exec);
  fs::create_directories(dir + "/read-only");
  fs::permissions(dir + "/read-only", perms::owner_read | perms::owner_exec | perms::group_read | perms::group_exec |
                                          perms::others_read | perms::others_exec);
  fs::create_directories(dir + "/out");
  fs::permissions(dir + "/out", perms::all | perms::sticky_bit);
}

int fixtures(const std::string& dir) {
  csv_fixtures(dir + "/csv");
  fits_light_curve_fixtures(dir + "/fitslc");
  h5_catalog_fixtures(dir + "/h5cat");
  cube_fixtures(dir + "/cube");
  parameter_fixtures(dir + "/par", dir + "/cube/good.fits");
  time_series_fixtures(dir + "/timeseries");
  permission_fixtures(dir);
  std::printf("bad-input fixtures in %s\n", dir.c_str());
  return 0;
}

// --- checks of products ---

int product(const std::string& path) {
  h5::Id file = h5::open_file(path, h5::Access::read);
  std::printf("status %s\n", h5::string_attribute(file.get(), "status").value_or("?").c_str());
  std::printf("time_reference %s\n", h5::string_attribute(file.get(), "time_reference").value_or("?").c_str());
  const auto id = h5::read_all<std::int64_t>(file.get(), "objects/id");
  const auto status = h5::read_all<std::uint32_t>(file.get(), "objects/status");
  const auto cleaned = h5::read_all<std::uint32_t>(file.get(), "objects/cleaned");
  const auto points = h5::read_all<std::uint32_t>(file.get(), "objects/n_points");
  const auto frequency = h5::read_all<double>(file.get(), "objects/best_frequency");
  const auto power = h5::read_all<double>(file.get(), "objects/best_power");
  const auto fap = h5::read_all<double>(file.get(), "objects/fap");
  // Each object's BJD reference, when the input gave one per object (FITS).
  const bool has_references = h5::exists(file.get(), "objects/bjdrefi");
  const auto bjdrefi =
      has_references ? h5::read_all<std::int64_t>(file.get(), "objects/bjdrefi") : std::vector<std::int64_t>{};
  const auto bjdreff = has_references ? h5::read_all<double>(file.get(), "objects/bjdreff") : std::vector<double>{};
  for (std::size_t i = 0; i < id.size(); ++i) {
    const bool finite = std::isfinite(frequency[i]) && std::isfinite(power[i]) && std::isfinite(fap[i]);
    std::printf("object %lld status %u cleaned %u points %u frequency %.9g power %.6g %s",
                static_cast<long long>(id[i]), status[i], cleaned[i], points[i], frequency[i], power[i],
                finite ? "finite" : "nan");
    if (has_references) std::printf(" bjdref %lld+%.17g", static_cast<long long>(bjdrefi[i]), bjdreff[i]);
    std::printf("\n");
  }
  return 0;
}

int state(const std::string& path) {
  if (!fs::exists(path)) {
    std::printf("absent\n");
    return 0;
  }
  if (!h5::is_hdf5(path)) {
    std::printf("unreadable\n");
    return 0;
  }
  try {
    h5::Id file = h5::open_file(path, h5::Access::read);
    std::printf("%s\n", h5::string_attribute(file.get(), "status").value_or("unreadable").c_str());
  } catch (const std::exception&) {
    std::printf("unreadable\n");
  }
  return 0;
}

int with_file_size_limit(const std::string& bytes, char** command) {
  const rlimit limit{std::stoul(bytes), std::stoul(bytes)};
  if (setrlimit(RLIMIT_FSIZE, &limit) != 0) throw std::runtime_error("setrlimit failed");
  execvp(command[0], command);
  throw std::runtime_error(std::string("cannot run ") + command[0] + ": " + std::strerror(errno));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 2 ? argv[1] : "";
    if (mode == "fixtures" && argc == 3) return fixtures(argv[2]);
    if (mode == "product" && argc == 3) return product(argv[2]);
    if (mode == "state" && argc == 3) return state(argv[2]);
    if (mode == "fsize" && argc > 3) return with_file_size_limit(argv[2], argv + 3);
    std::fprintf(stderr, "usage: bad_inputs fixtures DIR | product FILE | state FILE | fsize BYTES CMD...\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bad_inputs: %s\n", e.what());
    return 1;
  }
}
