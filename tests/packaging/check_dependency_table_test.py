#!/usr/bin/env python3
"""The dependency-table check passes the repository and fails on each way the table can go stale.

Copies the table and the build files into a scratch tree, changes one minimum at a time (in the
build or in the table), and runs the check on it.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CHECKER = os.path.join(HERE, "check_dependency_table.py")
FILES = ["docs/INSTALL.md", "CMakeLists.txt", "CMakePresets.json", "analysis/pyproject.toml"] + [
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "cmake", "*.cmake"))]


def replace(path, old, new):
    def edit(root):
        p = os.path.join(root, path)
        text = open(p, encoding="utf-8").read()
        assert old in text, f"{path} lacks {old!r}"
        open(p, "w", encoding="utf-8").write(text.replace(old, new, 1))
    return edit


BAD = {
    "Eigen raised in cmake/": replace("cmake/Dependencies.cmake", "Eigen3 3.4", "Eigen3 3.5"),
    "HDF5 minimum dropped from cmake/": replace("cmake/Dependencies.cmake", "HDF5 1.10.1 ", "HDF5 "),
    "CMake raised": replace("CMakeLists.txt", "VERSION 3.25)", "VERSION 3.27)"),
    "presets' CMake differs": replace("CMakePresets.json", '"minor": 25', '"minor": 26'),
    "a new find_package": replace("cmake/Dependencies.cmake", "find_package(ZLIB",
                                  "find_package(CURL 7.0 REQUIRED)\nfind_package(ZLIB"),
    "Boost lowered in the table": replace("docs/INSTALL.md", "| 1.74 |", "| 1.70 |"),
    "a row the build does not check": replace("docs/INSTALL.md", "| — | — | 1.14.0 |",
                                              "| 1.9 | `find_package(Random123)` | 1.14.0 |"),
    "numpy raised in pyproject": replace("analysis/pyproject.toml", "numpy>=1.24", "numpy>=1.26"),
    "a new pip dependency": replace("analysis/pyproject.toml", '"numpy>=1.24",',
                                    '"numpy>=1.24", "tqdm",'),
    "Python raised": replace("analysis/pyproject.toml", '">=3.9"', '">=3.10"'),
    "setuptools raised": replace("analysis/pyproject.toml", "setuptools>=61", "setuptools>=64"),
}


def run(edit):
    with tempfile.TemporaryDirectory() as root:
        for path in FILES:
            os.makedirs(os.path.dirname(os.path.join(root, path)) or root, exist_ok=True)
            shutil.copy(os.path.join(ROOT, path), os.path.join(root, path))
        edit(root)
        done = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


def main():
    failures = []
    code, out = run(lambda root: None)
    if code != 0:
        failures.append(f"the repository's files flagged (exit {code}):\n{out}")
    for name, edit in BAD.items():
        code, out = run(edit)
        if code != 1:
            failures.append(f"{name} not caught (exit {code}):\n{out}")
    for f in failures:
        print(f)
    if failures:
        sys.exit(1)
    print(f"dependency table check: passes the repository, catches {len(BAD)} stale minimums")


if __name__ == "__main__":
    main()
