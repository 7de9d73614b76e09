#!/usr/bin/env bash
# Fails listing every C++ file that clang-format would change.
#   check_format.sh CLANG_FORMAT ROOT
set -euo pipefail
clang_format=$1
cd "$2"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.c')
else
  mapfile -t files < <(find src tests cmake -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.c')
fi
# One run over all files; its diagnostics start with "FILE:LINE:COL: error".
if ! out=$("$clang_format" --dry-run -Werror "${files[@]}" 2>&1); then
  grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$out" | cut -d: -f1 | sort -u |
    sed 's/^/not clang-formatted (run clang-format -i): /'
  exit 1
fi
echo "${#files[@]} files formatted as .clang-format says"
