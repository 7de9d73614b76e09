#!/usr/bin/python3
"""Random faults of the whole pipeline: jobs/reproduce_paper.sh interrupted at a random moment,
then run again, gives the uninterrupted run's files, records and verdicts.

The pipeline is a small adaptive run (`--tiny --only regime_map,multiword --trials 2
--max-trials 4 --ranks 1`: two studies, a judge step, a second look, the report and the results
section). One reference run goes uninterrupted. Each case starts the same command in a fresh
directory, in a process group of its own, and after a random delay (case i of N within the i-th
N-th of the reference's duration) does one of:
  - term: TERM to the script alone (the pipeline must end every process it started),
  - int: INT to the whole group (Ctrl-C),
  - kill: KILL to the whole group,
  - disk: nothing, but its results directory is a tmpfs too small for the run (a full disk),
    enlarged before the rerun (needs root and mount; left out, and said so, where unavailable),
then runs the command again, uninterrupted. A case holds when:
  - the interrupted run ended within LIMIT seconds, and no process of it is left 15 s after the
    signal (a snapshot of its process tree taken just before);
  - it published nothing unless it completed: no results.md in its report directory when its
    exit code is not 0 (and docs/REPRODUCE.md of the checkout never changes: --update-doc is
    refused for such a run, and the test checks the file's bytes at the end);
  - the rerun exits 0 with the reference's files; every file's records equal the reference's
    bit for bit (tests/mpi/dump_records.py), verdicts.csv equals the reference's, results.md
    exists;
  - no task was redone: every task done when the interrupted run ended keeps its record, down to
    its wall-clock `seconds`, which a rerun of the task would change.

usage: pipeline_faults.py WORDSENS [--cases N] [--seed S] [--kinds term,int,kill,disk] [--keep]
  N cases (default 4: one of each kind; CI runs 3, term, kill and disk; 40 is the slow size),
  the kinds in turn, each at a delay drawn from the seed S (default: a random one, printed).
  Exit 1 when any case broke.
"""
import argparse
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "jobs"))
import process_tree  # noqa: E402

SCRIPT = os.path.join(ROOT, "jobs", "reproduce_paper.sh")
DUMP = os.path.join(ROOT, "tests", "mpi", "dump_records.py")
DOC = os.path.join(ROOT, "docs", "REPRODUCE.md")
PY = "/usr/bin/python3"
ARGS = ["--tiny", "--only", "regime_map,multiword", "--trials", "2", "--max-trials", "4",
        "--ranks", "1"]
LIMIT = 600   # seconds a pipeline run may take on a loaded machine
AFTER = 15    # seconds within which every process of a signalled run must be gone
KINDS = ("term", "int", "kill", "disk")


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Broke(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Broke(message)


class Pipeline:
    def __init__(self, wordsens, workdir):
        self.env = dict(os.environ, WORDSENS_BIN=wordsens, OMPI_ALLOW_RUN_AS_ROOT="1",
                        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", MPLBACKEND="Agg",
                        PYTHONDONTWRITEBYTECODE="1")
        self.workdir = workdir
        self.mounts = []

    def start(self, case_dir):
        log = open(os.path.join(case_dir, f"log-{time.monotonic_ns()}.txt"), "w")
        p = subprocess.Popen(["bash", SCRIPT, *ARGS, "--results",
                              os.path.join(case_dir, "results"), "--report",
                              os.path.join(case_dir, "report")],
                             stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=self.env, cwd=ROOT, start_new_session=True)
        p.log = log
        return p

    def finish(self, p, limit=LIMIT):
        try:
            p.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise Broke(f"the pipeline did not end within {limit} s") from None
        finally:
            p.log.close()
        with open(p.log.name, errors="replace") as f:
            return p.returncode, f.read()

    def run(self, case_dir):
        return self.finish(self.start(case_dir))

    def mount(self, path, size):
        os.makedirs(path, exist_ok=True)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return False
        self.mounts.append(path)
        return True

    def grow(self, path):
        subprocess.run(["mount", "-o", "remount,size=256m", path], check=True)

    def close(self):
        for m in reversed(self.mounts):
            subprocess.run(["umount", "-l", m], capture_output=True)


def results_files(case_dir):
    d = os.path.join(case_dir, "results")
    return sorted(f for f in os.listdir(d) if f.endswith(".h5")) if os.path.isdir(d) else []


def dump(path):
    p = subprocess.run([PY, DUMP, path], capture_output=True, text=True)
    check(p.returncode == 0, f"dump_records {path}: {p.stderr.strip()[-300:]}")
    return p.stdout


def done_seconds(path):
    """task id -> the wall-clock seconds of its records (ws and gen), for the done tasks."""
    try:
        f = h5py.File(path, "r")
    except OSError:
        try:
            f = h5py.File(path, "r", swmr=True)
        except OSError:
            return {}  # left unreadable by a KILL before its first flush: nothing done in it
    out = {}
    with f:
        if "tasks" not in f:
            return {}
        done = {int(t) for t, d in zip(f["tasks/task_id"][()], f["tasks/done"][()]) if d}
        for group in ("ws", "gen"):
            if group in f and "seconds" in f[group]:
                for t, s in zip(f[f"{group}/task_id"][()], f[f"{group}/seconds"][()]):
                    if int(t) in done:
                        out.setdefault(int(t), set()).add(float(s).hex())
    return out


SIGNALLED = re.compile(r": exit \d+ \((TERM|INT|HUP)\) after")  # the trap's line, not a step
STEP = re.compile(r"reproduce_paper: (look (\d+): )?(\w+): (exit (\d+)|mpirun|trials)")


def last_step(log, failed_first=False):
    """Where the pipeline was when it ended (the last line of its own it printed: a study's run
    of a look, the judge step between looks, the report); with failed_first, the first run that
    failed instead."""
    mine = [line for line in log.splitlines() if line.startswith("reproduce_paper: ")
            and "ending every process" not in line and not SIGNALLED.search(line)]
    if failed_first:
        for line in mine:
            m = STEP.match(line)
            if m and m.group(5) not in (None, "0"):
                return f"look {m.group(2) or 1} {m.group(3)}"
    if not mine:
        return "start"
    line = mine[-1]
    if "results section" in line:
        return "done"
    if "report of" in line:
        return "report"
    m = STEP.match(line)
    if not m:
        return "start"
    return "judge" if m.group(4).startswith("exit") else f"look {m.group(2) or 1} {m.group(3)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wordsens")
    ap.add_argument("--cases", type=int, default=4)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(2**31)
    kinds = [k for k in a.kinds.split(",") if k]
    print(f"pipeline faults: {a.cases} cases of {','.join(kinds)}, seed {seed} (rerun: "
          f"{sys.argv[0]} WORDSENS --cases {a.cases} --seed {seed} --kinds {a.kinds})",
          flush=True)
    rng = random.Random(seed)
    workdir = tempfile.mkdtemp(prefix="wordsens_pipeline_faults_")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    pipe = Pipeline(os.path.abspath(a.wordsens), workdir)
    doc_before = digest(DOC)
    held = broke = 0
    counts = {}
    start = time.monotonic()
    try:
        ref_dir = os.path.join(workdir, "reference")
        os.makedirs(ref_dir)
        t0 = time.monotonic()
        rc, log = pipe.run(ref_dir)
        ref_seconds = time.monotonic() - t0
        if rc != 0:
            print(f"the reference run failed (exit {rc}):\n{log[-3000:]}")
            return 1
        ref_files = results_files(ref_dir)
        ref_dumps = {f: dump(os.path.join(ref_dir, "results", f)) for f in ref_files}
        ref_verdicts = digest(os.path.join(ref_dir, "report", "verdicts.csv"))
        ref_bytes = sum(os.path.getsize(os.path.join(ref_dir, "results", f))
                        for f in os.listdir(os.path.join(ref_dir, "results")))
        print(f"reference: {len(ref_files)} files ({', '.join(ref_files)}), {ref_bytes} bytes, "
              f"{ref_seconds:.0f} s", flush=True)
        check_ok = len(ref_files) >= 3  # both studies and at least one look
        if not check_ok:
            print("the reference run added no look: the case would not reach one")
        for index in range(a.cases):
            kind = kinds[index % len(kinds)]
            case_dir = os.path.join(workdir, f"case{index}")
            os.makedirs(case_dir)
            # stratified over the reference's duration, so that a few cases reach its early
            # steps as well as the report, which takes most of it
            delay = rng.uniform(max(0.5, ref_seconds * index / a.cases),
                                ref_seconds * (index + 1) / a.cases)
            what = f"case {index}: {kind}"
            try:
                hit, rc = one_case(pipe, rng, kind, delay, case_dir, ref_bytes)
                if hit is None:
                    print(f"{what}: skipped ({rc})", flush=True)
                    continue
                rerun_checks(pipe, case_dir, ref_files, ref_dumps, ref_verdicts, hit)
                held += 1
                counts[(kind, hit[0])] = counts.get((kind, hit[0]), 0) + 1
                print(f"{what} after {delay:.1f} s, in {hit[0]}: exit {rc}; "
                      f"{hit[1]} tasks done then, none redone; rerun equal: held", flush=True)
            except Broke as err:
                broke += 1
                print(f"BROKE {what} after {delay:.1f} s (seed {seed}): {err}", flush=True)
        if digest(DOC) != doc_before:
            broke += 1
            print("BROKE: docs/REPRODUCE.md changed", flush=True)
    finally:
        pipe.close()
        if a.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    where = ", ".join(f"{k} in {h}: {n}" for (k, h), n in sorted(counts.items()))
    print(f"{held} cases held, {broke} broke in {time.monotonic() - start:.0f} s"
          + (f" ({where})" if where else ""))
    print(f"{held} passed, {broke} failed")
    return 1 if broke else 0


def one_case(pipe, rng, kind, delay, case_dir, ref_bytes):
    """Runs the pipeline with one fault; returns ((where it hit, tasks done), exit code), or
    (None, why) when this machine cannot make the fault."""
    results = os.path.join(case_dir, "results")
    if kind == "disk":
        size = max(64 * 1024, int(ref_bytes * rng.uniform(0.2, 0.9)))
        if not pipe.mount(results, size):
            return None, "cannot mount a tmpfs (not root?)"
    p = pipe.start(case_dir)
    tree = set()
    if kind != "disk":
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline and p.poll() is None:
            tree = process_tree.descendants([p.pid], process_tree.children())
            time.sleep(0.05)
        if p.poll() is None:
            tree = process_tree.descendants([p.pid], process_tree.children())
            sig = {"term": signal.SIGTERM, "int": signal.SIGINT, "kill": signal.SIGKILL}[kind]
            if kind == "term":
                os.kill(p.pid, sig)
            else:
                os.killpg(p.pid, sig)
    rc, log = pipe.finish(p, LIMIT if kind == "disk" else 60)
    where = last_step(log, failed_first=kind == "disk")
    if kind != "disk":
        deadline = time.monotonic() + AFTER
        while any(process_tree.alive(q) for q in tree) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [q[0] for q in tree if process_tree.alive(q)]
        check(not left, f"processes of the run alive {AFTER} s after the {kind}: {left}\n"
                        f"{log[-1500:]}")
        if rc == 0:
            where = "done"  # it finished before the fault came
        else:
            want = {"term": 143, "int": 130, "kill": -9}[kind]
            check(rc == want, f"exit {rc} after {kind}, not {want}\n{log[-1500:]}")
    report = os.path.join(case_dir, "report")
    published = os.path.exists(os.path.join(report, "results.md"))
    state = "written" if published else "not written"
    check(published == (rc == 0), f"exit {rc} but results.md {state}\n{log[-1500:]}")
    snapshot = {f: done_seconds(os.path.join(results, f)) for f in results_files(case_dir)}
    with open(os.path.join(case_dir, "snapshot"), "w") as f:
        f.write(repr(snapshot))
    if kind == "disk":
        if rc == 0:
            where = "done"  # the disk was large enough
        pipe.grow(results)
    return (where, sum(len(v) for v in snapshot.values())), rc


def rerun_checks(pipe, case_dir, ref_files, ref_dumps, ref_verdicts, hit):
    with open(os.path.join(case_dir, "snapshot")) as f:
        snapshot = eval(f.read())  # noqa: S307 (our own repr of dicts of sets of strings)
    rc, log = pipe.run(case_dir)
    check(rc == 0, f"the rerun exited {rc}\n{log[-3000:]}")
    results = os.path.join(case_dir, "results")
    files = results_files(case_dir)
    check(files == ref_files, f"files {files}, not the reference's {ref_files}")
    for f in files:
        got = dump(os.path.join(results, f))
        check(got == ref_dumps[f], f"{f}: records differ from the reference's")
        after = done_seconds(os.path.join(results, f))
        redone = [t for t, s in snapshot.get(f, {}).items() if after.get(t) != s]
        check(not redone, f"{f}: tasks {redone[:5]} were redone (their records changed)")
    report = os.path.join(case_dir, "report")
    check(digest(os.path.join(report, "verdicts.csv")) == ref_verdicts,
          "verdicts.csv differs from the reference's")
    check(os.path.exists(os.path.join(report, "results.md")), "no results.md after the rerun")


if __name__ == "__main__":
    sys.exit(main())
