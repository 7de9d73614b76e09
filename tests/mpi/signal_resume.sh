# Stopping and resuming gives the uninterrupted records: USR1 to mpirun (exit 3), the wall time
# (exit 3), TERM to mpirun (non-zero exit within seconds), TERM to one rank (every rank exits 4).
# Every resume uses a different number of ranks than the interrupted run.
source "$(dirname "$0")/lib.sh" "$@"
CONFIG=$HERE/interrupt.ini
TOTAL=$(awk '$1 == "done" {print $4}' "$REF/interrupt.txt")

# start_run FILE LOG RANKS: a background run; sets PID. wait_progress LOG: until it computes.
start_run() {
  start "$2" "$3" "$CONFIG" --output "$1" --progress 0.2
}
wait_progress() {
  for _ in $(seq 1 300); do
    grep -q "^progress:" "$1" && return 0
    kill -0 "$PID" 2>/dev/null || return 0
    sleep 0.05
  done
}
# finish FILE RANKS: resume to the end and compare with the reference.
finish() {
  local before
  before=$(done_count "$1")
  [ "$before" -lt "$TOTAL" ] || fail "$1: the run was not interrupted (all $TOTAL tasks done)"
  run "$2" "$CONFIG" --output "$1" --progress 60 2>"$1.resume.log" || fail "$1: resume failed"
  grep -q "$before already done" "$1.resume.log" || fail "$1: resume did not skip done tasks"
  same_records "$1" "$REF/interrupt.txt"
  echo "$1: interrupted after $before/$TOTAL tasks, resumed, identical to the reference"
}

# USR1 → finish in-flight tasks, flush, exit 3.
rm -f usr1.h5
start_run usr1.h5 usr1.log 2
wait_progress usr1.log
kill -USR1 "$PID"
rc=0
wait "$PID" || rc=$?
[ "$rc" -eq 3 ] || { cat usr1.log >&2; fail "USR1: exit $rc, expected 3"; }
grep -q "checkpointed" usr1.log || fail "USR1: no checkpoint message"
finish usr1.h5 3

# --walltime reached → same as USR1.
rm -f walltime.h5
rc=0
run 2 "$CONFIG" --output walltime.h5 --walltime 0.5 --progress 60 2>walltime.log || rc=$?
[ "$rc" -eq 3 ] || { cat walltime.log >&2; fail "walltime: exit $rc, expected 3"; }
finish walltime.h5 1

# TERM to mpirun → the ranks flush and stop at once; mpirun ends within seconds.
rm -f term.h5
start_run term.h5 term.log 2
wait_progress term.log
kill -TERM "$PID"
start=$(date +%s)
rc=0
wait "$PID" || rc=$?
elapsed=$(($(date +%s) - start))
[ "$rc" -ne 0 ] || fail "TERM: exit 0"
[ "$elapsed" -le 10 ] || fail "TERM: took $elapsed s to stop"
finish term.h5 3

# TERM to one rank only → that rank tells rank 0, every rank exits 4.
rm -f term1.h5
start_run term1.h5 term1.log 3
wait_progress term1.log
rank_pid=$(pgrep -P "$PID" | tail -1)
[ -n "$rank_pid" ] || fail "no rank process under mpirun $PID"
kill -TERM "$rank_pid"
rc=0
wait "$PID" || rc=$?
[ "$rc" -eq 4 ] || { cat term1.log >&2; fail "TERM to one rank: exit $rc, expected 4"; }
finish term1.h5 2
