"""`analysis/wordsens-report` end to end on synthetic files."""
import csv
import os
import re
import subprocess

import numpy as np
from conftest import REPORT, ROOT, synthetic_tables, write_results

from wordsens_analysis import claims, rules
from wordsens_analysis.claims import verdicts

PY = "/usr/bin/python3"


def run_report(path, out):
    return subprocess.run([PY, REPORT, str(path), "-o", str(out)], capture_output=True, text=True,
                          timeout=120)


HEADLINE = re.compile(r"^(\d+) of (\d+) claims confirmed, (\d+) supported or not refuted by "
                      r"weaker evidence, (\d+) contradicted, (\d+) inconclusive"
                      r"(?:; not in (?:this study|these studies): [^;]+)?; integrity "
                      r"checks: (all pass.*|\d+ of \d+ FAIL: .+)$")


def test_report_end_to_end(tmp_path):
    tasks, ws, gen = synthetic_tables(trials=12, models=("rf", "raf"))
    raf_task = int(tasks["task_id"][list(tasks["model"]).index(b"raf")])
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 8))
    X *= np.sqrt(8) / np.linalg.norm(X, axis=1, keepdims=True)
    wit = [dict(task_id=raf_task, position=3, delta=rng.normal(size=8), X=X,
                W=rng.normal(size=(8, 8)) / np.sqrt(8))]
    path = write_results(tmp_path / "r.h5", tasks, ws, gen, witnesses=wit)
    out = tmp_path / "report"
    p = run_report(path, out)
    assert p.returncode == 0, p.stderr
    for name in ("report.md", "report.html", "verdicts.csv", "ws_summary.csv", "gen_summary.csv",
                 "ws_vs_n.png", "ws_vs_n.pdf", "gen_error.png", "gen_error.pdf",
                 "paper_ws_vs_n.png", "paper_ws_vs_n.pdf", "paper_gen_error.png",
                 "paper_gen_error.pdf", "raf_witness_attention.png", "raf_witness_attention.pdf"):
        assert (out / name).stat().st_size > 0, name
    with open(out / "verdicts.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0].keys()) == verdicts.COLUMNS
    assert {r["kind"] for r in rows} == {"primary", "secondary", "integrity"}
    assert {(r["rules_version"], r["rules_hash"]) for r in rows} == {
        (rules.RULES_VERSION, claims.RULES_HASH)}
    verdict = {r["claim"]: r["verdict"] for r in rows}
    assert verdict["thm1_rf"] == "confirmed"
    # raf's stored S does not follow from its witness: Thm 3, which reads it, stays open.
    assert verdict["thm3_raf"] == "inconclusive"
    assert "witness_recompute fails for raf's S" in {r["claim"]: r["reason"] for r in rows}[
        "thm3_raf"]
    assert verdict["thm2_drf"] == "inconclusive"
    # The synthetic witness does not reproduce the stored S: an integrity failure, shown first.
    assert rows[0]["claim"] == "witness_recompute" and rows[0]["verdict"] == "FAIL"
    md = (out / "report.md").read_text()
    first = md.splitlines()[0]
    assert first.startswith("# ") and HEADLINE.match(first[2:]), first
    # drf and raf_relu are not in the file: named once, outside the count.
    assert first[2:].startswith("3 of 6 claims confirmed, 2 supported")
    assert "1 inconclusive; not in this study: thm2_drf, softmax_raf_relu; integrity" in first
    assert first.endswith("integrity checks: 1 of 12 FAIL: witness_recompute")
    assert f"verdict rules {rules.RULES_VERSION} (hash {claims.RULES_HASH}" in md.splitlines()[2]
    assert md.index("## Integrity checks that FAIL") < md.index("## Primary claims")
    assert "no drf ws records" not in md and md.count("thm2_drf") == 1
    # The printout starts with the same line.
    assert p.stdout.splitlines()[0] == first[2:]
    assert "thm1_rf" in p.stdout and "FAIL  witness_recompute" in p.stdout
    assert "![Word sensitivity against n" in md
    assert claims.CLAIMS["thm3_raf"].rule in md  # rules are written out
    html = (out / "report.html").read_text()
    # self-contained: the paper's layout (2), the study's overview (2) and the witness
    assert html.count("data:image/png;base64,") == 5
    assert "<h1 class='fail'>" in html and "<tr class='fail'>" in html  # failures in red


def test_report_first_line_when_all_checks_pass(tmp_path):
    tasks, ws, gen = synthetic_tables(trials=12)
    out = tmp_path / "report"
    p = run_report(write_results(tmp_path / "ok.h5", tasks, ws, gen), out)
    assert p.returncode == 0, p.stderr
    first = (out / "report.md").read_text().splitlines()[0]
    m = HEADLINE.match(first[2:])
    assert m and m.groups()[:5] == ("5", "8", "3", "0", "0") and m.group(6) == "all pass", first
    html = (out / "report.html").read_text()
    assert "<h1 class='ok'>" in html and "class='fail'" not in html


def test_report_on_a_partial_file(tmp_path):
    tasks, ws, gen = synthetic_tables(trials=3)
    tasks["done"][len(tasks["done"]) // 3:] = 0
    path = write_results(tmp_path / "p.h5", tasks, ws, gen)
    p = run_report(path, tmp_path / "out")
    assert p.returncode == 0, p.stderr
    md = (tmp_path / "out" / "report.md").read_text()
    assert "PARTIAL" in md and "not marked done" in md
    assert "inconclusive" in p.stdout


def test_report_errors_are_one_line_and_nonzero(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=1)
    newer = write_results(tmp_path / "newer.h5", tasks, ws, gen, version=(2, 1))
    other = write_results(tmp_path / "other.h5", tasks, ws, gen, filetype="openmc-statepoint")
    for path, words in ((newer, "newer than this reader"), (other, "not a wordsens results"),
                        (tmp_path / "missing.h5", "no such file")):
        p = run_report(path, tmp_path / "out")
        assert p.returncode == 2, (path, p.stdout, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], p.stderr
        assert lines[0].startswith("wordsens-report: error:")
    assert not (tmp_path / "out").exists()


def print_result_into(redirect):
    """print_result (the function every line the report prints goes through) in a fresh
    interpreter whose stdout is `redirect`."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from wordsens_analysis.report import print_result; "
            "sys.exit(print_result(['5 of 8 claims confirmed']))")
    return subprocess.run(["bash", "-c", f'"$@" {redirect}', "bash", PY, "-c", code,
                           os.path.join(ROOT, "analysis")], capture_output=True, text=True,
                          timeout=60)


def test_report_stdout_that_cannot_be_written_is_one_line_and_exit_1(tmp_path):
    """The printed verdicts are part of the result: stdout on /dev/full or closed gives one
    line on stderr and exit 1 (it was a traceback, or exit 0 with nothing printed). The message
    of each way of failing is print_result's; the report itself is run once, to show that it
    prints through print_result only after its files are written."""
    for redirect, why in (("> /dev/full", "No space left"), (">&-", "it is closed")):
        p = print_result_into(redirect)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 1, (redirect, p.returncode, p.stderr)
        assert len(lines) == 1, (redirect, lines)
        assert lines[0].startswith("wordsens-report: error: cannot write standard output: ")
        assert why in lines[0], lines
    assert print_result_into("> /dev/null").returncode == 0
    tasks, ws, gen = synthetic_tables(ns=(8, 16, 32), trials=6)
    path = write_results(tmp_path / "r.h5", tasks, ws, gen)
    p = subprocess.run(["bash", "-c", '"$@" > /dev/full', "bash", PY, REPORT, str(path), "-o",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert p.stderr.strip().splitlines() == [
        "wordsens-report: error: cannot write standard output: No space left on device"], p.stderr
    assert (tmp_path / "out" / "report.html").exists()
