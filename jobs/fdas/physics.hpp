#pragma once
// From Fourier bins to physics (spec §10): for a series spanning T = N_fft · tsamp seconds, a
// candidate at mean frequency r bins drifting z bins over T has
//   f = r/T (Hz), ḟ = z/T² (Hz/s), P = T/r (s), Ṗ = −z/r² (s/s),
//   a = z·c / (f·T²) (m/s², PRESTO's column: positive when the apparent frequency rises; the
//   line-of-sight acceleration away from the observer is −a),
// with the errors r_err = 0.5/H and z_err = 2/H of an H-harmonic detection.

namespace astrosweep::fdas {

inline constexpr double speed_of_light = 299'792'458.0;  ///< m/s

struct PhysicalCandidate {
  double frequency_hz, frequency_err_hz;
  double fdot_hz_s, fdot_err_hz_s;
  double period_s, period_err_s;
  double pdot, pdot_err;
  double accel_m_s2, accel_err_m_s2;
  double r_err, z_err;
};

/// The physical values of a fundamental at (r, z) found with `numharm` harmonics over `span_s`.
PhysicalCandidate to_physical(double r, double z, int numharm, double span_s);

}  // namespace astrosweep::fdas
