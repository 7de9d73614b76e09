#!/usr/bin/env python3
"""Prints, last, which checks inside each failed ctest entry failed.

ctest's own summary names only the entry (`python_reports`), and its output scrolls away above
it: a CI log cut to its tail then says that something failed but not what. This reads ctest's
LastTest.log and prints, for every entry that did not pass, the lines that name a failing check:
pytest's `FAILED`/`ERROR` summary lines, GoogleTest's `[  FAILED  ]` lines, and, when an entry
printed neither (a script, a crash, a timeout), the last lines of its output.

Usage: failure_summary.py BUILD_DIR   (exit 0; prints nothing when every entry passed)
"""
import os
import re
import sys

CHECK_LINE = re.compile(r"^(FAILED |ERROR |\[  FAILED  \] |E +\w*Error)")
TAIL_LINES = 8
MAX_LINES = 12  # per entry, so one broken fixture does not bury the others


def entries(log_text: str):
    """(name, output lines, passed) for every entry in a LastTest.log."""
    blocks = re.split(r"^\d+/\d+ Testing: ", log_text, flags=re.M)[1:]
    for block in blocks:
        name = block.split("\n", 1)[0].strip()
        output = block.split("Output:\n", 1)[-1]
        output = output.split("<end of output>", 1)[0]
        lines = [line for line in output.splitlines() if not line.startswith("-" * 20)]
        yield name, lines, "\nTest Passed." in block


def summary(log_text: str) -> list:
    out = []
    for name, lines, passed in entries(log_text):
        if passed:
            continue
        checks = [line for line in lines if CHECK_LINE.match(line)]
        shown = checks[:MAX_LINES] if checks else lines[-TAIL_LINES:]
        out.append(f"{name}:")
        out += [f"  {line}" for line in shown]
        if len(checks) > MAX_LINES:
            out.append(f"  … and {len(checks) - MAX_LINES} more")
    return out


def main(argv: list) -> int:
    if len(argv) != 2:
        print("usage: failure_summary.py BUILD_DIR", file=sys.stderr)
        return 2
    path = os.path.join(argv[1], "Testing", "Temporary", "LastTest.log")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = summary(f.read())
    except OSError as e:
        print(f"failure_summary: cannot read ctest's log: {e}", file=sys.stderr)
        return 0
    if lines:
        print("What failed inside the failed entries (from ctest's LastTest.log):")
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
