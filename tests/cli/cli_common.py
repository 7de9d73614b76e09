"""What the CLI test scripts share: running one `wordsens` command and reading its csv output."""
import csv
import io
import subprocess

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
