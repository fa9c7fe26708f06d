#!/usr/bin/env bash
# One-command set-up on a fresh Debian 12 / Ubuntu machine (README):
#   tools/quickstart.sh           install what is missing, build, run the period job on the bundled
#                                 SDSS Stripe 82 catalog with 2 MPI ranks, print results and product path
#   tools/quickstart.sh --tests   the same set-up, then every test (what CI runs: .ci/run)
# Environment: BUILD_DIR (default build), JOBS (default: all cores), CMAKE_ARGS (extra configure args).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=demo
[[ ${1:-} == --tests ]] && mode=tests

tools/install-deps.sh

build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"

# OpenMPI refuses to start as root unless told, and containers often forbid its
# cross-memory-attach copy; both settings are harmless elsewhere.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1

if [[ $mode == tests ]]; then
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
else
  mkdir -p "$build/demo"
  mpirun -np 2 "$build/astrosweep" period \
    --input tests/data/lightcurves/sdss_stripe82_z.csv \
    --output "$build/demo/sdss_stripe82_periods.h5" --overwrite \
    --fmin 0.5 --fmax 24 --n-freq 100000 --model generalized --periodograms
fi
