#!/usr/bin/python3
"""One declaration per option across `wordsens run`, `ws` and `gen`.

ws and gen take a subset of run's keys, declared once: each option of theirs (besides --help,
--model and --format) must be a key of run with run's default, except the keys they require
(run's default is a grid or a list there, where they take one value), which show none. And
every command refuses a prefix of an option, as run does.

usage: options_test.py WORDSENS_BINARY
"""
import re
import sys

import cli_common  # beside this script

OWN = {"help", "model", "format"}  # the one-point commands' own options
REQUIRED = {"ws": {"n", "d"}, "gen": {"n", "d", "N", "training", "objective"}}


def options_of(binary, command):
    p = cli_common.run(binary, command, "--help")
    cli_common.check(p.returncode == 0, f"{command} --help: exit {p.returncode}")
    found = {}
    for m in re.finditer(r"^\s+(?:-\w \[ )?--([\w-]+)(?: \])?(?: arg)?(?: \(=([^)]*)\))?", p.stdout,
                         re.M):
        found[m.group(1)] = m.group(2)
    cli_common.check(len(found) > 5, f"{command} --help: no options found")
    return found


# A prefix of one of each command's options, with arguments that are otherwise valid: every
# command refuses it (no guessing: `--N` and `--n` differ, and a typo is an error).
PREFIXES = {
    "run": ["--dry", "--models=raf", "--n=4", "--d=3", "--trials=1"],
    "ws": ["--mod", "raf", "--n", "4", "--d", "3", "--trials", "1"],
    "gen": ["--model", "raf", "--n", "4", "--d", "3", "--N", "2", "--train", "finetune",
            "--objective", "loss", "--trials", "1"],
    "info": ["--col", "/ws"],
    "merge": ["--allow", "a.h5", "b.h5", "-o", "c.h5"],
}


def prefix_problems(binary):
    problems = []
    for command, args in PREFIXES.items():
        p = cli_common.run(binary, command, *args)
        lines = p.stderr.splitlines()
        if not (p.returncode == cli_common.EXIT_USAGE and len(lines) == 1 and
                "unknown option" in lines[0] and p.stdout == ""):
            problems.append(f"{command} {' '.join(args)}: exit {p.returncode}, {p.stderr!r}")
    return problems


def main():
    binary = sys.argv[1]
    run = options_of(binary, "run")
    problems = prefix_problems(binary)
    for command in ("ws", "gen"):
        table = options_of(binary, command)
        for name in sorted(set(table) - OWN):
            if name not in run:
                problems.append(f"--{name} of {command} is not a key of run")
            elif name in REQUIRED[command]:
                if table[name] is not None:
                    problems.append(f"--{name}: required by {command}, shown with a default")
            elif table[name] != run[name]:
                problems.append(f"--{name}: default {table[name]!r} in {command}, {run[name]!r} "
                                "in run")
        for name in REQUIRED[command] - set(table):
            problems.append(f"--{name}: not an option of {command}")
    for p in problems:
        print("error:", p, file=sys.stderr)
    cli_common.check(not problems, f"{len(problems)} options differ")
    print(f"options: {len(run)} in run; ws and gen take run's keys with run's defaults; no "
          "command takes a prefix of an option")


if __name__ == "__main__":
    main()
