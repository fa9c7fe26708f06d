#!/usr/bin/env python3
"""Generate the table of astropy's automatic frequency grids used by test_frequency_grid.

For one light curve, astrosweep's automatic grid must be exactly the one
``astropy.timeseries.LombScargle(t, y).autofrequency(samples_per_peak,
nyquist_factor)`` returns: its first frequency, its spacing and its length.
The length is where the two could part: astropy rounds (f_max - f_min) / df
half to even (``np.round``), so the cases whose quotient lies on a half matter.

Cases: point counts 2 ... 400 and a few large ones, each with times drawn
uniformly (seeded) between a start and a start + baseline; baselines of whole
and fractional days (8 days gives the half-way quotients: 6 points over 8 days
is 74.5 frequency steps), starts at 0 and at a BJD-like 2.46e6; samples per
peak 5 (astropy's default), 10 and 2.5; Nyquist factor 5 (default), 1 and 3.

Output (``--out``): CSV with one ``#`` comment line, a header row and floats as
'%.17g': n_points,t_min,t_max,samples_per_peak,nyquist_factor,n_freq,f0,df
(df = f[1] - f[0], as astropy's grid is f0 + df * arange(n)).
"""
import argparse

import numpy as np
from astropy import __version__ as astropy_version
from astropy.timeseries import LombScargle


def cases():
    rng = np.random.default_rng(20261125)
    counts = list(range(2, 401)) + [1000, 1500, 3555, 10000]
    baselines = [8.0, 27.4, 50.0, 100.0 / 3.0, 365.25]
    settings = [(5.0, 5.0), (10.0, 1.0), (2.5, 3.0)]
    for n in counts:
        for i, baseline in enumerate(baselines):
            spp, nyq = settings[(n + i) % len(settings)]
            start = 0.0 if (n + i) % 2 == 0 else 2460000.5
            t = np.sort(rng.uniform(start, start + baseline, n))
            t[0], t[-1] = start, start + baseline
            yield n, t, spp, nyq


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.out, "w") as out:
        out.write("# astropy %s LombScargle.autofrequency on seeded uniform times; "
                  "made by tools/make_astropy_grid_table.py\n" % astropy_version)
        out.write("n_points,t_min,t_max,samples_per_peak,nyquist_factor,n_freq,f0,df\n")
        for n, t, spp, nyq in cases():
            f = LombScargle(t, np.ones_like(t)).autofrequency(samples_per_peak=spp, nyquist_factor=nyq)
            df = f[1] - f[0] if len(f) > 1 else 1.0 / (t.max() - t.min()) / spp
            out.write("%d,%.17g,%.17g,%.17g,%.17g,%d,%.17g,%.17g\n"
                      % (n, t.min(), t.max(), spp, nyq, len(f), f[0], df))


if __name__ == "__main__":
    main()
