#!/usr/bin/env python3
"""Plots objects of an astrosweep period product: periodogram with peaks, and folded light curve.

One PNG per object, two panels:
  top     periodogram power vs frequency [1/day], the best peak (red triangle) and the other
          top-k peaks (orange circles) marked and numbered by power, with a key above the curve
          giving each number's period in days and hours (peaks too close to label apart share a
          label such as "2,3"); only stems at the peaks when the run did not store periodograms
          (ran without --periodograms);
  bottom  the light curve folded at the best period, phase 0..2 (two cycles), with error bars
          when the input has dy.

Usage:
  tools/plot_period_product.py PRODUCT.h5 [--ids ID ...] [--input PATH] [--out-dir DIR] [--dpi N]

Without --ids the 4 objects with the highest best_power are drawn. Without --input the light
curves are read from the product's root attribute input_paths (a relative path is tried as given,
then relative to the product's directory). The input is a CSV file with rows `id, t, y[, dy]`
(comma and/or blank separated, `#` comments), an astrosweep HDF5 light-curve catalog
(format="astrosweep.lightcurves"), or the TESS/Kepler FITS light curves the product was computed
from (files or directories; read as astrosweep reads them: TICID/KEPLERID, PDCSAP_FLUX or the
run's --flux-column, cadences with QUALITY != 0 dropped unless the run had --no-quality-mask).
Files are written as DIR/period_<id>.png.

Exit codes follow astrosweep's: 0 ok, 2 usage, 3 input (unreadable product or input, id missing
from the product or from the input), 4 output (a PNG cannot be written), 5 runtime (numpy, h5py or
matplotlib is not installed).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import math
import os
import re
import shlex
import sys
import warnings
from dataclasses import dataclass

try:
    import numpy as np
except ImportError:  # reported by main() with what to install, not as a traceback
    np = None

EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_OUTPUT = 4
EXIT_RUNTIME = 5
REQUIRED_MODULES = ("numpy", "h5py", "matplotlib")

PRODUCT_FORMAT = "astrosweep.period"
CATALOG_FORMAT = "astrosweep.lightcurves"
DEFAULT_N_IDS = 4
# A periodogram longer than this is reduced to per-bin minimum and maximum before drawing: peaks
# and the noise floor stay visible, and a 10^6-frequency row draws in a fraction of a second.
MAX_DRAWN_BINS = 4000

# /objects/status: 0 a valid result, else why not; /objects/cleaned: what was removed (a product of
# format_version 1 kept both in status: bits 0-2 are moved to cleaned when it is read).
STATUS_BITS = {
    3: "too few points",
    4: "zero variance",
    5: "time span beyond double-precision phases",
    6: "power beyond a double",
}
CLEANED_BITS = {
    0: "non-finite points removed",
    1: "points with dy <= 0 removed",
    2: "flagged cadences removed",
}
CLEANED_MASK = 0b111


class ToolError(Exception):
    """A failure to report as 'plot_period_product: <message>' with exit code `code`."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def fail_input(message: str) -> ToolError:
    return ToolError(EXIT_INPUT, message)


# --------------------------------------------------------------------------------------------
# Product


@dataclass
class ObjectResult:
    id: int
    row: int
    status: int
    cleaned: int
    n_points: int
    t_ref: float
    baseline: float
    best_frequency: float
    best_period: float
    best_power: float
    fap: float
    peak_frequency: np.ndarray
    peak_power: np.ndarray
    power: np.ndarray | None  # full periodogram row, or None when not stored
    time_reference: str  # what the object's times count from


def attr_str(attrs, name: str, default: str = "") -> str:
    if name not in attrs:
        return default
    value = attrs[name]
    if isinstance(value, np.ndarray):
        value = value.item() if value.size == 1 else value[0]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def attr_num(attrs, name: str):
    if name not in attrs:
        raise fail_input(f"product has no root attribute '{name}'")
    value = attrs[name]
    return value.item() if isinstance(value, np.ndarray) else value


class Product:
    def __init__(self, path: str):
        import h5py

        self.path = path
        if not os.path.exists(path):
            raise fail_input(f"product '{path}' does not exist")
        try:
            self.file = h5py.File(path, "r")
        except OSError as e:
            raise fail_input(f"cannot open product '{path}' as HDF5: {e}") from e
        a = self.file.attrs
        fmt = attr_str(a, "format")
        if fmt != PRODUCT_FORMAT:
            raise fail_input(
                f"'{path}' is not an astrosweep period product (format='{fmt}', expected '{PRODUCT_FORMAT}')"
            )
        for name in ("objects/id", "objects/best_frequency", "objects/best_power", "peaks/frequency", "peaks/power"):
            if name not in self.file:
                raise fail_input(f"'{path}': dataset /{name} is missing")
        self.status = attr_str(a, "status", "?")
        self.input_format = attr_str(a, "input_format")
        self.input_paths = [p for p in attr_str(a, "input_paths").splitlines() if p.strip()]
        self.model = attr_str(a, "model", "?")
        self.normalization = attr_str(a, "normalization", "?")
        self.precision = attr_str(a, "precision", "?")
        self.time_reference = attr_str(a, "time_reference")
        self.command_line = attr_str(a, "command_line")
        self.f0 = float(attr_num(a, "grid_f0"))
        self.df = float(attr_num(a, "grid_df"))
        self.n_freq = int(attr_num(a, "grid_n"))
        self.ids = self.file["objects/id"][...].astype(np.int64)
        self.best_power = self.file["objects/best_power"][...]
        self.has_periodograms = "periodogram/power" in self.file
        self._row_of = {int(v): i for i, v in enumerate(self.ids)}

    def frequencies(self) -> np.ndarray:
        return self.f0 + np.arange(self.n_freq, dtype=np.float64) * self.df

    def top_ids(self, n: int) -> list[int]:
        power = np.where(np.isfinite(self.best_power), self.best_power, -np.inf)
        order = np.argsort(-power, kind="stable")
        order = [i for i in order if np.isfinite(power[i])][:n]
        return [int(self.ids[i]) for i in order]

    def row_of(self, object_id: int) -> int:
        if object_id not in self._row_of:
            raise fail_input(f"object id {object_id} is not in the product '{self.path}' ({len(self.ids)} objects)")
        return self._row_of[object_id]

    def object(self, object_id: int) -> ObjectResult:
        i = self.row_of(object_id)
        f = self.file

        def scalar(name, default=math.nan):
            return f[name][i].item() if name in f else default

        power = None
        if self.has_periodograms:
            power = np.asarray(f["periodogram/power"][i, :], dtype=np.float64)
        status = int(scalar("objects/status", 0))
        if "objects/cleaned" in f:
            cleaned = int(scalar("objects/cleaned", 0))
        else:  # format_version 1: both in status
            cleaned, status = status & CLEANED_MASK, status & ~CLEANED_MASK
        reference = self.time_reference
        if "objects/bjdrefi" in f and "objects/bjdreff" in f:  # each object's own BJD reference
            refi, reff = int(scalar("objects/bjdrefi", 0)), float(scalar("objects/bjdreff"))
            reference = f"BJD - {refi + reff:.6f}" if math.isfinite(reff) else "unknown reference"
        return ObjectResult(
            id=object_id,
            row=i,
            status=status,
            cleaned=cleaned,
            n_points=int(scalar("objects/n_points", 0)),
            t_ref=float(scalar("objects/t_ref")),
            baseline=float(scalar("objects/baseline")),
            best_frequency=float(scalar("objects/best_frequency")),
            best_period=float(scalar("objects/best_period")),
            best_power=float(scalar("objects/best_power")),
            fap=float(scalar("objects/fap")),
            peak_frequency=np.atleast_1d(np.asarray(f["peaks/frequency"][i], dtype=np.float64)),
            peak_power=np.atleast_1d(np.asarray(f["peaks/power"][i], dtype=np.float64)),
            power=power,
            time_reference=reference,
        )


# --------------------------------------------------------------------------------------------
# Light curves


@dataclass
class LightCurve:
    t: np.ndarray
    y: np.ndarray
    dy: np.ndarray | None


_SPLIT = re.compile(r"[,\s]+")


def read_csv(path: str, wanted: set[int]) -> dict[int, LightCurve]:
    """Rows `id, t, y[, dy]` of the wanted ids; the same rules as astrosweep's CSV reader."""
    rows: dict[int, list[list[float]]] = {i: [] for i in wanted}
    n_columns = 0
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as fh:
            for line_no, line in enumerate(fh, 1):
                line = line.split("#", 1)[0].strip(" \t\r\n,")
                if not line:
                    continue
                fields = _SPLIT.split(line)
                if n_columns == 0:
                    if len(fields) not in (3, 4):
                        raise fail_input(
                            f"{path}:{line_no}: expected 3 or 4 columns 'id, t, y[, dy]', found {len(fields)}"
                        )
                    n_columns = len(fields)
                elif len(fields) != n_columns:
                    raise fail_input(
                        f"{path}:{line_no}: expected {n_columns} columns like the first data line, found {len(fields)}"
                    )
                try:
                    object_id = int(fields[0])
                except ValueError:
                    raise fail_input(f"{path}:{line_no}: object id '{fields[0]}' is not an integer") from None
                if object_id not in rows:
                    continue
                try:
                    rows[object_id].append([float(v) for v in fields[1:]])
                except ValueError:
                    raise fail_input(f"{path}:{line_no}: a value of '{line}' is not a number") from None
    except OSError as e:
        raise fail_input(f"cannot read input '{path}': {e}") from e
    out = {}
    for object_id, r in rows.items():
        if not r:
            continue
        a = np.asarray(r, dtype=np.float64)
        out[object_id] = LightCurve(a[:, 0], a[:, 1], a[:, 2] if n_columns == 4 else None)
    return out


def read_catalog(path: str, wanted: set[int]) -> dict[int, LightCurve]:
    import h5py

    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise fail_input(f"cannot open input '{path}' as HDF5: {e}") from e
    with f:
        fmt = attr_str(f.attrs, "format")
        if fmt != CATALOG_FORMAT:
            raise fail_input(
                f"'{path}' is an HDF5 file but not an astrosweep light-curve catalog (format='{fmt}')"
            )
        for name in ("objects/id", "objects/offset", "objects/count", "points/t", "points/y"):
            if name not in f:
                raise fail_input(f"'{path}': catalog dataset /{name} is missing")
        ids = f["objects/id"][...].astype(np.int64)
        offsets = f["objects/offset"][...].astype(np.int64)
        counts = f["objects/count"][...].astype(np.int64)
        has_dy = "points/dy" in f
        out = {}
        for i in np.flatnonzero(np.isin(ids, np.fromiter(wanted, dtype=np.int64, count=len(wanted)))):
            lo, hi = int(offsets[i]), int(offsets[i] + counts[i])
            out[int(ids[i])] = LightCurve(
                f["points/t"][lo:hi].astype(np.float64),
                f["points/y"][lo:hi].astype(np.float64),
                f["points/dy"][lo:hi].astype(np.float64) if has_dy else None,
            )
        return out


# TESS/Kepler FITS light curves, read with numpy alone (no astropy): the primary header's target id
# and the first binary table's TIME, flux, flux error and QUALITY columns, as astrosweep reads them.

FITS_BLOCK = 2880
FITS_SUFFIXES = (".fits", ".fit", ".fits.gz", ".fts")
# TFORM letter -> (numpy big-endian type, bytes per element)
FITS_TYPES = {"L": ("i1", 1), "B": ("u1", 1), "I": (">i2", 2), "J": (">i4", 4), "K": (">i8", 8),
              "E": (">f4", 4), "D": (">f8", 8), "C": (">c8", 8), "M": (">c16", 16)}


def fits_value(text: str):
    text = text.split("/", 1)[0].strip() if not text.lstrip().startswith("'") else text.strip()
    if text.startswith("'"):
        return text[1:].split("'", 1)[0].rstrip()
    if text in ("T", "F"):
        return text == "T"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text.replace("D", "E"))
    except ValueError:
        return text


def fits_hdus(data: bytes, path: str):
    """(header, data start) of each HDU."""
    pos = 0
    while pos + FITS_BLOCK <= len(data):
        header, end = {}, False
        while not end:
            if pos + FITS_BLOCK > len(data):
                raise fail_input(f"{path}: a FITS header is cut short (no END card)")
            block = data[pos:pos + FITS_BLOCK].decode("ascii", "replace")
            pos += FITS_BLOCK
            for k in range(0, FITS_BLOCK, 80):
                card = block[k:k + 80]
                key = card[:8].strip()
                if key == "END":
                    end = True
                    break
                if card[8:10] == "= ":
                    header[key] = fits_value(card[10:])
        n = 1 if header.get("NAXIS", 0) else 0
        for a in range(1, int(header.get("NAXIS", 0)) + 1):
            n *= int(header.get(f"NAXIS{a}", 0))
        size = abs(int(header.get("BITPIX", 8))) // 8 * int(header.get("GCOUNT", 1)) * (int(header.get("PCOUNT", 0)) + n)
        yield header, pos
        pos += (size + FITS_BLOCK - 1) // FITS_BLOCK * FITS_BLOCK


def fits_column(data: bytes, header: dict, start: int, name: str, path: str):
    """One scalar column of a binary table as float64 (None when the table has no such column)."""
    offset, found = 0, None
    for c in range(1, int(header.get("TFIELDS", 0)) + 1):
        form = str(header.get(f"TFORM{c}", "")).strip()
        m = re.fullmatch(r"(\d*)([A-Z])(.*)", form)
        if not m:
            raise fail_input(f"{path}: column {c} has an unreadable TFORM '{form}'")
        repeat = int(m.group(1)) if m.group(1) else 1
        code = m.group(2)
        width = {"A": 1, "X": 0}.get(code, FITS_TYPES.get(code, (None, 0))[1]) * repeat
        if code == "X":
            width = (repeat + 7) // 8
        elif code in "PQ":
            width = 8 if code == "P" else 16
        if str(header.get(f"TTYPE{c}", "")).strip().upper() == name.upper():
            if code not in FITS_TYPES or repeat != 1:
                raise fail_input(f"{path}: column {name} (TFORM {form}) is not one number per row")
            found = (offset, code, c)
        offset += width
    if found is None:
        return None
    off, code, c = found
    row_bytes, n_rows = int(header["NAXIS1"]), int(header["NAXIS2"])
    dtype = np.dtype({"names": ["v"], "formats": [FITS_TYPES[code][0]], "offsets": [off], "itemsize": row_bytes})
    if start + row_bytes * n_rows > len(data):
        raise fail_input(f"{path}: the light-curve table is cut short")
    values = np.frombuffer(data, dtype=dtype, count=n_rows, offset=start)["v"].astype(np.float64)
    null = header.get(f"TNULL{c}")
    if code in "BIJK" and isinstance(null, int):
        values[values == null] = np.nan
    return values * float(header.get(f"TSCAL{c}", 1.0)) + float(header.get(f"TZERO{c}", 0.0))


def fits_options(command_line: str) -> tuple[str, bool]:
    """The run's --flux-column (empty: PDCSAP_FLUX, else SAP_FLUX) and whether QUALITY was used."""
    try:
        words = shlex.split(command_line)
    except ValueError:
        words = command_line.split()
    flux, use_quality = "", True
    for k, w in enumerate(words):
        if w == "--flux-column" and k + 1 < len(words):
            flux = words[k + 1]
        elif w.startswith("--flux-column="):
            flux = w.split("=", 1)[1]
        elif w == "--no-quality-mask":
            use_quality = False
    return flux, use_quality


def expand_fits(paths: list[str]) -> list[str]:
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(os.path.join(p, n) for n in os.listdir(p)
                           if n.endswith(FITS_SUFFIXES) and os.path.isfile(os.path.join(p, n)))
            if not found:
                raise fail_input(f"directory '{p}' contains no FITS files")
            files += found
        else:
            files.append(p)
    return files


def read_fits(paths: list[str], wanted: set[int], flux_column: str, use_quality: bool) -> dict[int, LightCurve]:
    """The wanted objects of TESS/Kepler light-curve files; files of one target are merged."""
    parts: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    for position, path in enumerate(expand_fits(paths)):
        try:
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rb") as fh:
                data = fh.read()
        except OSError as e:
            raise fail_input(f"cannot read FITS file '{path}': {e}") from e
        if not data.startswith(b"SIMPLE  ="):
            raise fail_input(f"'{path}' is not a FITS file")
        hdus = fits_hdus(data, path)
        primary, _ = next(hdus)
        object_id = primary.get("TICID", primary.get("KEPLERID", position))
        if not isinstance(object_id, int):
            raise fail_input(f"{path}: the target id {object_id!r} is not an integer")
        if object_id not in wanted:
            continue
        table = next(((h, start) for h, start in hdus if str(h.get("XTENSION", "")).strip() == "BINTABLE"), None)
        if table is None:
            raise fail_input(f"{path}: no binary table (light-curve extension) found")
        header, start = table
        flux_name = flux_column or ("PDCSAP_FLUX" if fits_column(data, header, start, "PDCSAP_FLUX", path) is not None
                                    else "SAP_FLUX")
        columns = {}
        for name in ("TIME", flux_name, flux_name + "_ERR"):
            columns[name] = fits_column(data, header, start, name, path)
            if columns[name] is None:
                raise fail_input(f"{path}: the light-curve table has no {name} column")
        keep = np.ones(columns["TIME"].size, dtype=bool)
        quality = fits_column(data, header, start, "QUALITY", path) if use_quality else None
        if quality is not None:
            keep = np.nan_to_num(quality, nan=0.0) == 0
        parts.setdefault(object_id, []).append(
            (columns["TIME"][keep], columns[flux_name][keep], columns[flux_name + "_ERR"][keep]))
    out = {}
    for object_id, pieces in parts.items():
        t, y, dy = (np.concatenate([p[k] for p in pieces]) for k in range(3))
        order = np.argsort(t, kind="stable")
        out[object_id] = LightCurve(t[order], y[order], dy[order])
    return out


def locate(path: str, product: Product) -> str | None:
    candidates = [path]
    if not os.path.isabs(path):
        candidates.append(os.path.join(os.path.dirname(os.path.abspath(product.path)), path))
    return next((c for c in candidates if os.path.exists(c)), None)


def resolve_input(args_input: str | None, product: Product) -> list[str]:
    """The light-curve files to read: --input, else the product's input_paths."""
    if args_input:
        if not os.path.exists(args_input):
            raise fail_input(f"input '{args_input}' does not exist")
        if os.path.isdir(args_input) and not has_fits_files(args_input):
            raise ToolError(EXIT_USAGE, f"--input '{args_input}' is a directory without FITS files; give a CSV "
                                        "file, an HDF5 catalog or FITS light curves")
        return [args_input]
    paths = product.input_paths
    if not paths:
        raise ToolError(EXIT_USAGE, "the product names no input (input_paths); give the light curves with --input")
    if len(paths) != 1 and product.input_format != "fits":
        raise ToolError(
            EXIT_USAGE,
            f"the product's input is {len(paths)} files ({product.input_format}); "
            "give the light curves with --input (a CSV file or an HDF5 catalog, e.g. from 'astrosweep convert')",
        )
    found = [locate(p, product) for p in paths]
    missing = [p for p, f in zip(paths, found) if f is None]
    if missing:
        raise fail_input(
            f"the product's input {', '.join(repr(p) for p in missing[:3])}{' ...' if len(missing) > 3 else ''} "
            "was not found (tried as given and relative to the product's directory); give the light curves with --input"
        )
    return found


def has_fits_files(directory: str) -> bool:
    return any(n.endswith(FITS_SUFFIXES) for n in os.listdir(directory))


def is_fits(path: str) -> bool:
    if os.path.isdir(path):
        return True
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as fh:
            return fh.read(9) == b"SIMPLE  ="
    except OSError:
        return False


def read_light_curves(paths: list[str], wanted: set[int], product: Product) -> dict[int, LightCurve]:
    import h5py

    if is_fits(paths[0]):
        flux_column, use_quality = fits_options(product.command_line)
        return read_fits(paths, wanted, flux_column, use_quality)
    if len(paths) != 1:
        raise ToolError(EXIT_USAGE, f"{len(paths)} light-curve files that are not FITS; give one CSV file or catalog")
    if h5py.is_hdf5(paths[0]):
        return read_catalog(paths[0], wanted)
    return read_csv(paths[0], wanted)


# --------------------------------------------------------------------------------------------
# Drawing


def format_period(p_days: float) -> str:
    if not math.isfinite(p_days):
        return "n/a"
    hours = p_days * 24.0
    if p_days >= 2:
        return f"{p_days:.5g} d"
    return f"{p_days:.5g} d = {hours:.4g} h"


def format_fap(fap: float) -> str:
    if not math.isfinite(fap):
        return "n/a"
    if fap == 0:
        return "< 1e-300"
    return f"{fap:.2g}"


def status_text(status: int) -> str:
    names = [STATUS_BITS.get(b, f"bit {b}") for b in range(32) if status >> b & 1]
    return ", ".join(names)


def cleaned_text(cleaned: int) -> str:
    return ", ".join(CLEANED_BITS.get(b, f"bit {b}") for b in range(32) if cleaned >> b & 1)


def envelope(freq: np.ndarray, power: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-bin minimum and maximum, interleaved, so that a long periodogram draws faithfully."""
    n = power.size
    if n <= 2 * n_bins:
        return freq, power
    width = math.ceil(n / n_bins)
    pad = width * math.ceil(n / width) - n
    p = np.concatenate([power, np.full(pad, np.nan)]).reshape(-1, width)
    f = np.concatenate([freq, np.full(pad, freq[-1])]).reshape(-1, width)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN bins
        lo = np.nanmin(p, axis=1)
        hi = np.nanmax(p, axis=1)
    arg_lo = np.nanargmin(np.where(np.isnan(p), np.inf, p), axis=1)
    arg_hi = np.nanargmax(np.where(np.isnan(p), -np.inf, p), axis=1)
    rows = np.arange(p.shape[0])
    first_is_lo = arg_lo <= arg_hi
    out_f = np.empty(2 * p.shape[0])
    out_p = np.empty(2 * p.shape[0])
    out_f[0::2] = np.where(first_is_lo, f[rows, arg_lo], f[rows, arg_hi])
    out_f[1::2] = np.where(first_is_lo, f[rows, arg_hi], f[rows, arg_lo])
    out_p[0::2] = np.where(first_is_lo, lo, hi)
    out_p[1::2] = np.where(first_is_lo, hi, lo)
    return out_f, out_p


def draw_periodogram(ax, product: Product, obj: ObjectResult) -> None:
    f_lo = product.f0
    f_hi = product.f0 + (product.n_freq - 1) * product.df
    ok = np.isfinite(obj.peak_frequency) & np.isfinite(obj.peak_power)
    pf, pp = obj.peak_frequency[ok], obj.peak_power[ok]
    order = np.argsort(-pp, kind="stable")
    pf, pp = pf[order], pp[order]
    has_curve = obj.power is not None and bool(np.any(np.isfinite(obj.power)))

    if has_curve:
        freq, power = envelope(product.frequencies(), obj.power, MAX_DRAWN_BINS)
        ax.plot(freq, power, color="0.3", lw=0.6, zorder=1)
        top = float(np.nanmax(obj.power))
    else:
        if pf.size:
            _, stemlines, _ = ax.stem(pf, pp, linefmt="C0-", markerfmt=" ", basefmt="0.6")
            stemlines.set_linewidth(1.2)
        if obj.power is None:
            why = "no periodogram stored in the product (run without --periodograms)"
            why += ":\nonly the top-k peaks are drawn" if pf.size else ", and no peaks for this object"
        else:
            why = "no periodogram for this object"
        if obj.status:
            why += f"\n({status_text(obj.status)})"
        ax.text(0.5, 0.45, why, transform=ax.transAxes, ha="center", va="center", fontsize=9, color="0.35",
                bbox=dict(boxstyle="round", fc="white", ec="0.8"))
        top = float(np.nanmax(pp)) if pp.size else 1.0
    if not (math.isfinite(top) and top > 0):
        top = 1.0

    # Peaks: the best one a red triangle, the others orange circles, each numbered by rank (1 =
    # highest) right at the marker; the key above the curve gives every number's period. Short
    # numbers keep neighbouring peaks (aliases, side lobes) from overwriting each other's labels.
    best_f = obj.best_frequency
    if math.isfinite(best_f):
        is_best = np.isclose(pf, best_f, rtol=0, atol=0.5 * abs(product.df) + 1e-12 * abs(best_f))
        if np.count_nonzero(is_best) > 1:
            is_best[np.flatnonzero(is_best)[1:]] = False
    else:
        is_best = np.zeros(pf.size, dtype=bool)
    key_rows = pf.size + (1 if math.isfinite(best_f) and not np.any(is_best) else 0)
    n_cols = 1 if key_rows <= 1 else (2 if key_rows <= 4 else 3)
    band = 0.06 + 0.075 * math.ceil(max(key_rows, 1) / n_cols)  # axes fraction taken by the key
    y_top = top * 1.08 / (1 - band)
    x_span = f_hi - f_lo if f_hi > f_lo else 1.0
    groups: list[dict] = []  # numbers of peaks too close to label apart share one label: "2,3"
    for rank, (f, p, best) in enumerate(zip(pf, pp, is_best), 1):
        color = "C3" if best else "C1"
        label = f"{rank}{' (best)' if best else ''}: P = {format_period(1.0 / f)}, power {p:.3g}"
        ax.plot([f], [p], ls="none", marker="v" if best else "o", ms=9 if best else 6, color=color, mec="k",
                mew=0.5, zorder=5, label=label)
        x, y = (f - f_lo) / x_span, p / y_top
        for g in groups:
            if abs(x - g["x"]) < 0.02 and abs(y - g["y"]) < 0.06:
                g["ranks"].append(rank)
                break
        else:
            groups.append(dict(x=x, y=y, f=f, p=p, ranks=[rank], best=bool(best)))
    for g in groups:
        ax.annotate(",".join(map(str, g["ranks"])), (g["f"], g["p"]), xytext=(0, 7), textcoords="offset points",
                    ha="center", va="bottom", fontsize=8, fontweight="bold", color="C3" if g["best"] else "C1",
                    zorder=6, bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.85))
    if math.isfinite(best_f) and not np.any(is_best):
        ax.axvline(best_f, color="C3", ls="--", lw=0.8, zorder=2,
                   label=f"best: P = {format_period(obj.best_period)} (not among the stored peaks)")
    if key_rows:
        ax.legend(loc="upper center", ncol=n_cols, fontsize=8, framealpha=0.9, handletextpad=0.3,
                  columnspacing=1.5, borderaxespad=0.4)

    ax.set_xlim(f_lo, f_hi)
    ax.set_ylim(0, y_top)
    ax.set_xlabel("frequency [1/day]")
    ax.set_ylabel(f"power ({product.normalization})")
    ax.grid(alpha=0.3)


def draw_folded(ax, obj: ObjectResult, lc: LightCurve) -> None:
    finite = np.isfinite(lc.t) & np.isfinite(lc.y)
    if lc.dy is not None:
        finite &= np.isfinite(lc.dy)
    t, y = lc.t[finite], lc.y[finite]
    dy = lc.dy[finite] if lc.dy is not None else None
    f = obj.best_frequency
    if not (math.isfinite(f) and f > 0):
        # No period: show the unfolded light curve so the reason (too few points, constant) is visible.
        if dy is not None:
            ax.errorbar(t, y, yerr=dy, fmt="o", ms=3, color="C0", ecolor="0.7", elinewidth=0.6)
        else:
            ax.plot(t, y, "o", ms=3, color="C0")
        ax.set_xlabel(f"time [day{', ' + obj.time_reference if obj.time_reference else ''}] (no period: not folded)")
        ax.set_ylabel("y")
        ax.grid(alpha=0.3)
        return

    # Zero phase at the product's t_ref (the centre of the object's span) keeps phases small and
    # matches the search; any zero point gives the same shape.
    t0 = obj.t_ref if math.isfinite(obj.t_ref) else (t.min() if t.size else 0.0)
    phase = np.mod((t - t0) * f, 1.0)
    ph2 = np.concatenate([phase, phase + 1.0])
    y2 = np.concatenate([y, y])
    n = t.size
    ms = 4 if n <= 200 else (2.5 if n <= 2000 else 1.5)
    alpha = 1.0 if n <= 500 else 0.5
    if dy is not None:
        ax.errorbar(ph2, y2, yerr=np.concatenate([dy, dy]), fmt="o", ms=ms, color="C0", ecolor="0.75",
                    elinewidth=0.5, alpha=alpha, zorder=2, label=f"{n} points")
    else:
        ax.plot(ph2, y2, "o", ms=ms, color="C0", alpha=alpha, zorder=2, label=f"{n} points")

    # A binned mean makes the shape readable when there are many noisy points.
    if n >= 60:
        n_bins = int(min(50, max(10, n // 20)))
        edges = np.linspace(0, 1, n_bins + 1)
        idx = np.clip(np.digitize(phase, edges) - 1, 0, n_bins - 1)
        counts = np.bincount(idx, minlength=n_bins)
        if dy is not None and np.all(dy > 0):
            w = 1.0 / dy**2
        else:
            w = np.ones_like(y)
        sums = np.bincount(idx, weights=w * y, minlength=n_bins)
        wsum = np.bincount(idx, weights=w, minlength=n_bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(counts > 0, sums / wsum, np.nan)
        centres = 0.5 * (edges[:-1] + edges[1:])
        ax.plot(np.concatenate([centres, centres + 1]), np.concatenate([mean, mean]), "-", color="C3", lw=1.5,
                zorder=3, label=f"binned mean ({n_bins} bins per cycle)")
    ax.axvline(1.0, color="0.6", lw=0.8, ls=":")
    ax.set_xlim(0, 2)
    ax.set_xlabel(f"phase (two cycles, P = {format_period(1.0 / f)})")
    ax.set_ylabel("y")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(alpha=0.3)


def draw_object(product: Product, obj: ObjectResult, lc: LightCurve, path: str, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 8), gridspec_kw=dict(height_ratios=[1, 1.1]))
    draw_periodogram(top, product, obj)
    draw_folded(bottom, obj, lc)

    if math.isfinite(obj.best_period):
        title = (
            f"id {obj.id}: best period {obj.best_period:.6g} d = {obj.best_period * 24:.5g} h, "
            f"power {obj.best_power:.4g}, FAP {format_fap(obj.fap)}"
        )
    else:
        title = f"id {obj.id}: no period found"
    fig.suptitle(title, fontsize=12, fontweight="bold")
    details = (
        f"{obj.n_points} points, baseline {obj.baseline:.4g} d; model {product.model}, "
        f"normalization {product.normalization}, {product.precision}; "
        f"grid {product.f0:.4g}..{product.f0 + (product.n_freq - 1) * product.df:.4g} 1/day, {product.n_freq} frequencies"
    )
    notes = []
    if obj.status:
        notes.append(f"not valid: {status_text(obj.status)}")
    if obj.cleaned:
        notes.append(f"cleaned: {cleaned_text(obj.cleaned)}")
    if obj.time_reference:
        notes.append(f"times: {obj.time_reference}")
    if product.status != "complete":
        notes.append(f"product status: {product.status}")
    if notes:
        details += "\n" + "; ".join(notes)
    fig.text(0.5, 0.935, details, ha="center", va="top", fontsize=8.5, color="0.3")
    fig.tight_layout(rect=(0, 0, 1, 0.915 if notes else 0.93))
    try:
        fig.savefig(path, dpi=dpi)
    except OSError as e:
        raise ToolError(EXIT_OUTPUT, f"cannot write '{path}': {e}") from e
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="plot_period_product.py",
        description="Draw periodograms and folded light curves of objects of an astrosweep period product.",
    )
    p.add_argument("product", help="period product (HDF5, written by 'astrosweep period')")
    p.add_argument("--ids", type=int, nargs="+", metavar="ID",
                   help=f"object ids to draw (default: the {DEFAULT_N_IDS} with the highest best_power)")
    p.add_argument("--input", metavar="PATH",
                   help="light curves to fold: CSV 'id, t, y[, dy]', astrosweep HDF5 catalog, or TESS/Kepler "
                        "FITS files or a directory of them (default: the product's input_paths)")
    p.add_argument("--out-dir", default=".", metavar="DIR", help="where period_<id>.png go (default: .)")
    p.add_argument("--dpi", type=int, default=120, help="resolution of the PNGs (default: 120)")
    args = p.parse_args(argv)
    if args.dpi <= 0:
        p.error("--dpi must be positive")
    return args


def missing_modules() -> list[str]:
    return [m for m in REQUIRED_MODULES if (np is None if m == "numpy" else importlib.util.find_spec(m) is None)]


def main(argv=None) -> int:
    args = parse_args(argv)
    missing = missing_modules()
    if missing:
        raise ToolError(
            EXIT_RUNTIME,
            f"needs the Python package{'s' if len(missing) > 1 else ''} {', '.join(missing)}, not installed for "
            f"{sys.executable}: pip install {' '.join(missing)} (or tools/install-deps.sh --with-python)",
        )
    import matplotlib

    matplotlib.use("Agg")

    product = Product(args.product)
    if args.ids:
        ids = list(dict.fromkeys(args.ids))
        for i in ids:
            product.row_of(i)  # exits 3 for an id not in the product
    else:
        ids = product.top_ids(DEFAULT_N_IDS)
        if not ids:
            raise fail_input(f"the product '{args.product}' has no object with a finite best_power")
    if product.status != "complete":
        print(f"plot_period_product: warning: product status is '{product.status}'", file=sys.stderr)

    input_paths = resolve_input(args.input, product)
    curves = read_light_curves(input_paths, set(ids), product)
    missing = [i for i in ids if i not in curves]
    if missing:
        where = input_paths[0] if len(input_paths) == 1 else f"{len(input_paths)} input files"
        raise fail_input(f"object id(s) {', '.join(map(str, missing))} not found in the input '{where}'")

    try:
        os.makedirs(args.out_dir, exist_ok=True)
    except OSError as e:
        raise ToolError(EXIT_OUTPUT, f"cannot create output directory '{args.out_dir}': {e}") from e
    for i in ids:
        path = os.path.join(args.out_dir, f"period_{i}.png")
        draw_object(product, product.object(i), curves[i], path, args.dpi)
        print(path)
    return 0


if __name__ == "__main__":
    # Printed paths piped into `head` end quietly, as other command-line tools do, not in a traceback.
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        sys.exit(main())
    except ToolError as e:
        print(f"plot_period_product: {e}", file=sys.stderr)
        sys.exit(e.code)
    except ImportError as e:  # a package that is there but broken (a numpy built for another Python)
        print(f"plot_period_product: cannot import {e.name or 'a required package'}: {e}; reinstall "
              f"{', '.join(REQUIRED_MODULES)} for {sys.executable}", file=sys.stderr)
        sys.exit(EXIT_RUNTIME)
