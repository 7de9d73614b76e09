#!/usr/bin/python3
"""Standard streams and odd inputs of the `wordsens` commands.

- What a command prints on stdout is its result: stdout on a full device (/dev/full) or closed
  (`>&-`) is an error (exit 1, one line on stderr), for every command that prints. It used to
  exit 0 having written nothing.
- A closed stdout or stderr never lends its descriptor to a file: a run with both closed
  finishes and its results file stays consistent.
- A configuration that is not a regular file (a device, a FIFO, a directory, /proc/self/mem) or
  is larger than 1 MiB is refused at once: exit 2, one line. /dev/zero and a FIFO used to be
  read forever, /proc/self/mem gave exit 1 with a C++ library message.
- A value echoed in an error (a shard, an output name, a configuration line) never reaches the
  terminal raw: a newline or control byte is escaped (one line), a DEL byte or a byte-order mark
  is named, and a byte-order mark at the start of a file is accepted.

usage: streams_test.py WORDSENS_BINARY CASE
"""
import os
import shutil
import subprocess

import cli_common  # beside this script

check = cli_common.check
EXIT_USAGE = cli_common.EXIT_USAGE
EXIT_FAILURE = 1
BOUND = 20  # seconds any command may take here; a hang is a failure

TINY_INI = "experiments = ws\nmodels = rf\nn = 4\nd = 3\nk = 1.0D\ntrials = 2\nseed = 5\n" \
           "max-evals = 50\n"


def run_shell(script, *args, env=None):
    """`bash -c script` with $1… = args (so that the script can close descriptors)."""
    try:
        return subprocess.run(["bash", "-c", script, "bash", *args], capture_output=True,
                              timeout=BOUND, env=env)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"hung: {script} {args}") from None


def stderr_lines(p):
    return p.stderr.decode("utf-8", "replace").strip().splitlines()


def one_error_line(p, code, *parts):
    """Exit `code` and stderr exactly one line holding every part; returns it."""
    lines = stderr_lines(p)
    check(p.returncode == code, f"exit {p.returncode}, expected {code}: {lines}")
    check(len(lines) == 1, f"expected one line on stderr, got {lines}")
    for part in parts:
        check(part in lines[0], f"'{part}' not in {lines[0]!r}")
    return lines[0]


class Scratch:
    """A temporary directory holding a tiny configuration and, on demand, its results file."""

    def __init__(self, binary):
        self.binary = binary
        self.dir = cli_common.scratch_dir("wordsens_streams_")
        self.ini = self.path("tiny.ini")
        with open(self.ini, "w", encoding="utf-8") as f:
            f.write(TINY_INI)

    def path(self, name):
        return os.path.join(self.dir, name)

    def results(self):
        out = self.path("tiny.h5")
        if not os.path.exists(out):
            p = subprocess.run([self.binary, "run", self.ini, "--output", out, "--progress", "60"],
                               capture_output=True, text=True, timeout=100)
            check(p.returncode == 0, f"the tiny run failed: {p.stderr}")
        return out


def printing_commands(scratch):
    """Every command that prints its result on stdout (name, argv after the binary)."""
    results = scratch.results()
    return [
        ("info", ["info", results]),
        ("info --check", ["info", "--check", results]),
        ("info --config", ["info", "--config", results]),
        ("info --columns", ["info", "--columns", "/ws"]),
        ("info --help", ["info", "--help"]),
        ("ws csv", ["ws", "--model", "rf", "--n", "4", "--d", "3", "--k", "1.0D", "--trials", "2",
                    "--max-evals", "50", "--format", "csv"]),
        ("gen", ["gen", "--model", "rf", "--n", "4", "--d", "3", "--k", "1.0D", "--N", "3",
                 "--training", "finetune", "--objective", "loss", "--trials", "1",
                 "--max-evals", "50"]),
        ("version", ["version"]),
        ("--version", ["--version"]),
        ("help", ["--help"]),
        ("run --dry-run", ["run", scratch.ini, "--dry-run"]),
        ("run --help", ["run", "--help"]),
        ("merge", ["merge", results, "-o", scratch.path("merged.h5"), "--overwrite"]),
    ]


def case_stdout_full(binary):
    scratch = Scratch(binary)
    for name, args in printing_commands(scratch):
        p = run_shell('"$@" > /dev/full', binary, *args)
        one_error_line(p, EXIT_FAILURE, "cannot write standard output", "No space left")
        check(f"wordsens {args[0]}" in stderr_lines(p)[0], f"{name}: {stderr_lines(p)}")


def case_stdout_closed(binary):
    scratch = Scratch(binary)
    for name, args in printing_commands(scratch):
        p = run_shell('"$@" >&-', binary, *args)
        line = one_error_line(p, EXIT_FAILURE, "cannot write standard output: it is closed")
        check(f"wordsens {args[0]}" in line, f"{name}: {line}")
    # Where stderr is closed too, the exit code alone says it.
    p = run_shell('"$@" >&- 2>&-', binary, "info", scratch.results())
    check(p.returncode == EXIT_FAILURE, f"info with both closed: exit {p.returncode}")


def case_closed_streams_keep_files_apart(binary):
    """A run with stdout and stderr closed: its results file is opened on a descriptor of its
    own, never 1 or 2 (where progress lines would be written into it). Exit 0, a consistent
    file with every task, and `info` agrees."""
    scratch = Scratch(binary)
    out = scratch.path("closed.h5")
    p = run_shell('"$@" >&- 2>&-', binary, "run", scratch.ini, "--output", out,
                  "--progress", "0.001")
    check(p.returncode == 0, f"run with closed streams: exit {p.returncode}")
    p = subprocess.run([binary, "info", "--check", out], capture_output=True, text=True,
                       timeout=BOUND)
    check(p.returncode == 0 and "consistent" in p.stdout, f"{p.stdout}\n{p.stderr}")
    p = subprocess.run([binary, "info", out], capture_output=True, text=True, timeout=BOUND)
    check(p.returncode == 0 and "tasks done:    2/2" in p.stdout, f"{p.stdout}\n{p.stderr}")


def case_config_not_a_file(binary):
    scratch = Scratch(binary)
    fifo = scratch.path("config.fifo")
    os.mkfifo(fifo)
    big = scratch.path("big.ini")
    with open(big, "w", encoding="utf-8") as f:
        f.write("# " + "x" * 100 + "\n")
        f.write(("#" * 1023 + "\n") * 1100)  # 1.1 MiB of comments
    directory = scratch.path("configs")
    os.mkdir(directory)
    cases = [
        ("/dev/zero", "is not a regular file (a character device)"),
        ("/dev/urandom", "is not a regular file (a character device)"),
        (fifo, "is not a regular file (a FIFO)"),
        (directory, "is a directory"),
        ("/proc/self/mem", "cannot read configuration file '/proc/self/mem'"),
        (big, "is larger than 1 MiB"),
    ]
    for path, words in cases:
        p = run_shell('"$@"', binary, "run", path, "--output", scratch.path("o.h5"))
        one_error_line(p, EXIT_USAGE, words, path)
        check(not os.path.exists(scratch.path("o.h5")), f"{path}: an output was created")


def case_echoed_values_stay_one_line(binary):
    scratch = Scratch(binary)
    # A newline in a shard value or an output name: one line, the newline shown as \n.
    p = run_shell('"$@"', binary, "run", scratch.ini, "--shard", "1/3\n", "--dry-run")
    one_error_line(p, EXIT_USAGE, "1/3\\n")
    p = run_shell('"$@"', binary, "run", scratch.ini, "--output", "no_such_dir/a\nb.h5")
    one_error_line(p, EXIT_USAGE, "no_such_dir/a\\nb.h5")
    # An escape sequence on the command line: shown as \x1b, never sent to the terminal.
    p = run_shell('"$@"', binary, "run", scratch.ini, "--models", "rf\x1b[31m", "--dry-run")
    line = one_error_line(p, EXIT_USAGE, "rf\\x1b[31m")
    check("\x1b" not in line, f"raw escape byte in {line!r}")
    # A zero-width space in a key of the file: escaped.
    zero_width = scratch.path("zero_width.ini")
    with open(zero_width, "w", encoding="utf-8") as f:
        f.write(TINY_INI + "\u200bseed = 3\n")
    p = run_shell('"$@"', binary, "run", zero_width, "--dry-run")
    line = one_error_line(p, EXIT_USAGE, "\\u200bseed")
    check("\u200b" not in line, f"raw zero-width space in {line!r}")


def case_config_unprintable_bytes(binary):
    scratch = Scratch(binary)
    # A byte-order mark at the start (some editors write one) is accepted.
    bom = scratch.path("bom.ini")
    with open(bom, "w", encoding="utf-8-sig") as f:
        f.write(TINY_INI)
    p = run_shell('"$@"', binary, "run", bom, "--dry-run")
    check(p.returncode == 0, f"a leading byte-order mark: exit {p.returncode}: {stderr_lines(p)}")
    check(b"total: 2 tasks" in p.stdout, f"{p.stdout!r}")
    # Anywhere else it is named, with its line.
    inner = scratch.path("inner_bom.ini")
    with open(inner, "w", encoding="utf-8") as f:
        f.write(TINY_INI + "\ufeffseed = 3\n")
    p = run_shell('"$@"', binary, "run", inner, "--dry-run")
    one_error_line(p, EXIT_USAGE, "byte-order mark (U+FEFF) on line 9")
    check(b"\xef\xbb\xbf" not in p.stderr, f"raw byte-order mark in {p.stderr!r}")
    # A DEL byte is named, never echoed.
    delete = scratch.path("del.ini")
    with open(delete, "wb") as f:
        f.write(TINY_INI.encode() + b"seed = 3\x7f\n")
    p = run_shell('"$@"', binary, "run", delete, "--dry-run")
    one_error_line(p, EXIT_USAGE, "byte 0x7f (DEL) on line 9")
    check(b"\x7f" not in p.stderr, f"raw DEL byte in {p.stderr!r}")


def case_info_prints_file_text_escaped(binary):
    """Text a results file holds reaches the terminal escaped: a file name with a terminal escape
    (the command line the file records), a crafted `build` attribute, a crafted model name that
    `info --check` quotes. `info` wrote the ESC and BEL bytes of the command line raw (the screen
    was cleared, the title set)."""
    scratch = Scratch(binary)
    name = scratch.path("\x1b]0;pwned\x07\x1b[2Jx.h5")
    p = subprocess.run([binary, "run", scratch.ini, "--output", name, "--progress", "60"],
                       capture_output=True, timeout=100)
    check(p.returncode == 0, f"run: {p.stderr!r}")
    check(b"\x1b" not in p.stdout + p.stderr, f"run echoed an escape byte: {p.stderr!r}")
    crafted = scratch.path("crafted.h5")
    shutil.copyfile(name, crafted)
    edit = ("import h5py, numpy as np, sys\n"
            "with h5py.File(sys.argv[1], 'r+') as f:\n"
            "    f.attrs['build'] = np.bytes_(b'x86-64 \\x1b[31mred\\x07')\n"
            "    f['models/model'][0] = b'\\x1b[2Jrf'\n")
    p = subprocess.run(["/usr/bin/python3", "-c", edit, crafted], capture_output=True, text=True,
                       timeout=BOUND)
    if p.returncode != 0:
        print(f"h5py is missing: the crafted attribute is not tried ({p.stderr.strip()})")
        crafted = None
    for args in (["info", name], ["info", "--config", name], ["info", "--check", name],
                 *((["info", crafted], ["info", "--check", crafted]) if crafted else ())):
        p = subprocess.run([binary, *args], capture_output=True, timeout=BOUND)
        out = p.stdout + p.stderr
        check(b"\x1b" not in out and b"\x07" not in out, f"{args[:2]}: raw bytes in {out!r}")
        check(b"\\x1b" in out, f"{args[:2]}: the escape is not shown as \\x1b: {out!r}")
    if crafted:
        p = subprocess.run([binary, "info", "--check", crafted], capture_output=True, timeout=BOUND)
        check(p.returncode == 1 and b"/models lists \\x1b[2Jrf" in p.stdout, f"{p.stdout!r}")


if __name__ == "__main__":
    cli_common.run_case(globals())
