"""What the CLI test scripts share: running one `wordsens` command and reading its csv output;
scratch directories and the `SCRIPT WORDSENS CASE` entry point of the scripts made of cases."""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

EXIT_USAGE = 2


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def run(binary, command, *args):
    return subprocess.run([binary, command, *args], capture_output=True, text=True, timeout=100)


def csv_rows(binary, command, header, *args):
    """Runs `wordsens COMMAND ARGS --format csv`, checks exit 0 and the header, returns the rows."""
    p = run(binary, command, *args, "--format", "csv")
    check(p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    check(lines and lines[0] == header, f"bad csv header: {lines[:1]}")
    return list(csv.DictReader(io.StringIO(p.stdout)))


SCRATCH_DIRS = []


def scratch_dir(prefix: str) -> str:
    """A temporary directory, removed when run_case ends."""
    directory = tempfile.mkdtemp(prefix=prefix)
    SCRATCH_DIRS.append(directory)
    return directory


def run_case(namespace: dict) -> None:
    """`SCRIPT WORDSENS CASE`: runs case_CASE(WORDSENS) of `namespace` (the script's globals()),
    removes the scratch directories, prints `CASE: ok`."""
    binary, case = sys.argv[1], sys.argv[2]
    try:
        namespace["case_" + case](os.path.abspath(binary))
    finally:
        for directory in SCRATCH_DIRS:
            shutil.rmtree(directory, ignore_errors=True)
    print(f"{case}: ok")
