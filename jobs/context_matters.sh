#!/usr/bin/env bash
# "Does context matter?" (docs/METHOD.md): builds the three embeddings files of the same Brown
# windows (GloVe, all-MiniLM-L6-v2's layer 0 and layer 6; jobs/prepare_minilm_brown.sh), runs
# jobs/configs/context_minilm_brown.ini on each, and writes the figure and table
# (analysis/context_matters.py) to report/context/ (--output DIR). Resumable like any study.
#   bash jobs/context_matters.sh [--ranks R] [--output DIR] [--results DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=2 out=report/context results=results/context
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=$2; shift ;;
    --output) out=$2; shift ;;
    --results) results=$2; shift ;;
    *) echo "context_matters: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
BIN=${WORDSENS_BIN:-build/release/src/wordsens}
[ -x "$BIN" ] || { echo "context_matters: $BIN is not built (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
PY=$(bash jobs/find_python.sh) || exit 2
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
bash jobs/prepare_minilm_brown.sh --layers 0,6
python=$(bash jobs/install_encoder.sh)
"$python" analysis/datasets/encoder_brown.py --static glove
cache=analysis/datasets/cache
mkdir -p "$results" "$out"
for pair in static:glove_windows layer0:minilm_brown_l0 contextual:minilm_brown_l6; do
  name=${pair%%:*} file=${pair#*:}
  mpirun --oversubscribe -n "$ranks" "$BIN" run jobs/configs/context_minilm_brown.ini \
    --data="embeddings:$cache/$file.h5" --output "$results/$name.h5" --progress=60
done
"$PY" analysis/context_matters.py --static "$results/static.h5" --layer0 "$results/layer0.h5" \
  --contextual "$results/contextual.h5" -o "$out"
