# Three shards (different rank counts) merged with `wordsens merge` equal the unsharded run:
# records bit for bit, and the configuration text (merge drops the shard key).
source "$(dirname "$0")/lib.sh" "$@"
rm -f s0.h5 s1.h5 s2.h5 all.h5
run 2 "$HERE/tiny.ini" --shard 0/3 --output s0.h5 --progress 60 || fail "shard 0"
run 0 "$HERE/tiny.ini" --shard 1/3 --output s1.h5 --progress 60 || fail "shard 1"
run 3 "$HERE/tiny.ini" --shard 2/3 --output s2.h5 --progress 60 || fail "shard 2"
total=$(awk '$1 == "done" {print $4}' "$REF/tiny.txt")
sum=0
for s in 0 1 2; do
  n=$(done_count "s$s.h5")
  [ "$n" -gt 0 ] && [ "$n" -lt "$total" ] || fail "shard $s did $n of $total tasks"
  sum=$((sum + n))
done
[ "$sum" -eq "$total" ] || fail "shards did $sum tasks in all, expected $total"
"$WORDSENS" merge s0.h5 s1.h5 s2.h5 -o all.h5 || fail "merge"
same_records all.h5 "$REF/tiny.txt"
dump all.h5 --config >all.config.txt
cmp -s all.config.txt "$REF/tiny.config.txt" || fail "merged configuration differs"
# A shard's file refuses to be resumed as another shard.
rc=0
run 0 "$HERE/tiny.ini" --shard 2/3 --output s0.h5 2>wrong.log || rc=$?
[ "$rc" -eq 2 ] || fail "resuming shard 0's file as shard 2: exit $rc, expected 2"
echo "3 shards ($sum tasks) merged: identical to the unsharded run"
