#!/usr/bin/env bash
# Submits one wordsens study as one job (run.sbatch), asking Slurm for what the study needs:
# memory per rank from its dry run, its log under a logs/ folder beside the results, and 4 ranks
# unless your sbatch options give a layout (jobs/slurm/submit_common.sh says how each is chosen).
# Usage: jobs/slurm/submit.sh CONFIG.ini OUTPUT.h5 [sbatch options] [-- wordsens run options]
#   e.g. jobs/slurm/submit.sh jobs/configs/paper_ws.ini results/paper_ws.h5 -N 2 \
#          --ntasks-per-node=32 -p compute -A myproject -- --trials=40
# Prints "job <id>". Your own --mem/--mem-per-cpu, --output or layout options replace ours.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: submit.sh CONFIG.ini OUTPUT.h5 [sbatch options] [-- wordsens run options]" >&2
  exit 2
fi
config=$1
output=$2
shift 2
sbatch_args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  sbatch_args+=("$1")
  shift
done
[ $# -gt 0 ] && shift  # the --
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=jobs/slurm/submit_common.sh
source "$here/submit_common.sh"
wordsens_submit_ready submit.sh "$config"
config=$(wordsens_absolute "$config")
output=$(wordsens_absolute "$output")
name=$(basename "${output%.h5}")

wordsens_sbatch_defaults "$(wordsens_submit_binary "$WORDSENS_HOME")" \
  "$(dirname "$output")/logs/wordsens-${name}-%j.out" \
  -- "${sbatch_args[@]+"${sbatch_args[@]}"}" -- "$config" --output "$output" "$@"
id=$(sbatch --parsable "${WORDSENS_SBATCH_DEFAULTS[@]+"${WORDSENS_SBATCH_DEFAULTS[@]}"}" \
  "${sbatch_args[@]+"${sbatch_args[@]}"}" "$here/run.sbatch" "$config" "$output" "$@")
echo "job ${id%%;*}"
