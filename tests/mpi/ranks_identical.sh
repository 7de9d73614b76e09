# The same configuration on 1, 2 and 3 ranks gives the reference's records, bit for bit.
source "$(dirname "$0")/lib.sh" "$@"
for ranks in 1 2 3; do
  rm -f "r$ranks.h5"
  run "$ranks" "$HERE/tiny.ini" --output "r$ranks.h5" --progress 60 2>"r$ranks.log" ||
    fail "run on $ranks ranks"
  # Rank 0 computes too (no idle coordinator): its count is the first of the per-rank counts.
  counts=$(sed -n 's/^wordsens run: tasks per rank://p' "r$ranks.log")
  [ "$(echo "$counts" | wc -w)" -eq "$ranks" ] || fail "per-rank counts '$counts'"
  [ "$(echo "$counts" | awk '{print $1}')" -gt 0 ] || fail "rank 0 computed nothing: $counts"
  same_records "r$ranks.h5" "$REF/tiny.txt"
  echo "ranks=$ranks: identical to the reference"
done
