#!/usr/bin/env python3
"""Generate the reference significances the fdas statistics tests compare with.

The fdas job reports PRESTO accelsearch's "sigma" of a summed power P of H harmonics among n
independent trials (docs: specs fdas.md section 7):

    ln p  = ln Q_chi2(2P | 2H) + ln n
    sigma = Q_N^-1(exp(ln p)), clipped at 0

Two columns are written for every (P, H, n):

* ``sigma_exact``: the mathematics in 40-digit arithmetic (mpmath): the regularised upper
  incomplete gamma Q(H, P) = gammainc(H, P, inf, regularized=True), and the root of
  ln(erfc(x/sqrt 2)/2) = ln p.  The spec's tolerance (sigma within 1e-3 of PRESTO's) is
  checked against this.
* ``sigma_presto``: the approximations PRESTO takes (its chi2_logp / equivalent_gaussian_sigma,
  restated from the mathematics, float64): for 2P > 1200, or 2H > 30 and 2P > 100, the
  asymptotic series A&S 6.5.32 (summed until a term is <= 1e-15) over Stirling's ln Gamma
  A&S 6.1.41 (terms to z^-7); otherwise ln of scipy.special.gammaincc (standing in for GSL's
  gsl_cdf_chisq_Q); for ln p < -600 the A&S 26.2.23 rational approximation, otherwise
  scipy.stats.norm.isf (standing in for gsl_cdf_gaussian_Qinv).  ln p >= ln 1/2 gives 0 (PRESTO
  would return NaN for p > 1).  The C++ code follows the same branches, so it is compared with
  this column tightly.

The grid: powers 1 ... 1e5 (log-spaced, 1-2-5 per decade), H in {1, 2, 4, 8, 16, 32}, n in
{1, 10, 1e3, 1e6, 1e9, 1e12}, plus points either side of each branch boundary: 2P = 1200,
2P = 100 (H >= 16 and H = 8), and the power where ln p = -600 for each (H, n).

A second table gives exact power thresholds (PRESTO's powcut):
powcut = 1/2 Q_chi2^-1(Q_N(sigma_min)/n | 2H), for sigma_min in {2, 3, 4, 6, 8, 12}, the same H
and n, from mpmath's root of Q(H, y) = Q_N(sigma_min)/n.

Outputs (CSV, '#' comment lines, a header row, '%.17g'):
  tests/data/reference/fdas_sigma.csv:   power,numharm,n_indep,ln_p,sigma_exact,sigma_presto
  tests/data/reference/fdas_powcut.csv:  sigma_min,numharm,n_indep,powcut

Run from the repository root:  python3 tools/make_fdas_sigma_reference.py
"""

import argparse
import math
import os

import mpmath as mp
import numpy as np
import scipy
import scipy.special
import scipy.stats

mp.mp.dps = 40

HARMS = (1, 2, 4, 8, 16, 32)
TRIALS = (1.0, 10.0, 1e3, 1e6, 1e9, 1e12)


def ln_q_exact(h, p):
    return mp.log(mp.gammainc(h, p, mp.inf, regularized=True))


def normal_isf_from_ln_p_exact(ln_p):
    """x with ln Q_N(x) = ln_p, ln_p < ln 1/2 (mpmath root)."""
    ln_p = mp.mpf(ln_p)
    t = mp.sqrt(-2 * ln_p)
    guess = t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308)))
    f = lambda x: mp.log(mp.erfc(x / mp.sqrt(2)) / 2) - ln_p
    return mp.findroot(f, guess)


def sigma_exact(power, h, n):
    ln_p = ln_q_exact(h, mp.mpf(power)) + mp.log(n)
    if ln_p >= mp.log(mp.mpf(0.5)):
        return ln_p, mp.mpf(0)
    return ln_p, normal_isf_from_ln_p_exact(ln_p)


def presto_ln_chi2_sf(chi2, dof):
    if chi2 <= 0:
        return 0.0
    if chi2 > 1200.0 or (dof > 30 and chi2 > 100.0):
        a, z = 0.5 * dof, 0.5 * chi2
        x, part, term, i = 1.0, 1.0, 1.0, 1
        while abs(part) > 1e-15:
            term *= a - i
            part = term / z**i
            x += part
            i += 1
        ln_inc = (a - 1.0) * math.log(z) - z + math.log(x)
        y = 1.0 / (a * a)
        ln_gam = (a - 0.5) * math.log(a) - a + 0.91893853320467267
        ln_gam += (((-5.9523809523809529e-4 * y + 7.9365079365079365079365e-4) * y - 2.7777777777777777777778e-3) * y
                   + 8.3333333333333333333333e-2) / a
        return ln_inc - ln_gam
    return math.log(scipy.special.gammaincc(0.5 * dof, 0.5 * chi2))


def sigma_presto(power, h, n):
    if power <= 0:
        return 0.0
    ln_p = presto_ln_chi2_sf(2.0 * power, 2.0 * h) + math.log(n)
    if ln_p >= math.log(0.5):
        return 0.0
    if ln_p < -600.0:
        t = math.sqrt(-2.0 * ln_p)
        x = t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)))
    else:
        x = scipy.stats.norm.isf(math.exp(ln_p))
    return max(x, 0.0)


def power_grid():
    powers = []
    for e in range(0, 5):
        for m in (1, 2, 5):
            powers.append(m * 10.0**e)
    powers.append(1e5)
    return powers


def boundary_points():
    """(power, h, n) either side of PRESTO's branch switches."""
    pts = []
    for h in HARMS:
        for n in (1.0, 1e12):
            for p in (600.0 * (1 - 1e-9), 600.0 * (1 + 1e-9)):  # chi2 = 1200
                pts.append((p, h, n))
    for h in (8, 16, 32):
        for n in (1.0, 1e6):
            for p in (50.0 * (1 - 1e-9), 50.0 * (1 + 1e-9)):  # dof > 30 and chi2 = 100
                pts.append((p, h, n))
    for h in HARMS:  # ln p = -600: the rational approximation takes over
        for n in TRIALS:
            f = lambda p: ln_q_exact(h, p) + mp.log(n) + 600
            p0 = mp.findroot(f, 600.0 + h * 5 + math.log(n))
            for scale in (1 - 1e-6, 1 + 1e-6):
                pts.append((float(p0) * scale, h, n))
    return pts


def powcut_exact(sigma_min, h, n):
    q = mp.erfc(mp.mpf(sigma_min) / mp.sqrt(2)) / 2 / n
    start = scipy.stats.chi2.isf(float(q), 2 * h) / 2
    return mp.findroot(lambda y: mp.log(mp.gammainc(h, y, mp.inf, regularized=True)) - mp.log(q), start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out-dir", default="tests/data/reference")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    versions = "numpy %s, scipy %s, mpmath %s (%d digits)" % (np.__version__, scipy.__version__, mp.__version__,
                                                              mp.mp.dps)
    rows = [(p, h, n) for h in HARMS for n in TRIALS for p in power_grid()] + boundary_points()
    with open(os.path.join(args.out_dir, "fdas_sigma.csv"), "w") as f:
        f.write("# made by tools/make_fdas_sigma_reference.py (%s); see its docstring\n" % versions)
        f.write("power,numharm,n_indep,ln_p,sigma_exact,sigma_presto\n")
        for p, h, n in rows:
            ln_p, s = sigma_exact(p, h, n)
            f.write("%.17g,%d,%.17g,%.17g,%.17g,%.17g\n" % (p, h, n, float(ln_p), float(s), sigma_presto(p, h, n)))
    with open(os.path.join(args.out_dir, "fdas_powcut.csv"), "w") as f:
        f.write("# made by tools/make_fdas_sigma_reference.py (%s); see its docstring\n" % versions)
        f.write("sigma_min,numharm,n_indep,powcut\n")
        for s in (2.0, 3.0, 4.0, 6.0, 8.0, 12.0):
            for h in HARMS:
                for n in TRIALS:
                    f.write("%.17g,%d,%.17g,%.17g\n" % (s, h, n, float(powcut_exact(s, h, n))))


if __name__ == "__main__":
    main()
