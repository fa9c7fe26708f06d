#!/usr/bin/env python3
"""Measure astropy's exact Lomb-Scargle throughput (astrosweep baseline).

Runs ``astropy.timeseries.LombScargle(...).power(method='cython')`` object by
object, in file order, over a light-curve file of ``id, t, y[, dy]`` rows
(objects contiguous, no header), on the half-open cyclic frequency grid::

    f_k = fmin + (k * (fmax - fmin)) / n_freq,   k = 0 .. n_freq-1

(fmax excluded), the same rule as tools/make_astropy_reference.py.  It stops
starting new objects once --max-seconds have elapsed and prints one JSON line::

    {"objects_done": ..., "objects_total": ..., "pairs": ..., "seconds": ...,
     "pairs_per_s": ..., "astropy_version": ...}

where pairs = sum(N_t * N_f) over the objects done and seconds is the time
spent computing them (file reading excluded).

Models (as in the reference script):

* ``standard``:    LombScargle(t, y, dy=None, fit_mean=False, center_data=True)
* ``generalized``: LombScargle(t, y, dy, fit_mean=True, center_data=True),
  dy being the 4th column where present, otherwise None.

Example::

    python3 tools/bench_astropy.py \\
        --input tests/data/lightcurves/sdss_stripe82_z.csv \\
        --fmin 0.5 --fmax 24 --n-freq 100000 --model generalized
"""

import argparse
import json
import sys
import time

import astropy
import numpy as np

# One CSV reader and one model definition for both astropy scripts.
from make_astropy_reference import make_lomb_scargle, read_objects


def frequency_grid(fmin, fmax, n_freq):
    """Half-open grid f_k = fmin + (k * (fmax - fmin)) / n_freq."""
    k = np.arange(n_freq, dtype=np.float64)
    return fmin + (k * (fmax - fmin)) / n_freq


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", required=True, metavar="CSV",
                        help="light curves: id,t,y[,dy] rows, objects "
                             "contiguous")
    parser.add_argument("--fmin", type=float, default=0.5,
                        help="lowest cyclic frequency, 1/day "
                             "(default: %(default)s)")
    parser.add_argument("--fmax", type=float, default=24.0,
                        help="grid end (excluded), 1/day "
                             "(default: %(default)s)")
    parser.add_argument("--n-freq", type=int, default=100000,
                        help="number of frequencies (default: %(default)s)")
    parser.add_argument("--model", choices=("standard", "generalized"),
                        default="generalized",
                        help="periodogram model (default: %(default)s)")
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="stop starting new objects after this many "
                             "seconds (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.n_freq < 1:
        parser.error("--n-freq must be positive")
    if not args.fmax > args.fmin > 0:
        parser.error("need 0 < fmin < fmax")
    return args


def main(argv=None):
    args = parse_args(argv)
    objects = read_objects(args.input)
    freq = frequency_grid(args.fmin, args.fmax, args.n_freq)

    done = 0
    pairs = 0
    start = time.perf_counter()
    elapsed = 0.0
    for _, t, y, dy in objects:
        if elapsed >= args.max_seconds:
            break
        ls = make_lomb_scargle(args.model, t, y, dy)
        ls.power(freq, method="cython", normalization="standard")
        done += 1
        pairs += len(t) * len(freq)
        elapsed = time.perf_counter() - start

    result = {
        "objects_done": done,
        "objects_total": len(objects),
        "pairs": pairs,
        "seconds": elapsed,
        "pairs_per_s": pairs / elapsed if elapsed > 0 else None,
        "astropy_version": astropy.__version__,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
