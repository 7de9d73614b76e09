# A task that throws (here: a NaN token in an embeddings file) stops the run on every rank:
# no more tasks are handed out, in-flight ones finish, one line names the failed task, exit 1,
# and the file keeps what was done.
source "$(dirname "$0")/lib.sh" "$@"
"$PY" - <<'PYEOF'
import h5py
import numpy as np
tokens = np.random.default_rng(0).standard_normal((12, 6, 4)).astype("float32")
tokens[7, 1, 2] = np.nan  # sequence 7 is some trial's text
with h5py.File("nan_tokens.h5", "w") as f:
    f["tokens"] = tokens
    f["lengths"] = np.full(12, 6, dtype="int32")
    f["labels"] = np.array([1, -1] * 6, dtype="int8")
PYEOF
for ranks in 0 3; do
  rm -f fail.h5
  rc=0
  run "$ranks" --data embeddings:nan_tokens.h5 --models rf,raf --n 4 --d 3 --trials 12 \
    --output fail.h5 --progress 60 2>fail.log || rc=$?
  [ "$rc" -eq 1 ] || { cat fail.log >&2; fail "$ranks ranks: exit $rc, expected 1"; }
  [ "$(grep -c "wordsens run: error: .*(task [0-9]*) failed: .*NaN" fail.log)" -eq 1 ] ||
    { cat fail.log >&2; fail "$ranks ranks: no single line naming the failed task"; }
  dump fail.h5 >fail.txt || fail "$ranks ranks: the file does not open after the failure"
  echo "ranks=$ranks: $(grep 'wordsens run: error' fail.log)"
done
