#!/usr/bin/env bash
# One-command set-up on a fresh Debian 12 / Ubuntu machine (README):
#   tools/quickstart.sh           install what is missing, build, run the period job on the bundled
#                                 SDSS Stripe 82 catalog with 2 MPI ranks, print results and product path
#   tools/quickstart.sh --tests   the same set-up, then every test (what CI runs: .ci/run): the
#                                 Release build's tests, every test again in an ASan+UBSan build
#                                 (build-asan), and each fuzzer for FUZZ_SECONDS (build-fuzz);
#                                 docs/testing.md
# Environment: BUILD_DIR (default build), JOBS (default: all cores), CMAKE_ARGS (extra configure args
# of the Release build), FUZZ_SECONDS (default 60 per fuzzer), SANITIZERS=0 (skip the sanitizer and
# fuzz builds). CMAKE_CXX_COMPILER_LAUNCHER=ccache in the environment speeds up every build.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=demo
[[ ${1:-} == --tests ]] && mode=tests
sanitizers=0
[[ $mode == tests && ${SANITIZERS:-1} != 0 ]] && sanitizers=1

# Each step's wall time, so a slow CI run says where its time went.
step_start=$SECONDS
step_done() {
  echo "quickstart: $1 took $((SECONDS - step_start)) s (total $SECONDS s)"
  step_start=$SECONDS
}

deps=()
((sanitizers)) && deps+=(--with-clang)
tools/install-deps.sh "${deps[@]}"
step_done "installing dependencies"

build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
step_done "the Release build"

# OpenMPI refuses to start as root unless told, and containers often forbid its
# cross-memory-attach copy; both settings are harmless elsewhere.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
# Where libmunge is installed (Slurm's packages bring it) but no munged runs, PMIx's munge
# security component retries its socket for 2.3 s on every mpiexec; one machine needs none of it.
if ! pgrep -x munged >/dev/null 2>&1; then export PMIX_MCA_psec=${PMIX_MCA_psec:-native}; fi

if [[ $mode == tests ]]; then
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
  step_done "the Release tests"
  if ((sanitizers)); then
    # The CPU code under AddressSanitizer and UndefinedBehaviorSanitizer (the GPU code gets
    # compute-sanitizer on the GPU machine: tools/gpu_checks.sh sanitize), then the fuzzers. Tests
    # labelled heavy (long kill-and-resume rounds whose code the lighter tests also run) are
    # skipped there.
    clang=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DASTROSWEEP_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo)
    cmake -S . -B build-asan "${clang[@]}" -DASTROSWEEP_SANITIZE=address,undefined
    cmake --build build-asan -j "$jobs"
    step_done "the sanitizer build"
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE heavy
    step_done "the sanitizer tests"
    cmake -S . -B build-fuzz "${clang[@]}" -DASTROSWEEP_FUZZ=ON -DASTROSWEEP_FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
    cmake --build build-fuzz -j "$jobs" --target fuzzers
    step_done "the fuzz build"
    ctest --test-dir build-fuzz -L fuzzing --output-on-failure -j "$jobs"
    step_done "the fuzzers"
  fi
else
  mkdir -p "$build/demo"
  mpirun -np 2 "$build/astrosweep" period \
    --input tests/data/lightcurves/sdss_stripe82_z.csv \
    --output "$build/demo/sdss_stripe82_periods.h5" --overwrite \
    --fmin 0.5 --fmax 24 --n-freq 100000 --model generalized --periodograms
fi
