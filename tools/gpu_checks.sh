#!/usr/bin/env bash
# The GPU round: on a machine with an NVIDIA GPU, runs the GPU tests, the whole test suite (where
# `--backend auto` now means the GPU), compute-sanitizer memcheck and racecheck on the GPU tests,
# and the period benchmarks; logs go to OUT_DIR. Build first (CMake preset cuda-release, or
# cmake -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90).
#   tools/gpu_checks.sh BUILD_DIR OUT_DIR [tests|sanitize|bench|scfind|scfind-bench|fdas|spiir|all]...
#                       [spiir-latency|spiir-throughput] (named only, not in all)
# scfind: the scfind GPU test, the SoFiA-2 validation cases on the GPU (`ctest -L scfind`) and
# compute-sanitizer on the scfind GPU test. scfind-bench: a 1500 x 1500 x 1400 float32 cube (one
# WALLABY processing region, 11.7 GiB) made in CUBE_DIR (default /tmp), timed end to end on the
# GPU with 1, 2 and 4 ranks, streamed through GPU budgets smaller than a slab, with a checkpoint
# after every pair, and on the CPU (SCFIND_BENCH_CPU=0 skips it), masks compared.
# fdas: the fdas GPU tests, compute-sanitizer on them (memcheck and synccheck on the harmonic
# sum's, memcheck and racecheck on the correlation's without the 66,001-segment case) and
# astrosweep_bench_fdas_cuda at issue 12's series (2^23 samples, z_max 200, 8 harmonics).
# spiir: the spiir CUDA backend's tests (filtering; the per-sample maximum, filter_max), its
# end-to-end cuda-vs-cpu products, compute-sanitizer on the tests (without the 70000-sample chunk,
# the multi-rate bank and the 300-template case) and astrosweep_bench_spiir.
# spiir-latency: spec §14's 1-s chunk latency (astrosweep_bench_spiir_latency --backend all, about
# 4 minutes). spiir-throughput: tools/spiir_throughput.sh in SPIIR_WORK_DIR (default /tmp/spiir-
# throughput), CUDA over 4096 s, then OpenMP over 512 s (a 4096-s CPU run takes about 20 minutes).
set -uo pipefail
build=${1:?usage: gpu_checks.sh BUILD_DIR OUT_DIR [tests|sanitize|bench|all]...}
out=${2:?usage: gpu_checks.sh BUILD_DIR OUT_DIR [tests|sanitize|bench|all]...}
shift 2
steps=${*:-all}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
want() { [[ " $steps " == *" $1 "* || " $steps " == *" all "* ]]; }
named() { [[ " $steps " == *" $1 "* ]]; }
status=0

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/gpu.txt"

if want tests; then
  ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tee "$out/gpu-tests.log" || status=1
  ctest --test-dir "$build" -j8 --output-on-failure 2>&1 | tail -40 | tee "$out/all-tests.log" || status=1
fi

if want sanitize; then
  # Sanitizers slow kernels 10-100x: the edge-case and small-budget tests cover every kernel path.
  filter='CudaBackend.PointCounts*:CudaBackend.OneObject*:CudaBackend.PeriodogramsLarger*'
  for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/period/test_period_backend_cuda" \
      --gtest_filter="$filter" 2>&1 | tail -25 | tee "$out/sanitizer-$tool.log" || status=1
  done
fi

if want bench; then
  "$build/tools/astrosweep_bench_period" --backend cuda --suite targets --repeat 10 2>&1 | tee "$out/bench-targets.log"
  "$build/tools/astrosweep_bench_period" --backend cuda --suite table --repeat 5 2>&1 | tee "$out/bench-table.log"
fi
if want scfind; then
  ctest --test-dir "$build" -R test_scfind_backend_cuda --output-on-failure 2>&1 | tail -30 | tee "$out/scfind-gpu-test.log" || status=1
  ctest --test-dir "$build" -L scfind -j8 --output-on-failure 2>&1 | tail -25 | tee "$out/scfind-sofia.log" || status=1
  for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/scfind/test_scfind_backend_cuda" \
      --gtest_filter='-*ManyBlocks*' 2>&1 |
      tail -12 | tee "$out/scfind-sanitizer-$tool.log" || status=1
  done
fi

if want fdas; then
  ctest --test-dir "$build" -R 'test_harmonic_sum_cuda|test_harmonic_sum_cell|test_correlation_cuda|test_spectrum_cuda|test_fdas_backend_cuda' \
    --output-on-failure 2>&1 | tail -30 | tee "$out/fdas-gpu-tests.log" || status=1
  for tool in memcheck synccheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/fdas/test_harmonic_sum_cuda" 2>&1 |
      tail -12 | tee "$out/fdas-sanitizer-harmonic-$tool.log" || status=1
  done
  for tool in memcheck racecheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/fdas/test_correlation_cuda" \
      --gtest_filter='-CudaCorrelationLaunches.*' 2>&1 | tail -12 | tee "$out/fdas-sanitizer-correlation-$tool.log" || status=1
  done
  "$build/tools/astrosweep_bench_fdas_cuda" --n 8388608 --zmax 200 --numharm 8 --repeat 5 2>&1 |
    tee "$out/fdas-bench.log" || status=1
fi

if want spiir; then
  ctest --test-dir "$build" -R 'test_spiir_backend_cuda|test_spiir_sample_max_cuda|test_spiir_coherent_second_pass_cuda|spiir_gpu_matches_cpu' --output-on-failure 2>&1 | tail -40 |
    tee "$out/spiir-gpu-tests.log" || status=1
  for tool in memcheck racecheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/spiir/test_spiir_backend_cuda" \
      --gtest_filter='-*LongChunk*:*Multirate*' 2>&1 | tail -12 | tee "$out/spiir-sanitizer-$tool.log" || status=1
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/spiir/test_spiir_sample_max_cuda" \
      --gtest_filter='-*ManyBlocks*' 2>&1 | tail -12 | tee "$out/spiir-sample-max-sanitizer-$tool.log" || status=1
  done
  "$build/tools/astrosweep_bench_spiir" --backend all --repeat 10 2>&1 | tee "$out/spiir-bench.log"
fi

if named spiir-latency; then
  "$build/tools/astrosweep_bench_spiir_latency" --backend all 2>&1 | tee "$out/spiir-latency.log" || status=1
fi

if named spiir-throughput; then
  here=$(dirname "$0")
  work=${SPIIR_WORK_DIR:-/tmp/spiir-throughput}
  BACKENDS=cuda "$here/spiir_throughput.sh" "$build" "$work" 4096 2>&1 | tee "$out/spiir-throughput-cuda.log" || status=1
  BACKENDS=cpu "$here/spiir_throughput.sh" "$build" "$work" 512 2>&1 | tee "$out/spiir-throughput-cpu.log" || status=1
fi

if want scfind-bench; then
  cubes=${CUBE_DIR:-/tmp}
  cube=$cubes/wallaby_region.fits
  exe=$build/astrosweep
  log=$out/scfind-bench.log
  /usr/bin/time -v "$build/tools/make_scfind_cube" --nx 1500 --ny 1500 --nz 1400 --seed 21 --noise 0.002 \
    --sources 400 --blanks -o "$cube" 2>&1 | grep -E "make_scfind|Elapsed" | tee "$log"
  cat "$cube" > /dev/null  # warm page cache, as the target asks
  run() {  # run NAME NP ARGS...: one timed scfind run, its log appended
    local name=$1 np=$2
    shift 2
    echo "== $name: mpirun -np $np astrosweep scfind $*" | tee -a "$log"
    /usr/bin/time -v mpirun --bind-to none -x LD_LIBRARY_PATH -np "$np" "$exe" scfind -i "$cube" -o "$cubes/$name.h5" \
      --fits-mask "$cubes/${name}_mask-raw.fits" --overwrite "$@" 2>&1 | grep -vE "^\s+(Average|Exit|Socket|Signals|Swaps|File system|Voluntary|Involuntary|Page size|Minor|Major|Percent|System time|User time)" |
      tee -a "$log"
  }
  same_as_first() {  # compares a run's FITS mask with gpu_np1's, then frees the disk it used
    if cmp "$cubes/gpu_np1_mask-raw.fits" "$cubes/$1_mask-raw.fits"; then
      echo "mask of $1 identical to gpu_np1" | tee -a "$log"
    else
      echo "MASK OF $1 DIFFERS from gpu_np1" | tee -a "$log"
      status=1
    fi
    rm -f "$cubes/$1.h5" "$cubes/$1_mask-raw.fits"
  }
  run gpu_np1 1 --backend cuda
  for np in 2 4; do
    run gpu_np$np $np --backend cuda
    same_as_first gpu_np$np
  done
  # More slabs than ranks: a GPU budget of 12 GB per rank (the slab needs ~41 GB), the originals
  # kept in host memory; and checkpoints after every kernel pair (12 durable writes of the mask).
  run gpu_np1_streamed 1 --backend cuda --gpu-memory-mb 12000
  same_as_first gpu_np1_streamed
  run gpu_np4_streamed 4 --backend cuda --gpu-memory-mb 4000
  same_as_first gpu_np4_streamed
  run gpu_np4_checkpoints 4 --backend cuda --checkpoint-minutes 0
  same_as_first gpu_np4_checkpoints
  "$build/tools/astrosweep_bench_scfind_cuda" 1500 1500 1400 3 2>&1 | tee "$out/scfind-bench-kernels.log"
  if [[ ${SCFIND_BENCH_CPU:-1} == 1 ]]; then
    run cpu_np1 1 --backend cpu --threads 16
    same_as_first cpu_np1
    run cpu_np4 4 --backend cpu --threads 4
    same_as_first cpu_np4
  fi
fi
exit $status
