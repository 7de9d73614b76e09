#!/usr/bin/env bash
# The main job on one machine: install what is missing, build the `wordsens` binary of the
# release preset, run the study on RANKS MPI ranks, then write the report (figures and one
# verdict per theorem).
#
#   bash jobs/run_local.sh [CONFIG] [RANKS] [OUTPUT]
#     CONFIG  default jobs/configs/quick.ini
#     RANKS   default 2
#     OUTPUT  default results/<config name>.h5; the report goes to report/<config name>/
#
# Rerunning resumes: finished tasks are never redone. Exit code: the driver's
# (docs/COMMANDS.md "Exit codes"), unchanged: 3 means checkpointed (USR1 / wall time), rerun to
# continue. `kill -USR1` of this script checkpoints the run too.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=jobs/mpi_step.sh
source jobs/mpi_step.sh
WORDSENS_STEP_NAME=run_local
# With stdout or stderr closed, the echoes below would fail and mpirun could hang (mpi_step.sh).
wordsens_keep_streams_open

CONFIG=${1:-jobs/configs/quick.ini}
RANKS=${2:-2}
NAME=$(basename "${CONFIG%.*}")
OUTPUT=${3:-results/${NAME}.h5}
REPORT=report/${NAME}

if [ ! -f "$CONFIG" ]; then
  echo "run_local: no configuration file '$CONFIG'" >&2
  exit 2
fi
case "$RANKS" in
  '' | *[!0-9]* | 0)
    echo "run_local: RANKS must be a positive integer, not '$RANKS'" >&2
    exit 2
    ;;
esac

# Each phase's wall time goes to the last line (a fresh machine's first run is mostly packages
# and the build: docs/PERFORMANCE.md "First run on a fresh machine").
phase_start=$SECONDS
phases=""
phase_done() {
  phases+="${phases:+, }$1 $((SECONDS - phase_start)) s"
  phase_start=$SECONDS
}

# As root, the report's Python packages install in the background while the binary builds and
# the study runs (a fresh machine spends about half its package time unpacking and byte-compiling
# them, on one core; the build needs none of them); the report waits for them. Without root,
# install_deps.sh names every missing package at once and stops here.
report_packages=""
if [ "$(id -u)" -eq 0 ]; then
  bash jobs/install_deps.sh build
  report_packages_log=$(mktemp "${TMPDIR:-/tmp}/wordsens-report-packages.XXXXXX")
  # USR1 ignored: it checkpoints the study, it must not end apt-get (bash already makes a
  # background job of a script ignore INT). At the lowest CPU and I/O priority, which holds for
  # apt-get's downloads but not for dpkg: apt runs dpkg on a pseudo-terminal in a session of its
  # own, and under the kernel's autogroup scheduling (Debian's default) sessions share the CPU
  # equally whatever their nice values, so unpacking and byte-compiling take a share from the
  # build and the study. Kept so on purpose: with `-o Dpkg::Use-Pty=0` dpkg stays in this session
  # and yields, the build is 35-40 s shorter, but the install then ends alone on one core after
  # the study and the whole run is longer (350 s against 338 s, fresh root, 2 cores): on a
  # CPU-bound first run, overlap beats priority.
  low_priority=(nice -n 19)
  # Some containers refuse the idle I/O class: then the CPU priority alone.
  if ionice -c 3 true 2>/dev/null; then low_priority+=(ionice -c 3); fi
  (
    trap '' USR1
    exec "${low_priority[@]}" bash jobs/install_deps.sh report
  ) >"$report_packages_log" 2>&1 &
  report_packages=$!
  # Whatever ends this script (a failed build included) lets the install finish first: dpkg is
  # never left half done or holding its lock behind the user's back.
  trap 'if [ -n "$report_packages" ]; then wait "$report_packages" || true; rm -f "$report_packages_log"; fi' EXIT
else
  bash jobs/install_deps.sh run
fi
phase_done packages
# The report's packages: waits for the background install (its output goes to the terminal).
wait_for_report_packages() {
  [ -n "$report_packages" ] || return 0
  wordsens_wait_child "$report_packages"
  local rc=$WORDSENS_CHILD_RC
  cat "$report_packages_log"
  rm -f "$report_packages_log"
  report_packages=""
  if [ "$rc" -ne 0 ]; then
    echo "run_local: installing the report's packages failed (exit $rc; output above)" >&2
  fi
  return "$rc"
}
# The job runs the `wordsens` binary only (the report is Python): the unit tests, their
# GoogleTest binaries and their packages are jobs/test_all.sh's (its own build, preset ci).
bash jobs/configure.sh release -DWORDSENS_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release -j "$(nproc)" --target wordsens
phase_done build

if [ "$(id -u)" -eq 0 ]; then
  # Open MPI refuses to start as root without both of these.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mkdir -p "$(dirname "$OUTPUT")"
echo "run_local: mpirun -n $RANKS wordsens run $CONFIG --output $OUTPUT"
# --oversubscribe: RANKS may exceed the cores of a small machine. mpi_step.sh starts mpirun so
# that a USR1 at any moment (to this script, mpirun or a rank) checkpoints the run or is dropped
# before it starts, and passes a USR1 sent to this script on to the ranks.
wordsens_mpi_step mpirun --oversubscribe -n "$RANKS" -- \
  build/release/src/wordsens run "$CONFIG" --output "$OUTPUT"
rc=$WORDSENS_RC
phase_done study
if [ "$rc" -ne 0 ]; then
  # The driver's exit code stays the script's, whatever the install did.
  wait_for_report_packages || true
  echo "run_local: wordsens run exited with $rc (3: checkpointed, rerun to resume)" >&2
  exit "$rc"
fi
wait_for_report_packages
phase_done "report packages"

if [ -x analysis/wordsens-report ]; then
  mkdir -p "$REPORT"
  analysis/wordsens-report "$OUTPUT" -o "$REPORT"
  phase_done report
  echo "run_local: results in $OUTPUT, report in $REPORT/"
else
  echo "run_local: results in $OUTPUT (analysis/wordsens-report not found: no report)"
fi
echo "run_local: wall time $SECONDS s ($phases)"
