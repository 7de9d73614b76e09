#!/usr/bin/env bash
# Reproduces the paper with one command: every experiment, then one combined report with the
# verdict table, the paper-like figures, the regime map and the "paper vs here" table
# (docs/REPRODUCE.md).
#
#   bash jobs/reproduce_paper.sh [--slurm] [--trials T] [--dry-run] [options]
#
# `--help` lists every option. The driver is the Python module jobs/reproduce_paper.py (and its
# steps in jobs/reproduce/); this entry point only finds the Python it runs with
# (jobs/find_python.sh) and hands over, with TERM, INT, HUP and USR1 blocked across the exec so
# that one arriving before the driver's handlers exist waits for them.
set -euo pipefail
# Written by `cmake --install` (cmake/InstallScripts.cmake): non-empty in an installed copy (the
# home it was installed to; the copy finds its files from its own place, so a moved installation
# works). The driver learns from it that it is installed.
WORDSENS_INSTALLED_HOME=""
early_signal() {
  trap '' TERM INT HUP
  echo "reproduce_paper: $1 before any study started: nothing to end" >&2
  exit $((128 + $2))
}
trap 'early_signal TERM 15' TERM
trap 'early_signal INT 2' INT
trap 'early_signal HUP 1' HUP
trap '' USR1  # (passed on by the driver once a study runs)
jobs=$(cd "$(dirname "$0")" && pwd)
PY=$(bash "$jobs/find_python.sh") || exit 2
export WORDSENS_INSTALLED_HOME
block=()
if env --block-signal=TERM true 2>/dev/null; then block=(env --block-signal=TERM,INT,HUP,USR1); fi
exec "${block[@]+"${block[@]}"}" "$PY" "$jobs/reproduce_paper.py" "$@"
