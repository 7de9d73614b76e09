#!/usr/bin/env bash
# `cmake --preset PRESET [ARGS …]`, with the Ninja generator for a build directory that does not
# exist yet when ninja is installed (jobs/install_deps.sh installs it): Ninja compiles a layer's
# files while the layer below it links, where make waits, so both cores stay busy (the first
# build of `wordsens` on 2 idle cores: 144 s with Ninja, 163 s with make). A build directory that
# exists keeps its generator (CMake refuses to switch one), so an older checkout's build/ still
# works.
#
#   bash jobs/configure.sh PRESET [CMAKE ARGS …]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: configure.sh PRESET [CMAKE ARGS …]" >&2
  exit 2
fi
preset=$1
shift
generator=()
# Every preset builds in build/<preset> (CMakePresets.json, "base").
if [ ! -f "build/$preset/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
exec cmake --preset "$preset" "${generator[@]+"${generator[@]}"}" "$@"
