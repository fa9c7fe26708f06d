#!/usr/bin/env python3
"""Reference values from PyCBC's coherent module for the spiir tests (tests/spiir/test_coherent_pycbc.cpp),
so that CI needs no PyCBC.

coherent: for two networks (H1 L1 V1, and H1 L1) at a fixed GPS time, complex SNR series of 256
samples per detector: uniform noise from a 64-bit LCG both sides compute bit for bit (lcg_noise,
re then im per sample, each (state >> 11) 2^-53 - 1/2, times 2), plus a signal from a source
direction: z_d += sigma_d (F+_d A + Fx_d B) at sample 128 + round((t_d - t_H1) f_s) (pycbc
Detector.antenna_pattern at polarization 0, .time_delay_from_detector, both at LAL's GMST). For every pixel
of the HEALPix NESTED grid of order 2 (healpy pix2ang): PyCBC's F+ and Fx (polarization 0), the
rounded delay floor((t_d - t_H1) f_s + 1/2) of each detector from H1, the SNR read there (sample
128 of H1 plus the delay), and PyCBC's coherent_snr with get_projection_matrix('standard') and
null_snr (rho_coinc^2 - rho_coh^2, no cut): rho_coh^2 and rho_null^2.

    pip install pycbc healpy
    python3 tools/spiir_pycbc_reference.py coherent > tests/spiir/data/pycbc_coherent.txt
"""
import importlib.metadata
import sys

import numpy as np

LENGTH, CENTRE, RATE, GPS, ORDER = 256, 128, 2048.0, 1187008882.4, 2


def lcg_noise(n, seed):
    state = seed
    out = np.zeros(n, dtype=complex)
    for i in range(n):
        parts = []
        for _ in range(2):
            state = (state * 6364136223846793005 + 1442695040888963407) % 2 ** 64
            parts.append(((state >> 11) * 2.0 ** -53 - 0.5) * 2.0)
        out[i] = complex(parts[0], parts[1])
    return out


def coherent():
    import healpy
    import lal
    from pycbc.detector import Detector
    from pycbc.events import coherent as pc

    out = sys.stdout
    out.write("# pycbc %s (pycbc.events.coherent get_projection_matrix standard, coherent_snr, null_snr without cut; "
              "pycbc.detector antenna_pattern, time_delay_from_detector at LAL's GMST), healpy %s; made by "
              "tools/spiir_pycbc_reference.py coherent\n"
              % (importlib.metadata.version("pycbc"), healpy.__version__))
    out.write("# case lines: case n_det gps rate length centre order; then per detector: ifo seed sigma "
              "injected_sample re(added) im(added)\n")
    out.write("# pixel lines: pixel, per detector fplus fcross offset_samples, then rho_coh2 rho_null2\n")
    networks = [(["H1", "L1", "V1"], [11, 12, 13], [1.0, 0.8, 0.45], (2.1, -0.7), (7 - 3j, 2 + 5j)),
                (["H1", "L1"], [21, 22], [1.0, 1.3], (4.0, 0.5), (6 + 1j, -4 + 2j))]
    for case, (ifos, seeds, sigmas, (ra_s, dec_s), (amp_p, amp_c)) in enumerate(networks):
        # PyCBC's sidereal time is astropy's (with UT1 from the IERS tables; by default extrapolated
        # from a 2015 reference), LAL's is the IAU 1982 GMST with UT1 = UTC: 2.5e-5 rad apart here.
        # The spec's geometry is LAL's, so PyCBC is given LAL's GMST; its detector tensors,
        # antenna patterns, delays and statistics are its own.
        dets = {}
        for ifo in ifos:
            dets[ifo] = Detector(ifo, reference_time=None)
            dets[ifo].gmst_estimate = lambda t: lal.GreenwichMeanSiderealTime(lal.LIGOTimeGPS(t))
        series = {ifo: lcg_noise(LENGTH, seed) for ifo, seed in zip(ifos, seeds)}
        out.write("case %d %d %.17g %.17g %d %d %d\n" % (case, len(ifos), GPS, RATE, LENGTH, CENTRE, ORDER))
        for ifo, seed, sigma in zip(ifos, seeds, sigmas):
            fp, fc = dets[ifo].antenna_pattern(ra_s, dec_s, 0.0, GPS)
            delay = dets[ifo].time_delay_from_detector(dets[ifos[0]], ra_s, dec_s, GPS)
            at = CENTRE + int(np.floor(delay * RATE + 0.5))
            added = sigma * (fp * amp_p + fc * amp_c)
            series[ifo][at] += added
            out.write("%s %d %.17g %d %.17g %.17g\n" % (ifo, seed, sigma, at, added.real, added.imag))
        nside = 2 ** ORDER
        for pixel in range(12 * nside * nside):
            theta, phi = healpy.pix2ang(nside, pixel, nest=True)
            ra, dec = phi, np.pi / 2 - theta
            fplus, fcross, sigma, snr, row = {}, {}, {}, {}, [pixel]
            for ifo, s in zip(ifos, sigmas):
                fplus[ifo], fcross[ifo] = dets[ifo].antenna_pattern(ra, dec, 0.0, GPS)
                offset = int(np.floor(dets[ifo].time_delay_from_detector(dets[ifos[0]], ra, dec, GPS) * RATE + 0.5))
                sigma[ifo] = s
                snr[ifo] = series[ifo][CENTRE + offset:CENTRE + offset + 1]
                row += [fplus[ifo], fcross[ifo], offset]
            projection = pc.get_projection_matrix(fplus, fcross, sigma, projection="standard")
            rho_coh, _, _, _ = pc.coherent_snr(snr, np.array([0]), 0.0, projection)
            rho_coinc = np.sqrt(sum(abs(snr[ifo]) ** 2 for ifo in ifos))
            null = pc.null_snr(rho_coh, rho_coinc, apply_cut=False)[0]
            row += [rho_coh[0] ** 2, null[0] ** 2]
            out.write(" ".join("%d" % v if isinstance(v, (int, np.integer)) else "%.17g" % v for v in row) + "\n")


if __name__ == "__main__":
    {"coherent": coherent}[sys.argv[1]]()
