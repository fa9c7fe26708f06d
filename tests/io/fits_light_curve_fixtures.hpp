#pragma once
// Small TESS/Kepler light-curve files written with CFITSIO in the SPOC layout, for the FITS reader
// and catalog tests.

#include <string>
#include <vector>

namespace astrosweep::test {

struct Cadence {
  double t, flux, err;
  int quality;
};

// Where a mission's times count from: TESS's BTJD (BJD - 2457000), Kepler's BKJD (BJD - 2454833).
struct Mission {
  const char* id_key;
  long bjdrefi;
  double bjdreff;
};
inline constexpr Mission tess{"TICID", 2457000, 0.0};
inline constexpr Mission kepler{"KEPLERID", 2454833, 0.0};

/// A minimal SPOC-like light-curve file: primary header with TICID (KEPLERID) and BJDREFI/F, then a
/// LIGHTCURVE binary table (TIME, QUALITY, PDCSAP_FLUX and its _ERR when asked, SAP_FLUX). A
/// failure is a gtest failure.
void write_light_curve(const std::string& path, long ticid, const std::vector<Cadence>& rows, bool with_pdcsap = true,
                       bool with_err = true, const Mission& mission = tess);

}  // namespace astrosweep::test
