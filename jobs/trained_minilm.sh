#!/usr/bin/env bash
# The trained-layer study (docs/METHOD.md §2, "Trained layers"): builds its inputs
# (jobs/prepare_trained_minilm.sh), runs jobs/configs/trained_minilm.ini at each layer l = 1 … 6
# of all-MiniLM-L6-v2 on the states that enter it, and writes the figure and tables
# (analysis/trained_layers.py) to report/trained/ (--output DIR). Resumable like any study.
# --second-look also runs trials 10 … 19 of every layer (LAYER.look-2-trials-10-20.h5, pooled with
# the first batch by the figure and by wordsens-report): at 10 trials a row's sign test cannot pass
# Holm's correction over the six layers' rows, at 20 it can (docs/METHOD.md §2, "Trained layers").
#   bash jobs/trained_minilm.sh [--ranks R] [--layers 1,2,3,4,5,6] [--output DIR] [--results DIR]
#                               [--second-look] [-- run arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=2 out=report/trained results=results/trained layers=1,2,3,4,5,6 second_look=
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=$2; shift ;;
    --layers) layers=$2; shift ;;
    --output) out=$2; shift ;;
    --results) results=$2; shift ;;
    --second-look) second_look=1 ;;
    --) shift; break ;;
    *) echo "trained_minilm: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
BIN=${WORDSENS_BIN:-build/release/src/wordsens}
[ -x "$BIN" ] || { echo "trained_minilm: $BIN is not built (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
PY=$(bash jobs/find_python.sh) || exit 2
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
IFS=',' read -r -a wanted <<<"$layers"
inputs=()
for layer in "${wanted[@]}"; do inputs+=($((layer - 1))); done
bash jobs/prepare_trained_minilm.sh --layers "$(IFS=,; echo "${inputs[*]}")"
cache=analysis/datasets/cache
mkdir -p "$results" "$out"
files=()
for layer in "${wanted[@]}"; do
  mpirun --oversubscribe -n "$ranks" "$BIN" run jobs/configs/trained_minilm.ini \
    --encoder-layer="$layer" --data="embeddings:$cache/minilm_brown_l$((layer - 1))_normalised.h5" \
    --output "$results/layer$layer.h5" --progress=60 "$@"
  files+=("$results/layer$layer.h5")
  if [ -n "$second_look" ]; then
    look=$results/layer$layer.look-2-trials-10-20.h5
    mpirun --oversubscribe -n "$ranks" "$BIN" run jobs/configs/trained_minilm.ini \
      --encoder-layer="$layer" --data="embeddings:$cache/minilm_brown_l$((layer - 1))_normalised.h5" \
      --first-trial=10 --trials=10 --output "$look" --progress=60 "$@"
    files+=("$look")
  fi
done
"$PY" analysis/trained_layers.py "${files[@]}" -o "$out"
