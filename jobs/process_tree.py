#!/usr/bin/env python3
"""Ends every process a pipeline started: its descendants, whatever process group they are in.

    process_tree.py end PID [--grace SECONDS]

The reproduce-the-paper driver (jobs/reproduce/processes.py) calls end() when a TERM, INT or HUP
reaches it: TERM to every descendant of PID at once (mpirun and its ranks, a report, a build or a
download), then KILL to those still alive after GRACE seconds (default 10; `wordsens run` flushes
and exits within a second or two of a TERM, so its file stays resumable). A TERM to the script
alone used to end only the shell and leave mpirun, its ranks or the report writing with no owner.

The tree is read from /proc before any signal, and every process of that first reading is
followed by (pid, start time) even once its parent is gone (an orphan is adopted by init and
leaves the tree); the KILL also reaches processes started meanwhile. Linux only (/proc).
Prints one line per process that outlived the KILL; exit 0 when none did, else 1.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time


def _stat(pid: int):
    """(parent pid, start time, state) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields follow the last ')'.
    rest = data[data.rindex(b")") + 2:].split()
    return int(rest[1]), int(rest[19]), rest[0].decode()


def children() -> dict:
    """parent pid -> [(pid, start time)] of every live process."""
    out: dict = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None:
                out.setdefault(st[0], []).append((int(entry), st[1]))
    return out


def descendants(roots, kids: dict) -> set:
    """Every (pid, start time) below the pids `roots`."""
    found, todo = set(), list(roots)
    while todo:
        for child in kids.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child[0])
    return found


def alive(proc) -> bool:
    st = _stat(proc[0])
    return st is not None and st[1] == proc[1] and st[2] != "Z"  # a zombie has ended


def signal_all(procs, sig) -> None:
    for pid, _ in procs:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def end(root: int, grace: float, poll: float = 0.05) -> list:
    """TERM, then KILL after `grace` seconds, to every descendant of `root` but this process;
    returns those still alive after the KILL."""
    me = os.getpid()
    procs = {p for p in descendants([root], children()) if p[0] != me}
    signal_all(procs, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(alive(p) for p in procs) and time.monotonic() < deadline:
        time.sleep(poll)
    left = {p for p in procs if alive(p)}
    # Started meanwhile, below the root or below a process of the first reading.
    left |= {p for p in descendants([root, *(q[0] for q in left)], children())
             if p[0] != me and alive(p)}
    signal_all(left, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while any(alive(p) for p in left) and time.monotonic() < deadline:
        time.sleep(poll)
    return sorted(p for p in left if alive(p))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["end"])
    ap.add_argument("pid", type=int)
    ap.add_argument("--grace", type=float, default=10.0,
                    help="seconds between the TERM and the KILL (default 10)")
    a = ap.parse_args(argv)
    survivors = end(a.pid, a.grace)
    for pid, _ in survivors:
        print(f"process_tree: pid {pid} outlived KILL", file=sys.stderr)
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
