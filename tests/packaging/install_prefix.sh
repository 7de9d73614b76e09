#!/usr/bin/env bash
# A cluster installation: `cmake --install` of the build into a scratch prefix puts wordsens,
# wordsens-report (the analysis package in its own venv), the job scripts and the Slurm scripts
# under it; from a directory outside both the checkout and the prefix, the installed
# reproduce_paper.sh --slurm submits a tiny study through a stand-in sbatch
# (tests/paper/fake_sbatch.py), the installed Slurm scripts run the installed binary, the report
# job runs the installed analysis, and results land where the user called it, not in the prefix.
#   install_prefix.sh BUILD_DIR WORK_DIR
set -euo pipefail
BUILD=$1
WORK=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
rm -rf "$WORK"
mkdir -p "$WORK/bin" "$WORK/user" "$WORK/alone"
PREFIX=$WORK/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 ||
  fail "cmake --install: $(tail -3 "$WORK/install.log")"
for f in bin/wordsens bin/wordsens-report share/wordsens/jobs/reproduce_paper.sh \
  share/wordsens/jobs/slurm/run.sbatch share/wordsens/jobs/configs/quick.ini \
  share/wordsens/analysis/wordsens-report; do
  [ -e "$PREFIX/$f" ] || fail "$f not installed"
done
grep -q "^WORDSENS_INSTALLED_HOME=\"$PREFIX/share/wordsens\"" \
  "$PREFIX/share/wordsens/jobs/slurm/run.sbatch" || fail "run.sbatch does not know its home"
"$PREFIX/bin/wordsens-report" --help >/dev/null || fail "the installed wordsens-report"

cp "$ROOT/tests/paper/fake_sbatch.py" "$WORK/bin/sbatch"
chmod +x "$WORK/bin/sbatch"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPLBACKEND=Agg
cd "$WORK/user"
# Nothing may point back at the checkout: no WORDSENS_* from the caller.
env -u WORDSENS_BIN -u WORDSENS_HOME -u WORDSENS_PYTHON PATH="$WORK/bin:$PATH" \
  FAKE_SBATCH_LOG="$WORK/sbatch.log" FAKE_SBATCH_OUT="$WORK" WORDSENS_LAUNCHER=mpirun \
  WORDSENS_MPIRUN_ARGS="--oversubscribe -n 1" \
  bash "$PREFIX/share/wordsens/jobs/reproduce_paper.sh" --slurm --tiny --ranks 1 \
  --only regime_map >"$WORK/submit.log" 2>&1 || fail "installed reproduce_paper.sh: $(tail -5 "$WORK/submit.log")"
[ -f results/paper/regime_map.h5 ] || fail "no results in the caller's directory"
[ -f report/paper/report.html ] || fail "no report in the caller's directory"
[ ! -e "$PREFIX/share/wordsens/results" ] || fail "results written into the installation"
grep -q "step: .*$PREFIX/share/wordsens/../../bin/wordsens run" "$WORK"/job-*.out ||
  fail "the Slurm job did not run the installed wordsens: $(cat "$WORK"/job-*.out | tail -5)"
info=$("$PREFIX/bin/wordsens" info results/paper/regime_map.h5) ||
  fail "the installed wordsens cannot read its file"
grep -q "tasks done" <<<"$info" || fail "wordsens info printed no task count: $info"
# A Slurm script submitted by hand, with no WORDSENS_* set, finds the installed binary by itself.
env -u WORDSENS_BIN -u WORDSENS_HOME -u WORDSENS_PYTHON PATH="$WORK/bin:$PATH" \
  FAKE_SBATCH_LOG="$WORK/sbatch.log" FAKE_SBATCH_OUT="$WORK/alone" WORDSENS_LAUNCHER=mpirun \
  WORDSENS_MPIRUN_ARGS="--oversubscribe -n 1" \
  sbatch "$PREFIX/share/wordsens/jobs/slurm/run.sbatch" \
  "$PREFIX/share/wordsens/jobs/configs/regime_map.ini" "$WORK/user/alone.h5" --n=4 --d=4 \
  --trials=1 --max-evals=20 >"$WORK/alone.log" 2>&1 || fail "sbatch run.sbatch: $(cat "$WORK/alone.log")"
[ -f "$WORK/user/alone.h5" ] || fail "run.sbatch wrote no results: $(tail -5 "$WORK"/alone/*.out)"
grep -q "step: .*$PREFIX/share/wordsens/../../bin/wordsens run" "$WORK"/alone/job-*.out ||
  fail "run.sbatch alone did not find the installed wordsens: $(tail -5 "$WORK"/alone/*.out)"
echo "installed under $PREFIX: wordsens, wordsens-report, job and Slurm scripts: ok"
