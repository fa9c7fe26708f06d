#!/usr/bin/env bash
# A one-node Slurm on this machine, from Debian's packages with Slurm's stock settings
# (MpiDefault=none, TaskPlugin=task/none, no cgroups), to try the batch scripts as they are
# (docs/slurm.md#trying-the-scripts-on-a-stock-slurm). Not part of CI: it installs packages and starts
# daemons, so it needs root on a machine you may change.
#
#   tools/slurm_local_cluster.sh up       install slurmctld, slurmd, munge if missing; start them with a
#                                         private configuration; wait until the node is idle
#   tools/slurm_local_cluster.sh check    up, then submit slurm/period.sbatch, scfind.sbatch and
#                                         fdas.sbatch on bundled data, and compare each product with
#                                         the same job run by mpirun (BUILD_DIR, default build)
#   tools/slurm_local_cluster.sh down     stop the daemons this script started
#
# The configuration and state live in $SLURM_LOCAL_DIR (default /tmp/astrosweep-slurm); nothing
# under /etc/slurm is touched. To use the cluster from a shell: export SLURM_CONF=$SLURM_LOCAL_DIR/slurm.conf
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${SLURM_LOCAL_DIR:-/tmp/astrosweep-slurm}
conf=$dir/slurm.conf
build=${BUILD_DIR:-build}
export SLURM_CONF=$conf

say() { echo "slurm_local_cluster: $*"; }
die() {
  say "$*" >&2
  exit 1
}

install_packages() {
  local missing=()
  command -v slurmctld >/dev/null || missing+=(slurmctld)
  command -v slurmd >/dev/null || missing+=(slurmd)
  command -v sbatch >/dev/null || missing+=(slurm-client)
  command -v munged >/dev/null || missing+=(munge)
  if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

start_munge() {
  if pgrep -x munged >/dev/null; then return; fi
  if [[ ! -s /etc/munge/munge.key ]]; then
    mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null ||
      dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
  fi
  chown munge:munge /etc/munge/munge.key 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
  mkdir -p /run/munge
  chown munge:munge /run/munge 2>/dev/null || true
  if id munge >/dev/null 2>&1; then
    runuser -u munge -- munged
  else
    munged --force
  fi
}

write_config() {
  local host cpus memory
  host=$(hostname -s)
  cpus=$(nproc)
  memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024))
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  # Slurm's defaults except where a one-node cluster in a container needs otherwise; in particular
  # MpiDefault=none and TaskPlugin=task/none, as a stock installation has them.
  cat >"$conf" <<EOF
ClusterName=astrosweep-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
JobRequeue=1
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
}

up() {
  install_packages
  start_munge
  if scontrol ping 2>/dev/null | grep -q UP; then
    say "already up ($conf)"
  else
    write_config
    slurmctld -f "$conf"
    slurmd -f "$conf"
  fi
  local i
  for ((i = 0; i < 60; ++i)); do
    if sinfo -h -o %t 2>/dev/null | grep -qx idle; then
      say "up: $(sinfo -h -o '%P %D %c %t') (SLURM_CONF=$conf)"
      say "srun --mpi=list: $(srun --mpi=list 2>&1 | tr -s '\n' ' ')"
      return
    fi
    sleep 1
  done
  die "the node did not become idle within 60 s; see $dir/log"
}

down() {
  local pidfile
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
    if [[ -s $pidfile ]]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
  done
  say "stopped"
}

# submit <name> <script> <environment...> -- <sbatch options> -- <job options>: sbatch --wait; prints
# the job's log and returns its exit code.
submit() {
  local name=$1 script=$2 rc=0
  shift 2
  local envs=() sbatch_options=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  while [[ $1 != -- ]]; do sbatch_options+=("$1"); shift; done
  shift
  local log=$dir/log/$name.out
  say "submitting $script: ${envs[*]} sbatch ${sbatch_options[*]} $script $*"
  env "${envs[@]}" sbatch --wait --output="$log" "${sbatch_options[@]}" "$script" "$@" >/dev/null || rc=$?
  sed "s/^/  | /" "$log"
  return "$rc"
}

check() {
  up
  [[ -x $build/astrosweep ]] || die "$build/astrosweep not found: build first (BUILD_DIR)"
  local out=$dir/products exe compare failures=0
  exe=$(realpath "$build/astrosweep")
  compare=$(realpath "$build/tests/compare_products")
  rm -rf "$out" "$dir"/log/*.out && mkdir -p "$out"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_btl_vader_single_copy_mechanism=none

  # period on the bundled SDSS Stripe 82 light curves; scfind on a generated cube; fdas on a
  # generated beam of DM trials. Each: sbatch (2 ranks x 1 core) and mpirun -np 2.
  local lc=tests/data/lightcurves/sdss_stripe82_z.csv
  local period_options=(--fmin 0.5 --fmax 24 --n-freq 20000 --top-k 3)
  "$build/tools/make_scfind_cube" --nx 64 --ny 64 --nz 48 --sources 5 -o "$out/cube.fits" >/dev/null
  "$build/tests/fdas/make_fdas_beam" -o "$out/beam" --n 32768 --z 5 --n-dm 4 >/dev/null
  local fdas_options=(--zmax 10 --numharm 4)

  local job input options
  for job in period scfind fdas; do
    case $job in
      period) input=$lc options=("${period_options[@]}") ;;
      scfind) input=$out/cube.fits options=() ;;
      fdas) input=$out/beam options=("${fdas_options[@]}") ;;
    esac
    if submit "$job" "slurm/$job.sbatch" "ASTROSWEEP=$exe" "INPUT=$input" "OUTPUT=$out/$job-sbatch.h5" \
      -- --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 --time=10 -- "${options[@]}"; then
      mpirun -np 2 "$exe" "$job" --input "$input" --output "$out/$job-mpirun.h5" --quiet "${options[@]}" >/dev/null 2>&1
      if "$compare" "$out/$job-mpirun.h5" "$out/$job-sbatch.h5" --datasets-only >/dev/null; then
        say "$job.sbatch: exit 0, product identical to mpirun's"
      else
        say "$job.sbatch: exit 0, but its product differs from mpirun's"
        failures=$((failures + 1))
      fi
    else
      say "$job.sbatch: failed (log above)"
      failures=$((failures + 1))
    fi
  done
  # The fallback for a Slurm whose srun offers no PMIx: mpirun inside the allocation.
  if submit period-mpirun slurm/period.sbatch "ASTROSWEEP=$exe" "INPUT=$lc" "OUTPUT=$out/period-launcher-mpirun.h5" \
    ASTROSWEEP_LAUNCHER=mpirun -- --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 --time=10 -- "${period_options[@]}" &&
    "$compare" "$out/period-mpirun.h5" "$out/period-launcher-mpirun.h5" --datasets-only >/dev/null; then
    say "period.sbatch with ASTROSWEEP_LAUNCHER=mpirun: exit 0, product identical to mpirun's"
  else
    say "period.sbatch with ASTROSWEEP_LAUNCHER=mpirun: failed or differs (log above)"
    failures=$((failures + 1))
  fi
  ((failures == 0)) || die "$failures of 4 batch runs failed"
  say "the three batch scripts (and the mpirun launcher) ran on a stock Slurm and match mpirun"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  check) check ;;
  *) die "usage: $0 up|check|down" ;;
esac
