# shellcheck shell=bash
# Sourced by run.sbatch and array.sbatch, never run on its own: runs one `wordsens run` step and
# turns the driver's exit code into the job's fate (see docs/COMMANDS.md "Exit codes"):
#   0  finished                        -> exit 0, job COMPLETED
#   3  checkpointed (USR1, wall time)  -> `scontrol requeue` this job; the rerun resumes from the file
#   anything else                      -> exit with it, so the job ends FAILED, never COMPLETED
# Inputs (site settings, set at the top of the sbatch scripts or in the submitting environment):
#   WORDSENS_BIN, WORDSENS_LAUNCHER (srun|mpirun), WORDSENS_SRUN_MPI, WORDSENS_MPIRUN_ARGS,
#   WORDSENS_MODULES, WORDSENS_MAX_REQUEUES.

wordsens_log() { echo "[wordsens-job $(date -u +%FT%TZ) ${SLURM_JOB_ID:-nojob}] $*"; }

# wordsens_mpi_step: how the step is launched (beside this file's folder: jobs/mpi_step.sh).
# shellcheck source=jobs/mpi_step.sh
source "$(dirname "${BASH_SOURCE[0]}")/../mpi_step.sh"

# Modules, Open MPI's root guard, sanity checks. Exits 2 (like a bad command line) on bad setup.
wordsens_setup() {
  if [ -n "${WORDSENS_MODULES:-}" ]; then
    # `module` is a shell function that only exists once the site's init script is sourced.
    if ! command -v module >/dev/null 2>&1; then
      wordsens_log "error: WORDSENS_MODULES is set but the 'module' command is not available"
      exit 2
    fi
    # shellcheck disable=SC2086  # a list of module names
    module load ${WORDSENS_MODULES}
  fi
  if [ "$(id -u)" -eq 0 ]; then
    # Open MPI refuses to start as root without both of these.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  if [ ! -x "${WORDSENS_BIN}" ]; then
    wordsens_log "error: wordsens binary '${WORDSENS_BIN}' not found or not executable" \
      "(set WORDSENS_BIN or WORDSENS_HOME)"
    exit 2
  fi
  case "${WORDSENS_LAUNCHER}" in
    srun | mpirun) ;;
    *)
      wordsens_log "error: WORDSENS_LAUNCHER must be srun or mpirun, not '${WORDSENS_LAUNCHER}'"
      exit 2
      ;;
  esac
  wordsens_log "start: host $(hostname -s), restart ${SLURM_RESTART_COUNT:-0}," \
    "${SLURM_NTASKS:-?} tasks on ${SLURM_JOB_NUM_NODES:-?} node(s), launcher ${WORDSENS_LAUNCHER}"
  if [ "${SLURM_NTASKS:-}" = 1 ]; then
    # The scripts fix no layout, and sbatch's default is one task.
    wordsens_log "note: one rank; ask sbatch for more with -n R (or -N and --ntasks-per-node)," \
      "or submit with jobs/slurm/submit.sh"
  fi
}

# Runs `$WORDSENS_BIN "$@"` under the launcher and sets WORDSENS_RC to its exit code, through
# jobs/mpi_step.sh: the launcher runs in the background so that the batch shell can act on
# signals while it waits, each rank holds a USR1 blocked until it can take it, and mpirun cannot
# die of an early USR1 or hang on closed streams.
wordsens_launch() {
  local -a launcher
  if [ "${WORDSENS_LAUNCHER}" = srun ]; then
    launcher=(srun "--mpi=${WORDSENS_SRUN_MPI}")
  else
    # shellcheck disable=SC2206  # extra mpirun options, split on purpose
    launcher=(mpirun ${WORDSENS_MPIRUN_ARGS:-})
  fi
  wordsens_log "step: ${launcher[*]} ${WORDSENS_BIN} $*"
  # USR1 reaches the batch shell only with --signal=B:USR1@… or `scancel --batch`/`--full`; the
  # ranks then have not seen it, so mpi_step.sh passes it on (to the ranks as soon as one can take
  # it). TERM (cancel, time limit, preemption) reaches every step directly: just keep waiting so
  # the driver's "interrupted" exit code is logged.
  trap 'WORDSENS_SIGNALLED=1; wordsens_log "TERM: waiting for the ranks to flush"' TERM
  WORDSENS_STEP_NAME="[wordsens-job ${SLURM_JOB_ID:-nojob}]"
  wordsens_mpi_step "${launcher[@]}" -- "${WORDSENS_BIN}" "$@"
  trap - TERM
  wordsens_log "step exit code ${WORDSENS_RC}"
}

# Turns WORDSENS_RC into the job's fate. Never returns.
wordsens_finish() {
  case "${WORDSENS_RC}" in
    0)
      wordsens_log "finished"
      exit 0
      ;;
    3)
      local restarts=${SLURM_RESTART_COUNT:-0}
      if [ "${restarts}" -ge "${WORDSENS_MAX_REQUEUES}" ]; then
        wordsens_log "error: checkpointed, but already requeued ${restarts} times" \
          "(WORDSENS_MAX_REQUEUES=${WORDSENS_MAX_REQUEUES}); rerun the same job to resume"
        exit 3
      fi
      # Log first: slurmctld kills this shell as part of the requeue, often before scontrol returns.
      wordsens_log "checkpointed: requeueing job ${SLURM_JOB_ID:-}; the rerun resumes from the file"
      if [ -z "${SLURM_JOB_ID:-}" ] || ! scontrol requeue "${SLURM_JOB_ID}"; then
        wordsens_log "error: checkpointed, but 'scontrol requeue ${SLURM_JOB_ID:-}' failed;" \
          "resubmit the same job to resume"
        exit 3
      fi
      exit 0
      ;;
    *)
      wordsens_log "error: wordsens failed with exit code ${WORDSENS_RC}"
      exit "${WORDSENS_RC}"
      ;;
  esac
}
