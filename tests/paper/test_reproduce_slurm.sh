#!/usr/bin/env bash
# jobs/reproduce_paper.sh --slurm on a real single-node Slurm started for this test only
# (tests/slurm/start_slurm.sh): tiny grids of three studies, two as job arrays of 2 shards with
# their merge jobs, one as a single job, and the report job after all of them. Checks that the
# real sbatch accepts every option the script passes, that the dependencies hold (the report job
# sees complete merged files), and that no daemon or job process outlives the test.
# Needs root and the packages slurmctld slurmd slurm-client munge (installed by the `slurm`
# test, tests/slurm/); exits 77 (ctest: skipped) otherwise.
# Usage: test_reproduce_slurm.sh WORDSENS_BINARY        (KEEP=1 keeps the temp dir)
set -euo pipefail

SKIP=77
bin=${1:?usage: test_reproduce_slurm.sh WORDSENS_BINARY}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
slurm_tests=$repo/tests/slurm
t_start=$SECONDS
hard_limit=400 # ctest's TIMEOUT is 480 s: give up (and clean up) before it kills us
log() { echo "test_reproduce_slurm [$((SECONDS - t_start))s]: $*" >&2; }
fail() {
  log "FAIL: $*"
  exit 1
}

if [ "$(id -u)" -ne 0 ]; then
  log "SKIP: needs root (runs its own munged, slurmctld and slurmd)"
  exit "$SKIP"
fi
for p in slurmctld slurmd slurm-client munge; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    log "SKIP: package $p is not installed (the slurm test installs it)"
    exit "$SKIP"
  fi
done
[ -x "$bin" ] || fail "wordsens binary '$bin' not found"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

work=$(mktemp -d /tmp/wordsens-reproduce-slurm.XXXXXX)
chmod 0711 "$work"
# Every process started here carries this variable, so leftovers can be found precisely.
mark="WORDSENS_SLURM_TEST_MARK=$work"
marked_pids() {
  local p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" != "$$" ] || continue
    if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "$mark"; then echo "${p#/proc/}"; fi
  done
}
cleanup() {
  local rc=$?
  trap - EXIT
  if [ "$rc" -ne 0 ] && [ "$rc" -ne "$SKIP" ]; then
    for f in "$work"/results/logs/*.out "$work"/slurm/log/slurmctld.log; do
      [ -f "$f" ] && { echo "----- $f" >&2; tail -n 30 "$f" >&2; }
    done
  fi
  if [ -f "$work/slurm/pids" ]; then
    bash "$slurm_tests/stop_slurm.sh" "$work/slurm" || {
      log "FAIL: a daemon survived stop_slurm.sh"
      rc=1
    }
    local left
    left=$(marked_pids | tr '\n' ' ')
    if [ -n "$left" ]; then
      log "FAIL: processes started by the test still running: $left"
      # shellcheck disable=SC2086  # a list of PIDs
      kill -KILL $left 2>/dev/null || true
      rc=1
    fi
  fi
  if [ "${KEEP:-0}" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi
  log "wall time $((SECONDS - t_start)) s, exit $rc"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

env "$mark" bash "$slurm_tests/start_slurm.sh" "$work/slurm"
export SLURM_CONF="$work/slurm/slurm.conf"
state() { timeout 10 scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2 || true; }

log "submitting three tiny studies"
out=$(env "$mark" WORDSENS_BIN="$bin" WORDSENS_SBATCH_ARGS="--time=10" \
  bash "$repo/jobs/reproduce_paper.sh" --slurm --tiny --ranks 1 --shards 2 \
  --only paper_ws,paper_gen,regime_map --results "$work/results" --report "$work/report")
echo "$out" >&2
report_id=$(sed -n 's/^reproduce_paper: report job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$report_id" ] || fail "no report job in the output"
[ "$(grep -c 'array job' <<<"$out")" -eq 3 ] || fail "expected three job arrays"

deadline=$((SECONDS + hard_limit - (SECONDS - t_start) - 30))
while :; do
  s=$(state "$report_id")
  case "$s" in
    COMPLETED) break ;;
    FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) fail "report job $report_id $s" ;;
  esac
  [ "$SECONDS" -lt "$deadline" ] || fail "report job $report_id not done in time (state $s)"
  sleep 1
done
log "report job $report_id completed"
for s in paper_ws paper_gen regime_map; do
  for i in 0 1; do
    [ -f "$work/results/$s.shard-$i-of-2.h5" ] || fail "$s: shard file $i missing"
  done
done
/usr/bin/python3 - "$work" <<'EOF' || fail "the report does not cover the three merged studies"
import csv, os, sys
work = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(work, "report", "verdicts.csv"))))
studies = {r["study"] for r in rows if r["kind"] == "primary"}
assert {"paper_ws", "paper_gen"} <= studies, studies
# The regime map is descriptive: its rows are a breakdown (secondary), not primary claims.
assert any(r["study"] == "regime_map" and r["kind"] == "secondary" for r in rows), studies
prov = list(csv.DictReader(open(os.path.join(work, "report", "provenance.csv"))))
assert len(prov) == 3 and all(p["state"] == "complete" for p in prov), prov
EOF
log "ok: arrays, merges and the report job ran in order; the report covers all three studies"

# Trials until decided: a judge step after each look queues the next look's runs (only where a
# claim is open) and the next judge step, then the report job; every job runs under Slurm.
log "submitting a tiny adaptive study (judge steps between looks)"
out=$(env "$mark" WORDSENS_BIN="$bin" WORDSENS_SBATCH_ARGS="--time=10" \
  bash "$repo/jobs/reproduce_paper.sh" --slurm --tiny --ranks 1 --trials 5 --max-trials 10 \
  --only paper_ws_rf_bound --results "$work/adaptive" --report "$work/adaptive-report")
echo "$out" >&2
grep -q '^reproduce_paper: judge job [0-9]* (look 1' <<<"$out" || fail "no judge job queued"
deadline=$((SECONDS + hard_limit - (SECONDS - t_start) - 20))
until [ -f "$work/adaptive-report/verdicts.csv" ] && [ -z "$(timeout 10 squeue -h 2>/dev/null)" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the adaptive study's report not written in time"
  sleep 1
done
ls "$work/adaptive" >&2
[ -f "$work/adaptive/paper_ws_rf_bound.look-2-trials-5-10.h5" ] ||
  fail "the judge step queued no look 2"
grep -q 'report job' "$work"/adaptive/logs/wordsens-judge-2-*.out ||
  fail "the judge step of look 2 queued no report"
/usr/bin/python3 - "$work" <<'EOF2' || fail "the adaptive report does not decide Thm 1"
import csv, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "adaptive-report", "verdicts.csv"))))
thm1 = [r for r in rows if r["kind"] == "primary" and r["claim"] == "thm1_rf"]
assert thm1 and thm1[0]["verdict"] == "confirmed" and thm1[0]["looks"].startswith("look 2 of 2")
EOF2
log "ok: the judge steps queued look 2 and the report; Thm 1 decided at look 2"

