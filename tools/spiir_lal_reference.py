#!/usr/bin/env python3
"""Reference values from LALSuite for the spiir tests (tests/spiir), so that CI needs no LAL.

iir (tests/spiir/test_iir_coefficients.cpp):

The Newtonian chirp of the spec's validation plan (§5C, §13 item 1): 1.4+1.4 Msun, f_low 40 Hz,
2048 Hz, from f_low to min(f_ISCO, 0.45 f_s), amplitude ~ f^(2/3), normalised to sum |h|^2 = 2 --
the same samples as astrosweep::spiir::newtonian_chirp -- given to lalinspiral's
XLALInspiralGenerateIIRSet (epsilon 0.02, alpha 0.99, beta 0.25, padding 1.3). Its filters are
written one per line: delay, Re a1, Im a1, Re b0, Im b0 (b0 as LAL returns it, unnormalised).

taylorf2 (tests/spiir/test_taylorf2.cpp): lalsimulation's TaylorF2 (SimInspiralChooseFDWaveform,
3.5PN phase, Newtonian amplitude, no spins or tides), 1.4+1.4 Msun (masses scaled so that
G M/c^3 uses our 4.925491e-6 s per Msun), face-on at 1 Mpc, df = 1/64 Hz; every 256th bin from
41 to 900 Hz: f, |h+(f)| and -unwrapped arg h+(f) (LAL's Psi up to its t_c, phi_c convention).

sky (tests/spiir/test_sky.cpp): 40 directions, polarisations and GPS times (2017-2027) from a fixed
seed; per row LAL's Greenwich mean sidereal time (XLALGreenwichMeanSiderealTime) and, per detector
H1, L1, V1 (lal.CachedDetectors), F+ and F x (XLALComputeDetAMResponse at LAL's GMST) and the
delay from the geocentre (XLALTimeDelayFromEarthCenter).

healpix (tests/spiir/test_sky.cpp): healpy's NESTED pixel centres (pix2ang(nest=True)) of every
pixel of orders 0-2 and every 97th pixel of orders 4, 5 and 7. healpy is not LAL: pip install healpy.

welch (tests/spiir/test_whitening.cpp): median-averaged Welch PSDs of a deterministic series both
sides compute bit for bit (a 64-bit LCG's uniform noise through x[n] = u[n] + 0.9 x[n-1], plus
0.3 sin(2 pi 13.3 t)), 64 Hz, 4 s periodic-Hann segments, 50 % overlap, no detrending: 64 s
(31 segments, odd) and 14 s (6 segments, even). Columns: segments, k, f, scipy.signal.welch
(average='median'), LAL's XLALREAL8AverageSpectrumMedian (given the periodic Hann); then median_bias(n) of LAL for n = 1..12.

    pip install lalsuite numpy scipy healpy
    python3 tools/spiir_lal_reference.py iir > tests/spiir/data/lal_iir_newtonian.txt
    python3 tools/spiir_lal_reference.py taylorf2 > tests/spiir/data/lal_taylorf2.txt
    python3 tools/spiir_lal_reference.py sky > tests/spiir/data/lal_sky.txt
    python3 tools/spiir_lal_reference.py healpix > tests/spiir/data/healpy_nest.txt
    python3 tools/spiir_lal_reference.py welch > tests/spiir/data/welch_reference.txt
"""
import importlib.metadata
import sys

import lal
import lalinspiral
import lalsimulation
import numpy as np

SOLAR_MASS_S = 4.925491e-6


def newtonian_chirp(m1, m2, f_low, fs):
    total = (m1 + m2) * SOLAR_MASS_S
    eta = m1 * m2 / (m1 + m2) ** 2
    mc = eta ** 0.6 * total
    f_end = min(1 / (6 ** 1.5 * np.pi * total), 0.45 * fs)
    tau = lambda f: 5 / 256 * mc ** (-5 / 3) * (np.pi * f) ** (-8 / 3)
    n = int(np.floor((tau(f_low) - tau(f_end)) * fs)) + 1
    t = tau(f_low) - np.arange(n) / fs
    f = (5 / t) ** (3 / 8) * mc ** (-5 / 8) / (8 * np.pi)
    h = f ** (2 / 3) * np.exp(1j * -2 * (t / (5 * mc)) ** (5 / 8))
    return h * np.sqrt(2 / np.sum(np.abs(h) ** 2))


def versions():
    return "lalsuite %s, LAL %s" % (importlib.metadata.version("lalsuite"), lal.__version__)


def taylorf2():
    scale = SOLAR_MASS_S / lal.MTSUN_SI
    params = lal.CreateDict()
    lalsimulation.SimInspiralWaveformParamsInsertPNAmplitudeOrder(params, 0)
    lalsimulation.SimInspiralWaveformParamsInsertPNPhaseOrder(params, 7)
    df = 1 / 64.0
    hp, _ = lalsimulation.SimInspiralChooseFDWaveform(
        1.4 * scale * lal.MSUN_SI, 1.4 * scale * lal.MSUN_SI, 0, 0, 0, 0, 0, 0, 1e6 * lal.PC_SI, 0, 0, 0, 0, 0,
        df, 40.0, 1000.0, 40.0, params, lalsimulation.TaylorF2)
    f = np.arange(hp.data.length) * df
    h = hp.data.data
    keep = (f >= 41) & (f <= 900)
    f, h = f[keep], h[keep]
    psi = -np.unwrap(np.angle(h))
    out = sys.stdout
    out.write("# lalsimulation TaylorF2 (%s), 1.4+1.4 Msun, face-on, 1 Mpc, df 1/64 Hz; "
              "made by tools/spiir_lal_reference.py taylorf2\n" % versions())
    out.write("# columns: f (Hz), |h+| (1/Hz), Psi = -arg h+ unwrapped (rad)\n")
    for i in range(0, len(f), 256):
        out.write("%.17g %.17g %.17g\n" % (f[i], abs(h[i]), psi[i]))


def iir():
    h = newtonian_chirp(1.4, 1.4, 40.0, 2048.0)
    amp = lal.CreateREAL8Vector(len(h))
    amp.data = np.abs(h)
    phase = lal.CreateREAL8Vector(len(h))
    phase.data = np.unwrap(np.angle(h))
    a1, b0, delay = lalinspiral.InspiralGenerateIIRSet(amp, phase, 0.02, 0.99, 0.25, 1.3)
    out = sys.stdout
    out.write("# lalinspiral.InspiralGenerateIIRSet (lalsuite %s, LAL %s) on the Newtonian chirp 1.4+1.4 Msun, "
              "40 Hz, 2048 Hz, %d samples; eps 0.02, alpha 0.99, beta 0.25\n"
              % (importlib.metadata.version("lalsuite"), lal.__version__, len(h)))
    out.write("# made by tools/spiir_lal_reference.py iir\n")
    out.write("# columns: delay re(a1) im(a1) re(b0) im(b0)\n")
    for d, a, b in zip(delay.data, a1.data, b0.data):
        out.write("%d %.17g %.17g %.17g %.17g\n" % (d, a.real, a.imag, b.real, b.imag))


def sky():
    rng = np.random.default_rng(20261126)
    dets = [("H1", lal.LHO_4K_DETECTOR), ("L1", lal.LLO_4K_DETECTOR), ("V1", lal.VIRGO_DETECTOR)]
    out = sys.stdout
    out.write("# LAL %s: GMST (XLALGreenwichMeanSiderealTime), per detector F+, Fx (XLALComputeDetAMResponse at "
              "that GMST) and t_det - t_geocentre (XLALTimeDelayFromEarthCenter); made by "
              "tools/spiir_lal_reference.py sky\n" % versions())
    out.write("# columns: gps ra dec psi gmst, then for H1 L1 V1: fplus fcross delay_s\n")
    for _ in range(40):
        gps = float(rng.uniform(1167264018, 1483228818))  # 2017-01-01 ... 2027-01-01
        ra = float(rng.uniform(0, 2 * np.pi))
        dec = float(np.arcsin(rng.uniform(-1, 1)))
        psi = float(rng.uniform(0, np.pi))
        t = lal.LIGOTimeGPS(gps)
        gmst = lal.GreenwichMeanSiderealTime(t)
        row = [gps, ra, dec, psi, gmst]
        for _, index in dets:
            det = lal.CachedDetectors[index]
            fp, fc = lal.ComputeDetAMResponse(det.response, ra, dec, psi, gmst)
            row += [fp, fc, lal.TimeDelayFromEarthCenter(det.location, ra, dec, t)]
        out.write(" ".join("%.17g" % v for v in row) + "\n")


def healpix():
    import healpy
    out = sys.stdout
    out.write("# healpy %s pix2ang(nest=True); made by tools/spiir_lal_reference.py healpix\n" % healpy.__version__)
    out.write("# columns: order pixel theta phi\n")
    for order, step in [(0, 1), (1, 1), (2, 1), (4, 97), (5, 97), (7, 97)]:
        nside = 2 ** order
        pix = np.arange(0, 12 * nside * nside, step)
        theta, phi = healpy.pix2ang(nside, pix, nest=True)
        for p, t, f in zip(pix, theta, phi):
            out.write("%d %d %.17g %.17g\n" % (order, p, t, f))



def lcg_series(n, rate):
    """The test series of test_whitening.cpp's lcg_series, the same operations in the same order."""
    state = 12345
    x = np.zeros(n)
    prev = 0.0
    for i in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        u = (state >> 11) * 2.0 ** -53 - 0.5
        prev = u + 0.9 * prev
        x[i] = prev + 0.3 * np.sin(2 * np.pi * 13.3 * i / rate)
    return x


def welch():
    import scipy
    import scipy.signal
    rate, seg = 64.0, 256
    out = sys.stdout
    out.write("# median Welch PSDs: scipy %s signal.welch(hann, nperseg %d, noverlap %d, detrend=False, "
              "average='median') and %s XLALREAL8AverageSpectrumMedian; made by tools/spiir_lal_reference.py welch\n"
              % (scipy.__version__, seg, seg // 2, versions()))
    out.write("# columns: segments k f scipy lal\n")
    for seconds in (64, 14):
        x = lcg_series(int(seconds * rate), rate)
        f, p = scipy.signal.welch(x, fs=rate, window="hann", nperseg=seg, noverlap=seg // 2, detrend=False,
                                  average="median")
        series = lal.CreateREAL8TimeSeries("x", lal.LIGOTimeGPS(0), 0, 1 / rate, lal.DimensionlessUnit, len(x))
        series.data.data = x
        spectrum = lal.CreateREAL8FrequencySeries("p", lal.LIGOTimeGPS(0), 0, rate / seg, lal.DimensionlessUnit,
                                                  seg // 2 + 1)
        # LAL's CreateHannREAL8Window is the symmetric Hann; ours and scipy's is periodic: give LAL that.
        sequence = lal.CreateREAL8Sequence(seg)
        sequence.data = scipy.signal.get_window("hann", seg)
        window = lal.CreateREAL8WindowFromSequence(sequence)
        plan = lal.CreateForwardREAL8FFTPlan(seg, 0)
        lal.REAL8AverageSpectrumMedian(spectrum, series, seg, seg // 2, window, plan)
        segments = (len(x) - seg) // (seg // 2) + 1
        for k in range(len(f)):
            out.write("%d %d %.17g %.17g %.17g\n" % (segments, k, f[k], p[k], spectrum.data.data[k]))
    out.write("# median_bias: n, LAL's XLALMedianBias\n")
    for n in range(1, 13):
        out.write("bias %d %.17g\n" % (n, lal.MedianBias(n)))


if __name__ == "__main__":
    {"iir": iir, "taylorf2": taylorf2, "sky": sky, "healpix": healpix, "welch": welch}[
        sys.argv[1] if len(sys.argv) > 1 else "iir"]()
