#!/usr/bin/env python3
"""The CPU peer of the period job's fast method: nifty-ls (pip install nifty-ls; FINUFFT inside) on
the inputs of tools/bench_period --suite methods and of the end-to-end catalogs.

  bench_nifty_ls.py single --points 3000 --days 120 --n-freq 1e6 [--threads 16]
  bench_nifty_ls.py catalog CATALOG.h5 --fmin 0.05 --fmax 50 --n-freq 5e4 [--objects K] [--threads 16]

`single` times one object on all threads (best of 5), the published nifty-ls case. `catalog` reads
the first K objects of an astrosweep.lightcurves catalog (tools/make_period_catalog, convert) and
times nifty-ls over them: nifty-ls batches need one time array for all series, so each object is
its own call; the objects run on a pool of --threads processes with one FINUFFT thread each, the
fastest way we found to run it on heterogeneous objects. Reports objects per second and the time
it would take for the whole catalog at that rate. Generalized model (fit_mean, errors), standard
normalization, FP64 unless --fp32.
"""
import argparse
import multiprocessing
import time

import numpy as np


def search(args):
    """Best frequency index of one object (runs in a worker)."""
    import nifty_ls

    t, y, dy, fmin, df, n_freq, dtype = args
    r = nifty_ls.lombscargle(t.astype(dtype), y.astype(dtype), dy.astype(dtype), fmin=fmin,
                             fmax=fmin + df * (n_freq - 1), Nf=n_freq, backend='finufft', nthreads=1)
    return int(np.argmax(r.power))


def single(opts):
    import nifty_ls

    rng = np.random.default_rng(1)
    t = np.sort(rng.uniform(0, opts.days, opts.points))
    y = np.sin(2 * np.pi * t / 0.7321) + 0.3 * rng.standard_normal(opts.points)
    dy = np.full(opts.points, 0.3)
    dtype = np.float32 if opts.fp32 else np.float64
    n_freq = int(float(opts.n_freq))
    df = 24.0 / n_freq
    best = float('inf')
    for _ in range(6):
        s = time.perf_counter()
        nifty_ls.lombscargle(t.astype(dtype), y.astype(dtype), dy.astype(dtype), fmin=0.01,
                             fmax=0.01 + df * (n_freq - 1), Nf=n_freq, backend='finufft',
                             nthreads=opts.threads)
        best = min(best, time.perf_counter() - s)
    print(f"nifty-ls single object: {opts.points} points, N_f {n_freq}, {opts.threads} threads, "
          f"{'fp32' if opts.fp32 else 'fp64'}: {best * 1e3:.2f} ms (best of 5 after a warm-up)")


def catalog(opts):
    import h5py

    n_freq = int(float(opts.n_freq))
    df = (opts.fmax - opts.fmin) / n_freq
    dtype = np.float32 if opts.fp32 else np.float64
    with h5py.File(opts.catalog, 'r') as f:
        total = f['objects/id'].shape[0]
        k = min(opts.objects or total, total)
        offset, count = f['objects/offset'][:k], f['objects/count'][:k]
        end = int(offset[-1] + count[-1])
        t, y, dy = (f['points/' + name][:end] for name in ('t', 'y', 'dy'))
    work = [(t[o:o + c], y[o:o + c], dy[o:o + c], opts.fmin, df, n_freq, dtype)
            for o, c in zip(offset, count)]
    with multiprocessing.Pool(opts.threads) as pool:
        pool.map(search, work[:opts.threads])  # warm-up: imports, FINUFFT plans
        s = time.perf_counter()
        pool.map(search, work, chunksize=max(1, k // (8 * opts.threads)))
        seconds = time.perf_counter() - s
    print(f"nifty-ls catalog {opts.catalog}: {k} of {total} objects x {int(np.mean(count))} points, "
          f"N_f {n_freq}, {opts.threads} processes, {'fp32' if opts.fp32 else 'fp64'}: {seconds:.2f} s, "
          f"{k / seconds:.0f} objects/s, {total / (k / seconds):.1f} s for the whole catalog at that rate")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='what', required=True)
    s = sub.add_parser('single')
    s.add_argument('--points', type=int, default=3000)
    s.add_argument('--days', type=float, default=120)
    s.add_argument('--n-freq', default='1e6')
    c = sub.add_parser('catalog')
    c.add_argument('catalog')
    c.add_argument('--fmin', type=float, required=True)
    c.add_argument('--fmax', type=float, required=True)
    c.add_argument('--n-freq', required=True)
    c.add_argument('--objects', type=int, default=0)
    for q in (s, c):
        q.add_argument('--threads', type=int, default=multiprocessing.cpu_count())
        q.add_argument('--fp32', action='store_true')
    opts = p.parse_args()
    single(opts) if opts.what == 'single' else catalog(opts)


if __name__ == '__main__':
    main()
