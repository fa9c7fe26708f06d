#pragma once
// Significance of summed Fourier powers, as PRESTO's accelsearch computes it (spec fdas.md §7).
//
// A summed power P of H harmonics of white noise, normalised to mean 1 per harmonic, is χ² with 2H
// degrees of freedom divided by 2. accelsearch turns the tail probability of P, multiplied by the
// number of independent trials, into an "equivalent Gaussian sigma", and inverts that relation to
// get the per-stage power threshold (powcut). These functions restate that mathematics; where
// PRESTO takes an approximation (A&S 6.5.32/6.1.41 for large χ², A&S 26.2.23 for ln p < −600)
// we take the same one in the same region, so sigmas agree with PRESTO's to ≪ 1e−3.

#include <cstdint>

namespace astrosweep::fdas {

/// ln Q(a, x): the natural log of the regularised upper incomplete gamma function Γ(a, x)/Γ(a),
/// computed in log form (series below x = a + 1, Lentz continued fraction above), so it stays
/// finite where Q itself underflows. a > 0; x ≤ 0 gives 0 (Q = 1).
double ln_gamma_q(double a, double x);

/// ln Q_χ²(chi2 | dof), the log tail probability of a χ² variate, with PRESTO's choice of method
/// (its chi2_logp): for chi2 > 1200, or dof > 30 and chi2 > 100, the asymptotic incomplete-gamma
/// series (A&S 6.5.32, exact when dof is even) over Stirling's ln Γ (A&S 6.1.41); otherwise the
/// regular incomplete gamma. chi2 ≤ 0 gives 0 (PRESTO returns −inf there, but never calls it so).
double ln_chi2_sf(double chi2, double dof);

/// ln Q_N(x): log upper-tail probability of the unit normal, accurate far into the tail.
double ln_normal_sf(double x);

/// x with ln Q_N(x) = ln_p (ln_p < 0): the upper-tail inverse normal from a log probability. For
/// ln_p < −600 this is PRESTO's A&S 26.2.23 rational approximation in t = √(−2 ln p) (absolute
/// error < 4.5e−4); above, the root to double precision. Negative for ln_p > ln ½.
double normal_isf_from_ln_p(double ln_p);

/// PRESTO's equivalent_gaussian_sigma: normal_isf_from_ln_p clipped at 0. ln_p ≥ ln ½ gives 0
/// (also for ln_p > 0, where PRESTO's GSL call would return NaN).
double equivalent_gaussian_sigma(double ln_p);

/// Significance of a summed power of `numharm` harmonics among `n_indep` independent trials
/// (PRESTO's candidate_sigma): ln p = ln Q_χ²(2·power | 2·numharm) + ln n_indep, then
/// equivalent_gaussian_sigma. power ≤ 0 gives 0.
double candidate_sigma(double power, int numharm, double n_indep);

/// The number of independent trials of stage `numharm` over the band [r_lo, r_hi] (bins of the
/// highest harmonic), as PRESTO stores it (int64, truncated):
///   n_z > 1: (r_hi − r_lo)·(n_z + 1)·(dz / 6.95) / numharm   (the +1 covers the search just
///            beyond ±z_max; 6.95 bins of z per independent trial)
///   n_z = 1: (r_hi − r_lo) / numharm                         (z_max = 0)
/// The products are taken in PRESTO's order, so the truncation matches it.
std::int64_t n_independent(double r_lo, double r_hi, int n_z, double dz, int numharm);

/// x with ln Q_χ²(x | dof) = ln_q (exact incomplete gamma, no asymptotic branch; as GSL's
/// gsl_cdf_chisq_Qinv, but from a log probability so that tiny q are not lost). dof ≥ 2, ln_q < 0.
double chi2_isf_from_ln_q(double ln_q, double dof);

/// The power threshold of a stage (PRESTO's power_for_sigma, its powcut):
/// ½ · Q_χ²⁻¹( Q_N(sigma_min) / n_indep | 2·numharm ). A summed power above it has
/// candidate_sigma ≥ sigma_min (to the accuracy of the approximations above).
double power_threshold(double sigma_min, int numharm, double n_indep);

}  // namespace astrosweep::fdas
