"""`analysis/wordsens-report` end to end on synthetic files."""
import csv
import subprocess

import numpy as np
from conftest import REPORT, synthetic_tables, write_results

PY = "/usr/bin/python3"


def run_report(path, out):
    return subprocess.run([PY, REPORT, str(path), "-o", str(out)], capture_output=True, text=True,
                          timeout=120)


def test_report_end_to_end(tmp_path):
    tasks, ws, gen = synthetic_tables(trials=6, models=("rf", "raf"))
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
                 "raf_witness_attention.png", "raf_witness_attention.pdf"):
        assert (out / name).stat().st_size > 0, name
    with open(out / "verdicts.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["claim", "model", "d", "statistic", "estimate", "ci_low", "ci_high",
                       "verdict"]
    verdict = {r[0]: r[7] for r in rows[1:]}
    assert verdict["thm1_slope[k=1D]"] == "confirmed"
    assert verdict["thm3_slope"] == "confirmed"
    assert "no drf ws records" in (out / "report.md").read_text()
    assert verdict["thm2_slope"] == "inconclusive"
    # The verdict table is printed.
    assert "thm1_slope[k=1D]" in p.stdout and "confirmed" in p.stdout
    md = (out / "report.md").read_text()
    assert "![Word sensitivity against n](ws_vs_n.png)" in md
    assert "confirmed if the 95% CI lies inside [−0.75, −0.25]" in md  # rules are written out
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 3  # self-contained


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
