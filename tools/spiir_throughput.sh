#!/usr/bin/env bash
# Spec §14's offline throughput of `astrosweep spiir` (issue 13): seconds of strain per second of
# wall time, the job end to end on an open-data-sized input (3 detectors, 4096 s at 4096 Hz, GWOSC
# HDF5 files of coloured noise that the job whitens, as it whitens open data) with a 1,024-template
# multi-rate BNS bank. Makes the inputs in WORK_DIR (kept: a second call reuses them), then runs
# the job once per backend on one rank and prints one line per run.
#   tools/spiir_throughput.sh BUILD_DIR WORK_DIR [SECONDS]
# SECONDS: strain per detector (4096). Environment: BACKENDS ("cuda cpu"), THRESHOLD (5.5: at the
# job's default 4, noise gives hundreds of peaks per second in a 1,024-template bank, and the
# coherent stage then dominates, which is a latency question, not this one), TEMPLATES (1024),
# F_LOW (30 Hz: about 400 filters a template over 6 rates, near the seed's 512), THREADS (nproc),
# UNIT_SECONDS (SECONDS + 1: one work unit, the multi-rate stream's latency included, so that no
# unit re-filters a warm-up). A run that fails (e.g. cuda in a CPU-only build) is reported and the
# next one runs; the script then exits 1.
# BUILD_DIR needs astrosweep and tests/spiir/spiir_fixtures (a build with the tests).
set -euo pipefail
build=${1:?usage: spiir_throughput.sh BUILD_DIR WORK_DIR [SECONDS]}
work=${2:?usage: spiir_throughput.sh BUILD_DIR WORK_DIR [SECONDS]}
seconds=${3:-4096}
backends=${BACKENDS:-cuda cpu}
threshold=${THRESHOLD:-5.5}
templates=${TEMPLATES:-1024}
f_low=${F_LOW:-30}
threads=${THREADS:-$(nproc)}
unit_seconds=${UNIT_SECONDS:-$((seconds + 1))}
astrosweep=$build/astrosweep
fixtures=$build/tests/spiir/spiir_fixtures
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# A grid of BNS masses, m1 in 1.20 ... and m2 in 1.15 ..., steps of 0.0125 M☉, TEMPLATES pairs.
bank=$work/bank$templates.h5
if [[ ! -f $bank ]]; then
  side=$(python3 -c "import math; print(math.ceil(math.sqrt($templates)))")
  python3 -c "
n, side = $templates, $side
for k in range(n): print(f'{1.20 + 0.0125 * (k // side):.4f} {1.15 + 0.0125 * (k % side):.4f}')" >"$work/masses$templates.txt"
  start=$(date +%s.%N)
  "$astrosweep" spiirbank --masses "$work/masses$templates.txt" --f-low "$f_low" --ifos H1,L1,V1 \
    --threads "$threads" -o "$bank" --overwrite | tee "$work/spiirbank.log"
  echo "bank: $templates templates in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"
fi

strain=""
seed=1
for ifo in H1 L1 V1; do
  file=$work/$ifo-$seconds.h5
  [[ -f $file ]] || "$fixtures" gwosc "$file" --ifos "$ifo" --rate 4096 --seconds "$seconds" --colour --seed "$seed"
  strain+=${strain:+,}$file
  seed=$((seed + 1))
done

status=0
for backend in $backends; do
  log=$work/spiir-$backend-$seconds.log
  start=$(date +%s.%N)
  if ! "$astrosweep" spiir --bank "$bank" --strain "$strain" -o "$work/triggers-$backend-$seconds.h5" --overwrite \
    --backend "$backend" --threads "$threads" --threshold "$threshold" --unit-seconds "$unit_seconds" 2>&1 |
    tee "$log"; then
    echo "throughput $backend: the run failed (see $log)"
    status=1
    continue
  fi
  wall=$(python3 -c "print($(date +%s.%N) - $start)")
  python3 -c "print(f'throughput $backend: {$seconds} s of H1+L1+V1 strain, {$templates} templates, threshold {$threshold}, \
{$threads} threads: {$wall:.1f} s wall, {$seconds / $wall:.1f} s of strain per s (see $log for filter/coherent)')"
done
exit $status
