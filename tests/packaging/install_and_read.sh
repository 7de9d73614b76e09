#!/usr/bin/env bash
# The analysis package installs offline into a fresh venv (with the system's site packages for
# h5py, numpy, scipy, pandas, matplotlib), provides the wordsens-report console script, and the
# README's Python example runs against a real results file.
#   install_and_read.sh WORDSENS_BINARY WORK_DIR
set -euo pipefail
WORDSENS=$1
WORK=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Debian's interpreter has the venv module and the system packages the venv inherits.
/usr/bin/python3 -m venv --system-site-packages venv || fail "python3 -m venv (python3-venv)"
# From a copy: pip builds in the source folder, and a test must not write into the checkout.
cp -r "$ROOT/analysis" analysis
venv/bin/python -m pip install -q --no-index --no-build-isolation ./analysis ||
  fail "pip install ./analysis"
[ -x venv/bin/wordsens-report ] || fail "no wordsens-report console script"
venv/bin/python -c "import wordsens_analysis, sys; sys.exit(0 if '/venv/' in wordsens_analysis.__file__ else 1)" ||
  fail "the venv imports wordsens_analysis from elsewhere"

# A real results file: the MPI tests' tiny study, one process.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$WORDSENS" run "$ROOT/tests/mpi/tiny.ini" --output tiny.h5 --progress 60 2>run.log ||
  fail "wordsens run: $(tail -1 run.log)"

# The README's example (its first python block), pointed at that file.
awk '/^```python$/ {on = 1; next} on && /^```$/ {exit} on {print}' "$ROOT/README.md" >example.py
[ -s example.py ] || fail "README.md has no python example"
sed -i 's#results/quick.h5#tiny.h5#' example.py
venv/bin/python example.py >example.out || fail "the README example failed"
grep -q "raf" example.out || fail "the README example printed no model: $(cat example.out)"

# One version (the top-level VERSION): the results file's, the package's and pip's metadata.
version=$(cat "$ROOT/VERSION")
said=$(venv/bin/python -c 'import sys, h5py, importlib.metadata as m, wordsens_analysis as w
with h5py.File(sys.argv[1], "r") as f:
    v = f.attrs["software_version"]
print(v.decode() if isinstance(v, bytes) else v, w.__version__, m.version("wordsens-analysis"))' tiny.h5)
[ "$said" = "$version $version $version" ] ||
  fail "file, package and pip metadata say '$said', VERSION says $version"

venv/bin/wordsens-report tiny.h5 -o report >report.out || fail "wordsens-report (installed)"
[ -s report/report.html ] && [ -s report/verdicts.csv ] || fail "no report written"
echo "installed, console script and README example: ok"
