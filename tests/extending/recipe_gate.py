#!/usr/bin/env python3
"""Runs add_a_model.py only when the recipe it checks may have changed.

The add-a-model test builds the whole project in a copy (about 5 minutes of CI on 2 cores) to
check one fact: docs/EXTENDING.md's recipe still adds a model in at most 5 files. That fact
changes when the recipe's files change: the recipe itself, the test and its model, the files the
recipe edits, the model contract a model implements, and the tests it adds a case to (RECIPE
below). Their SHA-256, over the files' names and bytes, is recorded in recipe.sha256 once the
test has passed on them; while they hash to it, the test is skipped (exit 77, ctest's SKIP) and
says so. A change anywhere else that breaks the recipe is caught by the full run: set
WORDSENS_FULL_TESTS=1 (a weekly or manual job), which runs it whatever the hash.

    recipe_gate.py SOURCE_DIR WORK_DIR     skip, or run add_a_model.py SOURCE_DIR WORK_DIR
    recipe_gate.py SOURCE_DIR --hash       print the recipe files' hash
    recipe_gate.py SOURCE_DIR --record     write it to recipe.sha256 (after the test passed)
    recipe_gate.py SOURCE_DIR --files      list the files hashed
"""
from __future__ import annotations

import glob
import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STAMP = os.path.join(HERE, "recipe.sha256")
SKIP = 77

# Paths and globs (relative to the source dir) whose content the recipe's outcome depends on.
RECIPE = (
    "docs/EXTENDING.md",
    "tests/extending/add_a_model.py",
    "tests/extending/CMakeLists.txt",
    "tests/extending/bow/*",
    # What the recipe edits.
    "src/models/shared/model_kind.hpp",
    "src/models/registry.cpp",
    "analysis/wordsens_analysis/twins/model_pieces.py",
    "tests/unit/models/model_cases.hpp",
    "tests/unit/estimators/word_sensitivity_models_test.cpp",
    "tests/layering/model_families.py",
    "tests/layering/model_name_lookups.py",
    # The contract a model implements, and the checks run on it.
    "src/models/shared/*.hpp",
    "src/models/shared/model_kind.cpp",
    "tests/unit/models/gradient_test.cpp",
    "tests/unit/models/evaluator_test.cpp",
    "tests/unit/models/determinism_test.cpp",
    "tests/unit/models/weights_test.cpp",
    "tests/unit/models/batched_objective_test.cpp",
    "tests/unit/models/word_set_test.cpp",
)


def recipe_files(source: str) -> list:
    files = set()
    for pattern in RECIPE:
        matches = glob.glob(os.path.join(source, pattern))
        if not matches and not any(c in pattern for c in "*?["):
            sys.exit(f"recipe_gate: {pattern} is gone: update RECIPE in {__file__}")
        files.update(os.path.relpath(m, source) for m in matches if os.path.isfile(m))
    return sorted(files)


def recipe_hash(source: str) -> str:
    digest = hashlib.sha256()
    for rel in recipe_files(source):
        with open(os.path.join(source, rel), "rb") as f:
            data = f.read()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def recorded() -> str:
    try:
        with open(STAMP, encoding="utf-8") as f:
            return f.read().split()[0]
    except (OSError, IndexError):
        return ""


def main(argv) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source = os.path.abspath(argv[1])
    if argv[2] == "--files":
        print("\n".join(recipe_files(source)))
        return 0
    now = recipe_hash(source)
    if argv[2] == "--hash":
        print(now)
        return 0
    if argv[2] == "--record":
        with open(STAMP, "w", encoding="utf-8") as f:
            f.write(f"{now}  the recipe's files when add_a_model.py last passed on them\n")
        print(f"recipe_gate: recorded {now}")
        return 0
    full = os.environ.get("WORDSENS_FULL_TESTS") == "1"
    if now == recorded() and not full:
        print(f"recipe_gate: the recipe's {len(recipe_files(source))} files are as when the test "
              f"last passed (sha256 {now[:12]}): skipped; WORDSENS_FULL_TESTS=1 runs it")
        return SKIP
    why = "WORDSENS_FULL_TESTS=1" if full else "the recipe's files changed since it last passed"
    print(f"recipe_gate: {why}: running add_a_model.py", flush=True)
    code = subprocess.call([sys.executable, os.path.join(HERE, "add_a_model.py"), *argv[1:]])
    if code == 0 and now != recorded():
        print(f"recipe_gate: the recipe holds for these files; record them with\n"
              f"  python3 tests/extending/recipe_gate.py . --record")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
