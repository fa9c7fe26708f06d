#include "io/fits_light_curve_fixtures.hpp"

#include <fitsio.h>
#include <gtest/gtest.h>

namespace astrosweep::test {

void write_light_curve(const std::string& path, long ticid, const std::vector<Cadence>& rows, bool with_pdcsap,
                       bool with_err, const Mission& mission) {
  int status = 0;
  fitsfile* f = nullptr;
  fits_create_file(&f, ("!" + path).c_str(), &status);
  fits_create_img(f, 8, 0, nullptr, &status);
  fits_write_key(f, TLONG, mission.id_key, &ticid, "target id", &status);
  std::vector<std::string> names{"TIME", "QUALITY"};
  if (with_pdcsap) names.push_back("PDCSAP_FLUX");
  if (with_pdcsap && with_err) names.push_back("PDCSAP_FLUX_ERR");
  names.push_back("SAP_FLUX");
  std::vector<char*> ttype, tform;
  std::vector<std::string> forms;
  for (auto& n : names) forms.push_back(n == "TIME" ? "1D" : n == "QUALITY" ? "1J" : "1E");
  for (std::size_t i = 0; i < names.size(); ++i) {
    ttype.push_back(names[i].data());
    tform.push_back(forms[i].data());
  }
  char extname[] = "LIGHTCURVE";
  fits_create_tbl(f, BINARY_TBL, 0, static_cast<int>(names.size()), ttype.data(), tform.data(), nullptr, extname,
                  &status);
  long refi = mission.bjdrefi;
  double reff = mission.bjdreff;
  fits_write_key(f, TLONG, "BJDREFI", &refi, nullptr, &status);
  fits_write_key(f, TDOUBLE, "BJDREFF", &reff, nullptr, &status);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto row = static_cast<LONGLONG>(r + 1);
    double t = rows[r].t;
    float flux = static_cast<float>(rows[r].flux), err = static_cast<float>(rows[r].err);
    int q = rows[r].quality;
    int col = 1;
    fits_write_col(f, TDOUBLE, col++, row, 1, 1, &t, &status);
    fits_write_col(f, TINT, col++, row, 1, 1, &q, &status);
    if (with_pdcsap) fits_write_col(f, TFLOAT, col++, row, 1, 1, &flux, &status);
    if (with_pdcsap && with_err) fits_write_col(f, TFLOAT, col++, row, 1, 1, &err, &status);
    fits_write_col(f, TFLOAT, col++, row, 1, 1, &flux, &status);
  }
  fits_close_file(f, &status);
  ASSERT_EQ(status, 0) << "writing the fixture failed";
}

}  // namespace astrosweep::test
