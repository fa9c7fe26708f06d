#pragma once
// PRESTO's harmonic table of a polished candidate (spec §9, /harmonics; accelsearch's
// output_harmonics). For each harmonic h of a candidate whose fundamental was polished to (r₁, z₁),
// PRESTO measures the spectrum at (h·r₁, h·z₁) (optimize_accelcand with harmonic polishing:
// hirs = h·r₁, hizs = h·z₁) and describes the peak there by the properties of Middleditch, Deich
// & Kulkarni (1993) that its calc_props derives from get_derivs3d's finite differences:
//   local power L   get_localpower3d: the mean |A|² of 20 points, f = r − 15 … r − 6 and
//                   r + 5 … r + 14 in steps of one bin at the harmonic's z (the centre, r − 5 …
//                   r + 4, left out), bounds clipped to [0, n], the sum always divided by 20
//   power           |A(r, z)|² / L, and its sigma as one harmonic in one trial
//   phase           arg A(r, z), in (0, 2π] as PRESTO's RADIAN_PHASE gives it
//   centroid        −(∂ arg A/∂r) / 2π: where in the observation the signal's power lies (a
//                   steady signal: ½)
//   purity          √(1.5 |∂²P/∂r²| / P) / π: the rms duration of the signal (a steady signal: 1)
// with the derivatives by central differences of step 0.003 bins, A from the exact response.
// PRESTO's "Pred 'r'" and "Pred 'z'" are h times the fundamental as the search found it (before
// polishing): r_predicted, z_predicted.

#include <complex>
#include <span>
#include <vector>

#include "candidate_rows.hpp"
#include "optimise.hpp"

namespace astrosweep::fdas {

/// The rows of harmonics 1 … numharm of a candidate polished to `polished` (its r, z) and found by
/// the search at (found_r, found_z), from the normalised `spectrum` the search ran on (bin k at
/// r = k). series and number are left 0 for the caller.
///
/// A harmonic beyond the spectrum (h·r₁ > n − 1) has no amplitude, as in PRESTO's rz_interp; a
/// harmonic whose power or local power is below 1e-14 cannot be described: PRESTO's calc_props
/// stops accelsearch there ("data.pow … (out-of-bounds)"). Its row keeps its r, z, predictions,
/// raw and local power, and has power, sigma, phase, centroid and purity 0. UsageError unless
/// numharm ≥ 1. The rows are independent: on `threads` > 1 they are measured in parallel, with the
/// same bits.
std::vector<HarmonicRow> harmonic_rows(std::span<const std::complex<float>> spectrum, const Polished& polished,
                                       double found_r, double found_z, int numharm, int threads = 1);

/// PRESTO's get_localpower3d at (r, z): see above. 0 where all 20 points lie outside the spectrum.
double local_power(std::span<const std::complex<float>> spectrum, double r, double z);

/// PRESTO's coherently summed power (output_fundamentals) from a candidate's harmonic rows, the
/// fundamental first: |Σ_h √power_h · e^{i(φ_h + φ₁ − (h·φ₁ mod 2π))}|², with the powers relative
/// to their local powers, as PRESTO computes it for its "Coherent Power" column.
double coherent_power(std::span<const HarmonicRow> rows);

/// What PRESTO's calc_props derives from a row, held as its fourierprops holds them (float where it
/// is float, so that printed digits round where PRESTO's do): the values and the errors its
/// harmonic table prints.
struct HarmonicProps {
  double r = 0;
  float r_err = 0;  ///< 3 / (π · purity · √(6 · power))
  double z = 0;
  float z_err = 0;                 ///< 3√10 / (π · purity² · √power)
  float power = 0, power_err = 0;  ///< power / local power; √(2 · power)
  float raw_power = 0;
  float phase = 0, phase_err = 0;        ///< radians; 1 / power_err
  float centroid = 0, centroid_err = 0;  ///< 1 / √(24 · power)
  float purity = 0, purity_err = 0;      ///< 1 / (purity · √(10 · power))
};
HarmonicProps harmonic_props(const HarmonicRow& row);

}  // namespace astrosweep::fdas
