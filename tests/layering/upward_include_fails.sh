#!/usr/bin/env bash
# usage: upward_include_fails.sh CMAKE BUILD_DIR
# The layering of src/ holds: a models source compiles with headers of its own layer and below
# (control), and one that includes study/study.hpp fails, because the header is not visible.
set -uo pipefail
cmake=$1 build=$2
if ! out=$("$cmake" --build "$build" --target layering_probe_downward 2>&1); then
  echo "FAIL: the control (models including core/ and models/ headers) does not build:"
  echo "$out" | tail -20
  exit 1
fi
if out=$("$cmake" --build "$build" --target layering_probe_upward 2>&1); then
  echo "FAIL: a models source including study/study.hpp built: the layering is not enforced"
  exit 1
fi
if ! grep -q "study/study.hpp: No such file or directory" <<<"$out"; then
  echo "FAIL: the upward include failed, but not because the header is out of sight:"
  echo "$out" | tail -20
  exit 1
fi
echo "ok: models cannot include study/study.hpp"
