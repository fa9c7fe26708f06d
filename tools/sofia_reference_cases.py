#!/usr/bin/env python3
"""SoFiA-2 references of the scfind reliability tests (tests/data/scfind/r_*).

Runs an installed SoFiA-2 v2.5.1 binary (given on the command line; this script neither builds nor
fetches it) on cube R, which tools/make_scfind_cube writes (tests/data/scfind/cases.txt, [cube R]),
with the reliability filter on, and keeps what the tests compare: the ASCII catalogue, the source
mask (gzipped: level 9, no name, mtime 0), and from SoFiA-2's reliability debugging catalogues
(reliability.debug) one table of every linker source's parameters with each case's rel to 16
digits (r_R_reliability_points.txt, for the unit test).

  tools/sofia_reference_cases.py SOFIA_BINARY R.fits OUT_DIR [CASE ...]

With `moments` first it makes the image references instead (tests/data/scfind/m_*): SoFiA-2's
moment maps, channel map and 2-D mask (output.writeMoments, output.writeMask2d; gzipped as above)
of cube A (with WCS), Anowcs (without) and R (the reliability filter on):

  tools/sofia_reference_cases.py moments SOFIA_BINARY A.fits Anowcs.fits R.fits OUT_DIR

With `cubelets` first it makes the cubelet references (tests/data/scfind/c_*, output.writeCubelets)
of the same three cubes, each with other output.marginCubelets and output.thresholdMom12: the list
of every file SoFiA-2 writes in <case>_cubelets/ (c_<case>_files.txt), every source's spectrum
(c_<case>_<id>_spec.txt, small) and all files of a few sources (the FITS files gzipped as above;
the whole set would be several MB of noise that does not compress):

  tools/sofia_reference_cases.py cubelets SOFIA_BINARY A.fits Anowcs.fits R.fits OUT_DIR
"""
import gzip
import os
import re
import shutil
import subprocess
import sys

TEMPLATE = """pipeline.verbose = false
pipeline.pedantic = true
pipeline.threads = 1
input.data = {cube}
flag.auto = false
contsub.enable = false
scaleNoise.enable = false
rippleFilter.enable = false
scfind.enable = true
scfind.kernelsXY = 0, 3, 6
scfind.kernelsZ = 0, 3, 7, 15
scfind.threshold = 4.0
scfind.replacement = 2.0
scfind.statistic = mad
scfind.fluxRange = negative
threshold.enable = false
linker.enable = true
linker.minSizeXY = 1
linker.minSizeZ = 1
{linker}reliability.enable = true
{reliability}dilation.enable = false
parameter.enable = true
parameter.wcs = true
parameter.physical = false
parameter.prefix = SoFiA
parameter.offset = false
output.directory = .
output.filename = {case}
output.writeCatASCII = true
output.writeCatXML = false
output.writeCatSQL = false
output.writeNoise = false
output.writeFiltered = false
output.writeMask = true
output.writeMask2d = false
output.writeRawMask = false
output.writeMoments = false
output.writeCubelets = false
output.overwrite = true
"""

# The reliability.* settings of each case, and linker.* ones where given (the tests write the same
# lines: tests/cli/scfind_tests.cmake).
CASES = {
    "r_R_threshold05_snr0": {"threshold": "0.5", "minSNR": "0", "plot": "false", "debug": "true"},
    "r_R_5d_minpix": {"parameters": "peak, sum, chan, pix, fill", "threshold": "0.3", "minSNR": "0.5",
                      "minPixels": "3", "scaleKernel": "0.5", "plot": "false", "debug": "true"},
    "r_R_autokernel": {"autoKernel": "true", "scaleKernel": "0", "tolerance": "0.3", "threshold": "0.6",
                       "minSNR": "0.5", "plot": "false", "debug": "true"},
    "r_R_autokernel_unconverged": {"autoKernel": "true", "scaleKernel": "0.6", "iterations": "5", "threshold": "0.6",
                                   "minSNR": "0.5", "plot": "true", "debug": "true"},
    "r_R_defaults": {"plot": "false", "debug": "true"},
    # Negative sources around the positions of r_R_exclude_positions.txt left out.
    "r_R_catalog": {"catalog": "{out}/r_R_exclude_positions.txt", "threshold": "0.5", "minSNR": "0",
                    "plot": "false", "debug": "true"},
    # SoFiA-2's running moments as parameters; linker.minPixels = 2 (a 1-voxel source has no std).
    "r_R_moments_minpix2": {"linker.minPixels": "2", "parameters": "peak, sum, std, skew, kurt", "threshold": "0.5",
                            "minSNR": "0", "plot": "false", "debug": "true"},
}


# reliability.catalog of r_R_catalog: the centres of 16 of cube R's 49 negative sources (every third
# in SoFiA-2's debugging catalogue) in RA, Dec (astropy's pixel-to-world of the cube's WCS, origin
# 0), with each of SoFiA-2's delimiters (spaces, '|', ',', tab) and comment lines it skips.
EXCLUDE_POSITIONS = """# reliability.catalog of the r_R_catalog case: RA Dec (deg) of 16 of cube R's negative sources' centres
# (written by tools/sofia_reference_cases.py; SoFiA-2 skips lines not starting with a letter or digit)
180.02983578  -30.01999664
180.07123048 | -30.03331417
180.01733348, -30.07416555
179.92303288\t-29.98331094
180.02597313  -29.97083078
180.08279390 | -30.04830745
180.02500739, -29.95583096
179.93648400\t-30.01165142
180.06539134  -29.93665049
179.93453506 | -30.04831715
179.95381004, -30.00415861
179.92498223\t-29.94997872
180.04522349  -29.99499227
179.92785543 | -29.96664699
179.91344248, -29.94830500
179.92592971\t-29.96914593
"""


def gzip_to(source, target):
    with open(target, "wb") as out:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=out, mtime=0) as z:
            z.write(open(source, "rb").read())


def debug_rows(path):
    """Rows of a SoFiA-2 reliability debugging catalogue (VOTable): {field: text}."""
    text = open(path).read()
    fields = re.findall(r'<FIELD[^>]* name="([^"]+)"', text)
    rows = []
    for row in re.findall(r"<TR>(.*?)</TR>", text, re.S):
        rows.append(dict(zip(fields, re.findall(r"<TD>(.*?)</TD>", row))))
    return rows


def write_points(out):
    """Every source's reliability parameters and rel per case (the cases with the default linker)."""
    names = [n for n in CASES if not any(k.startswith("linker.") for k in CASES[n]) and "catalog" not in CASES[n]]
    first = os.path.join(out, "run_" + names[0], names[0])
    sources = {}
    for sign, kind in ((-1, "neg"), (1, "pos")):
        for r in debug_rows(f"{first}_rel_cat_{kind}.xml"):
            sources[int(r["id"])] = [str(sign)] + [r[k] for k in ("nx", "ny", "nz", "log_f_peak", "log_f_sum",
                                                                   "log_f_mean", "fill")]
    for name in names:
        rel = {int(r["id"]): r["rel"] for r in debug_rows(os.path.join(out, "run_" + name, name + "_rel_cat_pos.xml"))}
        for i in sources:
            sources[i].append(rel.get(i, "0.000000000000000e+00"))
    with open(os.path.join(out, "r_R_reliability_points.txt"), "w") as f:
        f.write("# SoFiA-2 2.5.1's reliability debugging catalogues (_rel_cat_neg.xml, _rel_cat_pos.xml) of cube R,\n")
        f.write("# made by tools/sofia_reference_cases.py: every linker source, log10 values in units of the rms.\n")
        f.write("# id sign nx ny nz log_f_peak log_f_sum log_f_mean fill " + " ".join("rel:" + n for n in names) + "\n")
        for i in sorted(sources):
            f.write(" ".join([str(i)] + sources[i]) + "\n")


# The image cases: the catalogue cases' settings (tests/cli/scfind_tests.cmake) with the images on.
MOMENT_TEMPLATE = """input.data = {cube}
scfind.kernelsXY = 0, 3, 6
scfind.kernelsZ = 0, 3, 7, 15
scfind.threshold = 5.0
scfind.replacement = 2.0
scfind.statistic = mad
scfind.fluxRange = negative
linker.enable = true
reliability.enable = false
parameter.enable = true
parameter.wcs = true
output.directory = .
output.filename = {case}
output.writeCatASCII = true
output.writeCatXML = false
output.writeMask = true
output.writeMask2d = true
output.writeMoments = true
output.overwrite = true
"""
IMAGES = ("mom0", "mom1", "mom2", "chan", "mask-2d")


def moments(sofia, cubes, out):
    cube_a, cube_anowcs, cube_r = (os.path.abspath(c) for c in cubes)
    cases = {"m_A_mad_negative_defaults": MOMENT_TEMPLATE.format(cube=cube_a, case="m_A_mad_negative_defaults"),
             "m_Anowcs_mad_negative_defaults": MOMENT_TEMPLATE.format(cube=cube_anowcs,
                                                                      case="m_Anowcs_mad_negative_defaults")}
    reliability = "".join(f"reliability.{k} = {v}\n" for k, v in CASES["r_R_threshold05_snr0"].items() if k != "debug")
    cases["m_R_threshold05_snr0"] = TEMPLATE.format(cube=cube_r, case="m_R_threshold05_snr0",
                                                    reliability=reliability, linker="").replace(
        "output.writeMask2d = false", "output.writeMask2d = true").replace(
        "output.writeMoments = false", "output.writeMoments = true")
    for name, text in cases.items():
        run = os.path.join(out, "run_" + name)
        os.makedirs(run, exist_ok=True)
        open(os.path.join(run, name + ".par"), "w").write(text)
        log = subprocess.run([sofia, name + ".par"], cwd=run, capture_output=True, text=True)
        open(os.path.join(run, "log.txt"), "w").write(log.stdout + log.stderr)
        print(name, "exit", log.returncode)
        for image in IMAGES:
            gzip_to(os.path.join(run, f"{name}_{image}.fits"), os.path.join(out, f"{name}_{image}.fits.gz"))


# case: (cube index, marginCubelets, thresholdMom12, the sources whose FITS files are kept).
CUBELET_CASES = {
    # 2 and 5 at the cube's edges (x = 0; z = 0, z = 39), the margin clipped there.
    "c_A_mad_negative_defaults": (0, "10", "0.0", (2, 5)),
    # No margin: the bounding box exactly.
    "c_Anowcs_mad_negative_defaults": (1, "0", "0.0", (1, 2)),
    # 4 up to the last channel, 14 at x = 0, 5 a source without local noise (rms 0: no _snr.fits).
    "c_R_threshold05_snr0": (2, "3", "2.5", (4, 5, 14)),
    # parameter.physical: the spectra in Jy (over the beam area); margin 1, moments over 1.5 × rms.
    "c_A_physical": (0, "1", "1.5", (3,)),
}


def cubelets(sofia, cubes, out):
    cubes = [os.path.abspath(c) for c in cubes]
    reliability = "".join(f"reliability.{k} = {v}\n" for k, v in CASES["r_R_threshold05_snr0"].items() if k != "debug")
    for name, (cube, margin, threshold, kept) in CUBELET_CASES.items():
        if name.startswith("c_R"):
            text = TEMPLATE.format(cube=cubes[cube], case=name, reliability=reliability, linker="")
        else:
            text = MOMENT_TEMPLATE.format(cube=cubes[cube], case=name)
        text = text.replace("output.writeCubelets = false\n", "")
        if name == "c_A_physical":
            text += "parameter.physical = true\n"
        text += f"output.writeCubelets = true\noutput.marginCubelets = {margin}\noutput.thresholdMom12 = {threshold}\n"
        run = os.path.join(out, "run_" + name)
        shutil.rmtree(os.path.join(run, name + "_cubelets"), ignore_errors=True)
        os.makedirs(run, exist_ok=True)
        open(os.path.join(run, name + ".par"), "w").write(text)
        log = subprocess.run([sofia, name + ".par"], cwd=run, capture_output=True, text=True)
        open(os.path.join(run, "log.txt"), "w").write(log.stdout + log.stderr)
        print(name, "exit", log.returncode)
        directory = os.path.join(run, name + "_cubelets")
        files = sorted(os.listdir(directory))
        open(os.path.join(out, name + "_files.txt"), "w").write("".join(f + "\n" for f in files))
        for f in files:
            source = int(f[len(name) + 1:].split("_")[0])
            if f.endswith("_spec.txt"):
                shutil.copy(os.path.join(directory, f), os.path.join(out, f))
            elif source in kept:
                gzip_to(os.path.join(directory, f), os.path.join(out, f + ".gz"))


def main():
    if sys.argv[1] == "cubelets":
        cubelets(sys.argv[2], sys.argv[3:6], os.path.abspath(sys.argv[6]))
        return
    if sys.argv[1] == "moments":
        moments(sys.argv[2], sys.argv[3:6], os.path.abspath(sys.argv[6]))
        return
    sofia, cube, out = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    open(os.path.join(out, "r_R_exclude_positions.txt"), "w").write(EXCLUDE_POSITIONS)
    for name in sys.argv[4:] or CASES:
        run = os.path.join(out, "run_" + name)
        os.makedirs(run, exist_ok=True)
        reliability = "".join(f"reliability.{k} = {v.format(out=out)}\n" for k, v in CASES[name].items() if "." not in k)
        linker = "".join(f"{k} = {v}\n" for k, v in CASES[name].items() if k.startswith("linker."))
        open(os.path.join(run, name + ".par"), "w").write(
            TEMPLATE.format(cube=cube, case=name, reliability=reliability, linker=linker))
        log = subprocess.run([sofia, name + ".par"], cwd=run, capture_output=True, text=True)
        open(os.path.join(run, "log.txt"), "w").write(log.stdout + log.stderr)
        print(name, "exit", log.returncode)
        shutil.copy(os.path.join(run, name + "_cat.txt"), os.path.join(out, name + "_cat.txt"))
        gzip_to(os.path.join(run, name + "_mask.fits"), os.path.join(out, name + "_mask.fits.gz"))
    if not sys.argv[4:]:  # the table needs every case
        write_points(out)


if __name__ == "__main__":
    main()
