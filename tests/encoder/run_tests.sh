#!/usr/bin/env bash
# The encoder tests under the encoder venv's python (tokenizers, safetensors; torch and numpy
# from Debian): installs the pinned libraries when the venv lacks them (jobs/install_encoder.sh),
# then pytest. The tests of the real model run when the venv holds it (.ci/run installs it).
#   bash tests/encoder/run_tests.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")"
python=$(bash ../../jobs/install_encoder.sh --libraries-only)
exec "$python" -m pytest -q -p no:cacheprovider "$@"
