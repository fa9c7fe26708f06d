// make_fits_fixtures DIR: writes small FITS inputs for the end-to-end tests: a directory of two
// TESS-like light curves (good/), a Kepler and a TESS light curve (mixed/), one without flux
// uncertainties (noerr.fits) and one truncated file (truncated.fits).
#include <fitsio.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

// Where a mission's times count from: TESS's BTJD = BJD - 2457000, Kepler's BKJD = BJD - 2454833.
struct Mission {
  const char* id_key;
  long bjdrefi;
  double t0;  ///< first cadence, in the mission's own time
};
constexpr Mission tess{"TICID", 2457000, 1325.0};
constexpr Mission kepler{"KEPLERID", 2454833, 131.5};

int write_lc(const std::string& path, long ticid, double period, bool with_err, const Mission& mission = tess) {
  int status = 0;
  fitsfile* f = nullptr;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  fits_create_img(f, 8, 0, nullptr, &status);
  fits_write_key(f, TLONG, mission.id_key, &ticid, nullptr, &status);
  char c_time[] = "TIME", c_flux[] = "PDCSAP_FLUX", c_err[] = "PDCSAP_FLUX_ERR", c_q[] = "QUALITY";
  char f_d[] = "1D", f_e[] = "1E", f_j[] = "1J";
  std::vector<char*> ttype{c_time, c_flux, c_q}, tform{f_d, f_e, f_j};
  if (with_err) {
    ttype.push_back(c_err);
    tform.push_back(f_e);
  }
  char extname[] = "LIGHTCURVE";
  fits_create_tbl(f, BINARY_TBL, 0, static_cast<int>(ttype.size()), ttype.data(), tform.data(), nullptr, extname,
                  &status);
  long refi = mission.bjdrefi;
  fits_write_key(f, TLONG, "BJDREFI", &refi, nullptr, &status);
  for (long r = 0; r < 2000; ++r) {
    double t = mission.t0 + 0.0138889 * r * 1.3;  // ~36 days of 2-min-like cadences, thinned
    float flux = static_cast<float>(1000 + 5 * std::sin(2 * M_PI * t / period) + 0.5 * std::sin(r * 1.7));
    float err = 0.5f;
    int q = (r % 97 == 0) ? 1 : 0;
    fits_write_col(f, TDOUBLE, 1, r + 1, 1, 1, &t, &status);
    fits_write_col(f, TFLOAT, 2, r + 1, 1, 1, &flux, &status);
    fits_write_col(f, TINT, 3, r + 1, 1, 1, &q, &status);
    if (with_err) fits_write_col(f, TFLOAT, 4, r + 1, 1, 1, &err, &status);
  }
  fits_close_file(f, &status);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  std::filesystem::create_directories(dir + "/good");
  int status = write_lc(dir + "/good/tess_a_lc.fits", 101, 1.7, true);
  status |= write_lc(dir + "/good/tess_b_lc.fits", 202, 0.61, true);
  status |= write_lc(dir + "/noerr.fits", 303, 1.0, false);
  // Kepler and TESS light curves in one input: each object keeps its own time reference.
  std::filesystem::create_directories(dir + "/mixed");
  status |= write_lc(dir + "/mixed/kplr000757076_llc.fits", 757076, 2.3, true, kepler);
  status |= write_lc(dir + "/mixed/tess_404_lc.fits", 404, 0.61, true, tess);
  std::ifstream in(dir + "/good/tess_a_lc.fits", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir + "/truncated.fits", std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  std::printf("fixtures in %s (status %d)\n", dir.c_str(), status);
  return status == 0 ? 0 : 1;
}
