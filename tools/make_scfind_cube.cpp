// make_scfind_cube: writes a synthetic spectral-line cube (FITS, CFITSIO) for the scfind tests and
// benchmarks: Gaussian-like noise, compact sources, optional blanks and infinities, a plausible
// radio WCS. tests/data/scfind/cases.txt lists the command lines whose SoFiA-2 masks are committed.
//
//   make_scfind_cube --nx N --ny N --nz N [--seed S] [--noise SIGMA] [--sources N] [--blanks]
//                    [--infinities] [--bitpix -32|-64|16] [--naxis4] [--noisy-channels Z0:Z1:F]
//                    [--channel-streams] -o cube.fits
//
// The output is bit-for-bit the same on every machine and compiler, so tests regenerate the cubes
// instead of storing them (cases.txt keeps a checksum of each):
// - integer random numbers only (splitmix64 to seed, xoshiro256** to draw), turned into doubles
//   exactly (32 or 53 random bits times a power of two);
// - only +, -, *, / on doubles (IEEE basic operations, correctly rounded), no exp/log/sin from libm,
//   whose last bit differs between libraries: noise is Irwin-Hall (12 uniforms minus 6, mean 0,
//   variance 1, bounded at ±6 sigma), source profiles are rational functions;
// - no contracted multiply-adds: CMake builds this file with -ffp-contract=off (an FMA rounds once
//   where a*b + c rounds twice; aarch64 and clang would otherwise fuse);
// - every voxel is computed in double in a fixed order (noise, then the sources in list order) and
//   rounded once to the output type.
//
// Layout (all derived from the sizes and the seed):
// - sources: the first ones centred on the channels where 2, 3 and 4 equal slabs meet (nz/2, nz/3,
//   2nz/3, nz/4, 3nz/4) and on the cube's faces (x, y = 0 or the last pixel; first and last
//   channel), the rest at random; a quarter negative, a third bright (4-12 sigma peak), the
//   others faint (0.6-2 sigma, found only after smoothing). Profile:
//     amplitude / (1 + (dx² + dy²)/a² + dz²/c²)²,  cut where the denominator's base exceeds 40.
// - --blanks (NaN): three boxes, one whole channel (3nz/5, when nz >= 4), about 0.2% scattered
//   voxels, half of the first channel (y < ny/2), a third of the last (x >= 2nx/3), the face y = 0
//   in every channel, x = 0 in the first half of the channels and x = nx-1 in the second half.
// - --noisy-channels Z0:Z1:F: the noise of channels Z0..Z1-1 times F (a band of a worse receiver
//   or of interference: slabs whose own noise differs from the cube's). The sources are unchanged.
// - --channel-streams: the noise of each channel from its own stream (seeded from the seed and the
//   channel), so that the channels are made on all threads: a different cube from the default
//   single stream's, for benchmark cubes of tens of gigabytes. Its checksum, channel_fnv1a64, is
//   FNV-1a over the channels' own FNV-1a values (big-endian, 8 bytes each).
// - --infinities: six voxels at ±inf, three at corners or slab boundaries, three at random.
// - --bitpix 16: BSCALE = the power of two at or below noise/1024, BZERO = BSCALE/2, BLANK = -32768
//   for NaN and ±inf; values rounded to the nearest integer (ties away from zero) and clipped to
//   ±32767. --bitpix -64 writes the double values before rounding to float.

#include <fitsio.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------- options

struct Options {
  long nx = 0, ny = 0, nz = 0;
  std::uint64_t seed = 1;
  double noise = 1.0;
  long sources = 0;
  bool blanks = false;
  bool infinities = false;
  int bitpix = -32;
  bool naxis4 = false;
  bool channel_streams = false;         ///< --channel-streams
  long noisy_begin = 0, noisy_end = 0;  ///< --noisy-channels
  double noisy_factor = 1.0;
  std::string out;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "make_scfind_cube: %s\n"
               "usage: make_scfind_cube --nx N --ny N --nz N [--seed S] [--noise SIGMA] [--sources N]\n"
               "                        [--blanks] [--infinities] [--bitpix -32|-64|16] [--naxis4]\n"
               "                        [--noisy-channels Z0:Z1:FACTOR] [--channel-streams] -o cube.fits\n",
               why.c_str());
  std::exit(2);
}

long parse_long(const std::string& key, const char* text, long min) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min) usage(key + " needs an integer >= " + std::to_string(min));
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--nx")
      o.nx = parse_long(a, value(), 1);
    else if (a == "--ny")
      o.ny = parse_long(a, value(), 1);
    else if (a == "--nz")
      o.nz = parse_long(a, value(), 1);
    else if (a == "--seed") {
      const char* t = value();
      char* end = nullptr;
      o.seed = std::strtoull(t, &end, 10);
      if (end == t || *end != '\0') usage("--seed needs an unsigned integer");
    } else if (a == "--noise") {
      const char* t = value();
      char* end = nullptr;
      o.noise = std::strtod(t, &end);
      if (end == t || *end != '\0' || !(o.noise > 0) || o.noise > 1e30) usage("--noise needs a positive number");
    } else if (a == "--sources")
      o.sources = parse_long(a, value(), 0);
    else if (a == "--blanks")
      o.blanks = true;
    else if (a == "--infinities")
      o.infinities = true;
    else if (a == "--bitpix") {
      o.bitpix = static_cast<int>(parse_long(a, value(), -64));
      if (o.bitpix != -32 && o.bitpix != -64 && o.bitpix != 16) usage("--bitpix must be -32, -64 or 16");
    } else if (a == "--naxis4") {
      o.naxis4 = true;
    } else if (a == "--channel-streams") {
      o.channel_streams = true;
    } else if (a == "--noisy-channels") {
      const char* t = value();
      char* end = nullptr;
      o.noisy_begin = std::strtol(t, &end, 10);
      if (*end == ':') o.noisy_end = std::strtol(end + 1, &end, 10);
      if (*end == ':') o.noisy_factor = std::strtod(end + 1, &end);
      if (*end != '\0' || o.noisy_begin < 0 || o.noisy_end <= o.noisy_begin || !(o.noisy_factor > 0) ||
          o.noisy_factor > 1e6)
        usage("--noisy-channels needs Z0:Z1:FACTOR with 0 <= Z0 < Z1 and a positive factor");
    } else if (a == "-o" || a == "--output")
      o.out = value();
    else if (a == "-h" || a == "--help")
      usage("help");
    else
      usage("unknown option " + a);
  }
  if (o.nx == 0 || o.ny == 0 || o.nz == 0) usage("--nx, --ny and --nz are required");
  if (o.out.empty()) usage("-o is required");
  return o;
}

// ---------------------------------------------------------------- random numbers (integers only)

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// Stateless hash of (key, index): the scattered blanks do not depend on the order voxels are made.
std::uint64_t hash64(std::uint64_t key, std::uint64_t index) {
  std::uint64_t s = key ^ (index * 0xD1B54A32D192ED03ULL);
  return splitmix64(s);
}

class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  std::uint64_t next() {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1), 53 random bits, exact.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n); the modulo bias (n << 2^64) does not matter here.
  long index(long n) { return static_cast<long>(next() % static_cast<std::uint64_t>(n)); }
  /// Irwin-Hall: 12 uniforms of 32 bits each (two per draw), minus 6. Every partial sum is a
  /// multiple of 2^-32 below 12, so the sum is exact in double; mean 0, variance 1.
  double gauss12() {
    double sum = 0;
    for (int k = 0; k < 6; ++k) {
      const std::uint64_t r = next();
      sum += static_cast<double>(r >> 32) * 0x1p-32;
      sum += static_cast<double>(r & 0xFFFFFFFFULL) * 0x1p-32;
    }
    return sum - 6.0;
  }

 private:
  std::uint64_t s_[4];
};

// Independent streams, so adding sources does not change the noise and so on.
constexpr std::uint64_t kNoiseStream = 0x6E6F697365000001ULL;
constexpr std::uint64_t kSourceStream = 0x736F757263650002ULL;
constexpr std::uint64_t kBlankStream = 0x626C616E6B000003ULL;
constexpr std::uint64_t kScatterStream = 0x7363617474000004ULL;

// ---------------------------------------------------------------- sources

struct Source {
  double x0, y0, z0;                        ///< centre, pixels (0-based)
  double amplitude;                         ///< peak, in units of the output (noise sigma times the drawn factor)
  double a, c;                              ///< spatial and spectral scale, pixels and channels
  long x_lo, x_hi, y_lo, y_hi, z_lo, z_hi;  ///< box beyond which the profile is cut (inclusive)
};

// Beyond base = 1 + q = 40 the profile is below 1/1600 of the peak; cut there. The box holds every
// voxel with q < 39: |dx| < a·sqrt(39) < 6.25·a.
constexpr double kCutBase = 40.0;
constexpr double kBoxScale = 6.25;

long clamp_index(double v, long n) {
  if (v < 0) return 0;
  if (v > static_cast<double>(n - 1)) return n - 1;
  return static_cast<long>(v);
}

std::vector<Source> make_sources(const Options& o) {
  Xoshiro256 rng(o.seed ^ kSourceStream);
  const double nx = static_cast<double>(o.nx), ny = static_cast<double>(o.ny), nz = static_cast<double>(o.nz);
  // Channels where 2, 3 and 4 equal slabs meet (the boundary between channels b-1 and b sits at
  // b - 0.5), then the faces of the cube. NaN = draw at random.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Place {
    double x, y, z;
  };
  const std::vector<Place> special = {
      {nan, nan, static_cast<double>(o.nz / 2) - 0.5},
      {nan, nan, static_cast<double>(o.nz / 3) - 0.5},
      {nan, nan, static_cast<double>((2 * o.nz) / 3) - 0.5},
      {nan, nan, static_cast<double>(o.nz / 4) - 0.5},
      {nan, nan, static_cast<double>((3 * o.nz) / 4) - 0.5},
      {0.0, nan, nan},
      {nx - 1, nan, nan},
      {nan, 0.0, nan},
      {nan, ny - 1, nan},
      {nan, nan, 0.0},
      {nan, nan, nz - 1},
      {nx - 1, ny - 1, nz - 1},
  };
  std::vector<Source> out;
  for (long i = 0; i < o.sources; ++i) {
    Source s{};
    const Place p = i < static_cast<long>(special.size()) ? special[static_cast<std::size_t>(i)] : Place{nan, nan, nan};
    // Always draw the same numbers in the same order, whether or not a coordinate is fixed.
    const double rx = rng.uniform(0, nx), ry = rng.uniform(0, ny), rz = rng.uniform(0, nz);
    const double bright = rng.uniform(4.0, 12.0), faint = rng.uniform(0.6, 2.0);
    s.a = rng.uniform(1.0, 4.0);
    s.c = rng.uniform(1.5, 8.0);
    s.x0 = std::isnan(p.x) ? rx : p.x;
    s.y0 = std::isnan(p.y) ? ry : p.y;
    s.z0 = std::isnan(p.z) ? rz : p.z;
    // Every third bright, every fourth negative: both kinds and signs among the special places.
    s.amplitude = (i % 3 == 0 ? bright : faint) * o.noise;
    if (i % 4 == 3) s.amplitude = -s.amplitude;
    s.x_lo = clamp_index(s.x0 - kBoxScale * s.a, o.nx);
    s.x_hi = clamp_index(s.x0 + kBoxScale * s.a + 1, o.nx);
    s.y_lo = clamp_index(s.y0 - kBoxScale * s.a, o.ny);
    s.y_hi = clamp_index(s.y0 + kBoxScale * s.a + 1, o.ny);
    s.z_lo = clamp_index(s.z0 - kBoxScale * s.c, o.nz);
    s.z_hi = clamp_index(s.z0 + kBoxScale * s.c + 1, o.nz);
    out.push_back(s);
  }
  return out;
}

/// Adds the sources crossing channel z to the plane (x fastest), in list order.
void add_sources(const std::vector<Source>& sources, long z, long nx, std::vector<double>& plane) {
  for (const Source& s : sources) {
    if (z < s.z_lo || z > s.z_hi) continue;
    const double inv_a2 = 1.0 / (s.a * s.a), inv_c2 = 1.0 / (s.c * s.c);
    const double dz = static_cast<double>(z) - s.z0;
    const double qz = dz * dz * inv_c2;
    for (long y = s.y_lo; y <= s.y_hi; ++y) {
      const double dy = static_cast<double>(y) - s.y0;
      for (long x = s.x_lo; x <= s.x_hi; ++x) {
        const double dx = static_cast<double>(x) - s.x0;
        const double base = 1.0 + (dx * dx + dy * dy) * inv_a2 + qz;
        if (base >= kCutBase) continue;
        plane[static_cast<std::size_t>(y * nx + x)] += s.amplitude / (base * base);
      }
    }
  }
}

// ---------------------------------------------------------------- blanks and infinities

struct Box {
  long x0, x1, y0, y1, z0, z1;  ///< inclusive
  bool contains(long x, long y, long z) const { return x >= x0 && x <= x1 && y >= y0 && y <= y1 && z >= z0 && z <= z1; }
};

struct Special {
  long x, y, z;
  double value;
};

struct Defects {
  std::vector<Box> nan_boxes;
  std::uint64_t scatter_key = 0;
  bool scatter = false;
  std::vector<Special> infinities;
};

// About 1 voxel in 512 scattered: the hash's top 9 bits all zero.
bool scattered_blank(std::uint64_t key, std::uint64_t index) { return (hash64(key, index) >> 55) == 0; }

Defects make_defects(const Options& o) {
  Defects d;
  const long nx = o.nx, ny = o.ny, nz = o.nz;
  if (o.blanks) {
    Xoshiro256 rng(o.seed ^ kBlankStream);
    const long bx = nx / 6 + 1, by = ny / 6 + 1, bz = nz / 5 + 1;
    for (int k = 0; k < 3; ++k) {
      const long x = rng.index(nx), y = rng.index(ny), z = rng.index(nz);
      d.nan_boxes.push_back(
          {x, std::min(nx - 1, x + bx - 1), y, std::min(ny - 1, y + by - 1), z, std::min(nz - 1, z + bz - 1)});
    }
    if (nz >= 4) d.nan_boxes.push_back({0, nx - 1, 0, ny - 1, (3 * nz) / 5, (3 * nz) / 5});  // whole channel
    d.nan_boxes.push_back({0, nx - 1, 0, ny / 2 - 1, 0, 0});                                 // first channel
    if (nz >= 2) d.nan_boxes.push_back({(2 * nx) / 3, nx - 1, 0, ny - 1, nz - 1, nz - 1});   // last channel
    d.nan_boxes.push_back({0, nx - 1, 0, 0, 0, nz - 1});                                     // face y = 0
    d.nan_boxes.push_back({0, 0, 0, ny - 1, 0, nz / 2 - 1});                                 // face x = 0
    d.nan_boxes.push_back({nx - 1, nx - 1, 0, ny - 1, nz / 2, nz - 1});                      // face x = nx-1
    d.scatter = true;
    d.scatter_key = o.seed ^ kScatterStream;
  }
  if (o.infinities) {
    const double inf = std::numeric_limits<double>::infinity();
    Xoshiro256 rng(o.seed ^ kBlankStream ^ 0xFFULL);
    d.infinities = {{0, 0, 0, -inf}, {nx - 1, ny - 1, nz - 1, inf}, {nx / 2, ny / 2, nz / 2, inf}};
    for (int k = 0; k < 3; ++k) {
      const long x = rng.index(nx), y = rng.index(ny), z = rng.index(nz);
      d.infinities.push_back({x, y, z, k % 2 == 0 ? -inf : inf});
    }
  }
  return d;
}

// ---------------------------------------------------------------- FITS output

/// The one writable CFITSIO handle of this tool. src/io/fits.hpp wraps read-only files; this test
/// generator keeps its writer to itself rather than widen that interface.
class FitsOut {
 public:
  explicit FitsOut(const std::string& path) {
    const std::string name = "!" + path;  // "!" = overwrite
    fits_create_file(&f_, name.c_str(), &status_);
    check("cannot create " + path);
  }
  ~FitsOut() {
    if (f_ != nullptr) {
      int s = 0;
      fits_close_file(f_, &s);
    }
  }
  FitsOut(const FitsOut&) = delete;
  FitsOut& operator=(const FitsOut&) = delete;
  fitsfile* get() { return f_; }
  int* status() { return &status_; }
  void check(const std::string& what) {
    if (status_ == 0) return;
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status_, text);
    std::fprintf(stderr, "make_scfind_cube: %s: %s\n", what.c_str(), text);
    std::exit(4);
  }
  void close() {
    fits_close_file(f_, &status_);
    f_ = nullptr;
    check("cannot close the output");
  }
  void key(const char* name, const char* value, const char* comment) {
    fits_write_key(f_, TSTRING, name, const_cast<char*>(value), comment, &status_);
  }
  /// decimals < 0: %G with that many significant digits (17 reads back as the same double).
  void key(const char* name, double value, const char* comment, int decimals = -15) {
    fits_write_key_dbl(f_, name, value, decimals, comment, &status_);
  }
  void key(const char* name, long value, const char* comment) {
    fits_write_key_lng(f_, name, value, comment, &status_);
  }

 private:
  fitsfile* f_ = nullptr;
  int status_ = 0;
};

/// FNV-1a over the data unit's bytes (big-endian, as in the file): a checksum of the pixels that
/// does not depend on the header CFITSIO writes.
class Fnv1a {
 public:
  void add_be(std::uint64_t bits, int bytes) {
    for (int b = bytes - 1; b >= 0; --b) {
      h_ ^= (bits >> (8 * b)) & 0xFFU;
      h_ *= 0x100000001B3ULL;
    }
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xCBF29CE484222325ULL;
};

// Round to nearest, ties away from zero, with +, - and comparisons only on a value < 2^52 in
// magnitude (the caller clips first).
long round_half_away(double v) {
  const double a = v < 0 ? -v : v;
  auto i = static_cast<long>(a);  // truncation: exact
  if (a - static_cast<double>(i) >= 0.5) ++i;
  return v < 0 ? -i : i;
}

/// The largest power of two at or below v (v > 0): exact, and short in decimal, so the header's
/// BSCALE reads back as the same double everywhere.
double power_of_two_below(double v) {
  double p = 1.0;
  while (p > v) p *= 0.5;
  while (p * 2.0 <= v) p *= 2.0;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::vector<Source> sources = make_sources(o);
  const Defects defects = make_defects(o);
  const long nx = o.nx, ny = o.ny, nz = o.nz;
  const auto plane_size = static_cast<std::size_t>(nx * ny);

  FitsOut f(o.out);
  long naxes[4] = {nx, ny, nz, 1};
  fits_create_img(f.get(), o.bitpix, o.naxis4 ? 4 : 3, naxes, f.status());
  f.check("cannot create the image");
  const double bscale = power_of_two_below(o.noise / 1024.0), bzero = bscale / 2;
  constexpr long kBlank = -32768;
  if (o.bitpix == 16) {
    f.key("BSCALE", bscale, "physical = BZERO + BSCALE * stored", -17);
    f.key("BZERO", bzero, "", -17);
    f.key("BLANK", kBlank, "stored value of blank (NaN or inf) voxels");
  }
  f.key("BUNIT", "Jy/beam", "");
  f.key("BMAJ", 8.333333333333333e-03, "30 arcsec");
  f.key("BMIN", 8.333333333333333e-03, "");
  f.key("BPA", 0.0, "");
  f.key("CTYPE1", "RA---SIN", "");
  f.key("CRVAL1", 180.0, "");
  f.key("CDELT1", -1.666666666666667e-03, "6 arcsec");
  f.key("CRPIX1", static_cast<double>(nx / 2 + 1), "");
  f.key("CUNIT1", "deg", "");
  f.key("CTYPE2", "DEC--SIN", "");
  f.key("CRVAL2", -30.0, "");
  f.key("CDELT2", 1.666666666666667e-03, "");
  f.key("CRPIX2", static_cast<double>(ny / 2 + 1), "");
  f.key("CUNIT2", "deg", "");
  f.key("CTYPE3", "FREQ", "");
  f.key("CRVAL3", 1.4e9, "");
  f.key("CDELT3", 18518.5185185185, "Hz");
  f.key("CRPIX3", 1.0, "");
  f.key("CUNIT3", "Hz", "");
  if (o.naxis4) {
    f.key("CTYPE4", "STOKES", "");
    f.key("CRVAL4", 1.0, "");
    f.key("CDELT4", 1.0, "");
    f.key("CRPIX4", 1.0, "");
    f.key("CUNIT4", "", "");
  }
  f.key("SPECSYS", "BARYCENT", "");
  f.key("RESTFRQ", 1.420405752e9, "HI 21 cm");
  f.key("EQUINOX", 2000.0, "");
  f.key("RADESYS", "FK5", "");
  f.key("OBJECT", "astrosweep make_scfind_cube", "synthetic");
  f.key("ASSEED", static_cast<long>(o.seed & 0x7FFFFFFFFFFFFFFFULL), "make_scfind_cube --seed");
  f.key("ASNOISE", o.noise, "make_scfind_cube --noise (sigma)");
  f.key("ASNSRC", o.sources, "make_scfind_cube --sources");
  f.check("cannot write the header");
  if (o.bitpix == 16) fits_set_bscale(f.get(), 1.0, 0.0, f.status());  // write stored integers as given

  // One channel: its noise from `noise`, the sources, the blanks and infinities; then rounded to
  // the output type into `out` (bytes of one channel), counting NaN, infinite and clipped values,
  // and each output value's big-endian bytes handed to `hash`.
  struct Counts {
    std::uint64_t nan = 0, inf = 0, clipped = 0;
  };
  const std::size_t value_bytes = o.bitpix == -32 ? 4 : (o.bitpix == -64 ? 8 : 2);
  auto make_channel = [&](long z, Xoshiro256& noise, std::vector<double>& plane, unsigned char* out, Fnv1a& hash,
                          Counts& counts) {
    const double sigma = z >= o.noisy_begin && z < o.noisy_end ? o.noise * o.noisy_factor : o.noise;
    for (auto& v : plane) v = sigma * noise.gauss12();
    add_sources(sources, z, nx, plane);
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x) {
        const auto i = static_cast<std::size_t>(y * nx + x);
        bool blank = false;
        for (const Box& b : defects.nan_boxes) blank = blank || b.contains(x, y, z);
        if (defects.scatter && scattered_blank(defects.scatter_key, static_cast<std::uint64_t>(z) * plane_size + i))
          blank = true;
        if (blank) plane[i] = std::numeric_limits<double>::quiet_NaN();
      }
    for (const Special& sp : defects.infinities)
      if (sp.z == z) plane[static_cast<std::size_t>(sp.y * nx + sp.x)] = sp.value;
    for (double v : plane) {
      if (std::isnan(v))
        ++counts.nan;
      else if (std::isinf(v))
        ++counts.inf;
    }
    if (o.bitpix == -32) {
      auto* out32 = reinterpret_cast<float*>(out);
      for (std::size_t i = 0; i < plane_size; ++i) {
        out32[i] = static_cast<float>(plane[i]);
        hash.add_be(std::bit_cast<std::uint32_t>(out32[i]), 4);
      }
    } else if (o.bitpix == -64) {
      auto* out64 = reinterpret_cast<double*>(out);
      for (std::size_t i = 0; i < plane_size; ++i) {
        out64[i] = plane[i];
        hash.add_be(std::bit_cast<std::uint64_t>(plane[i]), 8);
      }
    } else {
      auto* out16 = reinterpret_cast<short*>(out);
      for (std::size_t i = 0; i < plane_size; ++i) {
        const double v = plane[i];
        long q = kBlank;
        if (std::isfinite(v)) {
          double t = (v - bzero) / bscale;
          if (t > 32767.0 || t < -32767.0) {
            ++counts.clipped;
            t = t > 0 ? 32767.0 : -32767.0;
          }
          q = round_half_away(t);
        }
        out16[i] = static_cast<short>(q);
        hash.add_be(static_cast<std::uint16_t>(out16[i]), 2);
      }
    }
  };
  const int datatype = o.bitpix == -32 ? TFLOAT : (o.bitpix == -64 ? TDOUBLE : TSHORT);
  auto write_channel = [&](long z, unsigned char* out) {
    const auto first = static_cast<LONGLONG>(z) * static_cast<LONGLONG>(plane_size) + 1;
    fits_write_img(f.get(), datatype, first, static_cast<LONGLONG>(plane_size), out, f.status());
    f.check("cannot write channel " + std::to_string(z));
  };

  Fnv1a sum;
  Counts total;
  if (!o.channel_streams) {
    Xoshiro256 noise(o.seed ^ kNoiseStream);
    std::vector<double> plane(plane_size);
    std::vector<unsigned char> out(plane_size * value_bytes);
    for (long z = 0; z < nz; ++z) {
      make_channel(z, noise, plane, out.data(), sum, total);
      write_channel(z, out.data());
    }
  } else {
    // A batch of channels made at once, one per thread, each from its own stream; written in order.
    const long batch = std::max(1, omp_get_max_threads());
    std::vector<std::vector<double>> planes(static_cast<std::size_t>(batch), std::vector<double>(plane_size));
    std::vector<std::vector<unsigned char>> outs(static_cast<std::size_t>(batch),
                                                 std::vector<unsigned char>(plane_size * value_bytes));
    std::vector<Fnv1a> hashes(static_cast<std::size_t>(batch));
    std::vector<Counts> counts(static_cast<std::size_t>(batch));
    for (long z0 = 0; z0 < nz; z0 += batch) {
      const long n = std::min(batch, nz - z0);
#pragma omp parallel for schedule(static, 1)
      for (long k = 0; k < n; ++k) {
        const auto slot = static_cast<std::size_t>(k);
        Xoshiro256 noise(hash64(o.seed ^ kNoiseStream, static_cast<std::uint64_t>(z0 + k)));
        hashes[slot] = Fnv1a{};
        counts[slot] = Counts{};
        make_channel(z0 + k, noise, planes[slot], outs[slot].data(), hashes[slot], counts[slot]);
      }
      for (long k = 0; k < n; ++k) {
        const auto slot = static_cast<std::size_t>(k);
        write_channel(z0 + k, outs[slot].data());
        sum.add_be(hashes[slot].value(), 8);
        total.nan += counts[slot].nan;
        total.inf += counts[slot].inf;
        total.clipped += counts[slot].clipped;
      }
    }
  }
  f.close();

  long n_neg = 0;
  for (const Source& s : sources) n_neg += s.amplitude < 0 ? 1 : 0;
  std::printf(
      "make_scfind_cube: %s %ldx%ldx%ld%s bitpix %d seed %llu noise %.17g sources %ld (%ld negative) "
      "nan %llu inf %llu clipped %llu %s %016llx\n",
      o.out.c_str(), nx, ny, nz, o.naxis4 ? "x1" : "", o.bitpix, static_cast<unsigned long long>(o.seed), o.noise,
      o.sources, n_neg, static_cast<unsigned long long>(total.nan), static_cast<unsigned long long>(total.inf),
      static_cast<unsigned long long>(total.clipped), o.channel_streams ? "channel_fnv1a64" : "data_fnv1a64",
      static_cast<unsigned long long>(sum.value()));
  return 0;
}
