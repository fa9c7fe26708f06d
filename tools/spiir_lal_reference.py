#!/usr/bin/env python3
"""Reference IIR coefficients from LALSuite for the spiir tests (tests/spiir/test_iir_coefficients.cpp).

The Newtonian chirp of the spec's validation plan (§5C, §13 item 1): 1.4+1.4 Msun, f_low 40 Hz,
2048 Hz, from f_low to min(f_ISCO, 0.45 f_s), amplitude ~ f^(2/3), normalised to sum |h|^2 = 2 --
the same samples as astrosweep::spiir::newtonian_chirp -- given to lalinspiral's
XLALInspiralGenerateIIRSet (epsilon 0.02, alpha 0.99, beta 0.25, padding 1.3). Its filters are
written one per line: delay, Re a1, Im a1, Re b0, Im b0 (b0 as LAL returns it, unnormalised).

    pip install lalsuite numpy
    python3 tools/spiir_lal_reference.py > tests/spiir/data/lal_iir_newtonian.txt

CI reads the committed output and needs no LAL.
"""
import importlib.metadata
import sys

import lal
import lalinspiral
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


def main():
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
    out.write("# made by tools/spiir_lal_reference.py; columns: delay re(a1) im(a1) re(b0) im(b0)\n")
    for d, a, b in zip(delay.data, a1.data, b0.data):
        out.write("%d %.17g %.17g %.17g %.17g\n" % (d, a.real, a.imag, b.real, b.imag))


if __name__ == "__main__":
    main()
