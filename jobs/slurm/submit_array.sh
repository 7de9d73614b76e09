#!/usr/bin/env bash
# Submits a wordsens study as a job array of N shards plus a merge job that runs only after every
# shard has succeeded (--dependency=afterok). Shards go to PREFIX.shard-i-of-N.h5, the merged
# results to PREFIX.h5, logs to a logs/ folder beside them. Each shard asks for the memory per
# rank of the study's dry run and 4 ranks unless your options say otherwise
# (jobs/slurm/submit_common.sh).
# Usage: jobs/slurm/submit_array.sh CONFIG.ini N [PREFIX [more `wordsens run` options]]
#   PREFIX defaults to results/<config name>. Extra sbatch options for every job (e.g. "-N 2 -p
#   long"): WORDSENS_SBATCH_ARGS; partition/account/time also from SBATCH_PARTITION,
#   SBATCH_ACCOUNT, SBATCH_TIMELIMIT (read by sbatch itself).
# Prints "array job <id>" and "merge job <id>".
set -euo pipefail

if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: submit_array.sh CONFIG.ini N [PREFIX [wordsens run options]]   (N >= 1 shards)" >&2
  exit 2
fi
config=$1
shards=$2
prefix=${3:-results/$(basename "${config%.*}")}
shift $(($# < 3 ? $# : 3))
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=jobs/slurm/submit_common.sh
source "$here/submit_common.sh"
wordsens_submit_ready submit_array.sh "$config"
config=$(wordsens_absolute "$config")
prefix=$(wordsens_absolute "$prefix")

# shellcheck disable=SC2206  # extra sbatch options, split on purpose
extra=(${WORDSENS_SBATCH_ARGS:-})
name=$(basename "$prefix")
logs="$(dirname "$prefix")/logs"
# Priced on the whole study: a shard holds the whole task table and may get its largest task.
wordsens_sbatch_defaults "$(wordsens_submit_binary "$WORDSENS_HOME")" \
  "$logs/wordsens-${name}-%A_%a.out" -- "${extra[@]+"${extra[@]}"}" -- "$config" "$@"
array_id=$(sbatch --parsable "${WORDSENS_SBATCH_DEFAULTS[@]+"${WORDSENS_SBATCH_DEFAULTS[@]}"}" \
  "${extra[@]+"${extra[@]}"}" --array="0-$((shards - 1))" \
  "$here/array.sbatch" "$config" "$prefix" "$@")
array_id=${array_id%%;*}   # --parsable prints "id" or "id;cluster"
merge_log=()
wordsens_user_gave "-o --output" "${extra[@]+"${extra[@]}"}" \
  || merge_log=("--output=$logs/wordsens-merge-${name}-%j.out")
merge_id=$(sbatch --parsable "${merge_log[@]+"${merge_log[@]}"}" "${extra[@]+"${extra[@]}"}" \
  --dependency="afterok:${array_id}" --kill-on-invalid-dep=yes "$here/merge.sbatch" "$prefix" "$shards")
merge_id=${merge_id%%;*}
echo "array job ${array_id}"
echo "merge job ${merge_id}"
