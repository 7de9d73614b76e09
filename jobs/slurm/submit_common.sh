# shellcheck shell=bash
# Sourced by submit.sh and submit_array.sh, never run on its own: the sbatch options every job of
# a study gets unless the user's own sbatch options say otherwise.
#   memory  --mem-per-cpu from the study's own dry run (`wordsens run --dry-run --format=json`:
#           the process, the task table and the largest task), with a quarter more for what the
#           estimate leaves out (allocator rounding, the launcher's buffers). A rank is one CPU.
#   logs    --output under a logs/ folder beside the results, not the submit directory.
#   layout  --ntasks=4 when the user gave none of -n/--ntasks, -N/--nodes, --ntasks-per-node: the
#           sbatch scripts fix no layout, so `-n 2` or `-N 2 --ntasks-per-node=32` mean what they
#           say.

# Room above the dry run's bytes per rank, in percent.
WORDSENS_MEMORY_ROOM_PERCENT=${WORDSENS_MEMORY_ROOM_PERCENT:-25}

# wordsens_submit_ready SCRIPT CONFIG: exits 2 with one line when CONFIG is missing or this shell
# has no sbatch; otherwise exports WORDSENS_HOME (the jobs run copies of the scripts from
# Slurm's spool, so they are told where the repository is).
wordsens_submit_ready() {
  [ -f "$2" ] || {
    echo "$1: no such config file: $2" >&2
    exit 2
  }
  command -v sbatch >/dev/null || {
    echo "$1: sbatch not found (run on a Slurm login node)" >&2
    exit 2
  }
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  export WORDSENS_HOME=${WORDSENS_HOME:-$(cd "$here/../.." && pwd)}
}

# wordsens_absolute PATH: PATH from the root, its folder created (a job may start in another
# directory than the shell that submits it).
wordsens_absolute() {
  mkdir -p "$(dirname "$1")"
  echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

# The binary that prices the study here, on the login node: WORDSENS_BIN, else the installed
# copy's (share/wordsens/../../bin) or the checkout's release build, else `wordsens` on PATH.
wordsens_submit_binary() {
  local home=$1
  if [ -n "${WORDSENS_BIN:-}" ]; then
    echo "${WORDSENS_BIN}"
  elif [ -x "${home}/../../bin/wordsens" ]; then
    echo "${home}/../../bin/wordsens"
  elif [ -x "${home}/build/release/src/wordsens" ]; then
    echo "${home}/build/release/src/wordsens"
  else
    command -v wordsens || true
  fi
}

# True when one of the user's sbatch options ($2…) is one of the names in $1 (space separated,
# matched as `--name`, `--name=…`, `-x` or `-x…`). A word that is the value of the option before
# it (`-J -nightly`, `--comment --mem`) is not an option.
wordsens_user_gave() {
  local names=$1 arg name value_next=0
  shift
  for arg in "$@"; do
    if [ "${value_next}" = 1 ]; then
      value_next=0
      continue
    fi
    for name in ${names}; do
      case "${arg}" in
        "${name}" | "${name}"=*) return 0 ;;
      esac
      # A short option may carry its value: -n4, -o log.out.
      if [ "${#name}" -eq 2 ] && [ "${arg#"${name}"}" != "${arg}" ]; then return 0; fi
    done
    case "${arg}" in
      --*=* | -[a-zA-Z]?*) ;; # the value is attached
      # sbatch's switches: no value follows.
      --requeue | --no-requeue | --exclusive | --parsable | --hold | -H | --test-only | -Q | \
        --quiet | -v | --verbose | -W | --wait | -O | --overcommit | --contiguous | \
        --spread-job | --use-min-nodes | -k | --no-kill | -s | --oversubscribe | --ignore-pbs | \
        --reboot | --get-user-env) ;;
      -*) value_next=1 ;;
    esac
  done
  return 1
}

# wordsens_memory_request BINARY CONFIG [RUN_OPTIONS…]: prints the sbatch option that asks for
# the study's memory per rank ("--mem-per-cpu=123M"); one line on stderr and status 2 when the
# study cannot be priced (its dry run fails: the same line the run would fail with).
wordsens_memory_request() {
  local binary=$1 plan mib
  shift
  if [ -z "${binary}" ] || [ ! -x "${binary}" ]; then
    echo "submit: no wordsens binary to price the study's memory with (set WORDSENS_BIN," \
      "or pass --mem-per-cpu yourself)" >&2
    return 2
  fi
  if ! plan=$("${binary}" run "$@" --dry-run --format=json); then
    echo "submit: the dry run of the study failed (above); nothing submitted" >&2
    return 2
  fi
  mib=$("${WORDSENS_PYTHON:-python3}" -c '
import json, math, sys
plan = json.load(sys.stdin)
room = 1 + float(sys.argv[1]) / 100
print(math.ceil(plan["memory"]["per_rank_bytes"] * room / 2**20))' \
    "${WORDSENS_MEMORY_ROOM_PERCENT}" <<<"${plan}") || {
    echo "submit: cannot read the dry run's memory per rank (python3 needed)" >&2
    return 2
  }
  echo "--mem-per-cpu=${mib}M"
}

# wordsens_sbatch_defaults BINARY LOG_PATTERN -- USER_SBATCH_OPTIONS… -- CONFIG [RUN_OPTIONS…]
# Sets the array WORDSENS_SBATCH_DEFAULTS (options to put before the user's) and prints one line
# per choice to stderr. Exits 2 with one line when the study cannot be priced.
wordsens_sbatch_defaults() {
  local binary=$1 log_pattern=$2
  shift 3
  local -a user=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    user+=("$1")
    shift
  done
  shift
  WORDSENS_SBATCH_DEFAULTS=()
  if ! wordsens_user_gave "--mem --mem-per-cpu --mem-per-gpu" "${user[@]+"${user[@]}"}"; then
    local request
    request=$(wordsens_memory_request "${binary}" "$@") || exit 2
    WORDSENS_SBATCH_DEFAULTS+=("${request}")
    echo "submit: memory ${request#--mem-per-cpu=} per rank (the dry run's estimate" \
      "+${WORDSENS_MEMORY_ROOM_PERCENT} %)" >&2
  fi
  if ! wordsens_user_gave "-o --output" "${user[@]+"${user[@]}"}"; then
    mkdir -p "$(dirname "${log_pattern}")"
    WORDSENS_SBATCH_DEFAULTS+=("--output=${log_pattern}")
    echo "submit: log ${log_pattern}" >&2
  fi
  if ! wordsens_user_gave "-n --ntasks -N --nodes --ntasks-per-node" \
    "${user[@]+"${user[@]}"}"; then
    WORDSENS_SBATCH_DEFAULTS+=("--ntasks=4")
    echo "submit: 4 ranks (give -n R, or -N and --ntasks-per-node, for another layout)" >&2
  fi
}
