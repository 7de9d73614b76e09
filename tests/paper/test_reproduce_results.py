"""jobs/reproduce_results.py, the results section, on hand-made inputs (no binary, seconds):

- it is written only for a complete run: a failed study, a study without its file, or any
  PARTIAL file writes nothing (neither results.md nor the document) and says what is missing;
- the time table counts the successful runs only: refused, failed, checkpointed, interrupted
  and no-op attempts, and attempts on an earlier file of the same name, are not counted, and
  the totals are the sums of the counted rows.
"""
import csv
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "jobs"))

import reproduce_results as rr  # noqa: E402

HEAD = ["study", "file", "look", "tasks", "done_before", "done_after", "predicted_s",
        "measured_s", "ranks", "exit", "started_utc", "created_utc", "config_hash"]
PROV = ["study", "file", "format_version", "software_version", "git_sha", "build", "created_utc",
        "command_line", "mpi_ranks", "master_seed", "config_hash", "state"]


def write(path, header, rows, delimiter=","):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=delimiter)
        w.writerow(header)
        w.writerows(rows)


def prov_row(name, state="complete", created="2026-12-05T10:00:00Z", h="aaaa"):
    return [name.split(".")[0], f"/r/{name}", "1.9", "0.1.0", "abc", "x86", created, "run",
            "2", "1", h, state]


def attempt(name, before, after, tasks, exit_code, measured, predicted=100,
            created="2026-12-05T10:00:00Z", h="aaaa", look=1):
    return [name.split(".")[0], name, look, tasks, before, after, predicted, measured, 2,
            exit_code, "2026-12-05T10:00:00Z", created, h]


@pytest.fixture
def run(tmp_path):
    rep, res = tmp_path / "report", tmp_path / "results"
    rep.mkdir()
    res.mkdir()
    (rep / "report.md").write_text("# 1 of 2 claims confirmed; integrity checks: all pass\n")
    write(rep / "verdicts.csv", ["study", "claim", "theorem", "verdict", "kind", "estimate",
                                 "ci_low", "ci_high", "reason", "looks", "rules_version",
                                 "rules_hash"],
          [["a", "thm1_rf", "Thm 1", "confirmed", "primary", "-0.5", "-0.6", "-0.4", "", "",
            "3.6", "h"]])
    write(rep / "paper_vs_here.csv", ["claim", "paper: statement", "measured here", "study",
                                      "estimate [95% CI]", "verdict"],
          [["thm1_rf", "S = O(1/√n)", "slope", "a", "-0.5", "confirmed"]])
    (res / "machine.txt").write_text("cpu: test\ncores: 2\nmemory: 1 GiB\nos: x\nranks: 2\n")
    doc = tmp_path / "DOC.md"
    doc.write_text(f"head\n{rr.BEGIN}\nold section\n{rr.END}\ntail\n")
    return rep, res, doc


def main(rep, res, *extra):
    return rr.main(["--report", str(rep), "--results", str(res), *map(str, extra)])


@pytest.mark.parametrize("prov,expect,failed,words", [
    # a study crashed before writing its file: the probe's doc read "files: 1, all complete"
    ([prov_row("a.h5")], ["/r/a.h5", "/r/b.h5"], ["b: exit 1"], "b: exit 1; b.h5 is not in"),
    # a checkpointed study (exit 3): its file is PARTIAL
    ([prov_row("a.h5"), prov_row("b.h5", "PARTIAL (3 / 10 tasks)")], ["/r/a.h5", "/r/b.h5"],
     ["b: exit 3"], "b.h5 is PARTIAL (3 / 10 tasks)"),
    # a partial file with no failure reported (another run's, or a look's): still not published
    ([prov_row("a.h5"), prov_row("a.look-2-trials-1-2.h5", "PARTIAL (1 / 4 tasks)")],
     ["/r/a.h5"], [], "a.look-2-trials-1-2.h5 is PARTIAL"),
    # a failed look or judge step
    ([prov_row("a.h5")], ["/r/a.h5"], ["look 2: a: exit 137"], "look 2: a: exit 137"),
])
def test_an_incomplete_run_writes_nothing_and_says_what_is_missing(run, capsys, prov, expect,
                                                                   failed, words):
    rep, res, doc = run
    write(rep / "provenance.csv", PROV, prov)
    before = doc.read_text()
    args = [a for f in expect for a in ("--expect", f)] + [a for f in failed
                                                           for a in ("--failed", f)]
    assert main(rep, res, *args, "--update", doc) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "the run is not complete" in err and words in err, err
    assert f"(nor {doc})" in err
    assert not (rep / "results.md").exists()
    assert doc.read_text() == before


def test_a_complete_run_writes_the_section_and_the_document(run):
    rep, res, doc = run
    write(rep / "provenance.csv", PROV, [prov_row("a.h5"), prov_row("b.h5")])
    assert main(rep, res, "--expect", "/r/a.h5", "--expect", "/r/b.h5", "--update", doc) == 0
    text = (rep / "results.md").read_text()
    assert "- files: 2, all complete" in text
    assert doc.read_text() == "head\n" + text.rstrip("\n") + "\ntail\n"
    assert [f for f in os.listdir(rep) if ".tmp" in f] == []


def test_claims_beyond_the_paper_have_their_own_table(run):
    """Extension rows are out of the paper's count: not in the primary table, in their own."""
    rep, res, _ = run
    write(rep / "provenance.csv", PROV, [prov_row("a.h5")])
    with open(rep / "verdicts.csv", "a", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow(["a", "ext_trained_attn", "beyond the paper", "inconclusive",
                                "extension", "-0.2", "-0.3", "-0.1", "decays at d=384", "", "4.1",
                                "h"])
    assert main(rep, res, "--expect", "/r/a.h5") == 0
    text = (rep / "results.md").read_text()
    primary = text.split("### Verdicts")[1].split("### Paper vs here")[0]
    beyond = text.split("### Beyond the paper")[1]
    assert "ext_trained_attn" not in primary and "thm1_rf" in primary
    rows = table(beyond)
    assert [r[1] for r in rows[1:]] == ["`ext_trained_attn`"], rows
    assert rows[1][3] == "**inconclusive**" and "decays at d=384" in rows[1][6]


def test_without_extension_rows_there_is_no_beyond_the_paper_table(run):
    rep, res, _ = run
    write(rep / "provenance.csv", PROV, [prov_row("a.h5")])
    assert main(rep, res, "--expect", "/r/a.h5") == 0
    assert "### Beyond the paper" not in (rep / "results.md").read_text()


def table(text):
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows]


def test_the_time_table_counts_successful_runs_only(run):
    rep, res, _ = run
    write(rep / "provenance.csv", PROV,
          [prov_row("a.h5"), prov_row("b.h5", h="bbbb"), prov_row("c.h5", h="cccc")])
    write(res / "timings.tsv", HEAD, [
        # a: refused at once (another pipeline was writing it), then the real run
        attempt("a.h5", 0, 0, 10, 2, 1),
        attempt("a.h5", 0, 10, 10, 0, 90),
        # a: a rerun with nothing left to do
        attempt("a.h5", 10, 10, 10, 0, 1),
        # b: checkpointed after 4 tasks, resumed: only the resuming run counts, unpriced
        attempt("b.h5", 0, 4, 10, 3, 40, h="bbbb"),
        attempt("b.h5", 4, 10, 10, 0, 70, h="bbbb"),
        # b: an earlier b.h5 of another configuration (moved away since): not this file
        attempt("b.h5", 0, 10, 10, 0, 999, h="old0"),
        # c: interrupted by TERM (the trap's row), then failed, then done
        attempt("c.h5", 0, 2, 5, 143, 20, h="cccc"),
        attempt("c.h5", 2, 2, 5, 1, 3, h="cccc"),
        attempt("c.h5", 2, 5, 5, 0, 30, predicted=50, h="cccc"),
    ], delimiter="\t")
    assert main(rep, res, "--expect", "/r/a.h5") == 0
    text = (rep / "results.md").read_text()
    t = table(text.split("### Time per run")[1].split("### Verdicts")[0])
    assert t[0][:4] == ["study", "look", "file", "tasks run"]
    body = {r[2].strip("`"): r for r in t[1:-1]}
    assert sorted(body) == ["a.h5", "b.h5", "c.h5"] and len(t) == 5, t
    assert body["a.h5"][3:] == ["10", "1m40s", "1m30s", "0.90"]
    assert body["b.h5"][3:] == ["6", "–", "1m10s", "–"]  # resumed: no prediction of its part
    assert body["c.h5"][3:] == ["3", "–", "30s", "–"]
    total = t[-1]
    # 90 + 70 + 30 s measured; the ratio over the priced (whole-file) runs only: 90 / 100
    assert total[3:] == ["19", "1m40s", "**3m10s**", "0.90"], total
    assert "the runs took 3m10s" in text
    assert "2 run(s) resumed a file" in text
    assert ("Not counted: 6 other attempt(s) (an earlier file of the same name: 1, exit 1: 1, "
            "exit 143: 1, exit 2: 1, exit 3: 1, nothing to run: 1)") in text
    assert ("Per study: a 1m30s (predicted 1m40s); b 1m10s (resumed: not priced); c 30s "
            "(resumed: not priced).") in text


def test_a_file_without_a_counted_run_is_named(run):
    rep, res, _ = run
    write(rep / "provenance.csv", PROV, [prov_row("a.h5"), prov_row("old.h5")])
    write(res / "timings.tsv", HEAD, [attempt("a.h5", 0, 10, 10, 0, 90)], delimiter="\t")
    assert main(rep, res) == 0
    text = (rep / "results.md").read_text()
    assert "Not timed by a counted run: `old.h5`" in text
