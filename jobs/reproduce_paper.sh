#!/usr/bin/env bash
# Reproduces the paper with one command: every experiment, then one combined report with the
# verdict table, the paper-like figures, the regime map and the "paper vs here" table
# (docs/REPRODUCE.md).
#
#   bash jobs/reproduce_paper.sh [--slurm] [--trials T] [--dry-run] [options]
#
# `--help` lists every option. The driver is the Python module jobs/reproduce_paper.py (its steps
# in jobs/reproduce/; the standard library only: the analysis runs with the Python that
# jobs/find_python.sh finds). This entry point only hands over, with TERM, INT, HUP and USR1
# blocked across the exec so that one arriving before the driver's handlers exist waits for
# them (coreutils' env --block-signal, 8.31 or later), and a USR1 that came before it
# remembered.
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
usr1=0
trap 'usr1=1' USR1  # passed on by the driver to the first study it runs
jobs=$(cd "$(dirname "$0")" && pwd)
python=$(command -v python3 || true)
[ -n "$python" ] || {
  echo "reproduce_paper: python3 not found (run bash jobs/install_deps.sh)" >&2
  exit 2
}
block=()
if env --block-signal=TERM true 2>/dev/null; then block=(env --block-signal=TERM,INT,HUP,USR1); fi
export WORDSENS_INSTALLED_HOME WORDSENS_DRIVER_USR1=$usr1
exec "${block[@]+"${block[@]}"}" "$python" "$jobs/reproduce_paper.py" "$@"
