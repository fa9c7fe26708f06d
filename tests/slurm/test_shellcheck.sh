#!/usr/bin/env bash
# test_shellcheck.sh <astrosweep source dir>: shellcheck, warnings included, on the Slurm scripts,
# their library (followed from each script) and their tests. Without shellcheck the test reports
# itself skipped (exit 77, SKIP_RETURN_CODE in tests/slurm/CMakeLists.txt).
set -euo pipefail

if ! command -v shellcheck >/dev/null 2>&1; then
  echo "shellcheck not found: skipped (apt-get install shellcheck)"
  exit 77
fi
cd "$1"
shellcheck --version | sed -n 2p
shellcheck --external-sources slurm/*.sbatch slurm/astrosweep-slurm.sh tests/slurm/*.sh
echo "shellcheck: clean"
