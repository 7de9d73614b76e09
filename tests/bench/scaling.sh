#!/usr/bin/env bash
# Strong scaling of `wordsens run` and the scheduler's overhead per task (docs/PERFORMANCE.md).
# Not a test: run it on an otherwise idle machine and quote ratios.
#
#   bash tests/bench/scaling.sh [WORDSENS_BINARY] [MAX_RANKS]
#
# 1. Throughput: the same study (tests/bench/scaling.ini, a few hundred mid-sized tasks) with
#    1 … MAX_RANKS ranks; prints wall seconds and the speed-up over 1 rank.
# 2. Overhead: thousands of tiny tasks (n = 2, d = 1, one start, few evaluations), where almost
#    all the time is scheduling, record transfer and the HDF5 append; prints tasks per second.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../build/release/src/wordsens}
max_ranks=${2:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

wall() {  # wall seconds of a command
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}

echo "== throughput, tests/bench/scaling.ini"
base=""
for ranks in $(seq 1 "$max_ranks"); do
  t=$(wall mpirun --oversubscribe -n "$ranks" "$bin" run "$here/scaling.ini" \
    --output "$work/s$ranks.h5" --overwrite --progress 1000)
  [ -n "$base" ] || base=$t
  printf '%d rank(s): %7.2f s  speed-up %.2f\n' "$ranks" "$t" "$(awk -v a="$base" -v b="$t" 'BEGIN { print a / b }')"
done

echo "== scheduler overhead, tiny tasks"
tiny=(--experiments=ws --models=raf --n=2 --d=1 --trials=4000 --positions=first
      --max-evals=2 --sphere-starts=0 --near-origin-starts=0 --guided-start=true)
for ranks in 1 "$max_ranks"; do
  t=$(wall mpirun --oversubscribe -n "$ranks" "$bin" run "${tiny[@]}" \
    --output "$work/tiny$ranks.h5" --overwrite --progress 1000)
  printf '%d rank(s): 4000 tasks in %.2f s = %.0f tasks/s\n' "$ranks" "$t" "$(awk -v b="$t" 'BEGIN { print 4000 / b }')"
done
