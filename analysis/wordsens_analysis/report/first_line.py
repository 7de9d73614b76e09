"""The report's first line: the verdicts' headline (verdicts.headline), preceded by what is wrong
with the input when something is.

A partial file (a run still going or killed) or one the reader had to repair holds fewer records
than its study planned, so its verdicts are not yet the study's: the first thing a reader sees
says so, in report.md, report.html and the printout alike.
"""
from __future__ import annotations

import os

from ..claims import verdicts
from ..reading import NOT_REPAIRS


def repairs(res) -> list:
    """The reader's notes on one file that say it repaired it (rows cut, dropped or repeated,
    witnesses skipped); an older format's missing checksums or a witness budget are not."""
    return [n for n in res.notes if not any(m in n for m in NOT_REPAIRS)]


def _file_state(res) -> list:
    """What is wrong with one file's input, as short phrases (none when it is whole)."""
    out = []
    if not res.complete:
        out.append(f"{res.done} / {res.planned} tasks done")
    fixed = len(repairs(res))
    if fixed:
        out.append(f"{fixed} repair{'s' if fixed != 1 else ''} by the reader, in the notes")
    return out


def input_state(results: list) -> str:
    """'PARTIAL input (a.h5: 9 / 32 tasks done, 1 repair by the reader, in the notes)',
    'DAMAGED input (b.h5: 2 repairs by the reader, in the notes)', or '' when every file is
    complete and read as written."""
    parts, partial = [], False
    for res in results:
        state = _file_state(res)
        if state:
            parts.append(f"{os.path.basename(res.path)}: {', '.join(state)}")
            partial = partial or not res.complete
    if not parts:
        return ""
    what = "PARTIAL input" if partial else "DAMAGED input"
    return f"{what} ({'; '.join(parts)})"


def first_line(table, results: list) -> str:
    """The headline, after the input's state when the input is not whole."""
    state = input_state(results)
    head = verdicts.headline(table)
    return f"{state} — {head}" if state else head
