"""tests/costs.tsv, the COST of each long ctest entry, is data with its provenance: written by
tests/measured_costs.py from one run of the suite, and every row prices an entry the build
registers (a renamed test would silently lose its place at the front of the queue)."""
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

SCRIPT = os.path.join(ROOT, "tests", "measured_costs.py")
TABLE = os.path.join(ROOT, "tests", "costs.tsv")
LOG = """\
          Start  994: reproduce_paper
   1/3 Test  #994: reproduce_paper ..................   Passed  161.79 sec
   2/3 Test  #950: python_analysis ..................   Passed   90.65 sec
   3/3 Test  #12: Unit.Fast .........................   Passed    0.02 sec
   4/4 Test  #13: long_but_failed ...................***Failed   30.00 sec
"""


def test_the_script_keeps_the_passed_entries_of_ten_seconds_or_more(tmp_path):
    log = tmp_path / "suite.log"
    log.write_text(LOG)
    p = subprocess.run([sys.executable, SCRIPT, str(log)], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("# seconds of each ctest entry of at least 10 s") and \
        "2 cores, commit " in lines[0]
    assert lines[1:] == ["test\tseconds", "reproduce_paper\t162", "python_analysis\t91"]
    empty = tmp_path / "empty.log"
    empty.write_text("nothing ran\n")
    p = subprocess.run([sys.executable, SCRIPT, str(empty)], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert p.returncode == 1 and "no passed ctest entry" in p.stderr


def test_the_table_has_its_provenance_and_one_row_per_entry():
    with open(TABLE, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert lines[0].startswith("# seconds of each ctest entry") and "commit " in lines[0]
    assert lines[1] == "test\tseconds"
    names = [line.split("\t")[0] for line in lines[2:]]
    assert len(names) == len(set(names)) > 10
    assert all(int(line.split("\t")[1]) >= 10 for line in lines[2:])


def registrations_copy(build: str, copy, folder: str = ".") -> str:
    """The build's test registrations (its CTestTestfile.cmake files, along their subdirs())
    copied under `copy`: ctest asked for its list writes Testing/Temporary/LastTest.log where it
    runs, and in the build itself that would replace the log of the suite this test is part of
    (the log tests/failure_summary.py reads when an entry fails)."""
    source = os.path.join(build, folder, "CTestTestfile.cmake")
    if not os.path.exists(source):  # a folder that registers no test (ctest skips it too)
        return str(copy)
    target = os.path.join(copy, folder)
    os.makedirs(target, exist_ok=True)
    shutil.copy(source, target)
    with open(source, encoding="utf-8") as f:
        for sub in re.findall(r'^subdirs\("([^"]+)"\)', f.read(), re.M):
            registrations_copy(build, copy, os.path.normpath(os.path.join(folder, sub)))
    return str(copy)


@pytest.mark.skipif(not os.environ.get("WORDSENS_BIN"), reason="needs the build (WORDSENS_BIN)")
def test_every_row_prices_a_registered_entry_with_its_seconds(tmp_path):
    build = os.path.dirname(os.path.dirname(os.environ["WORDSENS_BIN"]))  # <build>/src/wordsens
    log = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    before = os.stat(log).st_mtime_ns if os.path.exists(log) else None
    p = subprocess.run(["ctest", "--test-dir", registrations_copy(build, tmp_path / "tests"),
                        "--show-only=json-v1"], capture_output=True, text=True, timeout=120)
    assert (os.stat(log).st_mtime_ns if os.path.exists(log) else None) == before
    assert p.returncode == 0, p.stderr
    import json
    costs = {}
    for test in json.loads(p.stdout)["tests"]:
        for prop in test.get("properties", []):
            if prop["name"] == "COST":
                costs[test["name"]] = float(prop["value"])
    with open(TABLE, encoding="utf-8") as f:
        rows = [line.split("\t") for line in f.read().splitlines()[2:]]
    registered = {test["name"] for test in json.loads(p.stdout)["tests"]}
    for name, seconds in rows:
        if name in registered:  # some entries need what a machine may lack (Slurm, root)
            assert costs.get(name) == float(seconds), (name, costs.get(name), seconds)
    assert sum(name in registered for name, _ in rows) >= len(rows) - 3
