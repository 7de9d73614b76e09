"""The invariants of a record: the analysis reader's list (schema.RECORD_INVARIANTS) is the one
FORMAT.md prints, which tests/unit/io/format_doc_test.cpp compares with the C++ readers'; on
real files of the built binary (WORDSENS_BIN), a record that breaks one, with every checksum
recomputed, is refused naming it (tests/faults/damage_classes.py, record_invariants, tries one
edit per invariant on every reader)."""
import os
import subprocess
import sys

import pytest
from conftest import ROOT, binary_file

from wordsens_analysis import read_results
from wordsens_analysis.reading import schema
from wordsens_analysis.reader import DamagedFileError

sys.path.insert(0, os.path.join(ROOT, "tests", "faults"))
from craft import craft  # noqa: E402

BIN = os.environ.get("WORDSENS_BIN")
BEGIN = ("<!-- invariants of a record: generated from study/record_invariants.cpp "
         "(tests/unit/io/format_doc_test.cpp compares them) -->\n")
END = "<!-- end of the invariants of a record -->"


def test_the_list_is_the_one_format_md_prints():
    with open(os.path.join(ROOT, "analysis", "FORMAT.md"), encoding="utf-8") as f:
        doc = f.read()
    block = doc[doc.index(BEGIN) + len(BEGIN):doc.index(END)]
    table = "| invariant | table | what every record of a done task holds |\n|---|---|---|\n"
    table += "".join(f"| `{rule}` | {where} | {text} |\n"
                     for rule, where, text in schema.RECORD_INVARIANTS)
    assert block == table


SMALL = "experiments = ws,gen\nmodels = rf,raf\nn = 4,6\nd = 3\nk = 1.0D\nN = 5\ntrials = 2\n" \
        "seed = 5\nmax-evals = 100\ntraining = finetune\n"


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    if not BIN:
        pytest.skip("WORDSENS_BIN is unset (ctest sets it to the built binary)")
    path = binary_file(tmp_path_factory.mktemp("invariants"), SMALL, BIN)
    assert read_results(path).complete  # a run's records keep every invariant
    return path


@pytest.mark.parametrize("code, named", [
    ("f['ws/S'][0] = f['ws/S'][0] * 3", "one_word_best"),
    ("f['ws/argmax_position'][0] = -1", "one_word_positions"),
    ("f['ws/starts_at_budget'][0] = f['ws/starts'][0] + 1", "invariant starts"),
    ("f['gen/seconds'][0] = 99.0", "gen_seconds"),
    # A row short of one position_S before rows that keep every invariant: only it is named
    # (the rows after it are compared with their own values).
    ("f['ws/position_S_length'][0] = f['ws/position_S_length'][0] - 1", "one_word_positions"),
])
def test_a_crafted_record_is_refused_naming_its_invariant(clean, tmp_path, code, named):
    crafted = craft(clean, tmp_path / "crafted.h5", code)
    with pytest.raises(DamagedFileError, match="damaged or not a wordsens results file") as e:
        read_results(crafted)
    assert named in str(e.value) and "Invariants of a record" in str(e.value)
    assert "times; first" not in str(e.value) and "more problem" not in str(e.value)
    p = subprocess.run([BIN, "info", "--check", str(crafted)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 1 and named in p.stdout, p.stdout + p.stderr
