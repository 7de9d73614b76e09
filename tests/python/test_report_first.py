"""The report gives the answer first: a first line that counts only the claims the files hold
and says when the input is partial or repaired, the verdicts and figures before the long tables,
the rules of the judged claims only, and no warning on the default study."""
import os
import re
import subprocess
from types import SimpleNamespace

import pytest
from conftest import REPORT, ROOT, binary_file, synthetic_tables, write_results

from wordsens_analysis import claims
from wordsens_analysis.report import first_line

PY = "/usr/bin/python3"
BIN = os.environ.get("WORDSENS_BIN")
ABSENT = ("thm2_drf", "softmax_raf_relu", "thm45_rf", "raf_gen")


def report(path, out):
    p = subprocess.run([PY, REPORT, str(path), "-o", str(out)], capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 0, p.stderr
    return p, (out / "report.md").read_text(), (out / "report.html").read_text()


@pytest.fixture(scope="module")
def focused(tmp_path_factory):
    """A focused study: rf and raf, word sensitivity only (no drf, raf_relu, nor heads)."""
    tmp = tmp_path_factory.mktemp("focused")
    tasks, ws, gen = synthetic_tables(trials=12, models=("rf", "raf"), gen_models=())
    return report(write_results(tmp / "focus.h5", tasks, ws, gen), tmp / "rep")


def test_a_focused_headline_counts_only_its_models(focused):
    p, md, html = focused
    first = md.splitlines()[0]
    # rf and raf: Thm 1 and Thm 3; the other claims are named once, outside the count.
    assert re.match(r"# \d of 2 claims confirmed, .*, 0 inconclusive; not in this study: "
                    + ", ".join(ABSENT) + "; integrity checks: ", first), first
    assert p.stdout.splitlines()[0] == first[2:]
    for claim in ABSENT:  # listed once: not as rows of the tables, nor in the printout's
        assert md.count(claim) == 1, claim
        assert p.stdout.count(claim) == 1, claim
        assert html.count(claim) == 2, claim  # the page's title and its first line


def test_rule_text_only_for_the_claims_judged(focused):
    _, md, html = focused
    for text in (md, html):
        for c in ("thm1_rf", "thm3_raf"):
            assert claims.CLAIMS[c].rule in text.replace("&gt;", ">").replace("&lt;", "<")
        for c in ABSENT + ("mw_rf_sqrt_m", "ext_block"):
            assert claims.CLAIMS[c].rule not in text, c
    assert "### Rules: claims beyond the paper" not in md  # none judged: no empty table
    assert "### Rules: primary claims" in md


def test_verdicts_and_figures_come_before_the_long_tables(focused):
    _, md, html = focused
    order = ["## Claims", "## Figures", "![", "## Paper vs here", "## Primary claims",
             "## Integrity checks", "## Provenance of every file", "## Rules",
             "## Configurations"]
    at = [md.index(h) for h in order]
    assert at == sorted(at), dict(zip(order, at))
    assert "> note:" not in md[:md.index("## Paper vs here")].split("## Figures")[0]
    order = ["<h1", "<h2>Claims</h2>", "<h2>Figures</h2>", "<img", "<h2>Paper vs here</h2>",
             "<h2>Primary claims</h2>", "<h2>Provenance of every file</h2>", "<h2>Rules</h2>"]
    at = [html.index(h) for h in order]
    assert at == sorted(at), dict(zip(order, at))
    # Before the first figure: the first line, one line about the report, the verdict table.
    head = html[html.index("<h1"):html.index("<img")]
    assert head.count("<table") == 1 and head.count("<h2") == 2, head
    assert "class='figs'" in html  # figures side by side: the first ones on the first screen


def test_a_partial_file_says_so_in_its_first_line(tmp_path):
    tasks, ws, gen = synthetic_tables(trials=6, models=("rf", "raf"), gen_models=())
    planned = len(tasks["done"])
    tasks["done"][planned // 2:] = 0
    p, md, html = report(write_results(tmp_path / "p.h5", tasks, ws, gen), tmp_path / "rep")
    state = (f"PARTIAL input (p.h5: {planned // 2} / {planned} tasks done, 1 repair by the "
             "reader, in the notes) — ")
    first = md.splitlines()[0]
    assert first.startswith("# " + state), first
    assert p.stdout.splitlines()[0] == first[2:]
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", html).group(1)
    assert h1.startswith(state), h1
    assert "<h1 class='partial'>" in html  # coloured as a caveat, not as a failing check


def test_the_input_state_names_repairs_not_caveats():
    def res(notes, done=4, planned=4, path="/x/a.h5"):
        return SimpleNamespace(notes=notes, done=done, planned=planned, path=path,
                               complete=done == planned)
    older = ("format 1.2 predates the checksums and damage checks of format 1.5: a damaged "
             "value in it cannot be told from a good one")
    assert first_line.input_state([res([older])]) == ""
    assert first_line.input_state([res([])]) == ""
    cut = "/ws: 2 rows name a task_id missing from /tasks; dropped"
    assert first_line.input_state([res([cut, older]), res([], path="b.h5")]) == \
        "DAMAGED input (a.h5: 1 repair by the reader, in the notes)"
    assert first_line.input_state([res([]), res([], done=1, path="b.h5")]) == \
        "PARTIAL input (b.h5: 1 / 4 tasks done)"


# The default study (jobs/configs/quick.ini) at a test's size: its own keys, smaller numbers.
SMALLER = {"n": "4,8,16", "d": "8", "gen-n": "6,8", "gen-d": "16", "k": "0.5D", "N": "5",
           "trials": "3"}


@pytest.mark.skipif(not BIN, reason="WORDSENS_BIN is unset (ctest sets it to the built binary)")
def test_the_default_study_gets_no_warning(tmp_path):
    lines = []
    with open(os.path.join(ROOT, "jobs", "configs", "quick.ini"), encoding="utf-8") as f:
        for line in f.read().splitlines():
            key = re.match(r"\s*([\w-]+)\s*=", line)
            lines.append(f"{key.group(1)} = {SMALLER[key.group(1)]}"
                         if key and key.group(1) in SMALLER else line)
    path = binary_file(tmp_path, "\n".join(lines) + "\n", BIN, "quick")
    p, md, html = report(path, tmp_path / "rep")
    assert p.stderr == ""
    assert not [line for line in p.stdout.splitlines() if line.startswith("note:")], p.stdout
    assert "> note:" not in md and "class='note'>" not in html
    assert not md.startswith("# PARTIAL") and not md.startswith("# DAMAGED")
    # Its missing heatmaps are by design (no --save-witness) and said so without a warning.
    assert "need a study run with --save-witness" in md
