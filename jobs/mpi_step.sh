#!/usr/bin/env bash
# One MPI step of wordsens (mpirun or srun), started so that the launcher's weak moments can
# neither kill nor hang the run. jobs/run_local.sh, jobs/reproduce_paper.sh and
# jobs/slurm/wordsens_job.sh source it; run it directly to launch a study by hand:
#
#   bash jobs/mpi_step.sh LAUNCHER [LAUNCHER OPTIONS …] -- PROGRAM [ARGS …]
#   bash jobs/mpi_step.sh mpirun -n 4 -- build/release/src/wordsens run c.ini --output r.h5
#
# Exit code: the launcher's. What it guards against (measured with Open MPI 4.1):
# - Open MPI's mpirun with stdout and stderr both closed (`>&- 2>&-`) spins forever after the
#   ranks have finished, even when they are `true`. A closed stdout or stderr is reopened on
#   /dev/null before the launcher starts.
# - A USR1 in mpirun's first milliseconds (before it installs the handler that forwards USR1 to
#   the ranks; about 10 ms, 30 ms on a loaded machine) kills it (exit 138). The launcher starts
#   with USR1 ignored, so such a USR1 is dropped and the run starts as if it had not come;
#   mpirun's own handler then forwards every later one.
# - A USR1 that reaches a rank while it is still being loaded (tens of ms after it starts: the
#   dynamic loader runs before any handler can exist) kills it, and mpirun then ends the whole
#   job. Each rank starts under `env --block-signal=USR1` (GNU coreutils 8.31 or later; without
#   it the rank starts plainly): the signal waits, blocked, until `wordsens run` has installed
#   its handlers and unblocks it, then checkpoints the run (exit 3). mpirun forwards a USR1 to
#   the ranks it has forked, even to one between its exec and the shim's first instructions (a
#   millisecond or two, longer on a loaded machine); such a rank dies of it before it has run
#   anything, and mpirun ends the job with exit 138 (128 + USR1). The run then stands where a
#   checkpoint before its first task would leave it, and is reported as one (exit 3).
# - A USR1 sent to this script (Slurm's `--signal=B:USR1@…` reaches the batch shell, or a user's
#   `kill -USR1`; one that comes before the step starts is remembered from the moment this file
#   has been sourced) is passed on as soon as the run can take it: under mpirun to the local ranks
#   that handle USR1 (one suffices: it tells rank 0, which checkpoints every rank), never to an
#   mpirun that would die of it or forward it to ranks not started yet; under srun to srun at
#   once (srun forwards it to the ranks, which hold it blocked until they can take it). Only
#   one arriving in the instant mpirun is forked is dropped (the run then starts as usual).

# Reopens a closed stdout or stderr of this shell on /dev/null. (Duplicating a descriptor fails
# when it is closed; bash takes `>&1` itself as a no-op, hence descriptor 3. The test of stderr
# cannot silence its own complaint, which goes nowhere when stderr is closed.)
wordsens_keep_streams_open() {
  { true 3>&1; } 2>/dev/null || exec 1>/dev/null
  { true 3>&2; } || exec 2>/dev/null
}

# True when process $1 handles USR1 (signal 10: bit 9 of SigCgt in /proc/PID/status).
wordsens_handles_usr1() {
  local mask
  mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$mask" ] || return 1
  mask=${mask: -4}
  (((16#$mask >> 9) & 1))
}

# The pids of the local ranks of the step that handle USR1: the launcher's children that run
# another program than the launcher (a child not yet past exec runs the launcher's) and have a
# USR1 handler (a rank still loading, or `env`, has none).
wordsens_ready_ranks() {
  local child exe launcher_exe
  launcher_exe=$(readlink "/proc/${WORDSENS_STEP_PID}/exe" 2>/dev/null) || return 0
  # shellcheck disable=SC2013  # the file holds pids separated by spaces, not lines
  for child in $(cat "/proc/${WORDSENS_STEP_PID}"/task/*/children 2>/dev/null); do
    exe=$(readlink "/proc/${child}/exe" 2>/dev/null) || continue
    if [ "${exe}" != "${launcher_exe}" ] && wordsens_handles_usr1 "${child}"; then
      echo "${child}"
    fi
  done
}

# USR1 reached this script: pass it on as soon as the run can take it (see the header). Under
# mpirun: to the local ranks that handle it, or to mpirun itself once mpirun handles it and no
# rank runs here after 5 s (ranks on other nodes only); under another launcher: at once.
wordsens_pass_usr1() {
  local rank passed waited=0
  while kill -0 "${WORDSENS_STEP_PID}" 2>/dev/null; do
    if [ "${WORDSENS_STEP_OPEN_MPI}" -eq 0 ] || [ ! -r "/proc/${WORDSENS_STEP_PID}/status" ]; then
      echo "${WORDSENS_STEP_NAME}: USR1: passed to ${WORDSENS_STEP_LAUNCHER}" >&2
      kill -USR1 "${WORDSENS_STEP_PID}" 2>/dev/null || true
      return 0
    fi
    passed=""
    for rank in $(wordsens_ready_ranks); do
      if kill -USR1 "${rank}" 2>/dev/null; then passed="${passed} ${rank}"; fi
    done
    if [ -n "${passed}" ]; then
      echo "${WORDSENS_STEP_NAME}: USR1: passed to the rank(s) with pid${passed}" >&2
      return 0
    fi
    if [ "${waited}" -ge 250 ] && wordsens_handles_usr1 "${WORDSENS_STEP_PID}"; then
      echo "${WORDSENS_STEP_NAME}: USR1: no rank runs here; passed to mpirun" >&2
      kill -USR1 "${WORDSENS_STEP_PID}" 2>/dev/null || true
      return 0
    fi
    sleep 0.02
    waited=$((waited + 1))
  done
}

# wordsens_wait_child PID: waits for this shell's child PID and sets WORDSENS_CHILD_RC to its
# exit code. A trap (USR1's above) interrupts `wait` with a status above 128 while the child
# still runs: then it waits again.
wordsens_wait_child() {
  while :; do
    WORDSENS_CHILD_RC=0
    wait "$1" || WORDSENS_CHILD_RC=$?
    if [ "${WORDSENS_CHILD_RC}" -gt 128 ] && kill -0 "$1" 2>/dev/null; then continue; fi
    break
  done
}

# Runs `LAUNCHER [OPTIONS …] -- PROGRAM [ARGS …]` as described in the header and sets
# WORDSENS_RC to the launcher's exit code. The launcher runs in the background so that this
# shell can act on USR1 while it waits (bash runs a trap only between commands or during
# `wait`); a caller's own traps that should not end the wait set WORDSENS_SIGNALLED=1.
wordsens_mpi_step() {
  local -a launcher=() shim=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    launcher+=("$1")
    shift
  done
  if [ $# -lt 2 ] || [ ${#launcher[@]} -eq 0 ]; then
    echo "usage: mpi_step.sh LAUNCHER [LAUNCHER OPTIONS …] -- PROGRAM [ARGS …]" >&2
    WORDSENS_RC=2
    return 0
  fi
  shift
  WORDSENS_STEP_NAME=${WORDSENS_STEP_NAME:-mpi_step}
  WORDSENS_STEP_LAUNCHER=${launcher[0]##*/}
  WORDSENS_STEP_OPEN_MPI=0
  case "${WORDSENS_STEP_LAUNCHER}" in
    mpirun | mpiexec | orterun) WORDSENS_STEP_OPEN_MPI=1 ;;
  esac
  wordsens_keep_streams_open
  if env --block-signal=USR1 true 2>/dev/null; then
    shim=(env --block-signal=USR1)
  fi
  # mpirun is forked with USR1 ignored, so that it starts with USR1 ignored (srun is left alone:
  # it may wait for its signals rather than catch them); this shell's own handler follows at
  # once (a USR1 in between is dropped, like one in mpirun's first milliseconds).
  if [ "${WORDSENS_STEP_OPEN_MPI}" -eq 1 ]; then trap '' USR1; fi
  "${launcher[@]}" "${shim[@]+"${shim[@]}"}" "$@" &
  WORDSENS_STEP_PID=$!
  trap 'WORDSENS_SIGNALLED=1; wordsens_pass_usr1' USR1
  if [ "${WORDSENS_PENDING_USR1}" -eq 1 ]; then  # came before the step started
    WORDSENS_PENDING_USR1=0
    wordsens_pass_usr1
  fi
  while :; do
    WORDSENS_SIGNALLED=0
    WORDSENS_RC=0
    wait "${WORDSENS_STEP_PID}" || WORDSENS_RC=$?
    # A trap interrupts `wait` (status > 128) while the step still runs: wait again; bash keeps
    # the status of a finished child, so a second wait also reports one that ended meanwhile.
    [ "${WORDSENS_SIGNALLED}" -eq 1 ] || break
  done
  if [ "${WORDSENS_STEP_OPEN_MPI}" -eq 1 ] && [ "${WORDSENS_RC}" -eq 138 ]; then
    echo "${WORDSENS_STEP_NAME}: a rank died of a USR1 that came while it was still being" \
      "loaded (${WORDSENS_STEP_LAUNCHER} exit 138), before it could take it: stopped as if" \
      "checkpointed; run the same command again to resume (exit 3)" >&2
    WORDSENS_RC=3
  fi
  trap 'WORDSENS_PENDING_USR1=1' USR1
}

# From now on a USR1 to this shell is remembered, and passed on once the step runs. Set after
# the functions above are read, not before: bash runs a trap between the commands it reads, and
# one that runs while it is reading a `$( … )` inside a function's body breaks that read
# ("unexpected EOF while looking for matching `)'"), so the function is never defined.
WORDSENS_PENDING_USR1=0
trap 'WORDSENS_PENDING_USR1=1' USR1

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  WORDSENS_STEP_NAME=${WORDSENS_STEP_NAME:-mpi_step}
  wordsens_mpi_step "$@"
  exit "${WORDSENS_RC}"
fi
