# The same configuration on 1, 2 and 3 ranks gives the reference's records, bit for bit.
source "$(dirname "$0")/lib.sh" "$@"
for ranks in 1 2 3; do
  rm -f "r$ranks.h5"
  run "$ranks" "$HERE/tiny.ini" --output "r$ranks.h5" --progress 60 || fail "run on $ranks ranks"
  same_records "r$ranks.h5" "$REF/tiny.txt"
  echo "ranks=$ranks: identical to the reference"
done
