#!/usr/bin/python3
"""One spelling and one default per option across `wordsens run`, `ws` and `gen`.

The options the three commands share must have the same name (a config key of `run` is its long
option name) and the same default, read from each command's --help.

usage: options_test.py WORDSENS_BINARY
"""
import re
import sys

import cli_common  # beside this script

# Options whose meaning differs by design: `run` takes grids and lists where `ws`/`gen` take one
# value (n, d, k, words, model vs models, N), and --help/-h prints help.
DIFFERENT_SHAPE = {"help", "n", "d", "k", "N", "layers", "words", "training", "objective"}


def options_of(binary, command):
    p = cli_common.run(binary, command, "--help")
    cli_common.check(p.returncode == 0, f"{command} --help: exit {p.returncode}")
    found = {}
    for m in re.finditer(r"^\s+(?:-\w \[ )?--([\w-]+)(?: \])?(?: arg)?(?: \(=([^)]*)\))?", p.stdout,
                         re.M):
        found[m.group(1)] = m.group(2)
    cli_common.check(len(found) > 5, f"{command} --help: no options found")
    return found


def main():
    binary = sys.argv[1]
    run, ws, gen = (options_of(binary, c) for c in ("run", "ws", "gen"))
    problems = []
    for name in sorted((set(ws) | set(gen)) - DIFFERENT_SHAPE - {"model", "format"}):
        if name not in run:
            problems.append(f"--{name} of ws/gen is not a key of run")
            continue
        for command, table in (("ws", ws), ("gen", gen)):
            if name in table and table[name] != run[name]:
                problems.append(f"--{name}: default {table[name]!r} in {command}, {run[name]!r} "
                                "in run")
    # The depth and the changed words: run takes a grid, but its default must be the single
    # value of ws (and gen).
    for name, commands in (("layers", (("ws", ws), ("gen", gen))), ("words", (("ws", ws),))):
        for command, table in commands:
            if table.get(name) != run.get(name):
                problems.append(f"--{name}: default {table.get(name)!r} in {command}, "
                                f"{run.get(name)!r} in run")
    for p in problems:
        print("error:", p, file=sys.stderr)
    cli_common.check(not problems, f"{len(problems)} options differ")
    print(f"options: {len(run)} in run, {len(ws)} in ws, {len(gen)} in gen; shared ones agree")


if __name__ == "__main__":
    main()
