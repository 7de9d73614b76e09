#!/usr/bin/env bash
# jobs/slurm/submit_common.sh without a Slurm: which of the user's sbatch options count as
# memory, log or layout (a value is never an option), and the memory request priced from the
# binary's dry run (a failed dry run is status 2 and its line).
# Usage: submit_options_test.sh WORDSENS_BINARY
set -euo pipefail
bin=${1:?usage: submit_options_test.sh WORDSENS_BINARY}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=jobs/slurm/submit_common.sh
source "$here/../../jobs/slurm/submit_common.sh"
fail() {
  echo "submit_options_test: $*" >&2
  exit 1
}
layout="-n --ntasks -N --nodes --ntasks-per-node"
gave() { wordsens_user_gave "$@" && echo yes || echo no; }
[ "$(gave "$layout" -n 2)" = yes ] || fail "-n 2 is a layout"
[ "$(gave "$layout" -n2)" = yes ] || fail "-n2 is a layout"
[ "$(gave "$layout" --ntasks=3)" = yes ] || fail "--ntasks=3 is a layout"
[ "$(gave "$layout" -p long -N 2 --ntasks-per-node=8)" = yes ] || fail "-N 2 is a layout"
[ "$(gave "$layout" -J -nightly)" = no ] || fail "the value of -J is not an option"
[ "$(gave "$layout" --requeue -p long)" = no ] || fail "no layout in --requeue -p long"
[ "$(gave "--mem --mem-per-cpu" --mem 4G)" = yes ] || fail "--mem 4G is memory"
[ "$(gave "--mem --mem-per-cpu" --comment --mem)" = no ] || fail "a comment's value is no option"
[ "$(gave "-o --output" --requeue -o x.out)" = yes ] || fail "-o after a switch is a log"
[ "$(gave "-o --output" --output-file=x)" = no ] || fail "--output-file is not --output"

cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
printf 'experiments = ws\nmodels = rf,raf\nn = 8,16\nd = 8\ntrials = 2\n' >"$cfg/good.ini"
want=$("$bin" run "$cfg/good.ini" --dry-run --format=json --calibration=none |
  /usr/bin/python3 -c 'import json, math, sys
print(math.ceil(json.load(sys.stdin)["memory"]["per_rank_bytes"] * 1.25 / 2**20))')
got=$(WORDSENS_PYTHON=/usr/bin/python3 wordsens_memory_request "$bin" "$cfg/good.ini")
[ "$got" = "--mem-per-cpu=${want}M" ] || fail "memory request '$got', want --mem-per-cpu=${want}M"
printf 'experiments = ws\nmodels = nope\n' >"$cfg/bad.ini"
if err=$(wordsens_memory_request "$bin" "$cfg/bad.ini" 2>&1); then
  fail "a bad configuration was priced: $err"
fi
grep -q "models = 'nope'" <<<"$err" || fail "the dry run's error is not shown: $err"
echo "submit_options_test: options, values and the memory request: ok"
