#!/usr/bin/env bash
# The Slurm job scripts (jobs/slurm/) on a real single-node Slurm started for this test only:
#  (a) submit_array.sh: 3 shards + the dependent merge job give the records of a plain mpirun run,
#      each shard asking for the study's memory per rank, the logs in a logs/ folder beside them;
#  (b) run.sbatch sent USR1 mid-run checkpoints (exit 3), requeues itself, resumes and completes
#      with every record exactly once, identical to the plain run;
#  (c) afterwards none of the daemons (or job processes) started here is left running;
#  (d) the mpirun launcher with a USR1 to the batch shell; (e) failures end FAILED, never
#      COMPLETED; (f) submit.sh: a bad study is refused before anything is queued, a good one gets
#      its memory per rank, the layout of the user's `-n 2` and its log beside the results.
# Needs root (the daemons run as root) and installs slurmctld slurmd slurm-client munge when
# missing; exits 77 (ctest: skipped) when not root or when the packages cannot be installed.
# Usage: test_slurm_jobs.sh WORDSENS_BINARY        (KEEP=1 keeps the temp dir for inspection)
set -Eeuo pipefail  # -E: the ERR trap below also sees failures inside functions

SKIP=77
bin=${1:?usage: test_slurm_jobs.sh WORDSENS_BINARY}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
t_start=$SECONDS

# ctest kills the test with SIGKILL at its TIMEOUT (480 s), when no EXIT trap can stop the
# daemons: every wait below is capped so the test gives up, and cleans up, before that.
hard_limit=440
# Seconds a step may take: its own limit, capped by what is left of hard_limit.
budget() {
  local left=$((hard_limit - (SECONDS - t_start)))
  [ "$left" -gt 1 ] || left=1
  echo $(($1 < left ? $1 : left))
}
log() { echo "test_slurm_jobs [$((SECONDS - t_start))s]: $*" >&2; }
fail() {
  log "FAIL: $*"
  exit 1
}

# ---------------------------------------------------------------- prerequisites (or skip)
if [ "$(id -u)" -ne 0 ]; then
  log "SKIP: needs root (runs its own munged, slurmctld and slurmd)"
  exit "$SKIP"
fi
[ -x "$bin" ] || fail "wordsens binary '$bin' not found"
packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # The package lists may be stale on a fresh machine: refresh them only when needed.
  if ! timeout "$(budget 150)" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    timeout "$(budget 90)" apt-get update -q >/dev/null 2>&1 || true
    if ! timeout "$(budget 150)" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1
    then
      log "SKIP: cannot install ${missing[*]} with apt-get"
      exit "$SKIP"
    fi
  fi
fi
for tool in munged slurmctld slurmd sbatch scontrol squeue mpirun; do
  command -v "$tool" >/dev/null || {
    log "SKIP: $tool not found after installing"
    exit "$SKIP"
  }
done

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# ---------------------------------------------------------------- private Slurm, always stopped
work=$(mktemp -d /tmp/wordsens-slurm-test.XXXXXX)
chmod 0711 "$work"
# Every process started for this test carries this variable (daemons and jobs inherit it), so
# check (c) can find leftovers precisely, without matching process names.
mark="WORDSENS_SLURM_TEST_MARK=$work"

# PIDs of processes whose environment holds the mark (this shell does not have it).
marked_pids() {
  local p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" != "$$" ] || continue
    if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "$mark"; then echo "${p#/proc/}"; fi
  done
}

dump_logs() {
  local f
  for f in "$work"/jobs/*.out "$work"/jobs/logs/*.out "$work"/jobs/sub/logs/*.out \
    "$work"/slurm/log/slurmctld.log "$work"/slurm/log/slurmd.log; do
    [ -f "$f" ] || continue
    echo "----- $f (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

# A command that ends the test through `set -e` (not through fail) is named in the log.
failed_command=""
trap 'failed_command="line $LINENO: $BASH_COMMAND"' ERR

cleanup() {
  local rc=$?
  trap - EXIT
  if [ "$rc" -ne 0 ] && [ "$rc" -ne "$SKIP" ] && [ -n "$failed_command" ]; then
    log "FAIL: exit $rc after a failed command ($failed_command)"
  fi
  [ "$rc" -eq 0 ] || [ "$rc" -eq "$SKIP" ] || dump_logs
  if [ -f "$work/slurm/pids" ]; then
    if ! bash "$here/stop_slurm.sh" "$work/slurm"; then
      log "FAIL: a daemon survived stop_slurm.sh"
      rc=1
    fi
    # (c) nothing started here may outlive the test.
    local left
    left=$(marked_pids | tr '\n' ' ')
    if [ -n "$left" ]; then
      log "FAIL: processes started by the test still running: $left"
      # shellcheck disable=SC2086  # a list of PIDs
      ps -o pid,ppid,stat,args -p ${left// /,} >&2 || true
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null || true
      rc=1
    elif [ "$rc" -eq 0 ]; then
      log "ok (c): no daemon or job process left running"
    fi
  fi
  if [ "${KEEP:-0}" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi
  log "wall time $((SECONDS - t_start)) s, exit $rc"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

env "$mark" bash "$here/start_slurm.sh" "$work/slurm"
export SLURM_CONF="$work/slurm/slurm.conf"

# ---------------------------------------------------------------- helpers
# State of a job (or of the first element of an array job) from slurmctld's memory; empty when
# slurmctld does not answer in time (it may not on a loaded machine, or for an instant while it
# requeues the job): the callers poll again, and `set -e` must not end the test there silently.
job_state() { timeout 10 scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2 || true; }
job_field() { timeout 10 scontrol -o show job "$1" 2>/dev/null | grep -o "$2=[^ ]*" | head -n 1 | cut -d= -f2 || true; }

# Bounded wait until job $1 reaches state $2; fails at once on a terminal state other than $2.
wait_state() {
  local id=$1 want=$2 limit=$3 state=""
  limit=$(budget "$limit")
  local deadline=$((SECONDS + limit))
  while [ "$SECONDS" -lt "$deadline" ]; do
    state=$(job_state "$id")
    [ "$state" = "$want" ] && return 0
    case "$state" in
      COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
        fail "job $id ended $state (expected $want); exit code $(job_field "$id" ExitCode)"
        ;;
    esac
    sleep 0.5
  done
  fail "job $id not $want within $limit s (state '$state')"
}

# Bounded wait until file $1 contains a line matching regex $2.
wait_line() {
  local file=$1 regex=$2 limit=$3
  limit=$(budget "$limit")
  local deadline=$((SECONDS + limit))
  until grep -qE "$regex" "$file" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || fail "no line /$regex/ in $file within $limit s"
    sleep 0.2
  done
}

mkdir -p "$work/jobs"
cd "$work/jobs"
# The jobs find the scripts and the binary through these (sbatch passes the environment on).
export WORDSENS_HOME="$repo" WORDSENS_BIN="$bin"

# ---------------------------------------------------------------- (a) array of 3 shards + merge
cp "$here/tiny.ini" tiny.ini
log "(a) reference: plain mpirun -n 2"
timeout "$(budget 120)" mpirun -n 2 --oversubscribe "$bin" run tiny.ini --output ref_tiny.h5 --progress 60 \
  >ref_tiny.log 2>&1 || {
  cat ref_tiny.log >&2
  fail "plain mpirun run of tiny.ini failed"
}
log "(a) submitting the array of 3 shards and the merge job"
ids=$(env "$mark" WORDSENS_SBATCH_ARGS="--nodes=1 --ntasks-per-node=1 --time=10" \
  bash "$repo/jobs/slurm/submit_array.sh" tiny.ini 3 "$work/jobs/tiny")
array_id=$(awk '/^array job/{print $3}' <<<"$ids")
merge_id=$(awk '/^merge job/{print $3}' <<<"$ids")
if [ -z "$array_id" ] || [ -z "$merge_id" ]; then fail "submit_array.sh printed no job ids: $ids"; fi
[ "$(job_field "$merge_id" Dependency)" != "(null)" ] || fail "merge job $merge_id has no dependency"
wait_state "$merge_id" COMPLETED 150
for i in 0 1 2; do
  state=$(job_state "${array_id}_${i}")
  [ "$state" = COMPLETED ] || fail "array task ${array_id}_${i} is $state"
  [ -f "tiny.shard-${i}-of-3.h5" ] || fail "shard file tiny.shard-${i}-of-3.h5 missing"
done
/usr/bin/python3 "$here/compare_results.py" ref_tiny.h5 tiny.h5 || fail "(a) merged array != plain run"
# Each shard asked for the study's memory per rank and logged beside the results.
want_mem=$("$bin" run tiny.ini --dry-run --format=json | /usr/bin/python3 -c '
import json, math, sys
print(str(math.ceil(json.load(sys.stdin)["memory"]["per_rank_bytes"] * 1.25 / 2**20)) + "M")')
[ "$(job_field "${array_id}_0" MinMemoryCPU)" = "$want_mem" ] ||
  fail "(a) shard memory $(job_field "${array_id}_0" MinMemoryCPU), want $want_mem per rank"
for i in 0 1 2; do
  [ -s "logs/wordsens-tiny-${array_id}_${i}.out" ] || fail "(a) no log logs/wordsens-tiny-${array_id}_${i}.out"
done
[ -s "logs/wordsens-merge-tiny-${merge_id}.out" ] || fail "(a) no merge log in logs/"
log "ok (a): 3 shards + merge == plain mpirun; $want_mem per rank requested, logs in logs/"

# ---------------------------------------------------------------- (b) USR1: checkpoint, requeue, resume
cp "$here/slow.ini" slow.ini
log "(b) submitting run.sbatch (2 ranks through srun --mpi=pmix)"
job=$(env "$mark" sbatch --parsable --nodes=1 --ntasks-per-node=2 --time=10 \
  --output="$work/jobs/slow-%j.out" "$repo/jobs/slurm/run.sbatch" slow.ini slow.h5 --progress 0.2)
job=${job%%;*}
wait_state "$job" RUNNING 60
# Signal only once tasks are being computed, so the checkpoint really interrupts work.
wait_line "slow-$job.out" 'progress: [1-9][0-9]*/' 120
[ "$(job_state "$job")" = RUNNING ] || fail "(b) job $job finished before USR1 could be sent; slow.ini is too fast"
log "(b) scancel --signal=USR1 $job"
timeout 10 scancel --signal=USR1 "$job" || fail "(b) scancel --signal=USR1 $job failed (job already over? state $(job_state "$job"))"
wait_line "slow-$job.out" 'step exit code 3' 60
log "(b) checkpointed; waiting for the requeued run"
wait_line "slow-$job.out" 'restart 1,' 90
wait_state "$job" COMPLETED 180
restarts=$(job_field "$job" Restarts)
[ "${restarts:-0}" -ge 1 ] || fail "(b) job $job completed without being requeued (Restarts=$restarts)"
# The rerun must have resumed: it found some but not all tasks already done.
resume_line=$(grep -E 'tasks planned' "slow-$job.out" | sed -n 2p)
done_before=$(sed -nE 's/.* ([0-9]+) already done.*/\1/p' <<<"$resume_line")
planned=$(sed -nE 's/.*: ([0-9]+) tasks planned.*/\1/p' <<<"$resume_line")
if ! [ "${done_before:-0}" -gt 0 ] || ! [ "$done_before" -lt "${planned:-0}" ]; then
  fail "(b) rerun did not resume mid-way: '$resume_line'"
fi
log "(b) resumed with $done_before of $planned tasks done; reference: plain mpirun -n 2"
timeout "$(budget 180)" mpirun -n 2 --oversubscribe "$bin" run slow.ini --output ref_slow.h5 --progress 60 \
  >ref_slow.log 2>&1 || {
  cat ref_slow.log >&2
  fail "plain mpirun run of slow.ini failed"
}
/usr/bin/python3 "$here/compare_results.py" ref_slow.h5 slow.h5 || fail "(b) resumed run != plain run"
log "ok (b): USR1 -> exit 3 -> requeue -> resume ($done_before/$planned done) -> COMPLETED, records identical"

# ---------------------------------------------------------------- (d) mpirun launcher, USR1 on the batch shell
# With mpirun the ranks live in the batch step, which a plain USR1 does not reach; the batch shell
# gets it (here `scancel --batch`, on a cluster `--signal=B:USR1@…`) and forwards it to mpirun.
log "(d) submitting run.sbatch with WORDSENS_LAUNCHER=mpirun"
job=$(env "$mark" WORDSENS_LAUNCHER=mpirun sbatch --parsable --nodes=1 --ntasks-per-node=2 \
  --time=10 --output="$work/jobs/mpirun-%j.out" "$repo/jobs/slurm/run.sbatch" slow.ini \
  slow_mpirun.h5 --progress 0.2)
job=${job%%;*}
wait_state "$job" RUNNING 60
wait_line "mpirun-$job.out" 'progress: [1-9][0-9]*/' 120
[ "$(job_state "$job")" = RUNNING ] || fail "(d) job $job finished before USR1 could be sent"
log "(d) scancel --batch --signal=USR1 $job"
timeout 10 scancel --batch --signal=USR1 "$job" || fail "(d) scancel --batch --signal=USR1 $job failed (state $(job_state "$job"))"
wait_line "mpirun-$job.out" 'USR1: passed to' 30
wait_line "mpirun-$job.out" 'step exit code 3' 60
wait_line "mpirun-$job.out" 'restart 1,' 90
wait_state "$job" COMPLETED 180
/usr/bin/python3 "$here/compare_results.py" ref_slow.h5 slow_mpirun.h5 ||
  fail "(d) resumed mpirun run != plain run"
log "ok (d): mpirun launcher: batch-shell USR1 forwarded -> exit 3 -> requeue -> resume, records identical"

# ---------------------------------------------------------------- (e) failures never end COMPLETED
printf 'experiments = ws\nmodels = no_such_model\n' >bad.ini
log "(e) a bad configuration: run.sbatch must end FAILED, the array's merge job must not run"
job=$(env "$mark" sbatch --parsable --nodes=1 --ntasks-per-node=1 --time=10 \
  --output="$work/jobs/bad-%j.out" "$repo/jobs/slurm/run.sbatch" bad.ini bad.h5)
job=${job%%;*}
# Given memory, submit_array.sh does not price the study, so the bad shards reach Slurm.
ids=$(env "$mark" WORDSENS_SBATCH_ARGS="--nodes=1 --ntasks-per-node=1 --time=10 --mem-per-cpu=64M" \
  bash "$repo/jobs/slurm/submit_array.sh" bad.ini 2 "$work/jobs/bad_array")
array_id=$(awk '/^array job/{print $3}' <<<"$ids")
merge_id=$(awk '/^merge job/{print $3}' <<<"$ids")
deadline=$((SECONDS + $(budget 60)))
until [ "$(job_state "$job")" = FAILED ] && [ "$(job_state "$merge_id")" = CANCELLED ]; do
  [ "$SECONDS" -lt "$deadline" ] ||
    fail "(e) run job $job is $(job_state "$job") (want FAILED), merge job $merge_id is $(job_state "$merge_id") (want CANCELLED)"
  sleep 0.5
done
[ "$(job_field "$job" ExitCode)" = "2:0" ] || fail "(e) run job exit code $(job_field "$job" ExitCode), want 2:0"
for i in 0 1; do
  state=$(job_state "${array_id}_${i}")
  [ "$state" = FAILED ] || fail "(e) array task ${array_id}_${i} is $state, want FAILED"
done
[ ! -e bad_array.h5 ] || fail "(e) the merge job wrote bad_array.h5"
log "ok (e): bad input -> FAILED (exit 2), failed shards -> merge job CANCELLED"

# ---------------------------------------------------------------- (f) submit.sh: memory, layout, logs
# Unpriced (a bad configuration), nothing is submitted: the dry run's line and exit 2.
jobs_before=$(timeout 10 squeue -h -o %i | wc -l)
if out=$(env "$mark" bash "$repo/jobs/slurm/submit.sh" bad.ini sub/bad.h5 --time=10 2>&1); then
  fail "(f) submit.sh accepted bad.ini: $out"
fi
grep -q "models = 'no_such_model'" <<<"$out" || fail "(f) submit.sh did not say why: $out"
[ "$(timeout 10 squeue -h -o %i | wc -l)" = "$jobs_before" ] || fail "(f) submit.sh queued a job for bad.ini"
log "(f) submit.sh tiny.ini with sbatch -n 2 (the scripts fix no layout)"
out=$(env "$mark" bash "$repo/jobs/slurm/submit.sh" tiny.ini sub/tiny_sub.h5 -n 2 --time=10 -- \
  --progress 60 2>&1) || fail "(f) submit.sh failed: $out"
job=$(awk '/^job /{print $2}' <<<"$out")
[ -n "$job" ] || fail "(f) submit.sh printed no job id: $out"
[ "$(job_field "$job" NumTasks)" = 2 ] || fail "(f) job $job has NumTasks=$(job_field "$job" NumTasks), want 2"
[ "$(job_field "$job" MinMemoryCPU)" = "$want_mem" ] ||
  fail "(f) job $job asks $(job_field "$job" MinMemoryCPU) per rank, want $want_mem"
wait_state "$job" COMPLETED 120
grep -q "2 tasks on 1 node" "sub/logs/wordsens-tiny_sub-$job.out" || fail "(f) no 2-rank log in sub/logs/"
/usr/bin/python3 "$here/compare_results.py" ref_tiny.h5 sub/tiny_sub.h5 || fail "(f) submit.sh run != plain run"
log "ok (f): submit.sh: $want_mem per rank, 2 ranks from -n 2, log in sub/logs/, records identical"
