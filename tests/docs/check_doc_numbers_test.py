#!/usr/bin/env python3
"""The docs' numbers checker fails on each way a quoted number can go wrong, and passes the docs
as they are.

Copies what the checker reads (README.md, docs/tutorial.md, jobs/configs/quick.ini, the analysis
package) into a scratch root, plants one wrong number at a time, and runs the checker on it.

usage: check_doc_numbers_test.py ROOT WORDSENS_BINARY
"""
import os
import shutil
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_doc_numbers.py")
FILES = ["README.md", "docs/tutorial.md", "jobs/configs/quick.ini"]

# (what goes wrong, file, text as it is, text planted)
BAD = [
    ("the default study's time on 2 ranks", "README.md", "1m00s on 2 ranks", "1m30s on 2 ranks"),
    ("the default study's time on one core", "README.md", "at 2m00s on one core",
     "at 3m00s on one core"),
    ("the default study's task count", "README.md", "440 tasks, predicted", "400 tasks, predicted"),
    ("the default study's cost gone", "README.md", "predicted by its dry run", "predicted"),
    ("a dry-run figure of the tutorial", "docs/tutorial.md", "est. 6.32 Gflop", "est. 6.30 Gflop"),
    ("the tutorial's time on 2 cores", "docs/tutorial.md", "2 cores 1s;", "2 cores 2s;"),
    ("the tutorial's memory per rank", "docs/tutorial.md", "memory: 65 MiB per rank",
     "memory: 64 MiB per rank"),
    ("the tutorial's configuration, not its dry run", "docs/tutorial.md", "trials = 6\n",
     "trials = 8\n"),
    ("a first line whose counts do not add up", "README.md",
     "5 of 8 claims confirmed, 3 supported", "5 of 8 claims confirmed, 2 supported"),
    ("a first line not in the report's format", "docs/tutorial.md",
     "0 of 2 claims confirmed", "0 of 2 claims were confirmed"),
    ("older verdict rules", "docs/tutorial.md", "verdict rules 4.1 (hash", "verdict rules 4.0 (hash"),
    ("another rules hash", "README.md", "(hash a67d53185b8e;", "(hash 000000000000;"),
    ("a claim's theorem", "README.md", "thm1_rf               Thm 1",
     "thm1_rf               Thm 2"),
    ("a claim the code does not have", "README.md", "thm2_drf               Thm 2",
     "thm9_drf               Thm 2"),
    ("a verdict the rules do not give", "docs/tutorial.md", "Thm 3 inconclusive -0.05584",
     "Thm 3 undecided    -0.05584"),
]


def run_on(root, binary, plant=None):
    with tempfile.TemporaryDirectory() as scratch:
        for rel in FILES:
            os.makedirs(os.path.dirname(os.path.join(scratch, rel)) or scratch, exist_ok=True)
            shutil.copy2(os.path.join(root, rel), os.path.join(scratch, rel))
        shutil.copytree(os.path.join(root, "analysis", "wordsens_analysis"),
                        os.path.join(scratch, "analysis", "wordsens_analysis"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        if plant:
            rel, before, after = plant
            path = os.path.join(scratch, rel)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if before not in text:
                return None, f"'{before}' is not in {rel}: update this test with the docs"
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(before, after, 1))
        done = subprocess.run([sys.executable, CHECKER, scratch, binary], capture_output=True,
                              text=True)
        return done.returncode, done.stdout + done.stderr


def main():
    root, binary = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failures = []
    code, out = run_on(root, binary)
    if code != 0:
        failures.append(f"the docs as they are fail the checker:\n{out}")
    for what, rel, before, after in BAD:
        code, out = run_on(root, binary, (rel, before, after))
        if code is None:
            failures.append(f"{what}: {out}")
        elif code != 1 or "FAIL" not in out:
            failures.append(f"{what}: the checker exited {code}:\n{out}")
        else:
            print(f"fails as it should: {what}")
    for f in failures:
        print(f"FAIL {f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
