#!/usr/bin/env bash
# Builds what the trained-layer study (jobs/configs/trained_minilm.ini) reads: the installed
# encoder's folder linked as analysis/datasets/cache/minilm_model (the study's `encoder`), and the
# states that enter layers 1 … 6 of all-MiniLM-L6-v2 on the Brown windows of
# jobs/prepare_minilm_brown.sh, in LayerNorm coordinates (the rows before the gain and bias of the
# LayerNorm that closes each layer: docs/METHOD.md §2, "Trained layers"):
# analysis/datasets/cache/minilm_brown_l{0..5}_normalised.h5. Idempotent, like the builder.
# Usage: bash jobs/prepare_trained_minilm.sh [--layers 0,1,2,3,4,5] [builder arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
layers=0,1,2,3,4,5
if [ "${1:-}" = --layers ]; then
  layers=$2
  shift 2
fi
model=$(bash jobs/install_encoder.sh --model-dir) || exit 2
mkdir -p analysis/datasets/cache
ln -sfn "$model" analysis/datasets/cache/minilm_model
exec bash jobs/prepare_minilm_brown.sh --layers "$layers" --coordinates normalised "$@"
