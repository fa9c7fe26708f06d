#pragma once
// Power at one frequency from the weighted trigonometric sums of a centred series, shared by the
// CPU backends and (through AS_HOST_DEVICE) the CUDA kernels, so every backend normalises alike.
//
// With normalised weights w (sum 1), centred y, c = cos(wt), s = sin(wt):
//   C = sum w c, S = sum w s, YC = sum w y c, YS = sum w y s, CC = sum w c^2, CS = sum w c s, SS = sum w s^2.
// The floating mean removes C and S from the second moments. astropy's time shift tau diagonalises
// the 2x2 moment matrix [[CC, CS], [CS, SS]]: its eigenvalues are CCtau (the larger) and SStau,
// and the rotated YC/YS follow from cos 2wtau, sin 2wtau, so no atan2 or sin/cos is needed here.

#include <cmath>

#include "core/host_device.hpp"

namespace astrosweep::period {

struct TrigSums {
  double c, s, yc, ys, cc, cs, ss;
};

/// Unnormalised power p (astropy's p before normalisation). `rel_eps` sets when a moment is
/// treated as degenerate (relative to the trace): a term whose denominator is below rel_eps*trace
/// contributes 0 instead of 0/0 noise.
AS_HOST_DEVICE inline double raw_power(TrigSums m, bool fit_mean, double rel_eps) {
  double cc = m.cc, ss = m.ss, cs = m.cs;
  if (fit_mean) {
    cc -= m.c * m.c;
    ss -= m.s * m.s;
    cs -= m.c * m.s;
  }
  const double trace = cc + ss;
  const double diff = cc - ss;
  const double r = std::sqrt(diff * diff + 4 * cs * cs);
  const double cc_tau = 0.5 * (trace + r);
  const double det = cc * ss - cs * cs;
  const double ss_tau = cc_tau > 0 ? det / cc_tau : 0.0;
  double cos2 = 1, sin2 = 0;
  if (r > 0) {
    cos2 = diff / r;
    sin2 = 2 * cs / r;
  }
  const double yc2 = m.yc * m.yc, ys2 = m.ys * m.ys, ycys = m.yc * m.ys;
  const double yc_tau2 = 0.5 * (yc2 + ys2) + 0.5 * cos2 * (yc2 - ys2) + sin2 * ycys;
  const double ys_tau2 = 0.5 * (yc2 + ys2) - 0.5 * cos2 * (yc2 - ys2) - sin2 * ycys;
  const double floor = rel_eps * trace;
  double p = 0;
  if (cc_tau > floor) p += yc_tau2 / cc_tau;
  if (ss_tau > floor) p += ys_tau2 / ss_tau;
  return p;
}

/// astropy's normalisations. yy = sum w y^2 of the centred data; psd_scale = sum dy^-2 (or N).
AS_HOST_DEVICE inline double normalise_power(double p, int normalization, double yy, double psd_scale) {
  switch (normalization) {
    case 0: return p / yy;                 // standard
    case 1: return p / (yy - p);           // model
    case 2: return -std::log(1 - p / yy);  // log
    default: return p * 0.5 * psd_scale;   // psd
  }
}

/// The normalised power from a frequency's sums: what every method (direct, fast) and backend
/// ends with.
AS_HOST_DEVICE inline double power_from_sums(TrigSums m, bool fit_mean, double rel_eps, int normalization, double yy,
                                             double psd_scale) {
  return normalise_power(raw_power(m, fit_mean, rel_eps), normalization, yy, psd_scale);
}

/// The sums from first and second harmonics, as the fast method gets them: with W = sum w,
/// sum w cos^2 = (W + sum w cos 2wt) / 2, sum w sin^2 = (W - sum w cos 2wt) / 2 and
/// sum w cos sin = (sum w sin 2wt) / 2.
AS_HOST_DEVICE inline TrigSums sums_from_harmonics(double c, double s, double yc, double ys, double c2, double s2,
                                                   double w_sum) {
  return TrigSums{c, s, yc, ys, 0.5 * (w_sum + c2), 0.5 * s2, 0.5 * (w_sum - c2)};
}

}  // namespace astrosweep::period
