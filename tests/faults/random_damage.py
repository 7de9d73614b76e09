#!/usr/bin/python3
"""Random damage of a small results file: every reader holds on every damaged copy.

Each case damages a copy of a clean results file once (a flipped byte or bit anywhere, one in
the first 64 KB where most of the metadata lives, a zeroed 4 KB stretch, or a cut) and runs
every reader on it: `wordsens info`, `info --check`, `merge`, a resume (`wordsens run` on the
copy), the analysis reader (read_results, in a long-lived worker) and, on some cases,
`wordsens-report`. A case holds when every command
  - ends within LIMIT seconds, by exit code (never a signal), with 0, or 1 and one error line
    saying "damaged" (2 only for "not a wordsens results file", when the HDF5 signature is hit),
  - info and info --check agree, and so do merge and the analysis reader with them,
  - and whatever exits 0 read exactly the clean file's records (a resume or a merge: its output
    dumps to the clean file's records).
Otherwise it breaks, and the case's damage is printed so that it can be rebuilt.

usage: random_damage.py WORDSENS [--cases N] [--seed S] [--report-every K] [--keep DIR]
  Runs N cases (default 200): the first half from the fixed seed, the second half from S
  (default: a random seed, printed). Exit 1 when any case broke.
"""
import argparse
import json
import os
import random
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from faults_lib import PY, REPORT, SMALL_INI

HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT = 10  # seconds any command may take on a damaged file
# wordsens-report's own bound: it starts Python with pandas, scipy and matplotlib (seconds on a
# loaded machine) before it reads; its reading is read_results, bounded by LIMIT in the worker.
REPORT_LIMIT = 60
FIXED_SEED = 20261127
DAMAGED = "damaged or not a wordsens results file"
FOREIGN = "not a wordsens results file"


class Worker:
    """reader_worker.py, restarted when a request kills it or takes longer than LIMIT."""

    def __init__(self):
        self.process = None
        self.warm = False  # the first answer of a process also pays for importing pandas

    def ask(self, command, path):
        if self.process is None or self.process.poll() is not None:
            self.warm = False
            self.process = subprocess.Popen([PY, os.path.join(HERE, "reader_worker.py")],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            text=True)
        start = time.monotonic()
        self.process.stdin.write(f"{command} {path}\n")
        self.process.stdin.flush()

        with selectors.DefaultSelector() as sel:
            sel.register(self.process.stdout, selectors.EVENT_READ)
                # The first request also pays for importing pandas: allow it more.
            ready = sel.select(timeout=LIMIT if self.warm else 300)
        if not ready:
            self.close()
            return {"rc": "hung", "seconds": time.monotonic() - start}
        line = self.process.stdout.readline()
        self.warm = True
        if not line:
            code = self.process.wait()
            self.process = None
            return {"rc": f"signal {-code}" if code < 0 else f"died {code}",
                    "seconds": time.monotonic() - start}
        answer = json.loads(line)
        answer["seconds"] = time.monotonic() - start
        return answer

    def close(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def run(args, timeout=LIMIT):
    start = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, errors="replace")
    except subprocess.TimeoutExpired:
        return {"rc": "hung", "err": "", "seconds": time.monotonic() - start}
    rc = p.returncode if p.returncode >= 0 else f"signal {-p.returncode}"
    return {"rc": rc, "err": p.stderr, "seconds": time.monotonic() - start}


def damage(rng, clean, path):
    """Copies `clean` to `path` with one random damage; returns its description."""
    shutil.copyfile(clean, path)
    size = os.path.getsize(clean)
    kind = rng.choices(["byte", "bit", "meta", "zero", "cut"], [40, 15, 15, 20, 10])[0]
    with open(path, "r+b") as f:
        if kind == "cut":
            at = rng.randrange(0, size)
            f.truncate(at)
            return f"cut at {at}"
        if kind == "zero":
            at = rng.randrange(0, size)
            f.seek(at)
            f.write(bytes(min(4096, size - at)))
            return f"zero 4096 bytes at {at}"
        at = rng.randrange(0, min(size, 65536) if kind == "meta" else size)
        mask = 1 << rng.randrange(8) if kind == "bit" else rng.randrange(1, 256)
        f.seek(at)
        byte = f.read(1)[0]
        f.seek(at)
        f.write(bytes([byte ^ mask]))
        return f"xor byte {at} with 0x{mask:02x}"


def verdict(res, name, problems, limit=LIMIT):
    """The exit-code contract of one command; returns its code (or None when broken)."""
    rc = res["rc"]
    if res["seconds"] > limit or rc == "hung":
        problems.append(f"{name}: took {res['seconds']:.1f} s (bound {limit} s)")
        return None
    if not isinstance(rc, int):
        problems.append(f"{name}: {rc}")
        return None
    err = res.get("err", res.get("error", ""))
    lines = [line for line in err.splitlines() if "error" in line.lower()]
    if rc == 1 and ("err" in res and (len(lines) != 1 or "damaged" not in lines[0])):
        problems.append(f"{name}: exit 1 without one 'damaged' line: {err.strip()[:300]!r}")
    if rc == 1 and "error" in res and DAMAGED not in err:
        problems.append(f"{name}: damage not named: {err[:300]!r}")
    if rc == 2 and FOREIGN not in err:
        problems.append(f"{name}: exit 2: {err.strip()[:300]!r}")
    if rc not in (0, 1, 2):
        problems.append(f"{name}: exit {rc}: {err.strip()[:300]!r}")
    return rc


class Fuzz:
    def __init__(self, wordsens, workdir, report_every):
        self.wordsens = wordsens
        self.dir = workdir
        self.report_every = report_every
        self.worker = Worker()
        self.config = os.path.join(workdir, "small.ini")
        with open(self.config, "w", encoding="utf-8") as f:
            f.write(SMALL_INI)
        self.clean = os.path.join(workdir, "clean.h5")
        res = run([wordsens, "run", self.config, "--output", self.clean, "--progress", "60"], 600)
        if res["rc"] != 0:
            sys.exit(f"the clean run failed: {res}")
        self.clean_dump = self.worker.ask("dump", self.clean)["records"]
        self.clean_read = self.worker.ask("read", self.clean)
        assert self.clean_read["rc"] == 0, self.clean_read

    def same_dump(self, path, name, problems):
        got = self.worker.ask("dump", path)
        if got.get("rc") != 0 or got.get("records") != self.clean_dump:
            problems.append(f"{name}: exit 0, but its records differ from the clean file's")

    def case(self, index, rng):
        path = os.path.join(self.dir, "damaged.h5")
        what = damage(rng, self.clean, path)
        problems = []
        w = self.wordsens
        info = verdict(run([w, "info", path]), "info", problems)
        check = verdict(run([w, "info", "--check", path]), "info --check", problems)
        if info is not None and check is not None and info != check:
            problems.append(f"info exit {info} but info --check exit {check}")
        if info == 0:
            self.same_dump(path, "info", problems)
        merged = os.path.join(self.dir, "merged.h5")
        if os.path.exists(merged):
            os.remove(merged)
        merge = verdict(run([w, "merge", path, "-o", merged]), "merge", problems)
        if merge is not None and info is not None and merge != info:
            problems.append(f"merge exit {merge} but info exit {info}")
        if merge == 0:
            self.same_dump(merged, "merge", problems)
        resumed = os.path.join(self.dir, "resumed.h5")
        shutil.copyfile(path, resumed)
        resume = verdict(run([w, "run", self.config, "--output", resumed, "--progress", "60"]),
                         "resume", problems)
        if resume == 0:
            self.same_dump(resumed, "resume", problems)
        reader = self.worker.ask("read", path)
        code = verdict(reader, "read_results", problems)
        if code is not None and info is not None and code != info:
            problems.append(f"read_results exit {code} ({reader.get('error', '')[:200]!r}) but "
                            f"info exit {info}")
        if code == 0 and reader["records"] != self.clean_read["records"]:
            problems.append("read_results: read records that differ from the clean file's")
        if self.report_every and index % self.report_every == 0:
            out = os.path.join(self.dir, "report")
            shutil.rmtree(out, ignore_errors=True)
            report = run([PY, REPORT, path, "-o", out], REPORT_LIMIT + 5)
            rc = verdict(report, "wordsens-report", problems, REPORT_LIMIT)
            if rc is not None and code is not None and rc != code:
                problems.append(f"wordsens-report exit {rc} but read_results {code}")
            if "Traceback" in report["err"]:
                problems.append("wordsens-report printed a traceback")
        return what, info, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wordsens")
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--report-every", type=int, default=40)
    parser.add_argument("--keep", default=None, help="copy each broken case's file here")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    print(f"random damage: {args.cases} cases, seeds {FIXED_SEED} (first half) and {seed} "
          f"(rerun: {sys.argv[0]} WORDSENS --cases {args.cases} --seed {seed})", flush=True)
    workdir = tempfile.mkdtemp(prefix="wordsens_fuzz_")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    held = broke = detected = 0
    start = time.monotonic()
    try:
        fuzz = Fuzz(os.path.abspath(args.wordsens), workdir, args.report_every)
        half = args.cases // 2
        rngs = [random.Random(FIXED_SEED), random.Random(seed)]
        for index in range(args.cases):
            what, info, problems = fuzz.case(index, rngs[0 if index < half else 1])
            detected += info == 1
            if problems:
                broke += 1
                print(f"BROKE case {index} (seed {FIXED_SEED if index < half else seed}): {what}: "
                      + "; ".join(problems), flush=True)
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    shutil.copyfile(os.path.join(workdir, "damaged.h5"),
                                    os.path.join(args.keep, f"case{index}.h5"))
            else:
                held += 1
            if (index + 1) % 50 == 0:
                print(f"after {index + 1} cases: {held} held, {broke} broke "
                      f"({time.monotonic() - start:.0f} s)", flush=True)
        fuzz.worker.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{held} cases held, {broke} broke ({detected} refused as damaged by info) in "
          f"{time.monotonic() - start:.0f} s")
    print(f"{held} passed, {broke} failed")
    return 1 if broke else 0


if __name__ == "__main__":
    sys.exit(main())
