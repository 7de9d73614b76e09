# kill -9 of mpirun at random moments: after each kill no rank survives, the file opens (h5py,
# `wordsens info`) and holds no lost or duplicated record; resuming until done gives the
# uninterrupted records. The kill times are printed; set KILL_SEED to replay a sequence.
source "$(dirname "$0")/lib.sh" "$@"
CONFIG=$HERE/interrupt.ini
RANDOM=${KILL_SEED:-$$}
echo "kill seed: $RANDOM"
rm -f k.h5
kills=0
for round in $(seq 1 12); do
  ranks=$((round % 3 + 1))
  start "k.$round.log" "$ranks" "$CONFIG" --output k.h5 --progress 60
  pid=$PID
  # 0.3 … 2.3 s: from start-up (file being created) to mid-run.
  delay=$(printf '0.%02d' $((RANDOM % 100)))
  sleep "$(awk -v d="$delay" -v r=$((RANDOM % 3)) 'BEGIN {print 0.3 + d + r * 0.5}')"
  if ! kill -0 "$pid" 2>/dev/null; then
    rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 0 ] || { cat "k.$round.log" >&2; fail "round $round: exit $rc"; }
    echo "round $round: finished before the kill"
    break
  fi
  children=$(pgrep -P "$pid" || true)
  kill -9 "$pid"
  wait "$pid" || true
  kills=$((kills + 1))
  sleep 0.5
  for child in $children; do
    # A zombie (dead, not yet reaped by init) is fine; a running or sleeping rank is not.
    state=$(ps -o stat= -p "$child" 2>/dev/null || true)
    if [ -n "$state" ] && [ "${state#Z}" = "$state" ]; then
      kill -9 "$child"
      fail "round $round: rank $child survived the kill of mpirun"
    fi
  done
  if [ -e k.h5 ]; then
    dump k.h5 >/dev/null || fail "round $round: file does not open or has lost/duplicated records"
    "$WORDSENS" info k.h5 >/dev/null || fail "round $round: wordsens info cannot read the file"
    echo "round $round ($ranks ranks): killed, $(done_count k.h5) tasks done"
  else
    echo "round $round ($ranks ranks): killed before the file existed"
  fi
done
run 2 "$CONFIG" --output k.h5 --progress 60 || fail "final resume"
same_records k.h5 "$REF/interrupt.txt"
[ "$kills" -ge 2 ] || fail "only $kills kills landed; the run is too short to test"
echo "$kills kills, resumed: identical to the reference"
