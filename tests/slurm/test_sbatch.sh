#!/usr/bin/env bash
# test_sbatch.sh <astrosweep source dir> <job>: runs slurm/<job>.sbatch with bash the way Slurm
# runs a batch script (a copy in a spool directory, SLURM_* in the environment), against stand-in
# srun and scontrol written into a temporary directory, and checks what docs/slurm.md promises:
# the library is found, the job's command reaches srun with --resume, SIGUSR1 is passed on and
# ends in `scontrol requeue <job id>`, SIGTERM is passed on without a requeue, the watchdog
# requeues when the ranks do not stop, MAX_REQUEUES holds, exit codes are the job's. No Slurm, MPI
# or astrosweep build is needed; it takes a few seconds. Registered by tests/slurm/CMakeLists.txt.
set -uo pipefail  # no -e: a failed check is reported and the others still run

if (($# != 2)); then
  echo "usage: $0 <astrosweep source dir> <job>" >&2
  exit 2
fi
source_dir=$(cd "$1" && pwd)
job=$2
script=$source_dir/slurm/$job.sbatch
library=$source_dir/slurm/astrosweep-slurm.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/astrosweep-slurm-$job.XXXXXX")
failures=0
case_number=0
job_id=4242

ok() { echo "ok      $*"; }
fail() {
  echo "FAILED  $*"
  failures=$((failures + 1))
}

# check <what> <command...>: one check, reported by what it checks.
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
has() { grep -q -e "$2" "$1" 2>/dev/null; }   # has <file> <regex>
lacks() { ! has "$1" "$2"; }
same() { [[ $(cat "$1" 2>/dev/null) == "$2" ]]; }  # same <file> <exact content>

# new_case: a directory for one scenario (numbered: PATH cannot hold every name): bin/ (stand-ins on PATH), spool/slurm_script (the copy
# of the batch script, alone as in slurmd's spool directory), state/ (what the stand-ins record).
new_case() {
  case_number=$((case_number + 1))
  case_dir=$work/case-$case_number
  mkdir -p "$case_dir/bin" "$case_dir/spool" "$case_dir/state"
  cp "$script" "$case_dir/spool/slurm_script"

  # srun: records its command line, the threads the ranks would get, and the signals it receives.
  # STANDIN_SRUN: exit:N (ends at once with N), stop-on-signal (ends with 6 on SIGUSR1 or SIGTERM,
  # as the ranks do), ignore-signals (ranks that do not stop in time). Never runs over 30 s.
  cat >"$case_dir/bin/srun" <<'EOF'
#!/usr/bin/env bash
state=$STANDIN_STATE
# `srun --mpi=list` (the launcher's question): the PMI plugins of STANDIN_MPI_PLUGINS, as
# Slurm 22.05 prints them; not a step, so not recorded.
if [[ $* == --mpi=list ]]; then
  echo "MPI plugin types are..."
  for plugin in ${STANDIN_MPI_PLUGINS-none pmix pmi2}; do echo "	$plugin"; done
  exit 0
fi
basename "$0" >"$state/launcher"
printf '%s\n' "$@" >"$state/srun.args"
printf 'OMP_NUM_THREADS=%s SRUN_CPUS_PER_TASK=%s OMP_PROC_BIND=%s OMP_PLACES=%s\n' "${OMP_NUM_THREADS-}" \
  "${SRUN_CPUS_PER_TASK-}" "${OMP_PROC_BIND-}" "${OMP_PLACES-}" >"$state/srun.env"
case $STANDIN_SRUN in
  exit:*) exit "${STANDIN_SRUN#exit:}" ;;
  stop-on-signal)
    trap 'echo USR1 >>"$state/srun.signals"; exit 6' USR1
    trap 'echo TERM >>"$state/srun.signals"; exit 6' TERM ;;
  ignore-signals)
    trap 'echo USR1 >>"$state/srun.signals"' USR1
    trap 'echo TERM >>"$state/srun.signals"' TERM ;;
esac
echo $$ >"$state/srun.pid"
touch "$state/srun.running"
for ((i = 0; i < 300; i++)); do sleep 0.1; done
exit 99
EOF
  # scontrol: records its command line. With STANDIN_REQUEUE_KILLS_STEP=1, `requeue` kills the
  # running srun, as Slurm does when it requeues a job.
  cat >"$case_dir/bin/scontrol" <<'EOF'
#!/usr/bin/env bash
# `scontrol show config` (the launcher's question): MpiDefault from STANDIN_MPI_DEFAULT; not recorded.
if [[ $* == "show config" ]]; then
  printf 'Configuration data as of now\nMpiDefault              = %s\nMpiParams               = (null)\n' \
    "${STANDIN_MPI_DEFAULT-none}"
  exit 0
fi
echo "$*" >>"$STANDIN_STATE/scontrol.calls"
if [[ $1 == requeue && ${STANDIN_REQUEUE_KILLS_STEP:-0} == 1 && -f $STANDIN_STATE/srun.pid ]]; then
  kill -KILL "$(cat "$STANDIN_STATE/srun.pid")"
fi
EOF
  # mpirun: the launcher where srun offers no PMIx; the stand-in srun under another name (it
  # records which name ran in state/launcher).
  cp "$case_dir/bin/srun" "$case_dir/bin/mpirun"
  # astrosweep: only looked up (command -v); the stand-in srun never runs it.
  printf '#!/bin/sh\nexit 1\n' >"$case_dir/bin/astrosweep"
  chmod +x "$case_dir/bin/srun" "$case_dir/bin/mpirun" "$case_dir/bin/scontrol" "$case_dir/bin/astrosweep"
}

# run_batch <signal or -> <script path> [VAR=value...] [-- <options for the job>...]: runs the batch
# script in a clean environment (Slurm's variables of a 1-node job and INPUT/OUTPUT, overridden by
# the arguments; VAR= empties one, which the scripts take as unset), from the case directory. With
# a signal, sends it to the batch shell once srun runs, as `--signal=B:USR1@180` does. Sets rc; the
# log is case_dir/log.
run_batch() {
  local signal=$1 batch=$2 i pid
  shift 2
  local settings=(PATH="$case_dir/bin:$PATH" HOME="$case_dir" STANDIN_STATE="$case_dir/state"
    STANDIN_SRUN=exit:0 SLURM_SUBMIT_DIR="$source_dir" SLURM_JOB_ID="$job_id" SLURM_JOB_NUM_NODES=1
    SLURM_JOB_NODELIST=node01 SLURM_NTASKS=4 SLURM_CPUS_PER_TASK=8 INPUT=in.h5 OUTPUT=out.h5)
  while (($# > 0)) && [[ $1 != -- ]]; do
    settings+=("$1")
    shift
  done
  if (($# > 0)); then shift; fi
  # env applies the settings in order: the last of a variable wins.
  (cd "$case_dir" && exec env -i "${settings[@]}" "$BASH" "$batch" "$@" </dev/null >"$case_dir/log" 2>&1) &
  pid=$!
  if [[ $signal != - ]]; then
    for ((i = 0; i < 100; i++)); do [[ -e $case_dir/state/srun.running ]] && break; sleep 0.1; done
    sleep 0.2  # the batch shell has noted srun's pid by now
    kill -s "$signal" "$pid" 2>/dev/null || fail "$case_name: the batch script ended before the signal"
  fi
  for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    fail "$case_name: the batch script did not end within 30 s"
  fi
  rc=0
  wait "$pid" || rc=$?
}

# scenario <name>: starts one; a failed scenario shows its log.
scenario() {
  case_name=$1
  echo "--- $job.sbatch: $case_name"
  new_case
  failures_before=$failures
}
end_scenario() {
  if ((failures > failures_before)); then
    echo "    log of the batch script ($case_dir/log):"
    sed 's/^/    | /' "$case_dir/log"
    for f in "$case_dir"/state/*; do [[ -f $f ]] && echo "    $(basename "$f"): $(tr '\n' ' ' <"$f")"; done
  fi
}

expected_srun_args=$(printf '%s\n' --mpi=pmix --cpu-bind=cores astrosweep "$job" --input in.h5 --output out.h5 --resume \
  --an-option "two words")
prefix="astrosweep-$job:"

echo "--- $job.sbatch: syntax"
check "bash -n $job.sbatch" bash -n "$script"
check "bash -n astrosweep-slurm.sh" bash -n "$library"

scenario "exit 0, library found from SLURM_SUBMIT_DIR"
run_batch - spool/slurm_script -- --an-option "two words"
check "exit code 0" test "$rc" -eq 0
check "srun gets the job's command line with --resume (arguments intact)" same "$case_dir/state/srun.args" "$expected_srun_args"
check "one OpenMP thread per core of the rank; no OpenMP pinning (wrong where Slurm binds nothing)" \
  same "$case_dir/state/srun.env" "OMP_NUM_THREADS=8 SRUN_CPUS_PER_TASK=8 OMP_PROC_BIND= OMP_PLACES="
check "the log frames the run" has "$case_dir/log" "^$prefix job $job_id on 1 node(s) (node01): 4 ranks x 8 threads"
check "the log shows the command" has "$case_dir/log" "^$prefix .*/astrosweep $job --input in.h5 --output out.h5 --resume --an-option two words\$"
check "the log ends with the exit code and its meaning" has "$case_dir/log" "^$prefix finished .* with exit code 0: ok\$"
check "no requeue" test ! -e "$case_dir/state/scontrol.calls"
check "the launcher and why: srun offers PMIx, Slurm's MpiDefault gives none" \
  has "$case_dir/log" "^$prefix launcher: srun --mpi=pmix --cpu-bind=cores (MpiDefault=none gives srun no PMI; srun offers PMIx)\$"
end_scenario

# The launcher (docs/slurm.md#mpi-start-up): srun with the PMI the site or the user chose, else
# srun --mpi=pmix, else mpirun inside the allocation; ASTROSWEEP_LAUNCHER forces one.
without_pmix_args=$(printf '%s\n' --cpu-bind=cores astrosweep "$job" --input in.h5 --output out.h5 --resume)
mpirun_args=$(printf '%s\n' -np 4 --map-by slot:PE=8 --bind-to core astrosweep "$job" --input in.h5 --output out.h5 --resume)

scenario "launcher: SLURM_MPI_TYPE set by the user: srun as it is"
run_batch - spool/slurm_script SLURM_MPI_TYPE=pmi2
check "exit code 0" test "$rc" -eq 0
check "srun without --mpi" same "$case_dir/state/srun.args" "$without_pmix_args"
check "the log says why" has "$case_dir/log" "^$prefix launcher: srun --cpu-bind=cores (SLURM_MPI_TYPE=pmi2)\$"
end_scenario

scenario "launcher: the site's MpiDefault=pmix: srun as it is"
run_batch - spool/slurm_script STANDIN_MPI_DEFAULT=pmix
check "srun without --mpi" same "$case_dir/state/srun.args" "$without_pmix_args"
check "the log says why" has "$case_dir/log" "^$prefix launcher: srun --cpu-bind=cores (the site's MpiDefault=pmix)\$"
end_scenario

scenario "launcher: srun offers no PMIx: mpirun inside the allocation, ranks bound as srun would"
run_batch - spool/slurm_script "STANDIN_MPI_PLUGINS=none pmi2"
check "exit code 0" test "$rc" -eq 0
check "mpirun ran the ranks" same "$case_dir/state/launcher" mpirun
check "mpirun gets the tasks, their cores and the job's command line" same "$case_dir/state/srun.args" "$mpirun_args"
check "the log says why" has "$case_dir/log" "^$prefix launcher: mpirun .* (MpiDefault=none and srun offers no PMIx: mpirun inside the allocation)\$"
end_scenario

scenario "launcher: ASTROSWEEP_LAUNCHER=mpirun forces mpirun; a wrong value is a usage error"
run_batch - spool/slurm_script ASTROSWEEP_LAUNCHER=mpirun
check "mpirun ran the ranks" same "$case_dir/state/launcher" mpirun
check "with the tasks and their cores" same "$case_dir/state/srun.args" "$mpirun_args"
rm -f "$case_dir/state/launcher" "$case_dir/state/srun.args"
run_batch - spool/slurm_script ASTROSWEEP_LAUNCHER=mpiexec
check "wrong value: exit code 2" test "$rc" -eq 2
check "... named" has "$case_dir/log" "^$job.sbatch: ASTROSWEEP_LAUNCHER must be auto, srun or mpirun, not 'mpiexec'\$"
check "... nothing started" test ! -e "$case_dir/state/srun.args"
end_scenario

scenario "SIGUSR1 (time limit near): passed to srun, ranks stop with 6, requeue"
run_batch USR1 spool/slurm_script STANDIN_SRUN=stop-on-signal STOP_GRACE=5
check "exit code 6" test "$rc" -eq 6
check "srun got SIGUSR1" same "$case_dir/state/srun.signals" USR1
check "scontrol requeue $job_id, once" same "$case_dir/state/scontrol.calls" "requeue $job_id"
check "the log says so" has "$case_dir/log" "^$prefix .*: SIGUSR1: the ranks finish their units and stop\$"
check "the log says it requeues" has "$case_dir/log" "^$prefix .*: requeueing job $job_id; its next run continues with --resume\$"
check "exit code 6 and its meaning" has "$case_dir/log" "^$prefix finished .* with exit code 6: interrupted by a signal: the product is incomplete and resumable\$"
end_scenario

scenario "SIGTERM (scancel): passed to srun, no requeue"
run_batch TERM spool/slurm_script STANDIN_SRUN=stop-on-signal
check "exit code 6" test "$rc" -eq 6
check "srun got SIGTERM" same "$case_dir/state/srun.signals" TERM
check "no requeue" test ! -e "$case_dir/state/scontrol.calls"
check "the log says to submit again" has "$case_dir/log" "^$prefix submit the same command again to continue (it passes --resume)\$"
end_scenario

scenario "exit 6 without the time-limit warning (ranks signalled directly): no requeue"
run_batch - spool/slurm_script STANDIN_SRUN=exit:6
check "exit code 6" test "$rc" -eq 6
check "no requeue" test ! -e "$case_dir/state/scontrol.calls"
check "the log says to submit again" has "$case_dir/log" "^$prefix submit the same command again to continue"
end_scenario

scenario "SIGUSR1, ranks do not stop: the watchdog requeues after STOP_GRACE"
run_batch USR1 spool/slurm_script STANDIN_SRUN=ignore-signals STANDIN_REQUEUE_KILLS_STEP=1 STOP_GRACE=1
check "srun got SIGUSR1" same "$case_dir/state/srun.signals" USR1
check "the log says the ranks did not stop" has "$case_dir/log" "^$prefix the ranks did not stop within 1 s\$"
check "scontrol requeue $job_id, once" same "$case_dir/state/scontrol.calls" "requeue $job_id"
check "exit code: srun's, killed by the requeue (137)" test "$rc" -eq 137
check "its meaning" has "$case_dir/log" "^$prefix finished .* with exit code 137: ended by a signal or by Slurm"
check "no advice to resubmit: the job is requeued" lacks "$case_dir/log" "submit the same command again"
end_scenario

scenario "SIGUSR1 after MAX_REQUEUES restarts: no requeue"
run_batch USR1 spool/slurm_script STANDIN_SRUN=stop-on-signal STOP_GRACE=5 SLURM_RESTART_COUNT=3 MAX_REQUEUES=3
check "exit code 6" test "$rc" -eq 6
check "the log names the restart and the product" has "$case_dir/log" "^$prefix restart 3 of job $job_id: continuing out.h5\$"
check "no requeue" test ! -e "$case_dir/state/scontrol.calls"
check "the log says why" has "$case_dir/log" "^$prefix requeued 3 times already (MAX_REQUEUES): resubmit to continue\$"
end_scenario

scenario "another exit code: passed through with its meaning"
run_batch - spool/slurm_script STANDIN_SRUN=exit:3
check "exit code 3" test "$rc" -eq 3
check "its meaning" has "$case_dir/log" "^$prefix finished .* with exit code 3: input error"
check "no requeue" test ! -e "$case_dir/state/scontrol.calls"
end_scenario

scenario "library not found: clear message, exit 2"
run_batch - spool/slurm_script SLURM_SUBMIT_DIR="$work"
check "exit code 2" test "$rc" -eq 2
check "the message names the library" has "$case_dir/log" "^$job.sbatch: the Slurm library astrosweep-slurm.sh was not found; looked for:\$"
check "... where it looked: SLURM_SUBMIT_DIR/slurm" has "$case_dir/log" "^  $work/slurm/astrosweep-slurm.sh\$"
check "... and beside the script" has "$case_dir/log" "^  spool/astrosweep-slurm.sh\$"
check "... and what to do" has "$case_dir/log" "set ASTROSWEEP_HOME=/path/to/astrosweep"
check "srun not run" test ! -e "$case_dir/state/srun.args"
end_scenario

scenario "ASTROSWEEP_HOME: found there; when wrong, it is the only place looked"
run_batch - spool/slurm_script SLURM_SUBMIT_DIR= ASTROSWEEP_HOME="$source_dir"
check "found in ASTROSWEEP_HOME/slurm: exit code 0" test "$rc" -eq 0
run_batch - spool/slurm_script ASTROSWEEP_HOME="$work/elsewhere"
check "wrong ASTROSWEEP_HOME: exit code 2" test "$rc" -eq 2
check "... naming it" has "$case_dir/log" "^  $work/elsewhere/slurm/astrosweep-slurm.sh\$"
check "... and only it" lacks "$case_dir/log" "^  $source_dir/"
run_batch - spool/slurm_script SLURM_SUBMIT_DIR= ASTROSWEEP_SLURM_LIB="$library"
check "ASTROSWEEP_SLURM_LIB names the file: exit code 0" test "$rc" -eq 0
end_scenario

scenario "run directly with bash, outside Slurm: found beside the script"
run_batch - "$script" SLURM_SUBMIT_DIR= SLURM_JOB_ID= SLURM_CPUS_PER_TASK=
check "exit code 0" test "$rc" -eq 0
check "one thread per rank outside Slurm" \
  same "$case_dir/state/srun.env" "OMP_NUM_THREADS=1 SRUN_CPUS_PER_TASK=1 OMP_PROC_BIND= OMP_PLACES="
end_scenario

scenario "INPUT or OUTPUT unset: usage, exit 2, nothing started"
run_batch - spool/slurm_script INPUT=
check "exit code 2" test "$rc" -eq 2
check "the message" has "$case_dir/log" "^$job.sbatch: INPUT and OUTPUT must be set in the environment\$"
check "the usage" has "$case_dir/log" "^usage: INPUT=<.*> OUTPUT=<product.h5> \[ASTROSWEEP=<path>\]"
check "srun not run" test ! -e "$case_dir/state/srun.args"
end_scenario

scenario "ASTROSWEEP not found: exit 2, nothing started"
run_batch - spool/slurm_script ASTROSWEEP="$work/no-such-astrosweep"
check "exit code 2" test "$rc" -eq 2
check "the message" has "$case_dir/log" "^$job.sbatch: astrosweep executable '$work/no-such-astrosweep' not found; set ASTROSWEEP=/path/to/astrosweep\$"
check "srun not run" test ! -e "$case_dir/state/srun.args"
end_scenario

if ((failures > 0)); then
  echo "$job.sbatch: $failures check(s) failed; the runs are in $work"
  exit 1
fi
rm -rf "$work"
echo "$job.sbatch: all checks passed"
