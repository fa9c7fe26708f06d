#!/usr/bin/env python3
"""Compare two PRESTO-format ACCEL candidate files (fundamental tables).

Reads the fundamental table of each file (PRESTO's accelsearch writes `<root>_ACCEL_<zmax>`;
`astrosweep fdas --accel-text DIR` writes the same layout), pairs every candidate of the first
(the reference, e.g. PRESTO's) with the nearest candidate of the second in Fourier frequency r
within --dr bins and drift z within --dz bins (each candidate of the second used once, strongest
reference candidates first), and prints one line per candidate: matched or only in one file, with
the differences in r, z, sigma and summed power. The last lines sum up: how many of each list
matched and, for the ten highest-sigma reference candidates, whether they meet spec section 13
item 6 (r within 1 bin, z within 2, sigma within 0.2, summed power within 2 %).

Standard library only. Exit status 0 whether or not the lists agree (it reports), 2 on bad input.

  tools/compare_accel.py PRESTO_ACCEL OURS_ACCEL [--dr 1.0] [--dz 2.0] [--top 10]
"""

import argparse
import re
import sys

VALUE = re.compile(r"^(-?[0-9.]+)(?:\([0-9.]+\))?(?:x10\^(-?[0-9]+))?$")


def number(text):
    """The value of a PRESTO 'value(error)' or 'value(error)x10^k' column (error dropped)."""
    m = VALUE.match(text)
    if not m:
        raise ValueError(f"not a PRESTO number: {text!r}")
    value = float(m.group(1))
    return value * 10 ** int(m.group(2)) if m.group(2) else value


def fundamentals(path):
    """The fundamental table's rows: dicts of number, sigma, power, coherent power, numharm, r, z, notes."""
    rows = []
    with open(path, encoding="ascii", errors="replace") as f:
        lines = f.read().splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if re.match(r"^Cand +Sigma", line)) + 2
    except StopIteration:
        raise ValueError(f"{path}: no fundamental table (no 'Cand  Sigma' header)") from None
    for line in lines[start:]:
        if not line.strip():
            break
        cols = line.split()
        if len(cols) < 11:
            raise ValueError(f"{path}: a fundamental row of {len(cols)} columns: {line!r}")
        rows.append(
            {
                "cand": int(cols[0]),
                "sigma": float(cols[1]),
                "power": float(cols[2]),
                "coherent": float(cols[3]),
                "numharm": int(cols[4]),
                "f_hz": number(cols[6]),
                "r": number(cols[7]),
                "z": number(cols[9]),
                "notes": " ".join(cols[11:]),
            }
        )
    return rows


def match(reference, other, dr, dz):
    """Pairs (i, j) of reference and other rows, strongest reference first, nearest in r, each j once."""
    pairs, taken = {}, set()
    for i in sorted(range(len(reference)), key=lambda k: -reference[k]["sigma"]):
        a = reference[i]
        best = None
        for j, b in enumerate(other):
            if j in taken or abs(a["r"] - b["r"]) > dr or abs(a["z"] - b["z"]) > dz:
                continue
            if best is None or abs(a["r"] - b["r"]) < abs(a["r"] - other[best]["r"]):
                best = j
        if best is not None:
            pairs[i] = best
            taken.add(best)
    return pairs, taken


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reference", help="ACCEL file taken as the reference (PRESTO's)")
    parser.add_argument("other", help="ACCEL file compared with it (ours)")
    parser.add_argument("--dr", type=float, default=1.0, help="bins in r within which two candidates match")
    parser.add_argument("--dz", type=float, default=2.0, help="bins in z within which two candidates match")
    parser.add_argument("--top", type=int, default=10, help="reference candidates held to spec 13 item 6")
    args = parser.parse_args()
    try:
        ref, oth = fundamentals(args.reference), fundamentals(args.other)
    except (OSError, ValueError) as e:
        print(f"compare_accel: {e}", file=sys.stderr)
        return 2
    pairs, taken = match(ref, oth, args.dr, args.dz)
    print(f"{'ref':>4} {'ours':>4} {'H':>2} {'r_ref':>14} {'dr':>7} {'z_ref':>8} {'dz':>6} "
          f"{'sig_ref':>7} {'dsig':>6} {'P_ref':>8} {'dP%':>6}")
    top = sorted(range(len(ref)), key=lambda k: -ref[k]["sigma"])[: args.top]
    top_ok = 0
    for i in sorted(range(len(ref)), key=lambda k: -ref[k]["sigma"]):
        a = ref[i]
        if i not in pairs:
            print(f"{a['cand']:>4} {'-':>4} {a['numharm']:>2} {a['r']:>14.3f} {'':>7} {a['z']:>8.2f} {'':>6} "
                  f"{a['sigma']:>7.2f} {'':>6} {a['power']:>8.2f} {'':>6}  only in {args.reference}")
            continue
        b = oth[pairs[i]]
        d_power = 100 * (b["power"] - a["power"]) / a["power"]
        ok = (abs(b["r"] - a["r"]) <= 1 and abs(b["z"] - a["z"]) <= 2 and abs(b["sigma"] - a["sigma"]) <= 0.2
              and abs(d_power) <= 2 and b["numharm"] == a["numharm"])
        if i in top and ok:
            top_ok += 1
        flag = "" if ok else "  outside spec 13.6" + (" (numharm differs)" if b["numharm"] != a["numharm"] else "")
        print(f"{a['cand']:>4} {b['cand']:>4} {a['numharm']:>2} {a['r']:>14.3f} {b['r'] - a['r']:>+7.3f} "
              f"{a['z']:>8.2f} {b['z'] - a['z']:>+6.2f} {a['sigma']:>7.2f} {b['sigma'] - a['sigma']:>+6.2f} "
              f"{a['power']:>8.2f} {d_power:>+6.1f}{flag}")
    for j, b in enumerate(oth):
        if j not in taken:
            print(f"{'-':>4} {b['cand']:>4} {b['numharm']:>2} {b['r']:>14.3f} {'':>7} {b['z']:>8.2f} {'':>6} "
                  f"{b['sigma']:>7.2f} {'':>6} {b['power']:>8.2f} {'':>6}  only in {args.other}")
    print(f"reference: {len(ref)} candidates, other: {len(oth)}; matched {len(pairs)} "
          f"(within {args.dr} bins in r and {args.dz} in z)")
    print(f"top {len(top)} reference candidates within spec 13.6 tolerances: {top_ok}/{len(top)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
