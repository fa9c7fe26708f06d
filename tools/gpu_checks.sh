#!/usr/bin/env bash
# The GPU round: on a machine with an NVIDIA GPU, runs the GPU tests, the whole test suite (where
# `--backend auto` now means the GPU), compute-sanitizer memcheck and racecheck on the GPU tests,
# and the period benchmarks; logs go to OUT_DIR. Build first (CMake preset cuda-release, or
# cmake -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90).
#   tools/gpu_checks.sh BUILD_DIR OUT_DIR [tests|sanitize|bench|all]...
set -uo pipefail
build=${1:?usage: gpu_checks.sh BUILD_DIR OUT_DIR [tests|sanitize|bench|all]...}
out=${2:?usage: gpu_checks.sh BUILD_DIR OUT_DIR [tests|sanitize|bench|all]...}
shift 2
steps=${*:-all}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
want() { [[ " $steps " == *" $1 "* || " $steps " == *" all "* ]]; }
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
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/test_period_backend_cuda" \
      --gtest_filter="$filter" 2>&1 | tail -25 | tee "$out/sanitizer-$tool.log" || status=1
  done
fi

if want bench; then
  "$build/tools/astrosweep_bench_period" --backend cuda --suite targets --repeat 10 2>&1 | tee "$out/bench-targets.log"
  "$build/tools/astrosweep_bench_period" --backend cuda --suite table --repeat 5 2>&1 | tee "$out/bench-table.log"
fi
exit $status
