#!/usr/bin/env python3
"""The version check passes the repository's own files and fails on each way they can disagree.

Copies the files that state the version into a scratch tree, breaks one statement at a time,
and runs the check on it (a fake binary stands in for `wordsens --version`).
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CHECKER = os.path.join(HERE, "check_version.py")
FILES = ["VERSION", "CMakeLists.txt", "CITATION.cff", "CHANGELOG.md", "analysis/pyproject.toml",
         "analysis/wordsens_analysis/_version.py"]
VERSION = open(os.path.join(ROOT, "VERSION"), encoding="utf-8").read().strip()
OTHER = "9.8.7"


def replace(path, old, new):
    def edit(root):
        p = os.path.join(root, path)
        text = open(p, encoding="utf-8").read()
        assert old in text, f"{path} lacks {old!r}"
        open(p, "w", encoding="utf-8").write(text.replace(old, new, 1))
    return edit


def release(date_in_cff):
    """CHANGELOG's Unreleased renamed to a release of VERSION, CITATION.cff dated date_in_cff."""
    def edit(root):
        replace("CHANGELOG.md", "## Unreleased", f"## {VERSION} — 2027-01-02")(root)
        with open(os.path.join(root, "CITATION.cff"), "a", encoding="utf-8") as f:
            f.write(f"date-released: {date_in_cff}\n")
    return edit


def run(edit, binary_says=VERSION):
    with tempfile.TemporaryDirectory() as root:
        for path in FILES:
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, path), os.path.join(root, path))
        edit(root)
        binary = os.path.join(root, "wordsens")
        with open(binary, "w") as f:
            f.write(f"#!/bin/sh\necho 'wordsens {binary_says} abc'\n")
        os.chmod(binary, stat.S_IRWXU)
        done = subprocess.run([sys.executable, CHECKER, root, binary], capture_output=True,
                              text=True)
        return done.returncode, done.stdout + done.stderr


def main():
    failures = []
    for name, edit in [("the repository's files", lambda root: None),
                       ("a release with its date", release("2027-01-02"))]:
        code, out = run(edit)
        if code != 0:
            failures.append(f"{name} flagged (exit {code}):\n{out}")
    bad = {
        "VERSION bumped alone": replace("VERSION", VERSION, OTHER),
        "_version.py differs": replace("analysis/wordsens_analysis/_version.py", VERSION, OTHER),
        "pyproject with a static version": replace(
            "analysis/pyproject.toml", 'dynamic = ["version"]', f'version = "{OTHER}"'),
        "CITATION.cff differs": replace("CITATION.cff", f"version: {VERSION}", f"version: {OTHER}"),
        "CMake with a literal version": replace(
            "CMakeLists.txt", "VERSION ${WORDSENS_VERSION}", f"VERSION {OTHER}"),
        "release dated otherwise in CITATION.cff": release("2027-01-03"),
        "release of another version": lambda root: replace(
            "CHANGELOG.md", "## Unreleased", f"## {OTHER} — 2027-01-02")(root),
        "new Unreleased over a release of VERSION": replace(
            "CHANGELOG.md", "## Unreleased", f"## Unreleased\n\n## {VERSION} — 2027-01-02"),
    }
    for name, edit in bad.items():
        code, out = run(edit)
        if code != 1:
            failures.append(f"{name} not caught (exit {code}):\n{out}")
    code, out = run(lambda root: None, binary_says=OTHER)
    if code != 1 or "--version" not in out:
        failures.append(f"a binary of another version not caught (exit {code}):\n{out}")
    for f in failures:
        print(f)
    if failures:
        sys.exit(1)
    print(f"version check: passes the repository and a release, catches {len(bad) + 1} breaks")


if __name__ == "__main__":
    main()
