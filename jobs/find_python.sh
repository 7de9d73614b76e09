#!/usr/bin/env bash
# Prints the Python interpreter the suite's scripts use: one that imports h5py, numpy, scipy,
# pandas and matplotlib. $WORDSENS_PYTHON if set; else the `python3` of the environment (a venv,
# conda or pyenv one) when it has those modules; else Debian's /usr/bin/python3 (what
# jobs/install_deps.sh installs them for); an installed copy (cmake --install) first tries the
# venv the install made. Exits 1 with a one-line message when none has them.
#   PY=$(bash jobs/find_python.sh)
set -euo pipefail
check='import h5py, numpy, scipy, pandas, matplotlib'
# Written by `cmake --install`: the venv holding the installed analysis package, relative to this
# file's folder (a moved installation keeps finding it); empty in a checkout.
WORDSENS_INSTALLED_PYTHON=""
if [ -n "$WORDSENS_INSTALLED_PYTHON" ] && [[ $WORDSENS_INSTALLED_PYTHON != /* ]]; then
  WORDSENS_INSTALLED_PYTHON=$(dirname "${BASH_SOURCE[0]}")/$WORDSENS_INSTALLED_PYTHON
fi
if [ -n "${WORDSENS_PYTHON:-}" ]; then
  if "$WORDSENS_PYTHON" -c "$check" 2>/dev/null; then
    echo "$WORDSENS_PYTHON"
    exit 0
  fi
  echo "find_python: WORDSENS_PYTHON=$WORDSENS_PYTHON cannot import h5py, numpy, scipy, pandas, matplotlib" >&2
  exit 1
fi
for candidate in "$WORDSENS_INSTALLED_PYTHON" "$(command -v python3 || true)" /usr/bin/python3; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" -c "$check" 2>/dev/null; then
    echo "$candidate"
    exit 0
  fi
done
echo "find_python: no python3 with h5py, numpy, scipy, pandas and matplotlib (run bash jobs/install_deps.sh, or set WORDSENS_PYTHON)" >&2
exit 1
