#!/usr/bin/env python3
"""Writes a synthetic light-curve CSV (`id, t, y, dy`, the gpu_lomb_scargle format) for measuring
`astrosweep convert`: N objects of M points each, MJD-like times, a sinusoid plus deterministic
noise. Standard library only; the same arguments give the same bytes on every machine.

    tools/make_light_curve_csv.py --objects 100000 --points 100 -o /tmp/lc_1e5.csv
"""
import argparse
import math
import random
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--objects", type=int, default=100000)
    parser.add_argument("--points", type=int, default=100, help="points per object")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with open(args.output, "w", buffering=1 << 20) as out:
        out.write("# id, t (MJD), y (mag), dy\n")
        for obj in range(args.objects):
            oid = 1000000 + obj
            period = 0.2 + 10 * rng.random()
            t = 58000.0 + rng.random()
            lines = []
            for _ in range(args.points):
                t += 0.5 + 3 * rng.random()
                y = 15 + 0.3 * math.sin(2 * math.pi * t / period) + 0.02 * rng.gauss(0, 1)
                lines.append(f"{oid},{t:.6f},{y:.5f},0.02000\n")
            out.write("".join(lines))
    print(f"wrote {args.output}: {args.objects} objects x {args.points} points", file=sys.stderr)


if __name__ == "__main__":
    main()
