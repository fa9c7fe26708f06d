# shellcheck shell=bash
# astrosweep-slurm.sh: what every astrosweep batch script shares (docs/slurm.md explains it):
# threads and placement of the hybrid MPI + OpenMP ranks, srun in the background with the stop
# signals passed on, requeueing on the time-limit warning (with a watchdog when the ranks are slow
# to stop), and the lines that frame the run in the log. Sourced by slurm/<job>.sbatch; defines
# functions and variables prefixed astrosweep_ and runs nothing by itself. A job's script is:
#
#   set -euo pipefail
#   <find this file and source it: the block "The shared part" of slurm/period.sbatch>
#   astrosweep_exit_meaning[2]="usage error (what it means for this job)"   # optional, 2 to 5 and other
#   astrosweep_require_env <job> "<usage text>" INPUT OUTPUT
#   astrosweep_run <job> --input "$INPUT" --output "$OUTPUT" -- "$@"
#
# which runs `srun --cpu-bind=cores $ASTROSWEEP <job> --input ... --output ... --resume <options>`
# (with --mpi=pmix, or through mpirun, where Slurm gives srun no PMI: astrosweep_choose_launcher).
# Nothing here knows a job: its subcommand and arguments are parameters.
#
# Environment: ASTROSWEEP (the executable, default astrosweep on PATH), ASTROSWEEP_LAUNCHER (auto,
# srun or mpirun; default auto), STOP_GRACE (seconds to wait for the ranks after the time-limit
# warning, default 150), MAX_REQUEUES (default 20), and Slurm's SLURM_* variables. Needs bash 4.2
# or later (declare -g; RHEL 7 has 4.2).

# What each exit code means, for the last line of the log. 0, 1 and 6 mean the same for every job;
# a job's script says what 2 to 5 mean for it, and "other" (a code astrosweep does not return: the
# step ended by a signal, by the time or memory limit, by a node failure).
declare -gA astrosweep_exit_meaning=(
  [0]="ok"
  [1]="internal error, or MPI could not start (see the MPI messages above; docs/slurm.md#mpi-start-up)"
  [2]="usage error (command line or parameters)"
  [3]="input error (missing, unreadable or malformed input)"
  [4]="output error (the output cannot be written)"
  [5]="runtime error (MPI/CUDA cannot provide what the job needs)"
  [6]="interrupted by a signal: the product is incomplete and resumable"
  [other]="ended by a signal or by Slurm (time limit, memory, node failure): see the messages above"
)

# The state the traps share with astrosweep_run (one job per batch script).
astrosweep_job=""         # the subcommand: names the log lines, astrosweep-<job>: ...
astrosweep_srun_pid=""      # the launcher (srun or mpirun) running the ranks
astrosweep_launch=()
astrosweep_launch_reason=""
astrosweep_trapped=0      # a trap ran during the last `wait`
astrosweep_time_limit_near=0
astrosweep_watchdog=""    # pid of the subshell that requeues after STOP_GRACE seconds
astrosweep_stop_grace=150
astrosweep_max_requeues=20

# astrosweep_say <words...>: one line of the job's log, prefixed astrosweep-<job>.
astrosweep_say() {
  echo "astrosweep-${astrosweep_job}: $*"
}

# astrosweep_require_env <job> <usage> <variable>...: exits with astrosweep's usage code (2),
# before anything starts, when one of the variables is unset or empty, printing <usage>.
astrosweep_require_env() {
  local job=$1 usage=$2 variable names
  shift 2
  for variable in "$@"; do
    if [[ -z ${!variable:-} ]]; then
      names=$*  # INPUT; INPUT and OUTPUT; A, B and C
      if (($# > 1)); then names="${*:1:$#-1}"; names="${names// /, } and ${!#}"; fi
      echo "${job}.sbatch: ${names} must be set in the environment" >&2
      printf '%s\n' "$usage" >&2
      exit 2  # astrosweep's "usage" exit code
    fi
  done
}

# astrosweep_requeue: puts the job back in the queue (same id; its next run continues with
# --resume), unless this is not a Slurm job or it has been requeued MAX_REQUEUES times already.
astrosweep_requeue() {
  local restarts=${SLURM_RESTART_COUNT:-0}
  if [[ -z ${SLURM_JOB_ID:-} ]]; then
    astrosweep_say "not a Slurm job: rerun the same command to continue"
    return 0
  fi
  if ((restarts >= astrosweep_max_requeues)); then
    astrosweep_say "requeued ${restarts} times already (MAX_REQUEUES): resubmit to continue"
    return 0
  fi
  astrosweep_say "$(date -Is): requeueing job ${SLURM_JOB_ID}; its next run continues with --resume"
  scontrol requeue "$SLURM_JOB_ID" || astrosweep_say "scontrol requeue failed: resubmit to continue"
}

# shellcheck disable=SC2317  # astrosweep_pass_on and astrosweep_on_time_limit run as traps
astrosweep_pass_on() {  # $1: the signal, passed to srun, which passes it to every rank
  astrosweep_trapped=1
  astrosweep_say "$(date -Is): SIG$1: the ranks finish their units and stop"
  if [[ -n $astrosweep_srun_pid ]]; then kill -s "$1" "$astrosweep_srun_pid" 2>/dev/null || true; fi
}

# shellcheck disable=SC2317
astrosweep_on_time_limit() {
  astrosweep_pass_on USR1
  astrosweep_time_limit_near=1
  if [[ -z $astrosweep_watchdog ]]; then
    (
      sleep "$astrosweep_stop_grace"
      astrosweep_say "the ranks did not stop within ${astrosweep_stop_grace} s"
      astrosweep_requeue
    ) &
    astrosweep_watchdog=$!
  fi
}

# astrosweep_choose_launcher: sets astrosweep_launch (the command that starts the ranks) and
# astrosweep_launch_reason. srun can start MPI ranks only through a PMI plugin the MPI library
# speaks. A site that sets MpiDefault, or a user who sets SLURM_MPI_TYPE, has chosen one; Slurm's
# own default, MpiDefault=none, gives the ranks none, and OpenMPI then dies in MPI_Init ("OMPI was
# not built with SLURM's PMI support"). Then srun --mpi=pmix when srun offers PMIx (what Debian's
# and most OpenMPI builds speak), else mpirun inside the allocation (it starts its daemons with
# srun and needs no PMI). ASTROSWEEP_LAUNCHER=srun or mpirun forces either.
astrosweep_choose_launcher() {
  local choice=${ASTROSWEEP_LAUNCHER:-auto} mpi_default="" plugins=""
  local srun_launch=(srun --cpu-bind=cores)
  # mpirun: the allocation's tasks, each bound to its --cpus-per-task cores as srun would.
  local mpirun_launch=(mpirun -np "${SLURM_NTASKS:-1}" --map-by "slot:PE=${SLURM_CPUS_PER_TASK:-1}" --bind-to core)
  case $choice in
    srun | mpirun | auto) ;;
    *)
      echo "${astrosweep_job}.sbatch: ASTROSWEEP_LAUNCHER must be auto, srun or mpirun, not '$choice'" >&2
      exit 2
      ;;
  esac
  if [[ $choice == srun ]]; then
    astrosweep_launch=("${srun_launch[@]}") astrosweep_launch_reason="ASTROSWEEP_LAUNCHER=srun"
  elif [[ $choice == mpirun ]]; then
    astrosweep_launch=("${mpirun_launch[@]}") astrosweep_launch_reason="ASTROSWEEP_LAUNCHER=mpirun"
  elif [[ -n ${SLURM_MPI_TYPE:-} && $SLURM_MPI_TYPE != none ]]; then
    astrosweep_launch=("${srun_launch[@]}") astrosweep_launch_reason="SLURM_MPI_TYPE=$SLURM_MPI_TYPE"
  else
    mpi_default=$(scontrol show config 2>/dev/null | awk -F' *= *' '$1 == "MpiDefault" {print $2}') || true
    if [[ -n $mpi_default && $mpi_default != none ]]; then
      astrosweep_launch=("${srun_launch[@]}") astrosweep_launch_reason="the site's MpiDefault=$mpi_default"
    elif plugins=$(srun --mpi=list 2>&1) && grep -qw pmix <<<"$plugins"; then
      astrosweep_launch=(srun --mpi=pmix --cpu-bind=cores)
      astrosweep_launch_reason="MpiDefault=${mpi_default:-unknown} gives srun no PMI; srun offers PMIx"
    elif command -v mpirun >/dev/null 2>&1; then
      astrosweep_launch=("${mpirun_launch[@]}")
      astrosweep_launch_reason="MpiDefault=${mpi_default:-unknown} and srun offers no PMIx: mpirun inside the allocation"
    else
      astrosweep_launch=("${srun_launch[@]}")
      astrosweep_launch_reason="no PMIx in srun and no mpirun found: MPI may fail to start (docs/slurm.md#mpi-start-up)"
    fi
  fi
}

# astrosweep_run <job> [<job's arguments>...] [-- <user's options>...]: runs
#   srun --cpu-bind=cores $ASTROSWEEP <job> <job's arguments> --resume <user's options>
# with the signals and requeueing described below, prints the exit code with its meaning, and
# exits with it (it does not return). --output <path> among the job's arguments names the product
# in the message of a requeued run.
astrosweep_run() {
  astrosweep_job=$1
  shift
  ASTROSWEEP=${ASTROSWEEP:-astrosweep}
  local step=("$ASTROSWEEP" "$astrosweep_job") product="" previous=""  # what srun runs
  while (($# > 0)) && [[ $1 != -- ]]; do
    if [[ $previous == --output ]]; then product=$1; fi
    previous=$1
    step+=("$1")
    shift
  done
  if (($# > 0)); then shift; fi  # the --; what is left are the user's options
  step+=(--resume "$@")

  if ! command -v "$ASTROSWEEP" >/dev/null 2>&1; then
    echo "${astrosweep_job}.sbatch: astrosweep executable '$ASTROSWEEP' not found; set ASTROSWEEP=/path/to/astrosweep" >&2
    exit 2
  fi

  # --- Threads and placement ----------------------------------------------------------------------
  # One OpenMP thread per core given to the rank: more would oversubscribe the cores, fewer would
  # leave them idle. (Outside Slurm, e.g. when trying the script by hand, fall back to 1.)
  export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
  # No OMP_PROC_BIND/OMP_PLACES: where Slurm binds nothing (TaskPlugin=task/none) every rank sees
  # the whole node, and OpenMP would pin the threads of every rank to the same first cores.
  # astrosweep keeps each rank's threads on the cores it was bound to, or on its share of the node
  # when it was bound to none (docs/slurm.md#choosing-nodes-x-ranks-per-node-x-threads).
  # Slurm 22.05 stopped srun inheriting --cpus-per-task from sbatch; without this, on such versions,
  # every rank would be bound to one core and its threads would share it. Harmless elsewhere.
  export SRUN_CPUS_PER_TASK=${SLURM_CPUS_PER_TASK:-1}

  astrosweep_say "job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NUM_NODES:-?} node(s) (${SLURM_JOB_NODELIST:-?}):" \
                 "${SLURM_NTASKS:-?} ranks x ${OMP_NUM_THREADS} threads; GPUs per task: ${SLURM_GPUS_PER_TASK:-none}"
  astrosweep_choose_launcher
  astrosweep_say "launcher: ${astrosweep_launch[*]} (${astrosweep_launch_reason})"
  astrosweep_say "$(command -v "$ASTROSWEEP") ${step[*]:1}"
  astrosweep_say "started $(date -Is)"

  # --- Signals and requeueing -----------------------------------------------------------------------
  # srun runs in the background so that the traps below run at once (bash runs a trap only after
  # the foreground command has finished). SIGUSR1 (the time limit is near): pass it on, and requeue
  # once the ranks have stopped, or after STOP_GRACE seconds (less than the 180 s of --signal) even
  # if they have not: requeueing kills the step, and only units already journalled are kept.
  # SIGTERM (scancel, preemption, the time limit itself): pass it on, no requeue (Slurm requeues
  # preempted jobs itself).
  astrosweep_stop_grace=${STOP_GRACE:-150}
  astrosweep_max_requeues=${MAX_REQUEUES:-20}
  trap astrosweep_on_time_limit USR1
  trap 'astrosweep_pass_on TERM' TERM

  if ((${SLURM_RESTART_COUNT:-0} > 0)); then
    astrosweep_say "restart ${SLURM_RESTART_COUNT} of job ${SLURM_JOB_ID:-?}: continuing ${product:-the product}"
  fi

  # --cpu-bind=cores (mpirun: --map-by slot:PE=n --bind-to core) gives each rank its own block
  # of --cpus-per-task cores, on which its threads run.
  "${astrosweep_launch[@]}" "${step[@]}" &
  astrosweep_srun_pid=$!
  local rc status
  while :; do
    astrosweep_trapped=0
    rc=0
    wait "$astrosweep_srun_pid" || rc=$?
    # A trap interrupts `wait` (status > 128) while srun runs on: wait again.
    if ((astrosweep_trapped && rc > 128)) && kill -0 "$astrosweep_srun_pid" 2>/dev/null; then continue; fi
    if ((astrosweep_trapped && rc > 128)); then  # srun ended just as the trap ran: its own status
      status=0
      wait "$astrosweep_srun_pid" 2>/dev/null || status=$?
      if ((status != 127)); then rc=$status; fi
    fi
    break
  done
  local watchdog_requeued=0  # the watchdog ran out of patience and has requeued already
  if [[ -n $astrosweep_watchdog ]]; then
    if kill -0 "$astrosweep_watchdog" 2>/dev/null; then
      kill "$astrosweep_watchdog" 2>/dev/null || true
    else
      watchdog_requeued=1
    fi
  fi

  local meaning=${astrosweep_exit_meaning[$rc]:-${astrosweep_exit_meaning[other]}}
  astrosweep_say "finished $(date -Is) with exit code $rc: $meaning"
  if ((rc == 6 && astrosweep_time_limit_near && !watchdog_requeued)); then
    astrosweep_requeue
  elif ((rc == 6 && watchdog_requeued)); then
    astrosweep_say "requeued by the watchdog: the job's next run continues with --resume"
  elif ((rc == 6)); then
    astrosweep_say "submit the same command again to continue (it passes --resume)"
  fi
  exit "$rc"
}
