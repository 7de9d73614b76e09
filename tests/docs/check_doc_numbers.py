#!/usr/bin/env python3
"""The numbers the user docs quote from the code are the code's.

- docs/tutorial.md: its configuration (the first ```ini block) is dry-run by the binary, and the
  quoted dry-run output (the block that starts with the grid's header, ` point  exp …`) must be
  that output line for line (all of it but the machine's own "memory per rank here" line);
- README.md: the default study's size and predicted time ("N tasks, predicted by its dry run at
  T on one core, T2 on 2 ranks") against `wordsens run jobs/configs/quick.ini --dry-run
  --format=json` (`tasks`, `seconds_one_core`, `predicted_wall_seconds`), rounded as the dry run
  prints them;
- every quoted report (README.md, docs/tutorial.md: a code block with a "verdict rules" line):
  the first line has the report's format and counts that add up, the rules line is the code's
  (version and hash), the table's header is the columns the report prints, and each row names a
  claim with its theorem and a verdict of the rules, then four numbers.

With --run, the tutorial's study is also run (one rank, no MPI launcher, as the records are the
same on any number of ranks) into a scratch folder, its report's first lines compared with the
first quoted report of docs/tutorial.md, then the look that `--next-batch` proposes, and the
report over both files with the second quoted report.

Exits 1 listing each disagreement as FILE: what.

usage: check_doc_numbers.py ROOT WORDSENS_BINARY [--run WORK]
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

HEADLINE = re.compile(
    r"^(?:PARTIAL input .* — )?(\d+) of (\d+) claims confirmed, (\d+) supported or not refuted by "
    r"weaker evidence, (\d+) contradicted, (\d+) inconclusive(?:; not in (?:this study|these "
    r"studies): [\w\[\], ]+)?; integrity checks: (?:all pass(?: \(\d+ not in this file\))?|"
    r"\d+ of \d+ FAIL: .+)$")
README_COST = re.compile(r"(\d+) tasks, predicted by its dry run at (\w+) on one core, (\w+) on "
                         r"2 ranks")
NUMBER = re.compile(r"^-?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$|^nan$")


def blocks(text, lang=None):
    """The code blocks of a Markdown text (lang None: any), as lists of lines."""
    out, block, opened = [], None, None
    for line in text.split("\n"):
        if block is None and line.startswith("```"):
            block, opened = [], line[3:].strip()
        elif block is not None and line.strip() == "```":
            if lang is None or opened == lang:
                out.append(block)
            block = None
        elif block is not None:
            block.append(line)
    return out


def seconds(text):
    """The dry run's durations: 1h02m, 2m00s, 7s."""
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text)
    if not m or not any(m.groups()):
        return None
    h, mi, s = (int(g or 0) for g in m.groups())
    return 3600 * h + 60 * mi + s


class Checker:
    def __init__(self, root, binary):
        self.root, self.binary, self.problems = root, binary, []
        sys.path.insert(0, os.path.join(root, "analysis"))
        from wordsens_analysis import claims, rules
        from wordsens_analysis.report import writer as report_writer
        self.claims, self.rules_line = claims.CLAIMS, report_writer.rules_line()
        self.verdicts = sorted(rules.POSITIVE + (rules.CONTRADICTED, rules.INCONCLUSIVE),
                               key=len, reverse=True)

    def read(self, rel):
        with open(os.path.join(self.root, rel), encoding="utf-8") as f:
            return f.read()

    def fail(self, where, what):
        self.problems.append(f"{where}: {what}")

    def wordsens(self, *args, cwd=None):
        # The docs quote the cost model as built (no host's own calibration: a scratch HOME),
        # priced for a CPU without AVX-512 whatever this one has.
        env = {k: v for k, v in os.environ.items() if k != "WORDSENS_CALIBRATION"}
        env["HOME"] = self.home
        env["WORDSENS_COST_HOST"] = "avx2"
        done = subprocess.run([self.binary, *args], capture_output=True, text=True,
                              cwd=cwd or self.root, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"wordsens {' '.join(args)} exited {done.returncode}: "
                               f"{done.stderr.strip()}")
        return done.stdout

    # The tutorial's dry run.
    def tutorial_dry_run(self, rel, work):
        text = self.read(rel)
        ini = blocks(text, "ini")
        if not ini:
            return self.fail(rel, "no ```ini block (the tutorial's configuration)")
        config = os.path.join(work, "tutorial.ini")
        with open(config, "w", encoding="utf-8") as f:
            f.write("\n".join(ini[0]) + "\n")
        quoted = [b for b in blocks(text) if b and b[0].lstrip().startswith("point  exp")]
        if not quoted:
            return self.fail(rel, "no quoted dry run (a block starting with ' point  exp')")
        actual = [line for line in self.wordsens("run", config, "--dry-run").splitlines()
                  if not line.startswith("memory per rank here")]

        def figures(line):
            """A line as compared: the predicted times' line by its figures (after the
            parenthesis that names the cost model), every other line whole."""
            if line.startswith("predicted wall time ("):
                return "predicted wall time: " + line.split("):", 1)[-1].strip()
            return line

        if [figures(x) for x in quoted[0]] != [figures(x) for x in actual]:
            for i in range(max(len(quoted[0]), len(actual))):
                q = quoted[0][i] if i < len(quoted[0]) else "(nothing)"
                a = actual[i] if i < len(actual) else "(nothing)"
                if figures(q) != figures(a):
                    self.fail(rel, f"dry-run line {i + 1} reads\n  {q}\nbut the binary prints\n  {a}")
                    break
        return config

    # The README's quoted cost of the default study.
    def readme_cost(self, rel):
        text = " ".join(self.read(rel).split())
        m = README_COST.search(text)
        if not m:
            return self.fail(rel, "no 'N tasks, predicted by its dry run at T on one core, T2 on "
                                  "2 ranks' for jobs/configs/quick.ini")
        plan = json.loads(self.wordsens("run", "jobs/configs/quick.ini", "--dry-run",
                                        "--format=json"))
        if int(m.group(1)) != plan["tasks"]:
            self.fail(rel, f"quick.ini has {plan['tasks']} tasks, the text says {m.group(1)}")
        for said, actual, what in ((m.group(2), plan["seconds_one_core"], "one core"),
                                   (m.group(3), plan["predicted_wall_seconds"]["2"], "2 ranks")):
            if seconds(said) is None or abs(seconds(said) - actual) > 0.5:
                self.fail(rel, f"quick.ini on {what}: the dry run predicts {actual:.1f} s, the "
                               f"text says {said}")

    # Every quoted report.
    def reports(self, rel):
        found = 0
        for block in blocks(self.read(rel)):
            if not any(line.startswith("verdict rules ") for line in block):
                continue
            found += 1
            self.report_block(rel, block)
        return found

    def report_block(self, rel, block):
        m = HEADLINE.match(block[0])
        if not m:
            return self.fail(rel, f"the report's first line is not in the report's format: "
                                  f"{block[0]}")
        conf, q, weak, contra, inc = (int(g) for g in m.groups())
        if conf + weak + contra + inc != q:
            self.fail(rel, f"the first line's counts do not add up to {q}: {block[0]}")
        if block[1] != self.rules_line:
            self.fail(rel, f"rules line '{block[1]}' is not the code's '{self.rules_line}'")
        header = block[2].split()
        if header != ["claim", "theorem", "verdict", "estimate", "ci_low", "ci_high",
                      "p_confirm_holm"]:
            self.fail(rel, f"the table's header is not the report's: {block[2]}")
        # The table's rows; not the lines after it that give a claim's reason ("  claim: …").
        rows = [line for line in block[3:] if line.strip() and line.strip() != "…"
                and not re.match(r"\s*(FAIL\s+)?\S+: ", line)]
        for line in rows:
            words = line.split()
            claim = words[0]
            base = claim.split("[")[0]
            if base not in self.claims:
                self.fail(rel, f"no claim {claim} in the code: {line}")
                continue
            verdict = next((v for v in self.verdicts if f" {v} " in f" {line} "), None)
            if verdict is None:
                self.fail(rel, f"no verdict of the rules in: {line}")
                continue
            before, after = (" " + " ".join(words) + " ").split(f" {verdict} ", 1)
            theorem = before.strip()[len(claim):].strip()
            if theorem != self.claims[base].theorem:
                self.fail(rel, f"{claim} is the code's '{self.claims[base].theorem}', not "
                               f"'{theorem}'")
            numbers = after.split()
            if len(numbers) != 4 or not all(NUMBER.match(x) for x in numbers):
                self.fail(rel, f"{claim}: not four numbers after the verdict: {line}")
        if len(rows) > q:
            self.fail(rel, f"{len(rows)} rows for {q} claims")

    # --run: the tutorial as written.
    def run_tutorial(self, rel, config, work):
        quoted = [b for b in blocks(self.read(rel))
                  if any(line.startswith("verdict rules ") for line in b)]
        if len(quoted) < 2:
            return self.fail(rel, "the tutorial quotes fewer than two reports")
        results = os.path.join(work, "results")
        os.makedirs(results, exist_ok=True)
        self.wordsens("run", "tutorial.ini", "--output", "results/tutorial.h5",
                      cwd=work)
        report = [sys.executable, os.path.join(self.root, "analysis", "wordsens-report")]
        env = {**os.environ, "MPLBACKEND": "Agg"}

        def first_lines(files, n):
            done = subprocess.run(report + files + ["-o", os.path.join(work, "report")],
                                  capture_output=True, text=True, cwd=work, env=env)
            return done.stdout.splitlines()[:n]

        for i, files in ((0, ["results/tutorial.h5"]),):
            got = first_lines(files, len(quoted[i]))
            if got != quoted[i]:
                self.fail(rel, "the first quoted report is not the run's:\n  " + "\n  ".join(got))
        nxt = subprocess.run(report + ["--next-batch", "results/tutorial.h5"], capture_output=True,
                             text=True, cwd=work, env=env)
        m = re.search(r": (wordsens run .*)$", nxt.stderr.strip().splitlines()[-1]
                      if nxt.stderr.strip() else "")
        if not m:
            return self.fail(rel, f"--next-batch printed no command: {nxt.stderr.strip()}")
        args = shlex.split(m.group(1))[2:]
        self.wordsens("run", *args, cwd=work)
        look = [a.split("=", 1)[1] for a in args if a.startswith("--output=")][0]
        got = first_lines(["results/tutorial.h5", look], len(quoted[1]))
        if got != quoted[1]:
            self.fail(rel, "the second quoted report is not the run's:\n  " + "\n  ".join(got))


def main():
    args = sys.argv[1:]
    run_work = None
    if "--run" in args:
        i = args.index("--run")
        run_work = os.path.abspath(args[i + 1])
        del args[i:i + 2]
        shutil.rmtree(run_work, ignore_errors=True)  # a fresh run, every time
    if len(args) != 2:
        sys.exit(__doc__)
    root, binary = os.path.abspath(args[0]), os.path.abspath(args[1])
    import tempfile
    c = Checker(root, binary)
    with tempfile.TemporaryDirectory() as scratch:
        c.home = os.path.join(scratch, "home")
        os.makedirs(c.home)
        work = run_work or os.path.join(scratch, "work")
        os.makedirs(work, exist_ok=True)
        config = c.tutorial_dry_run("docs/tutorial.md", work)
        c.readme_cost("README.md")
        for rel in ("README.md", "docs/tutorial.md"):
            if c.reports(rel) == 0:
                c.fail(rel, "quotes no report (a block with a 'verdict rules' line)")
        if run_work and config:
            c.run_tutorial("docs/tutorial.md", config, work)
    for p in c.problems:
        print(f"FAIL {p}")
    print(f"{len(c.problems)} disagreements between the docs' numbers and the code")
    sys.exit(1 if c.problems else 0)


if __name__ == "__main__":
    main()
