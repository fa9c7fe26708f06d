#!/usr/bin/env python3
"""Generate the astropy Lomb-Scargle reference values used by the C++ tests.

The GoogleTest suite compares astrosweep's periodograms, best periods and
false-alarm probabilities with values computed here by
``astropy.timeseries.LombScargle`` (``method='cython'``, the exact O(N_t N_f)
implementation) on the bundled sample light curves in
``tests/data/lightcurves`` (see the README there for provenance).

Frequency grid (cyclic, 1/day), used for every value written::

    f_k = 0.5 + k * (24 - 0.5) / N,   k = 0 .. N-1,   N = 100000

evaluated in float64 exactly as ``FMIN + (k * (FMAX - FMIN)) / N`` (the
multiplication by k happens before the division by N); FMAX = 24 itself is
excluded.  Times are passed to astropy exactly as they appear in the files
(no shift).

Models:

* ``standard``:    LombScargle(t, y, dy=None, fit_mean=False, center_data=True)
* ``generalized``: LombScargle(t, y, dy, fit_mean=True, center_data=True),
  with dy the 4th column where the file has one and None otherwise.

Outputs (in ``--out-dir``, CSV with one ``#`` comment line, a header row,
floats printed with '%.17g'):

* ``astropy_periodograms.csv``: dataset,model,normalization,k,power
* ``astropy_best_sdss.csv``: id,model,n_points,best_k,best_frequency,
  best_power,fap_baluev
* ``astropy_fap.csv``: dataset,model,normalization,best_power,fap_baluev
* ``astropy_known_answers.csv``: dataset,model,best_frequency,
  best_period_days,best_period_hours

Run from the repository root::

    python3 tools/make_astropy_reference.py
"""

import argparse
import csv
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import astropy
import numpy as np
from astropy.timeseries import LombScargle
from astropy.timeseries.periodograms.lombscargle import _statistics

FMIN = 0.5
FMAX = 24.0
N_FREQ = 100000
MODELS = ("standard", "generalized")
NORMALIZATIONS = ("standard", "model", "log", "psd")
K_STRIDE = 997
SDSS_PICKS = (0, 49, 135)  # 1st, 50th and 136th object in file order
AMBIGUITY_RTOL = 1e-6

IDA_FILE = "ztf_243ida_r.csv"
S8205_FILE = "synthetic_8205.csv"
SDSS_FILE = "sdss_stripe82_z.csv"

# Published known answers (light-curve period, days) and the tolerance used
# for the printed check.
KNOWN_PERIOD_DAYS = {"ida": 0.09654, "s8205": 0.5647}
KNOWN_RTOL = 1e-3


def frequency_grid():
    """Return the reference grid f_k = FMIN + (k * (FMAX - FMIN)) / N."""
    k = np.arange(N_FREQ, dtype=np.float64)
    return FMIN + (k * (FMAX - FMIN)) / N_FREQ


def read_objects(path):
    """Read 'id, t, y[, dy]' rows; return a list of (id, t, y, dy or None).

    Objects must be contiguous; they are returned in file order.
    """
    objects = []
    seen = set()
    current_id = None
    rows = []

    def flush():
        if current_id is None:
            return
        arr = np.array(rows, dtype=np.float64)
        if arr.shape[1] not in (2, 3):
            raise ValueError(f"{path}: object {current_id}: expected 3 or 4 "
                             "columns")
        dy = arr[:, 2].copy() if arr.shape[1] == 3 else None
        objects.append((current_id, arr[:, 0].copy(), arr[:, 1].copy(), dy))

    with open(path, newline="") as handle:
        for line_no, row in enumerate(csv.reader(handle), start=1):
            if not row or row[0].lstrip().startswith("#"):
                continue
            obj_id = row[0].strip()
            values = [float(v) for v in row[1:]]
            if obj_id != current_id:
                flush()
                if obj_id in seen:
                    raise ValueError(f"{path}:{line_no}: object {obj_id} is "
                                     "not contiguous")
                seen.add(obj_id)
                current_id = obj_id
                rows = []
            rows.append(values)
    flush()
    return objects


def model_dy(model, dy):
    """The dy passed to astropy for a model: None for 'standard'."""
    return dy if model == "generalized" else None


def make_lomb_scargle(model, t, y, dy):
    """Build the astropy LombScargle object for one of the two models."""
    if model == "standard":
        return LombScargle(t, y, dy=None, fit_mean=False, center_data=True)
    if model == "generalized":
        return LombScargle(t, y, dy, fit_mean=True, center_data=True)
    raise ValueError(f"unknown model {model!r}")


def compute_power(task):
    """Worker: full-grid astropy power for (model, normalization, t, y, dy)."""
    model, normalization, t, y, dy = task
    ls = make_lomb_scargle(model, t, y, dy)
    power = ls.power(frequency_grid(), method="cython",
                     normalization=normalization)
    return np.asarray(power, dtype=np.float64)


def fap_baluev(power, normalization, t, y, dy):
    """Baluev FAP, as LombScargle.false_alarm_probability computes it."""
    fmax = frequency_grid()[-1]
    return float(_statistics.false_alarm_probability(
        power, fmax=fmax, t=t, y=y, dy=dy, normalization=normalization,
        method="baluev"))


def fmt(value):
    """Format a value: ints as ints, floats with repr precision."""
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return "%.17g" % value
    return str(value)


def write_csv(path, comment, columns, rows):
    """Write a reference CSV with a '#' comment line and a header row."""
    with open(path, "w", newline="") as handle:
        handle.write("# " + comment + "\n")
        handle.write(",".join(columns) + "\n")
        for row in rows:
            handle.write(",".join(fmt(v) for v in row) + "\n")


def local_maxima(power):
    """Indices of local maxima (plateau-tolerant, endpoints included)."""
    left = np.concatenate(([-np.inf], power[:-1]))
    right = np.concatenate((power[1:], [-np.inf]))
    return np.flatnonzero((power >= left) & (power >= right))


def ambiguity(power):
    """Return (top, second local max, its k, second-highest bin value)."""
    best = int(np.argmax(power))
    peaks = local_maxima(power)
    peaks = peaks[peaks != best]
    second_peak = int(peaks[np.argmax(power[peaks])]) if peaks.size else -1
    others = np.delete(power, best)
    return (power[best], power[second_peak] if second_peak >= 0 else np.nan,
            second_peak, others.max())


def selected_ks(power):
    """k in range(0, N, K_STRIDE) plus argmax-2..argmax+2 (clipped)."""
    best = int(np.argmax(power))
    ks = set(range(0, N_FREQ, K_STRIDE))
    ks.update(k for k in range(best - 2, best + 3) if 0 <= k < N_FREQ)
    return sorted(ks)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default="tests/data/lightcurves",
                        help="directory with the sample light curves "
                             "(default: %(default)s)")
    parser.add_argument("--out-dir", default="tests/data/reference",
                        help="directory for the reference CSV files "
                             "(default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (results do not depend on "
                             "it; default: %(default)s)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    start = time.perf_counter()
    os.makedirs(args.out_dir, exist_ok=True)
    freq = frequency_grid()

    comment = (
        "generated by: python3 tools/make_astropy_reference.py"
        + "".join(" " + a for a in (sys.argv[1:] if argv is None else argv))
        + f"; astropy {astropy.__version__}, numpy {np.__version__}"
        + "; LombScargle method='cython', times as given (no shift)"
        + f"; grid f_k = {FMIN:g} + (k * ({FMAX:g} - {FMIN:g})) / {N_FREQ}"
        + f", k = 0..{N_FREQ - 1} (1/day)"
        + "; standard = (dy=None, fit_mean=False, center_data=True)"
        + ", generalized = (dy=4th column or None, fit_mean=True"
        + ", center_data=True)")

    ida = read_objects(os.path.join(args.data_dir, IDA_FILE))
    s8205 = read_objects(os.path.join(args.data_dir, S8205_FILE))
    sdss = read_objects(os.path.join(args.data_dir, SDSS_FILE))
    if len(ida) != 1 or len(s8205) != 1:
        raise ValueError("expected one object in each single-object file")
    print(f"read {len(sdss)} SDSS objects, "
          f"{sum(len(o[1]) for o in sdss)} points")

    datasets = [("ida", ida[0]), ("s8205", s8205[0])]
    datasets += [(f"sdss_{sdss[i][0]}", sdss[i]) for i in SDSS_PICKS]

    # All full-grid evaluations, as independent tasks (order-preserving map).
    tasks, keys = [], []
    for name, (_, t, y, dy) in datasets:
        for model in MODELS:
            for norm in NORMALIZATIONS:
                keys.append(("detail", name, model, norm))
                tasks.append((model, norm, t, y, model_dy(model, dy)))
    for index, (obj_id, t, y, dy) in enumerate(sdss):
        for model in MODELS:
            keys.append(("sdss", index, model, "standard"))
            tasks.append((model, "standard", t, y, model_dy(model, dy)))
    # Largest tasks first so the pool stays balanced.
    order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i][2]))
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(compute_power, [tasks[i] for i in order],
                                chunksize=1))
    powers = {keys[i]: p for i, p in zip(order, results)}
    print(f"computed {len(tasks)} periodograms of {N_FREQ} frequencies in "
          f"{time.perf_counter() - start:.1f} s")

    # 1. Periodogram samples.
    rows = []
    for name, _ in datasets:
        for model in MODELS:
            for norm in NORMALIZATIONS:
                power = powers[("detail", name, model, norm)]
                rows += [(name, model, norm, k, power[k])
                         for k in selected_ks(power)]
    write_csv(os.path.join(args.out_dir, "astropy_periodograms.csv"), comment,
              ("dataset", "model", "normalization", "k", "power"), rows)

    # 2. Best peak and FAP for every SDSS object.
    rows = []
    ambiguous = []
    margins = []
    for index, (obj_id, t, y, dy) in enumerate(sdss):
        for model in MODELS:
            power = powers[("sdss", index, model, "standard")]
            best = int(np.argmax(power))
            mdy = model_dy(model, dy)
            rows.append((obj_id, model, len(t), best, freq[best], power[best],
                         fap_baluev(power[best], "standard", t, y, mdy)))
            top, second, second_k, runner_up = ambiguity(power)
            margins.append((top / second, obj_id, model, best, second_k))
            if top - second <= AMBIGUITY_RTOL * top \
                    or top - runner_up <= AMBIGUITY_RTOL * top:
                ambiguous.append((obj_id, model, best, top, second_k, second,
                                  runner_up))
    write_csv(os.path.join(args.out_dir, "astropy_best_sdss.csv"), comment,
              ("id", "model", "n_points", "best_k", "best_frequency",
               "best_power", "fap_baluev"), rows)

    # 3. Best power and FAP in every normalization for the detail datasets.
    rows = []
    for name, (_, t, y, dy) in datasets:
        for model in MODELS:
            mdy = model_dy(model, dy)
            for norm in NORMALIZATIONS:
                if norm == "psd" and mdy is None:
                    continue
                power = powers[("detail", name, model, norm)]
                best_power = power[int(np.argmax(power))]
                rows.append((name, model, norm, best_power,
                             fap_baluev(best_power, norm, t, y, mdy)))
    write_csv(os.path.join(args.out_dir, "astropy_fap.csv"), comment,
              ("dataset", "model", "normalization", "best_power",
               "fap_baluev"), rows)

    # 4. Known answers.
    rows = []
    ok = True
    print("known answers (published: ida 2.317 h = 0.09654 d, "
          "s8205 13.55 h = 0.5647 d):")
    for name in ("ida", "s8205"):
        for model in ("generalized", "standard"):
            power = powers[("detail", name, model, "standard")]
            best_f = freq[int(np.argmax(power))]
            period = 1.0 / best_f
            rows.append((name, model, best_f, period, 24.0 * period))
            match = abs(period / KNOWN_PERIOD_DAYS[name] - 1) < KNOWN_RTOL
            ok &= match
            print(f"  {name:6s} {model:11s} f = {best_f:.9g} 1/d, "
                  f"P = {period:.7g} d = {24 * period:.6g} h "
                  f"[{'ok' if match else 'MISMATCH'}]")
    write_csv(os.path.join(args.out_dir, "astropy_known_answers.csv"),
              comment, ("dataset", "model", "best_frequency",
                        "best_period_days", "best_period_hours"), rows)

    print(f"SDSS peaks within {AMBIGUITY_RTOL:g} relative of the top power "
          "(second local maximum or any other bin):")
    if not ambiguous:
        print("  none")
    for obj_id, model, best, top, second_k, second, runner_up in ambiguous:
        print(f"  {obj_id} {model}: best_k {best} power {top:.17g}; "
              f"second local max k {second_k} power {second:.17g} "
              f"(top/second = {top / second:.17g}); "
              f"top/any-other-bin = {top / runner_up:.17g}")
    print("smallest top / second-local-maximum ratios over the SDSS objects:")
    for ratio, obj_id, model, best, second_k in sorted(margins)[:5]:
        print(f"  {obj_id} {model}: {ratio:.17g} (k {best} vs k {second_k})")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
