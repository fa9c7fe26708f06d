// Test driver for the SoFiA-2 validation cases in tests/data/scfind/cases.txt:
//   scfind_case par CASES NAME OUT.par          writes a SoFiA-2 parameter file for the case
//   scfind_case check CASES NAME PRODUCT.h5 [MASK.fits]
//   scfind_case bad-cubes DIR GOOD.fits x        writes malformed cubes into DIR
//   scfind_case mask-storage PRODUCT.h5 deflate|none
//                                                checks how the product stores /mask
//   scfind_case fits-masks PLAIN.fits OTHER.fits RICE_1|GZIP_1
//                                                checks that OTHER is tile-compressed and holds
//                                                PLAIN's mask and WCS
//   scfind_case absent PATH                      checks that no file PATH was written
//   scfind_case source-mask SOFIA_MASK.fits.gz PRODUCT.h5 [MASK.fits]
//                                                compares the product's /source_mask (and the FITS
//                                                source mask) with SoFiA-2's _mask.fits, ids included
//   scfind_case strip-wcs GOOD.fits OUT.fits     copies the cube with its WCS cards blanked
//   scfind_case to-h5 CUBE.fits CUBE.h5          the cube as an HDF5 dataset /cube (no header)
//   scfind_case catalogue SOFIA_cat.txt OURS_cat.txt PRODUCT.h5 [values-only]
//                                                compares our ASCII catalogue with SoFiA-2's column
//                                                by column at printed precision, and the product's
//                                                /catalogue with it (values-only: not the units)
//   scfind_case same-lines SOFIA_cat.xml|sql OURS
//                                                the files line for line, but for the creation time,
//                                                the creator and the XML's parameter list
//   scfind_case image SOFIA.fits.gz OURS.fits [PRODUCT.h5 DATASET]
//                                                a 2-D map (moment, channel count, 2-D mask) or a
//                                                cubelet pixel for pixel (NaN where SoFiA-2 has NaN,
//                                                float values to the bit) and the header keywords
//                                                that matter
//   scfind_case cubelet-files SOFIA_files.txt DIR SOFIA_STEM OUR_STEM [NAME ...]
//                                                DIR holds the files SoFiA-2 listed (its stem
//                                                replaced by ours), but for the NAMEs (SoFiA-2's
//                                                files astrosweep does not write, each a documented
//                                                difference), and nothing else
// `check` compares the product's mask and the FITS mask voxel for voxel with SoFiA-2's raw mask,
// and the noise of every kernel pair with SoFiA-2's (as doubles, exactly).

#include <fitsio.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/h5.hpp"

namespace {

using Block = std::multimap<std::string, std::string>;

std::map<std::string, Block> read_cases(const std::string& path) {
  std::map<std::string, Block> blocks;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      current = line.substr(1, line.find(']') - 1);
      continue;
    }
    const auto eq = line.find(" = ");
    if (eq != std::string::npos) blocks[current].emplace(line.substr(0, eq), line.substr(eq + 3));
  }
  return blocks;
}

const std::string& one(const Block& b, const std::string& key) {
  auto it = b.find(key);
  if (it == b.end()) throw std::runtime_error("case has no " + key);
  return it->second;
}

// A FITS image as CFITSIO reads it into T (`datatype`: TBYTE, TINT), from the first HDU with an
// image (a tile-compressed one is in extension 1; a gzipped file too); `bitpix` 0 takes any.
template <class T>
std::vector<T> read_fits_image(const std::string& path, long dims[3], int datatype, int bitpix_wanted = 0) {
  fitsfile* f = nullptr;
  int status = 0, bitpix = 0;
  long d[4] = {1, 1, 1, 1};
  fits_open_image(&f, path.c_str(), READONLY, &status);
  fits_get_img_type(f, &bitpix, &status);
  fits_get_img_size(f, 4, d, &status);
  for (int i = 0; i < 3; ++i) dims[i] = d[i];
  std::vector<T> v(static_cast<std::size_t>(d[0] * d[1] * d[2]));
  int anynul = 0;
  fits_read_img(f, datatype, 1, static_cast<LONGLONG>(v.size()), nullptr, v.data(), &anynul, &status);
  fits_close_file(f, &status);
  if (status != 0) throw std::runtime_error("cannot read FITS image " + path);
  if (bitpix_wanted != 0 && bitpix != bitpix_wanted)
    throw std::runtime_error(path + ": BITPIX " + std::to_string(bitpix) + ", not " + std::to_string(bitpix_wanted));
  return v;
}

std::vector<std::uint8_t> read_fits_mask(const std::string& path, long dims[3]) {
  return read_fits_image<std::uint8_t>(path, dims, TBYTE);
}

std::vector<std::int32_t> read_fits_source_mask(const std::string& path, long dims[3]) {
  return read_fits_image<std::int32_t>(path, dims, TINT, LONG_IMG);
}

// Voxels where `same(ours, SoFiA-2's)` fails: the first five named, the count printed; 0 if none.
template <class T, class Same>
std::size_t count_differences(const char* what, const std::vector<T>& got, const std::vector<T>& want, const long* dims,
                              Same same) {
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (same(got[i], want[i])) continue;
    if (differ++ < 5) {
      const std::size_t x = i % static_cast<std::size_t>(dims[0]);
      const std::size_t y = i / static_cast<std::size_t>(dims[0]) % static_cast<std::size_t>(dims[1]);
      const std::size_t z = i / static_cast<std::size_t>(dims[0] * dims[1]);
      std::printf("%s: voxel (%zu, %zu, %zu): ours %d, SoFiA-2 %d\n", what, x, y, z, static_cast<int>(got[i]),
                  static_cast<int>(want[i]));
    }
  }
  return differ;
}

int compare(const char* what, const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
            const long* dims) {
  if (got.size() != want.size()) {
    std::printf("%s: %zu voxels, SoFiA-2 %zu\n", what, got.size(), want.size());
    return 1;
  }
  const std::size_t differ =
      count_differences(what, got, want, dims, [](std::uint8_t a, std::uint8_t b) { return (a != 0) == (b != 0); });
  std::printf("%s: %zu of %zu voxels differ from SoFiA-2\n", what, differ, got.size());
  return differ == 0 ? 0 : 1;
}

int compare_ids(const char* what, const std::vector<std::int32_t>& got, const std::vector<std::int32_t>& want,
                const long* dims) {
  if (got.size() != want.size()) {
    std::printf("%s: %zu voxels, SoFiA-2 %zu\n", what, got.size(), want.size());
    return 1;
  }
  const std::size_t differ =
      count_differences(what, got, want, dims, [](std::int32_t a, std::int32_t b) { return a == b; });
  const std::int32_t sources = want.empty() ? 0 : *std::max_element(want.begin(), want.end());
  std::printf("%s: %zu of %zu voxels differ from SoFiA-2 (%d sources)\n", what, differ, got.size(), sources);
  return differ == 0 ? 0 : 1;
}

int source_mask(const std::string& sofia, const std::string& product, const std::string& fits) {
  long dims[3] = {};
  const auto want = read_fits_source_mask(sofia, dims);
  astrosweep::h5::silence_library_errors();
  astrosweep::h5::Id file = astrosweep::h5::open_file(product, astrosweep::h5::Access::read);
  astrosweep::h5::Id mask = astrosweep::h5::open_dataset(file.get(), "source_mask");
  const auto d = astrosweep::h5::dims(mask.get());
  std::vector<std::int32_t> got(d.at(0) * d.at(1) * d.at(2));
  astrosweep::h5::read_hyperslab(mask.get(), H5T_NATIVE_INT32, {0, 0, 0}, d, got.data());
  int failures = compare_ids("HDF5 source mask", got, want, dims);
  if (!fits.empty()) {
    long fdims[3] = {};
    failures += compare_ids("FITS source mask", read_fits_source_mask(fits, fdims), want, dims);
  }
  return failures == 0 ? 0 : 1;
}

int write_par(const Block& c, const std::string& out) {
  std::ofstream par(out);
  par << "# SoFiA-2 parameter file for an astrosweep validation case\n"
      << "pipeline.verbose = false\npipeline.pedantic = true\n"
      << "scfind.enable = true\n";
  for (const char* key : {"scfind.kernelsXY", "scfind.kernelsZ", "scfind.threshold", "scfind.replacement",
                          "scfind.statistic", "scfind.fluxRange"})
    par << key << " = " << one(c, key) << "\n";
  par << "linker.enable = false\nreliability.enable = false\nparameter.enable = false\n"
      << "output.writeRawMask = true\noutput.writeCatASCII = false\n";
  return par.good() ? 0 : 1;
}

int check(const Block& c, const std::string& data_dir, const std::string& product, const std::string& fits) {
  long dims[3] = {};
  const auto want = read_fits_mask(data_dir + "/" + one(c, "mask"), dims);
  int failures = 0;
  astrosweep::h5::silence_library_errors();
  astrosweep::h5::Id file = astrosweep::h5::open_file(product, astrosweep::h5::Access::read);
  astrosweep::h5::Id mask = astrosweep::h5::open_dataset(file.get(), "mask");
  const auto d = astrosweep::h5::dims(mask.get());
  std::vector<std::uint8_t> got(d.at(0) * d.at(1) * d.at(2));
  astrosweep::h5::read_hyperslab(mask.get(), H5T_NATIVE_UINT8, {0, 0, 0}, d, got.data());
  failures += compare("HDF5 mask", got, want, dims);
  if (!fits.empty()) {
    long fdims[3] = {};
    failures += compare("FITS mask", read_fits_mask(fits, fdims), want, dims);
  }
  const auto noise = astrosweep::h5::read_all<double>(file.get(), "kernel_pairs/noise");
  std::vector<double> expected;
  for (auto [it, end] = c.equal_range("noise"); it != end; ++it) {
    double xy = 0, z = 0, rms = 0;
    if (std::sscanf(it->second.c_str(), "%lf %lf %lf", &xy, &z, &rms) == 3) expected.push_back(rms);
  }
  if (noise.size() != expected.size()) {
    std::printf("noise: %zu kernel pairs, SoFiA-2 %zu\n", noise.size(), expected.size());
    ++failures;
  } else {
    for (std::size_t i = 0; i < noise.size(); ++i) {
      const bool same = noise[i] == expected[i];
      std::printf("noise pair %zu: %.17e  SoFiA-2 %.17e  %s\n", i, noise[i], expected[i], same ? "equal" : "DIFFERENT");
      failures += same ? 0 : 1;
    }
  }
  return failures == 0 ? 0 : 1;
}

// Cubes every reader must refuse with a clear message: a truncated data unit, a 2-D image, a
// 4-D cube whose fourth axis is not degenerate, BITPIX 64, an empty file.
int make_bad_cubes(const std::string& dir, const std::string& good) {
  std::filesystem::create_directories(dir);
  {
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 2 * 2880) throw std::runtime_error("source cube too small");
    std::ofstream(dir + "/truncated.fits", std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    std::ofstream(dir + "/empty.fits", std::ios::binary).flush();
  }
  auto image = [&](const std::string& name, int bitpix, std::vector<long> axes) {
    fitsfile* f = nullptr;
    int status = 0;
    const std::string path = "!" + dir + "/" + name;
    fits_create_file(&f, path.c_str(), &status);
    fits_create_img(f, bitpix, static_cast<int>(axes.size()), axes.data(), &status);
    long n = 1;
    for (long a : axes) n *= a;
    std::vector<double> zeros(static_cast<std::size_t>(n), 0.0);
    fits_write_img(f, TDOUBLE, 1, n, zeros.data(), &status);
    fits_close_file(f, &status);
    if (status != 0) throw std::runtime_error("cannot write " + name);
  };
  image("naxis2.fits", FLOAT_IMG, {16, 16});
  image("stokes2.fits", FLOAT_IMG, {8, 8, 4, 2});
  image("bitpix64.fits", LONGLONG_IMG, {8, 8, 4});
  return 0;
}

// The cube with the cards of its world coordinate system (and the frame keywords) blanked: a cube
// "without WCS" as SoFiA-2 sees one. Byte for byte the cube of tests/data/scfind/README.md.
int strip_wcs(const std::string& good, const std::string& out) {
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 2880) throw std::runtime_error("cannot read " + good);
  const char* keys[] = {"CTYPE", "CRVAL", "CDELT", "CRPIX", "CUNIT", "SPECSYS", "RESTFRQ", "EQUINOX", "RADESYS"};
  for (std::size_t i = 0; i < 2880; i += 80)
    for (const char* k : keys)
      if (bytes.compare(i, std::char_traits<char>::length(k), k) == 0) bytes.replace(i, 80, 80, ' ');
  std::ofstream(out, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return 0;
}

struct AsciiCatalogue {
  std::vector<std::string> names, units;  // columns after "name"
  std::vector<std::string> source_names;
  std::vector<std::vector<std::string>> rows;  // the printed values
};

// SoFiA-2's plain-text catalogue: the last three '#' rows before the table are numbers, names and
// units; each row is the quoted name and one token per column.
AsciiCatalogue read_ascii_catalogue(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  AsciiCatalogue cat;
  std::vector<std::string> header;
  std::string line;
  auto tokens = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream s(text);
    for (std::string t; s >> t;) out.push_back(t);
    return out;
  };
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      header.push_back(line.substr(1));
      continue;
    }
    const auto open = line.find('"'), close = line.find('"', open + 1);
    if (open == std::string::npos || close == std::string::npos)
      throw std::runtime_error(path + ": row without a name");
    cat.source_names.push_back(line.substr(open + 1, close - open - 1));
    cat.rows.push_back(tokens(line.substr(close + 1)));
  }
  if (header.size() < 3) throw std::runtime_error(path + ": no column header");
  cat.names = tokens(header[header.size() - 2]);
  cat.units = tokens(header[header.size() - 1]);
  if (cat.names.empty() || cat.names[0] != "name" || cat.units.size() != cat.names.size())
    throw std::runtime_error(path + ": malformed column header");
  cat.names.erase(cat.names.begin());
  cat.units.erase(cat.units.begin());
  for (const auto& row : cat.rows)
    if (row.size() != cat.names.size()) throw std::runtime_error(path + ": a row's column count differs");
  return cat;
}

std::string ascii_value(double v) {
  char text[64];
  if (v != 0.0 && (std::fabs(v) >= 1.0e+4 || std::fabs(v) < 1.0e-3))
    std::snprintf(text, sizeof text, "%.5e", v);
  else
    std::snprintf(text, sizeof text, "%.6f", v);
  return text;
}

// The FITS cube's data as float32 dataset /cube (nz, ny, nx) of a new HDF5 file: the same cube
// without any header.
int to_h5(const std::string& fits, const std::string& out) {
  namespace h5 = astrosweep::h5;
  long dims[3] = {0, 0, 0};
  const std::vector<float> data = read_fits_image<float>(fits, dims, TFLOAT);
  h5::Id file = h5::open_file(out, h5::Access::create_truncate);
  const std::vector<std::uint64_t> shape{static_cast<std::uint64_t>(dims[2]), static_cast<std::uint64_t>(dims[1]),
                                         static_cast<std::uint64_t>(dims[0])};
  h5::Id cube = h5::create_dataset(file.get(), "cube", H5T_NATIVE_FLOAT, shape);
  h5::write_hyperslab(cube.get(), H5T_NATIVE_FLOAT, {0, 0, 0}, shape, data.data());
  cube = h5::Id();
  h5::close_file(file);
  return 0;
}

int compare_catalogues(const std::string& sofia_path, const std::string& ours_path, const std::string& product,
                       bool values_only) {
  namespace h5 = astrosweep::h5;
  const AsciiCatalogue sofia = read_ascii_catalogue(sofia_path), ours = read_ascii_catalogue(ours_path);
  int bad = 0;
  auto fail = [&](const std::string& what) {
    if (++bad <= 20) std::printf("DIFF %s\n", what.c_str());
  };
  if (sofia.names != ours.names) fail("column names differ");
  if (!values_only && sofia.units != ours.units) fail("column units differ");
  if (sofia.rows.size() != ours.rows.size())
    fail("rows: SoFiA-2 " + std::to_string(sofia.rows.size()) + ", ours " + std::to_string(ours.rows.size()));
  if (bad != 0) return 1;
  // SoFiA-2 reads uninitialised memory for a source's local noise when its box holds one non-source
  // voxel or only blanks: a subnormal that changes from run to run. There we write 0; the columns
  // computed from it are then compared as 0 (ours) against a value below 1e-300 (SoFiA-2's).
  const std::vector<std::string> from_rms{"rms", "err_x", "err_y", "err_z", "err_f_sum"};
  std::size_t compared = 0, undefined = 0;
  const auto rms_col = std::find(sofia.names.begin(), sofia.names.end(), "rms") - sofia.names.begin();
  for (std::size_t i = 0; i < sofia.rows.size(); ++i) {
    if (sofia.source_names[i] != ours.source_names[i])
      fail("row " + std::to_string(i + 1) + " name: SoFiA-2 '" + sofia.source_names[i] + "', ours '" +
           ours.source_names[i] + "'");
    bool garbage = false;
    if (static_cast<std::size_t>(rms_col) < sofia.names.size()) {
      const double v = std::strtod(sofia.rows[i][static_cast<std::size_t>(rms_col)].c_str(), nullptr);
      garbage = v != 0.0 && std::fabs(v) < 1e-300;
    }
    for (std::size_t j = 0; j < sofia.names.size(); ++j) {
      const std::string& a = sofia.rows[i][j];
      const std::string& b = ours.rows[i][j];
      if (garbage && std::find(from_rms.begin(), from_rms.end(), sofia.names[j]) != from_rms.end()) {
        ++undefined;
        const double v = std::strtod(a.c_str(), nullptr);
        if (b != "0.000000" || std::fabs(v) >= 1e-300)
          fail("row " + std::to_string(i + 1) + " " + sofia.names[j] + ": SoFiA-2 " + a + " (undefined), ours " + b +
               " (expected 0)");
        continue;
      }
      ++compared;
      if (a != b) fail("row " + std::to_string(i + 1) + " " + sofia.names[j] + ": SoFiA-2 " + a + ", ours " + b);
    }
  }
  // The product's /catalogue: every column, with the ASCII file's units, printing as SoFiA-2's values.
  h5::Id file = h5::open_file(product, h5::Access::read);
  h5::Id group = h5::open_group(file.get(), "catalogue");
  {
    // The names: fixed-length strings.
    h5::Id d = h5::open_dataset(group.get(), "name");
    h5::Id type(H5Dget_type(d.get()));
    const std::size_t size = H5Tget_size(type.get());
    const std::size_t n = h5::dims(d.get()).at(0);
    std::string packed(n * size, '\0');
    if (n > 0) h5::check(H5Dread(d.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), "H5Dread name");
    if (n != ours.rows.size()) fail("/catalogue/name has " + std::to_string(n) + " rows");
    for (std::size_t i = 0; i < std::min(n, ours.rows.size()); ++i) {
      const std::string name = packed.substr(i * size, size).c_str();
      if (name != sofia.source_names[i]) fail("/catalogue/name row " + std::to_string(i + 1) + ": '" + name + "'");
    }
  }
  for (std::size_t j = 0; j < sofia.names.size(); ++j) {
    const std::string& name = sofia.names[j];
    if (!h5::exists(group.get(), name)) {
      fail("/catalogue/" + name + " missing");
      continue;
    }
    h5::Id d = h5::open_dataset(group.get(), name);
    const std::string unit = h5::string_attribute(d.get(), "units").value_or("?");
    if ((unit.empty() ? "-" : unit) != (values_only ? ours.units[j] : sofia.units[j]))
      fail("/catalogue/" + name + " units '" + unit + "'");
    if (!h5::string_attribute(d.get(), "description") || !h5::string_attribute(d.get(), "ucd"))
      fail("/catalogue/" + name + " without description or ucd");
    const std::vector<double> values = h5::read_all<double>(group.get(), name);
    if (values.size() != ours.rows.size()) {
      fail("/catalogue/" + name + " has " + std::to_string(values.size()) + " rows");
      continue;
    }
    const h5::Id type(H5Dget_type(d.get()));
    const bool integer = H5Tget_class(type.get()) == H5T_INTEGER;
    for (std::size_t i = 0; i < values.size(); ++i) {
      // NaN (std of a one-voxel source) prints as nan or -nan: compared as NaN.
      const bool both_nan = std::isnan(values[i]) && ours.rows[i][j].find("nan") != std::string::npos;
      const std::string text = integer ? std::to_string(static_cast<long>(values[i])) : ascii_value(values[i]);
      if (!both_nan && text != ours.rows[i][j])
        fail("/catalogue/" + name + " row " + std::to_string(i + 1) + ": " + text + ", ASCII " + ours.rows[i][j]);
    }
  }
  std::printf(
      "%zu sources x %zu columns: %zu values equal at printed precision, %zu undefined in SoFiA-2 (0 here), "
      "%d differences\n",
      sofia.rows.size(), sofia.names.size() + 1, compared, undefined, bad);
  return bad == 0 ? 0 : 1;
}

// SoFiA-2's VOTable or SQL catalogue against ours: every line equal (every value to the 15 digits
// both print), but for the lines that name the time, the creator or a parameter setting.
int same_lines(const std::string& sofia_path, const std::string& ours_path) {
  auto lines = [](const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
      if (line.find("Time") == std::string::npos && line.find("Creator") == std::string::npos &&
          line.find("<PARAM name=") == std::string::npos)
        out.push_back(line);
    return out;
  };
  const auto a = lines(sofia_path), b = lines(ours_path);
  std::size_t differing = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i] && ++differing <= 10)
      std::printf("DIFF line %zu:\n  SoFiA-2: %s\n  ours:    %s\n", i + 1, a[i].c_str(), b[i].c_str());
  std::printf("%zu lines compared (SoFiA-2 %zu, ours %zu), %zu differ\n", std::min(a.size(), b.size()), a.size(),
              b.size(), differing);
  return differing == 0 ? 0 : 1;
}

// A header keyword of the first image HDU of `path` ("" when absent).
std::string fits_keyword(const std::string& path, const char* key) {
  fitsfile* f = nullptr;
  int status = 0;
  char value[FLEN_VALUE] = {};
  fits_open_image(&f, path.c_str(), READONLY, &status);
  if (status != 0) throw std::runtime_error("cannot open " + path);
  fits_read_key(f, TSTRING, key, value, nullptr, &status);
  int closing = 0;
  fits_close_file(f, &closing);
  return status == 0 ? value : "";
}

int fits_masks(const std::string& plain, const std::string& other, const std::string& compression) {
  int failures = 0;
  if (!fits_keyword(plain, "ZCMPTYPE").empty()) {
    std::printf("%s is compressed\n", plain.c_str());
    ++failures;
  }
  if (fits_keyword(other, "ZCMPTYPE") != compression) {
    std::printf("%s: ZCMPTYPE '%s', not %s\n", other.c_str(), fits_keyword(other, "ZCMPTYPE").c_str(),
                compression.c_str());
    ++failures;
  }
  for (const char* key : {"CTYPE1", "CTYPE2", "CTYPE3", "CRVAL3", "CDELT3", "CRPIX3", "CUNIT3"}) {
    if (fits_keyword(plain, key) == fits_keyword(other, key)) continue;
    std::printf("%s: '%s' against '%s'\n", key, fits_keyword(plain, key).c_str(), fits_keyword(other, key).c_str());
    ++failures;
  }
  long dims[3] = {}, other_dims[3] = {};
  const auto want = read_fits_mask(plain, dims);
  const auto got = read_fits_mask(other, other_dims);
  if (!std::equal(dims, dims + 3, other_dims) || got != want) {
    std::printf("the masks differ\n");
    ++failures;
  }
  std::printf("%s (%s) and %s (plain): %s\n", other.c_str(), compression.c_str(), plain.c_str(),
              failures == 0 ? "the same mask and WCS" : "DIFFERENT");
  return failures == 0 ? 0 : 1;
}

// The product's /mask is deflate-compressed (and smaller than a byte per voxel) or plain, as asked.
int mask_storage(const std::string& product, const std::string& expected) {
  namespace h5 = astrosweep::h5;
  h5::silence_library_errors();
  h5::Id file = h5::open_file(product, h5::Access::read);
  h5::Id mask = h5::open_dataset(file.get(), "mask");
  std::uint64_t voxels = 1;
  for (auto d : h5::dims(mask.get())) voxels *= d;
  const bool filtered = h5::is_filtered(mask.get());
  const std::uint64_t stored = h5::storage_size(mask.get());
  std::printf("%s: /mask %s, %llu bytes stored for %llu voxels\n", product.c_str(), filtered ? "deflate" : "plain",
              static_cast<unsigned long long>(stored), static_cast<unsigned long long>(voxels));
  if (expected == "deflate") return filtered && stored < voxels / 4 ? 0 : 1;
  return !filtered && stored == voxels ? 0 : 1;
}

}  // namespace

// The keywords of a moment map or 2-D mask that matter: the image's shape and type, its WCS and
// units; each must be in both files or in neither, strings equal, numbers equal as doubles.
int compare_image_keywords(const std::string& sofia, const std::string& ours) {
  int failures = 0;
  for (const char* key :
       {"BITPIX", "NAXIS",  "NAXIS1", "NAXIS2", "NAXIS3", "BUNIT",   "CTYPE1",  "CTYPE2",  "CRVAL1",  "CRVAL2",
        "CRPIX1", "CRPIX2", "CDELT1", "CDELT2", "CUNIT1", "CUNIT2",  "CTYPE3",  "CDELT3",  "CRVAL3",  "CRPIX3",
        "CUNIT3", "BMAJ",   "BMIN",   "BPA",    "OBJECT", "EQUINOX", "RADESYS", "SPECSYS", "RESTFRQ", "RESTFREQ"}) {
    const std::string want = fits_keyword(sofia, key), got = fits_keyword(ours, key);
    char* end_want = nullptr;
    char* end_got = nullptr;
    const double w = std::strtod(want.c_str(), &end_want), g = std::strtod(got.c_str(), &end_got);
    const bool numbers = !want.empty() && !got.empty() && *end_want == 0 && *end_got == 0;
    auto trimmed = [](std::string t) {
      if (!t.empty() && t.front() == '\'') t = t.substr(1, t.size() - 2);
      while (!t.empty() && t.back() == ' ') t.pop_back();
      while (!t.empty() && t.front() == ' ') t.erase(0, 1);
      return t;
    };
    const bool same = numbers ? w == g : trimmed(want) == trimmed(got) && want.empty() == got.empty();
    if (!same) {
      std::printf("keyword %s: ours '%s', SoFiA-2 '%s'\n", key, got.c_str(), want.c_str());
      ++failures;
    }
  }
  return failures;
}

int compare_image(const std::string& sofia, const std::string& ours, const std::string& product,
                  const std::string& dataset) {
  int failures = compare_image_keywords(sofia, ours);
  long dims[3] = {}, our_dims[3] = {};
  const auto want = read_fits_image<double>(sofia, dims, TDOUBLE);
  std::vector<double> got = read_fits_image<double>(ours, our_dims, TDOUBLE);
  if (!product.empty()) {  // the product's dataset instead (read as doubles: float32 and int32 convert exactly)
    astrosweep::h5::silence_library_errors();
    astrosweep::h5::Id file = astrosweep::h5::open_file(product, astrosweep::h5::Access::read);
    astrosweep::h5::Id d = astrosweep::h5::open_dataset(file.get(), "images/" + dataset);
    const auto size = astrosweep::h5::dims(d.get());
    got.assign(size.at(0) * size.at(1), 0.0);
    astrosweep::h5::read_hyperslab(d.get(), H5T_NATIVE_DOUBLE, {0, 0}, size, got.data());
    for (const char* attribute : {"units", "description"})
      if (!astrosweep::h5::string_attribute(d.get(), attribute)) {
        std::printf("%s: /images/%s has no %s attribute\n", product.c_str(), dataset.c_str(), attribute);
        ++failures;
      }
  }
  if (got.size() != want.size()) {
    std::printf("%zu pixels, SoFiA-2 %zu\n", got.size(), want.size());
    return 1;
  }
  std::size_t differ = 0, finite = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    finite += want[i] != 0 ? 1 : 0;  // NaN included: a map SoFiA-2 blanks entirely
    const bool same = std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i];
    if (same) continue;
    if (differ++ < 5)
      std::printf("pixel (%zu, %zu): ours %.9g, SoFiA-2 %.9g\n", i % static_cast<std::size_t>(dims[0]),
                  i / static_cast<std::size_t>(dims[0]), got[i], want[i]);
  }
  std::printf("%s: %zu of %zu pixels differ from SoFiA-2 (%zu non-zero or blank there)\n",
              product.empty() ? ours.c_str() : (product + ":/images/" + dataset).c_str(), differ, got.size(), finite);
  return failures == 0 && differ == 0 && finite > 0 ? 0 : 1;
}

// The cubelet directory's files against SoFiA-2's list: the same names, less the `excused` ones;
// no file left over (a .part included).
int cubelet_files(const std::string& list, const std::string& directory, const std::string& sofia_stem,
                  const std::string& our_stem, const std::vector<std::string>& excused) {
  std::ifstream in(list);
  if (!in) throw std::runtime_error("cannot read " + list);
  std::vector<std::string> want, got;
  for (std::string name; std::getline(in, name);)
    if (std::find(excused.begin(), excused.end(), name) == excused.end())
      want.push_back(name.starts_with(sofia_stem + "_") ? our_stem + name.substr(sofia_stem.size()) : name);
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    got.push_back(entry.path().filename().string());
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  for (const auto& name : missing) std::printf("missing: %s\n", name.c_str());
  for (const auto& name : extra) std::printf("not SoFiA-2's: %s\n", name.c_str());
  std::printf("%s: %zu files, SoFiA-2 %zu (less %zu excused); %zu missing, %zu extra\n", directory.c_str(), got.size(),
              want.size(), excused.size(), missing.size(), extra.size());
  return missing.empty() && extra.empty() && !want.empty() ? 0 : 1;
}

int main(int argc, char** argv) {
  try {
    if (argc == 4 && std::string(argv[1]) == "mask-storage") return mask_storage(argv[2], argv[3]);
    if (argc == 5 && std::string(argv[1]) == "fits-masks") return fits_masks(argv[2], argv[3], argv[4]);
    if ((argc == 4 || argc == 5) && std::string(argv[1]) == "source-mask")
      return source_mask(argv[2], argv[3], argc == 5 ? argv[4] : "");
    if ((argc == 4 || argc == 6) && std::string(argv[1]) == "image")
      return compare_image(argv[2], argv[3], argc == 6 ? argv[4] : "", argc == 6 ? argv[5] : "");
    if (argc == 4 && std::string(argv[1]) == "same-lines") return same_lines(argv[2], argv[3]);
    if (argc >= 6 && std::string(argv[1]) == "cubelet-files")
      return cubelet_files(argv[2], argv[3], argv[4], argv[5], std::vector<std::string>(argv + 6, argv + argc));
    if (argc == 4 && std::string(argv[1]) == "strip-wcs") return strip_wcs(argv[2], argv[3]);
    if ((argc == 5 || argc == 6) && std::string(argv[1]) == "catalogue")
      return compare_catalogues(argv[2], argv[3], argv[4], argc == 6 && std::string(argv[5]) == "values-only");
    if (argc == 4 && std::string(argv[1]) == "to-h5") return to_h5(argv[2], argv[3]);
    if (argc == 3 && std::string(argv[1]) == "absent") {
      const bool there = std::filesystem::exists(argv[2]);
      std::printf("%s: %s\n", argv[2], there ? "written" : "absent");
      return there ? 1 : 0;
    }
    if (argc < 5) {
      std::fprintf(stderr, "usage: scfind_case par|check CASES NAME OUT|PRODUCT [FITS]\n");
      return 2;
    }
    const std::string mode = argv[1], cases = argv[2], name = argv[3];
    if (mode == "bad-cubes") return make_bad_cubes(argv[2], argv[3]);
    const auto blocks = read_cases(cases);
    const auto it = blocks.find("case " + name);
    if (it == blocks.end()) throw std::runtime_error("no case " + name + " in " + cases);
    if (mode == "par") return write_par(it->second, argv[4]);
    const std::string dir = cases.substr(0, cases.find_last_of('/'));
    return check(it->second, dir, argv[4], argc > 5 ? argv[5] : "");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scfind_case: %s\n", e.what());
    return 1;
  }
}
