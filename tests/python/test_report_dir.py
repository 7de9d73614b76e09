"""The report's output directory is published whole, by one report at a time (report_dir.py),
and names from the files are data: a `$` in a study's file name is drawn as text.

Each rule is fed the case where the old writer broke: a report over an older report (its files
stayed), two reports into one directory (mixed), a report into a directory of other files, a
report that fails half-way, and the files of two studies, one named with `$…$` (a traceback).
"""
import os
import shutil
import subprocess
import threading
import time

import pytest
from conftest import REPORT
from test_combined_report import two_studies

from wordsens_analysis import report
from wordsens_analysis.report import output_dir as report_dir

PY = "/usr/bin/python3"


def run_report(out, *paths, **env):
    return subprocess.run([PY, REPORT, *map(str, paths), "-o", str(out)], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, **env))


def listing(d):
    return sorted(os.listdir(d))


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("studies")
    a, b = two_studies(tmp, trials=6)
    return a, b


def test_names_with_a_dollar_or_an_escape_are_data(tmp_path, studies):
    # A second study named b$_$.h5 (its label goes into the figures' legends) crashed the report
    # in matplotlib's mathtext parser; so would a model name with `$`.
    a, b = studies
    odd = tmp_path / "b$_$.h5"
    worse = tmp_path / "a$\\frac{$b\x1b]0;pwned\x07.h5"  # and a terminal's escape sequence
    shutil.copy(a, worse)
    shutil.copy(b, odd)
    p = run_report(tmp_path / "r\x1b[2J", worse, odd)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Traceback" not in p.stderr
    html = (tmp_path / "r\x1b[2J" / "report.html").read_text()
    assert "b$_$" in html and "a$\\frac{$b" in html
    # what it prints shows the names escaped, as the binary does: no raw escape reaches a terminal
    assert "\x1b" not in p.stdout + p.stderr and "\x07" not in p.stdout
    assert "r\\x1b[2J/report.html" in p.stdout, p.stdout[-500:]
    # and a name it cannot read is named escaped in its one error line
    q = run_report(tmp_path / "q", tmp_path / "no\x1bsuch.h5")
    assert q.returncode == 2 and "no\\x1bsuch.h5" in q.stderr and "\x1b" not in q.stderr


def test_log_axes_keep_numeric_tick_labels_while_names_are_text():
    """The report draws names as text (mathtext off); its log axes' tick labels must still be
    numbers, not the formatter's `$\\mathdefault{10^{-1}}$` drawn as characters."""
    import matplotlib
    import matplotlib.pyplot as plt

    from wordsens_analysis.report import plots

    def labels(plain: bool) -> list:
        with matplotlib.rc_context({"text.parse_math": False}):
            fig, ax = plt.subplots()
            ax.loglog([0.01, 0.3], [0.1, 2.0])
            if plain:
                plots._plain_tick_labels(fig)
            fig.canvas.draw()
            out = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
            plt.close(fig)
        return [t for t in out if t]

    assert any("mathdefault" in t for t in labels(plain=False))  # what the fix is for
    fixed = labels(plain=True)
    assert fixed and not any("$" in t or "mathdefault" in t for t in fixed), fixed


def legacy_report(d):
    """A directory as an older report left it (reports before this one wrote no marker)."""
    d.mkdir()
    for f in ("report.md", "report.html", "verdicts.csv", "gen_error.png", "results.md"):
        (d / f).write_text("old")
    return d


def test_a_report_replaces_an_older_report_whole_and_readers_never_see_a_mix(tmp_path,
                                                                            studies):
    a, b = studies
    out, fresh = tmp_path / "r", tmp_path / "fresh"
    assert run_report(out, a, b).returncode == 0
    old = listing(out)
    assert run_report(fresh, a).returncode == 0
    new = listing(fresh)
    # (a single study now draws the paper's layout too, and its own overview beside it)
    assert set(old) ^ set(new), "the two reports should differ in their files"
    seen, stop = [], threading.Event()

    def reader():  # lists the directory over and over while the second report replaces it
        while not stop.is_set():
            try:
                seen.append(tuple(listing(out)))
            except FileNotFoundError:
                seen.append(None)
            time.sleep(0.0005)  # thousands of looks in a report's seconds, not a core's worth

    t = threading.Thread(target=reader)
    t.start()
    try:
        p = run_report(out, a)
    finally:
        stop.set()
        t.join()
    assert p.returncode == 0, p.stderr
    # Exactly the files of a report of `a` alone: none of the two-study report's survived
    # (the second study in the CSVs, …), and a reader saw one or the other, never a mix. A
    # reader that opened the old directory just before the swap reads it as it is removed
    # after: part of the old report, none of the new one's files.
    assert listing(out) == new
    assert "att_study" not in (out / "provenance.csv").read_text()
    kinds = set(seen)
    mixed = [k for k in kinds if k != tuple(new) and not (k is not None and set(k) <= set(old))]
    assert not mixed, mixed[:2]
    assert tuple(old) in kinds and len(seen) > 10
    # Nothing left beside it but the lock files.
    assert sorted(os.listdir(tmp_path)) == [".fresh.lock", ".r.lock", "fresh", "r"]


def test_a_report_that_fails_leaves_the_old_one_as_it_was(tmp_path, studies, monkeypatch):
    a, _ = studies
    out = legacy_report(tmp_path / "r")
    before = {f: (out / f).read_bytes() for f in listing(out)}
    from wordsens_analysis.report import writer as report_writer

    def half_written(results, outdir):
        with open(os.path.join(outdir, "verdicts.csv"), "w") as f:
            f.write("half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_writer, "write_report", half_written)
    assert report.main([str(a), "-o", str(out)]) == report.EXIT_USAGE
    assert {f: (out / f).read_bytes() for f in listing(out)} == before
    assert sorted(os.listdir(tmp_path)) == [".r.lock", "r"]


def test_a_second_report_into_the_same_directory_is_refused(tmp_path, studies):
    a, b = studies
    out = legacy_report(tmp_path / "r")
    before = listing(out)
    fd = report_dir.acquire(report_dir.destination(str(out)))  # a report being written
    try:
        p = run_report(out, a, b)
        assert p.returncode == 2, p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and "another report is being written into" in lines[0], lines
        assert f"(pid {os.getpid()})" in lines[0]
        assert listing(out) == before
        # The holder may hand its lock to the report it starts (jobs/reproduce_paper.sh does):
        # then the report runs; another file's descriptor is no lock.
        other = os.open(tmp_path / "x", os.O_RDWR | os.O_CREAT)
        p = subprocess.run([PY, REPORT, str(a), "-o", str(out)], capture_output=True,
                           text=True, timeout=300, pass_fds=(other,),
                           env=dict(os.environ, WORDSENS_REPORT_LOCK_FD=str(other)))
        assert p.returncode == 2 and "another report" in p.stderr, p.stderr
        p = subprocess.run([PY, REPORT, str(a), "-o", str(out)], capture_output=True,
                           text=True, timeout=300, pass_fds=(fd,),
                           env=dict(os.environ, WORDSENS_REPORT_LOCK_FD=str(fd)))
        assert p.returncode == 0, p.stderr
        assert (out / report_dir.MARKER).exists() and not (out / "results.md").exists()
    finally:
        os.close(fd)


def test_only_a_report_directory_is_replaced(tmp_path, studies):
    a, _ = studies
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("mine")
    (home / "report.md").write_text("an old report's, beside my notes")
    p = run_report(home, a)
    assert p.returncode == 2, p.stderr
    line = p.stderr.strip()
    assert "\n" not in line and "holds files that are not a wordsens report ('notes.txt')" in line
    assert listing(home) == ["notes.txt", "report.md"]
    # A file where the directory should be is one line too.
    (tmp_path / "plain").write_text("x")
    p = run_report(tmp_path / "plain", a)
    assert p.returncode == 2 and "exists and is not a directory" in p.stderr, p.stderr


def test_temporaries_of_a_killed_report_are_removed_by_the_next(tmp_path, studies):
    a, _ = studies
    out = legacy_report(tmp_path / "r")
    (tmp_path / ".r.tmp-dead1").mkdir()
    (tmp_path / ".r.tmp-dead1" / "verdicts.csv").write_text("half")
    (tmp_path / ".r.old-dead2").mkdir()
    (tmp_path / ".other.tmp-keep").mkdir()  # another directory's: not ours to remove
    assert run_report(out, a).returncode == 0
    assert sorted(os.listdir(tmp_path)) == [".other.tmp-keep", ".r.lock", "r"]
    assert not (out / "results.md").exists() and (out / report_dir.MARKER).exists()


def test_publish_without_an_atomic_exchange_still_replaces_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(report_dir, "_exchange", lambda a, b: False)
    dest = tmp_path / "r"
    dest.mkdir()
    (dest / "old.csv").write_text("old")
    (dest / "report.md").write_text("old")
    with report_dir.building(str(dest)) as stage:
        open(os.path.join(stage, "new.csv"), "w").write("new")
    assert listing(dest) == [report_dir.MARKER, "new.csv"]
    assert sorted(os.listdir(tmp_path)) == [".r.lock", "r"]
    # renameat2's exchange, where the system has it, swaps two directories in one step.
    monkeypatch.undo()
    x, y = tmp_path / "x", tmp_path / "y"
    x.mkdir()
    y.mkdir()
    (x / "in_x").write_text("")
    if report_dir._exchange(str(x), str(y)):
        assert listing(y) == ["in_x"] and listing(x) == []
