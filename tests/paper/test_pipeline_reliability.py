"""jobs/reproduce_paper.sh and the Slurm merge job where a user meets them badly, with the real
binary (WORDSENS_BIN, set by ctest). Each case is one that once went wrong:

- the results section and docs/REPRODUCE.md were written from a failed run, and --update-doc
  rewrote the paper's section from a smoke or subset run: now nothing is published unless every
  selected study succeeded and every file is complete, one line says what is missing, and
  --update-doc is refused at once for any run but the full one;
- a study whose plan fails (its dry run refused) was not stopped (awk noise; under --slurm the
  earlier studies were already queued): now the run stops before any work, with one line;
- `*` in --results ran every study and then found no file to report; a newline or an escape in
  a path: refused at once;
- TERM to the script ended the shell only (mpirun and its ranks kept writing), and an immediate
  rerun published from the partial file: now TERM ends every process of the run within
  seconds, the file stays resumable, and a second run is refused while the first is alive;
- the merge job passed --overwrite and replaced a finished study of another configuration.
"""
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "jobs"))
sys.path.insert(0, os.path.join(ROOT, "tests", "faults"))
import process_tree  # noqa: E402
from faults_lib import SMALL_INI  # noqa: E402
from test_reproduce_paper import env, script  # noqa: E402

SCRIPT = os.path.join(ROOT, "jobs", "reproduce_paper.sh")
BIN = os.environ.get("WORDSENS_BIN")
pytestmark = pytest.mark.skipif(
    not BIN, reason="WORDSENS_BIN is unset (ctest sets it to the built wordsens binary)")
DOC = os.path.join(ROOT, "docs", "REPRODUCE.md")


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def one_line(p, code, *words):
    lines = p.stderr.strip().splitlines()
    assert p.returncode == code and len(lines) == 1, (p.returncode, p.stderr)
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.mark.parametrize("args,named", [
    (["--tiny"], "--tiny"),
    (["--only", "regime_map"], "a subset --only"),
    (["--trials", "3"], "--trials"),
    (["--max-trials", "30"], "--max-trials"),
    (["--seed", "2"], "--seed"),
    (["--no-extend"], "--no-extend"),
    (["--slurm"], "--slurm"),
])
def test_update_doc_is_refused_for_any_run_but_the_full_one(tmp_path, args, named):
    before = digest(DOC)
    p = script(*args, "--update-doc", "--results", tmp_path / "r", "--report", tmp_path / "p",
               timeout=120)
    one_line(p, 2, "--update-doc writes docs/REPRODUCE.md from the full run", named)
    assert os.listdir(tmp_path) == [] and digest(DOC) == before


@pytest.mark.parametrize("path", ["a\nb", "a\x1b[2Jb", "a\tb"])
def test_a_path_with_a_control_character_is_refused_before_any_work(tmp_path, path):
    p = script("--tiny", "--only", "regime_map", "--results", tmp_path / path, timeout=120)
    line = one_line(p, 2, "--results: a path with a control character")
    assert "\x1b" not in line and os.listdir(tmp_path) == []


def test_a_study_that_cannot_be_planned_stops_the_run_before_any_work(tmp_path):
    # The probe's case: --trials beyond a config's max-trials. Locally, in a dry run and before
    # a real one, and under --slurm before any job is submitted (regime_map would plan fine).
    for extra in (["--dry-run"], []):
        p = script("--tiny", "--trials", 10, "--max-trials", 5, "--only", "regime_map",
                   "--results", tmp_path / "r", *extra, timeout=120)
        one_line(p, 2, "regime_map: cannot plan the study: wordsens run: error: max-trials")
        assert "integer expression" not in p.stderr and "regime_map " not in p.stdout
    assert not (tmp_path / "r").exists()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(os.path.join(HERE, "fake_sbatch.py"), bindir / "sbatch")
    (bindir / "sbatch").chmod(0o755)
    log = tmp_path / "sbatch.log"
    p = script("--slurm", "--trials", 50, "--only", "regime_map,multiword", "--results",
               tmp_path / "r", timeout=120, PATH=f"{bindir}:{os.environ['PATH']}",
               FAKE_SBATCH_LOG=str(log), FAKE_SBATCH_OUT=str(tmp_path))
    one_line(p, 2, "multiword: cannot plan the study", "max-trials")
    assert not log.exists(), log.read_text()  # nothing was submitted


def failing_binary(tmp_path, study):
    """A WORDSENS_BIN whose `run` of STUDY's configuration fails before writing anything."""
    wrapper = tmp_path / "wordsens"
    wrapper.write_text("#!/usr/bin/env bash\n"
                       f'if [ "$1" = run ] && [[ "$2" == *{study}* ]] && '
                       '[[ " $* " != *" --dry-run"* ]]; then\n'
                       '  echo "wordsens run: error: injected failure" >&2; exit 1\nfi\n'
                       f'exec {BIN} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def test_a_failed_study_publishes_nothing_and_says_what_is_missing(tmp_path):
    # Names are data: the results directory holds a space, `*`, `$` and `[`.
    res, rep = tmp_path / "r e*s$x[1]", tmp_path / "rep"
    # An older complete run's report and results section in the report directory: they must
    # not survive as if this run had produced them.
    rep.mkdir()
    for f in ("report.md", "report.html", "verdicts.csv", "results.md"):
        (rep / f).write_text("an older run's\n")
    before = digest(DOC)
    p = script("--tiny", "--only", "regime_map,multiword", "--results", res, "--report", rep,
               WORDSENS_BIN=failing_binary(tmp_path, "regime_map"))
    assert p.returncode == 1, p.stdout[-2000:] + p.stderr[-2000:]
    assert "reproduce_paper: regime_map: exit 1 after" in p.stdout  # every attempt's exit code
    gate = [line for line in p.stderr.splitlines() if "the run is not complete" in line]
    assert len(gate) == 1 and "regime_map: exit 1" in gate[0] and \
        "regime_map.h5 is not in the report" in gate[0], p.stderr
    assert not (rep / "results.md").exists()
    # The report covers what exists (found under the odd name), replacing the older one.
    assert "report of 1 files" in p.stdout and (rep / "report.html").exists()
    assert "multiword" in (rep / "provenance.csv").read_text()
    assert "an older run's" not in (rep / "report.md").read_text()
    rows = [line.split("\t") for line in (res / "timings.tsv").read_text().splitlines()]
    exits = {(r[0], r[9]) for r in rows[1:]}
    assert exits == {("regime_map", "1"), ("multiword", "0")}, rows
    assert digest(DOC) == before


def test_term_while_the_plans_are_checked_ends_the_run_with_143(tmp_path):
    """A signal before any study started (the plans' dry runs, made slow here by a wrapper of
    the binary) ends the script with 128 + its number like one during a study (it died of the
    signal, exit -15), and leaves nothing behind."""
    wrapper = tmp_path / "slow-plans"
    wrapper.write_text(f'#!/bin/bash\ncase " $* " in *" --dry-run "*) sleep 3 ;; esac\n'
                       f'exec "{BIN}" "$@"\n')
    wrapper.chmod(0o755)
    res, rep = tmp_path / "r", tmp_path / "p"
    first = subprocess.Popen(["bash", SCRIPT, "--tiny", "--only", "regime_map", "--ranks", "1",
                              "--results", str(res), "--report", str(rep)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env(WORDSENS_BIN=str(wrapper)), cwd=ROOT,
                             start_new_session=True)
    try:
        time.sleep(1.0)
        assert first.poll() is None
        os.kill(first.pid, signal.SIGTERM)  # to the script alone, while a plan's dry run sleeps
        log, _ = first.communicate(timeout=60)
        assert first.returncode == 143, log[-2000:]
        assert "TERM before any study started" in log, log[-2000:]
        assert not list(res.glob("*.h5")) and not (rep / "results.md").exists()
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()


def test_term_ends_every_process_and_a_second_run_is_refused_meanwhile(tmp_path):
    res, rep = tmp_path / "r", tmp_path / "p"
    args = ["--tiny", "--only", "multiword", "--trials", 400, "--ranks", 1, "--results", res,
            "--report", rep]
    first = subprocess.Popen(["bash", SCRIPT, *map(str, args)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env(), cwd=ROOT,
                             start_new_session=True)
    try:
        out = res / "multiword.h5"
        deadline = time.monotonic() + 300
        done = 0
        while done < 20 and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.5)
            info = subprocess.run([BIN, "info", str(out)], capture_output=True, text=True)
            m = re.search(r"^tasks done:\s*(\d+)/", info.stdout, re.M)
            done = int(m.group(1)) if m else 0
        assert first.poll() is None and done >= 20, "the study ended or never started"
        # A second run on the same results directory is refused at once, publishing nothing.
        p = script(*args[:-2], "--report", tmp_path / "p2", timeout=120)
        one_line(p, 2, "is in use by another run", f"pid {first.pid}")
        assert not (tmp_path / "p2").exists()
        tree = process_tree.descendants([first.pid], process_tree.children())
        assert any(b"mpirun" in open(f"/proc/{q[0]}/cmdline", "rb").read() for q in tree
                   if process_tree.alive(q))
        os.kill(first.pid, signal.SIGTERM)  # to the script alone
        t0 = time.monotonic()
        log, _ = first.communicate(timeout=60)
        took = time.monotonic() - t0
        assert first.returncode == 143, log[-2000:]
        # every process it started ended with it (TERM, else KILL after 10 s)
        assert not [q for q in tree if process_tree.alive(q)] and took < 15, took
        assert "TERM: ending every process of this run" in log
        assert "reproduce_paper: multiword: exit 143 (TERM) after" in log  # the attempt's code
        assert "interrupted (TERM/INT)" in log  # the ranks flushed: exit 4
        assert not (rep / "results.md").exists()
        # The file is resumable: consistent, with the tasks done so far.
        check = subprocess.run([BIN, "info", "--check", str(out)], capture_output=True,
                               text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        rows = (res / "timings.tsv").read_text().splitlines()
        assert rows[-1].split("\t")[9] == "143" and int(rows[-1].split("\t")[5]) >= done
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()


def start_long_study(res, rep):
    """The driver on a study long enough to be signalled mid-run, in a session of its own."""
    return subprocess.Popen(["bash", SCRIPT, "--tiny", "--only", "multiword", "--trials", "400",
                             "--ranks", "1", "--results", str(res), "--report", str(rep)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env(), cwd=ROOT, start_new_session=True)


def tasks_done(path):
    info = subprocess.run([BIN, "info", str(path)], capture_output=True, text=True)
    m = re.search(r"^tasks done:\s*(\d+)/(\d+)", info.stdout, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def wait_for_tasks(first, path, count):
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and first.poll() is None:
        if tasks_done(path)[0] >= count:
            return
        time.sleep(0.3)
    raise AssertionError("the study ended or never started")


@pytest.mark.parametrize("when", ["before the study starts", "mid-run"])
def test_usr1_to_the_script_checkpoints_the_study_under_way(tmp_path, when):
    """USR1 to the script (a cluster's warning before its time limit, or a user's) reaches the
    ranks of the study that runs, or, when it comes while the studies are being planned, of the
    first one once it runs; they checkpoint: the run ends with 3, its file resumable."""
    res, rep = tmp_path / "r", tmp_path / "p"
    first = start_long_study(res, rep)
    out = res / "multiword.h5"
    try:
        if when == "mid-run":
            wait_for_tasks(first, out, 5)
        else:
            time.sleep(0.2)
        os.kill(first.pid, signal.SIGUSR1)  # to the script alone
        log, _ = first.communicate(timeout=120)
        assert first.returncode == 3, log[-2000:]
        assert "reproduce_paper: multiword: exit 3 after" in log, log[-2000:]
        check = subprocess.run([BIN, "info", "--check", str(out)], capture_output=True,
                               text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        done, planned = tasks_done(out)
        assert done < planned, (done, planned)
        assert not (rep / "results.md").exists()
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()


def test_ctrl_c_ends_every_process_of_the_run_and_leaves_its_file_resumable(tmp_path):
    """INT to the whole group (Ctrl-C) while a study runs: every process of the run ends (the
    MPI step's shell dies of it at once, mpirun must not escape the run's tree), the attempt is
    recorded with 130, no step dies with a traceback, the file is consistent."""
    res, rep = tmp_path / "r", tmp_path / "p"
    first = start_long_study(res, rep)
    out = res / "multiword.h5"
    try:
        wait_for_tasks(first, out, 5)
        tree = process_tree.descendants([first.pid], process_tree.children())
        os.killpg(first.pid, signal.SIGINT)
        log, _ = first.communicate(timeout=60)
        assert first.returncode == 130, log[-2000:]
        deadline = time.monotonic() + 15
        while [q for q in tree if process_tree.alive(q)] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [q for q in tree if process_tree.alive(q)]
        assert "Traceback" not in log and "INT: ending every process of this run" in log, log
        rows = (res / "timings.tsv").read_text().splitlines()
        assert rows[-1].split("\t")[9] == "130", rows[-1]
        check = subprocess.run([BIN, "info", "--check", str(out)], capture_output=True,
                               text=True)
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()


def test_the_merge_job_never_replaces_another_study(tmp_path):
    cfg = tmp_path / "small.ini"
    cfg.write_text(SMALL_INI)
    prefix = tmp_path / "a"
    e = env(WORDSENS_HOME=ROOT, WORDSENS_LAUNCHER="mpirun",
            WORDSENS_MPIRUN_ARGS="--oversubscribe -n 1")
    # someone's finished study of another configuration, where the merge would write
    p = subprocess.run([BIN, "run", str(cfg), "--seed=77", "--output", f"{prefix}.h5"],
                       capture_output=True, text=True, env=e, timeout=120)
    assert p.returncode == 0, p.stderr
    theirs = digest(f"{prefix}.h5")
    for i in range(3):
        array = dict(e, SLURM_ARRAY_TASK_ID=str(i), SLURM_ARRAY_TASK_MIN="0",
                     SLURM_ARRAY_TASK_MAX="2", SLURM_ARRAY_TASK_COUNT="3")
        p = subprocess.run(["bash", os.path.join(ROOT, "jobs/slurm/array.sbatch"), str(cfg),
                            str(prefix)], capture_output=True, text=True, env=array,
                           timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
    merge = ["bash", os.path.join(ROOT, "jobs/slurm/merge.sbatch"), str(prefix), "3"]
    p = subprocess.run(merge, capture_output=True, text=True, env=e, timeout=120)
    one_line(p, 2, f"{prefix}.h5 exists and holds another configuration (keys seed)",
             "not replaced")
    assert digest(f"{prefix}.h5") == theirs
    # Moved away, the merge writes it; run again (a resubmitted job), it finds it done.
    os.rename(f"{prefix}.h5", tmp_path / "theirs.h5")
    p = subprocess.run(merge, capture_output=True, text=True, env=e, timeout=120)
    assert p.returncode == 0 and os.path.exists(f"{prefix}.h5"), p.stdout + p.stderr
    merged = digest(f"{prefix}.h5")
    p = subprocess.run(merge, capture_output=True, text=True, env=e, timeout=120)
    assert p.returncode == 0 and "already holds the complete merge" in p.stdout, p.stdout
    assert digest(f"{prefix}.h5") == merged
    # No job script passes --overwrite for the user (comments aside).
    for d in ("jobs", "jobs/slurm"):
        for f in os.listdir(os.path.join(ROOT, d)):
            if f.endswith((".sh", ".sbatch")):
                with open(os.path.join(ROOT, d, f), encoding="utf-8") as text:
                    code = [line for line in text if not line.lstrip().startswith("#")]
                assert not [line for line in code if "--overwrite" in line], f
