#!/usr/bin/env python3
"""The install lines of README.md and docs/ (docs/*.md and its subfolders) work as written.

Reads every ```sh block of those files (nothing is copied from them into this test) and runs its
install lines in a scratch copy of the checkout:
- `pip install` blocks into a fresh venv, offline (pip's index is a closed local port), then
  checks the venv's wordsens-report and that the package reports the top-level VERSION. A block
  whose venv comes from another python3 (not /usr/bin/python3) runs only when given one and a
  folder of wheels (--other-python PY --wheels DIR; `python3` and WHEELS are replaced by them);
- `cmake --preset` lines are configured, and a block that installs (`cmake --install`, the
  cluster's) with GoogleTest hidden (CMAKE_DISABLE_FIND_PACKAGE_GTest), as a cluster has none;
  their `cmake --build` and `cmake --install` run only with --full (a whole build);
- `install_deps.sh` lines as written (they only report on a machine that has the packages).
Exits 1 naming each line that failed.

usage: readme_install_lines.py ROOT WORK [--full] [--other-python PY --wheels DIR]
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

INSTALL = re.compile(r"pip install|-m venv|cmake --preset|cmake --build|cmake --install|"
                     r"install_deps\.sh")
OFFLINE = {"PIP_INDEX_URL": "http://127.0.0.1:9/", "PIP_RETRIES": "0", "PIP_TIMEOUT": "2",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def sh_blocks(path):
    """The lines of each ```sh block, without their comments."""
    blocks, block = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if block is None and line.strip() == "```sh":
                block = []
            elif block is not None and line.strip() == "```":
                blocks.append(block)
                block = None
            elif block is not None:
                command = re.sub(r"(^|\s)#.*", "", line).strip()
                if command:
                    block.append((number, command))
    return blocks


def copy_checkout(root, dest):
    files = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    for rel in filter(None, files):
        src = os.path.join(root, rel)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel))


class Runner:
    def __init__(self, args):
        self.args, self.failures, self.ran, self.skipped = args, [], 0, []
        self.version = open(os.path.join(args.root, "VERSION"), encoding="utf-8").read().strip()

    def scratch(self, name):
        path = os.path.join(self.args.work, name)
        shutil.rmtree(path, ignore_errors=True)
        copy_checkout(self.args.root, path)
        return path

    def sh(self, where, command, cwd, env=None):
        self.ran += 1
        print(f"run {where}: {command}", flush=True)
        done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                              env={**os.environ, **(env or {})})
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
            self.failures.append(f"{where}: `{command}` exited {done.returncode}:\n{tail}")
        return done.returncode == 0

    def python_block(self, where, lines, n):
        other = not any(c.startswith("/usr/bin/python3 -m venv") for _, c in lines)
        if other and not self.args.other_python:
            self.skipped.append(f"{where}: another python3's block (no --other-python)")
            return
        cwd = self.scratch(f"python{n}")
        for number, command in lines:
            if other:
                command = re.sub(r"^python3 ", f"{self.args.other_python} ", command)
                command = command.replace("WHEELS", self.args.wheels)
            if not self.sh(f"{where.rsplit(':', 1)[0]}:{number}", command, cwd, OFFLINE):
                return
        said = subprocess.run([os.path.join(cwd, "venv/bin/python"), "-c",
                               "import wordsens_analysis; print(wordsens_analysis.__version__)"],
                              capture_output=True, text=True).stdout.strip()
        if said != self.version:
            self.failures.append(f"{where}: the installed package says {said!r}, VERSION "
                                 f"{self.version}")
        if not os.access(os.path.join(cwd, "venv/bin/wordsens-report"), os.X_OK):
            self.failures.append(f"{where}: no venv/bin/wordsens-report")

    def cmake_block(self, where, lines, n):
        installs = any("cmake --install" in c for _, c in lines)
        cwd = self.scratch(f"cmake{n}")
        for number, command in lines:
            for part in (p.strip() for p in command.split("&&")):
                configure = part.startswith("cmake --preset")
                if not configure and not self.args.full:
                    self.skipped.append(f"{where}:{number}: `{part}` (a build: --full)")
                    continue
                if part.startswith("cmake --install"):
                    part = re.sub(r"--prefix \S+", "--prefix prefix", part)
                if configure and installs:
                    part += " -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON"
                if not self.sh(f"{where}:{number}", part, cwd):
                    return

    def run(self):
        n = 0
        for path in [os.path.join(self.args.root, "README.md")] + sorted(
                glob.glob(os.path.join(self.args.root, "docs", "**", "*.md"), recursive=True)):
            rel = os.path.relpath(path, self.args.root)
            for block in sh_blocks(path):
                lines = [(number, c) for number, c in block if INSTALL.search(c)]
                if not lines:
                    continue
                n += 1
                where = f"{rel}:{lines[0][0]}"
                if any("pip install" in c or "-m venv" in c for _, c in lines):
                    self.python_block(where, lines, n)
                elif any(c.startswith("cmake") for _, c in lines):
                    self.cmake_block(rel, [l for l in lines if l[1].startswith("cmake")], n)
                for number, command in lines:
                    if "install_deps.sh" in command:
                        self.sh(f"{rel}:{number}", command, self.args.root)
        return n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("work")
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--other-python")
    parser.add_argument("--wheels")
    args = parser.parse_args()
    if bool(args.other_python) != bool(args.wheels):
        parser.error("--other-python and --wheels go together")
    args.root, args.work = os.path.abspath(args.root), os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    runner = Runner(args)
    blocks = runner.run()
    for s in runner.skipped:
        print(f"skipped {s}")
    for f in runner.failures:
        print(f"FAIL {f}")
    print(f"{blocks} blocks with install lines, {runner.ran} commands run, "
          f"{len(runner.failures)} failed")
    if runner.failures or runner.ran == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
