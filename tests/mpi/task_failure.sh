# A task that throws stops the run on every rank: no more tasks are handed out, in-flight ones
# finish, one line names the failed task, exit 1, and the file keeps what was done. Bad input
# data is refused before the run (tests/faults), so the failure is injected: the task with id
# WORDSENS_TEST_FAIL_TASK throws.
source "$(dirname "$0")/lib.sh" "$@"
"$PY" - <<'PYEOF'
import h5py
import numpy as np
tokens = np.random.default_rng(0).standard_normal((12, 6, 4)).astype("float32")
with h5py.File("tokens.h5", "w") as f:
    f["tokens"] = tokens
    f["lengths"] = np.full(12, 6, dtype="int32")
    f["labels"] = np.array([1, -1] * 6, dtype="int8")
PYEOF
for ranks in 0 3; do
  rm -f fail.h5
  rc=0
  WORDSENS_TEST_FAIL_TASK=7 run "$ranks" --data embeddings:tokens.h5 --models rf,raf --n 4 --d 3 \
    --trials 12 --output fail.h5 --progress 60 2>fail.log || rc=$?
  [ "$rc" -eq 1 ] || { cat fail.log >&2; fail "$ranks ranks: exit $rc, expected 1"; }
  [ "$(grep -c "wordsens run: error: .*(task 7) failed: injected failure" fail.log)" -eq 1 ] ||
    { cat fail.log >&2; fail "$ranks ranks: no single line naming the failed task"; }
  [ "$(grep -c "error" fail.log)" -eq 1 ] || { cat fail.log >&2; fail "more than one error line"; }
  dump fail.h5 >fail.txt || fail "$ranks ranks: the file does not open after the failure"
  grep -q "^done " fail.txt || fail "$ranks ranks: no done count"
  echo "ranks=$ranks: $(grep 'wordsens run: error' fail.log)"
done
