#!/usr/bin/env bash
# A cluster installation is a product: `cmake --install` of the build into a scratch prefix puts
# wordsens, wordsens-report (the analysis package in its own venv), the job scripts and the Slurm
# scripts under it. Then, from directories outside both the checkout and the prefix:
# - a Slurm script submitted by hand (stand-in sbatch, tests/paper/fake_sbatch.py), with no
#   WORDSENS_* set, finds the installed binary by itself;
# - the prefix is MOVED elsewhere, and the moved installation works: wordsens-report, a local
#   `reproduce_paper.sh --tiny` with the real-text study (its texts are installed too), and
#   `reproduce_paper.sh --slurm` with trials until decided (its judge steps find the caller's
#   results); results and reports land where the user called it, never in the installation,
#   and its docs are never rewritten (--update-doc is refused from an installed copy).
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
mkdir -p "$WORK/bin" "$WORK/user" "$WORK/alone" "$WORK/slurm_user" "$WORK/slurm_logs"
PREFIX=$WORK/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 ||
  fail "cmake --install: $(tail -3 "$WORK/install.log")"
for f in bin/wordsens bin/wordsens-report share/wordsens/jobs/reproduce_paper.sh \
  share/wordsens/jobs/slurm/run.sbatch share/wordsens/jobs/configs/quick.ini \
  share/wordsens/analysis/wordsens-report share/wordsens/tests/fixtures/embeddings/good.h5; do
  [ -e "$PREFIX/$f" ] || fail "$f not installed"
done
grep -q "^WORDSENS_INSTALLED_HOME=\"$PREFIX/share/wordsens\"" \
  "$PREFIX/share/wordsens/jobs/slurm/run.sbatch" || fail "run.sbatch does not know its home"

cp "$ROOT/tests/paper/fake_sbatch.py" "$WORK/bin/sbatch"
chmod +x "$WORK/bin/sbatch"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPLBACKEND=Agg
# Nothing may point back at the checkout: no WORDSENS_* from the caller.
clean=(env -u WORDSENS_BIN -u WORDSENS_HOME -u WORDSENS_PYTHON PATH="$WORK/bin:$PATH"
  WORDSENS_LAUNCHER=mpirun WORDSENS_MPIRUN_ARGS="--oversubscribe -n 1")

# A Slurm script submitted by hand, with no WORDSENS_* set, finds the installed binary by itself
# (the install wrote its home into the spooled script).
cd "$WORK/user"
"${clean[@]}" FAKE_SBATCH_LOG="$WORK/sbatch.log" FAKE_SBATCH_OUT="$WORK/alone" \
  sbatch "$PREFIX/share/wordsens/jobs/slurm/run.sbatch" \
  "$PREFIX/share/wordsens/jobs/configs/regime_map.ini" "$WORK/user/alone.h5" --n=4 --d=4 \
  --trials=1 --max-evals=20 >"$WORK/alone.log" 2>&1 || fail "sbatch run.sbatch: $(cat "$WORK/alone.log")"
[ -f "$WORK/user/alone.h5" ] || fail "run.sbatch wrote no results: $(tail -5 "$WORK"/alone/*.out)"
grep -q "step: .*$PREFIX/share/wordsens/../../bin/wordsens run" "$WORK"/alone/job-*.out ||
  fail "run.sbatch alone did not find the installed wordsens: $(tail -5 "$WORK"/alone/*.out)"
info=$("$PREFIX/bin/wordsens" info alone.h5) || fail "the installed wordsens cannot read its file"
grep -q "tasks done" <<<"$info" || fail "wordsens info printed no task count: $info"

# The installation moves: everything below runs from its new place only.
MOVED=$WORK/moved/elsewhere
mkdir -p "$(dirname "$MOVED")"
mv "$PREFIX" "$MOVED"
SHARE=$MOVED/share/wordsens
docs_before=$(cd "$SHARE/docs" && sha256sum ./*.md)
"$MOVED/bin/wordsens-report" --help >/dev/null || fail "the moved wordsens-report"

# --update-doc from an installed copy: refused at once, the installation's docs untouched.
rc=0
"${clean[@]}" bash "$SHARE/jobs/reproduce_paper.sh" --update-doc >"$WORK/doc.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "not with an installed copy" "$WORK/doc.log" ||
  fail "--update-doc from an installed copy (exit $rc): $(cat "$WORK/doc.log")"

# A local tiny run with the real-text study, from the moved installation.
"${clean[@]}" bash "$SHARE/jobs/reproduce_paper.sh" --tiny --ranks 1 \
  --only paper_glove_brown,regime_map >"$WORK/local.log" 2>&1 ||
  fail "moved reproduce_paper.sh --tiny: $(tail -5 "$WORK/local.log")"
for f in results/paper/paper_glove_brown.h5 results/paper/regime_map.h5 report/paper/report.html \
  report/paper/results.md; do
  [ -f "$f" ] || fail "no $f in the caller's directory: $(tail -5 "$WORK/local.log")"
done
grep -q "wordsens run jobs/configs/paper_glove_brown.ini .*--data=embeddings:tests/fixtures" \
  "$WORK/local.log" || fail "the tiny real-text study did not read the installed fixture"

# --slurm with trials until decided, from the moved installation, in another directory: the
# judge steps find the caller's results and submit the report job with them.
cd "$WORK/slurm_user"
"${clean[@]}" FAKE_SBATCH_LOG="$WORK/sbatch_slurm.log" FAKE_SBATCH_OUT="$WORK/slurm_logs" \
  bash "$SHARE/jobs/reproduce_paper.sh" --slurm --tiny --ranks 1 --trials 5 --max-trials 10 \
  --only paper_ws >"$WORK/submit.log" 2>&1 ||
  fail "moved reproduce_paper.sh --slurm: $(tail -5 "$WORK/submit.log")"
[ -f results/paper/paper_ws.h5 ] || fail "no results in the caller's directory"
[ -f report/paper/report.html ] ||
  fail "no report in the caller's directory: $(tail -3 "$WORK"/slurm_logs/job-*.out)"
judges=$(grep -c '"script": "judge.sbatch"' "$WORK/sbatch_slurm.log" || true)
[ "$judges" -ge 1 ] || fail "no judge step ran: $(cat "$WORK/sbatch_slurm.log")"
if grep -q '"state": "FAILED"' "$WORK/sbatch_slurm.log"; then
  fail "a job failed: $(grep FAILED "$WORK/sbatch_slurm.log" | head -3)"
fi
grep -q "step: .*$MOVED/bin/wordsens run" "$WORK"/slurm_logs/job-*.out ||
  fail "the Slurm jobs did not run the moved installation's wordsens"

for d in results report; do
  [ ! -e "$SHARE/$d" ] || fail "$d written into the installation"
done
[ "$(cd "$SHARE/docs" && sha256sum ./*.md)" = "$docs_before" ] ||
  fail "the installation's docs were rewritten"
echo "installed under $PREFIX and moved to $MOVED: wordsens, wordsens-report, a local tiny run" \
  "and a Slurm run with judge steps: ok ($judges judge steps)"
