# Helpers shared by the MPI test scripts. Usage: source lib.sh "$@" (binary, work dir).
set -euo pipefail
WORDSENS=$1
WORK=$2
HERE=${MPI_TEST_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
MPIRUN=${MPIRUN:-mpirun}
PY=/usr/bin/python3
REF=$(dirname "$WORK")/reference
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$WORK"
cd "$WORK"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run R ARGS…: `wordsens run ARGS` on R ranks under mpirun (R = 0: a singleton, no mpirun).
run() {
  local ranks=$1
  shift
  if [ "$ranks" -eq 0 ]; then
    "$WORDSENS" run "$@"
  else
    "$MPIRUN" --oversubscribe -n "$ranks" "$WORDSENS" run "$@"
  fi
}

# dump FILE: its records in canonical order (fails on lost or duplicated records).
dump() {
  "$PY" "$HERE/dump_records.py" "$@"
}

# same_records FILE REFERENCE_DUMP: the file's records equal the reference bit for bit.
same_records() {
  dump "$1" >"$1.txt" || fail "$1: lost or duplicated records"
  if ! cmp -s "$1.txt" "$2"; then
    diff "$1.txt" "$2" | head -20 >&2
    fail "$1 differs from $2"
  fi
}

# done_count FILE: number of tasks flagged done.
done_count() {
  dump "$1" | awk '$1 == "done" {print $2}'
}

# start LOG R ARGS…: like run, in the background, stderr to LOG; PID is the launcher's own pid
# (a simple command, not a subshell, so signals reach mpirun itself).
start() {
  local log=$1 ranks=$2
  shift 2
  if [ "$ranks" -eq 0 ]; then
    "$WORDSENS" run "$@" 2>"$log" &
  else
    "$MPIRUN" --oversubscribe -n "$ranks" "$WORDSENS" run "$@" 2>"$log" &
  fi
  PID=$!
}
