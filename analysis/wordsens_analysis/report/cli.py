"""`wordsens-report results.h5 [more.h5 …] -o report/`: tables, figures, one verdict per claim.

Writes report.md, report.html (self-contained: figures embedded), verdicts.csv, the summary
tables as CSV and the figures as PNG and PDF (writer.py); prints the headline and the
primary verdicts. The first line of the report and of the printout answers at a glance: how many
primary claims are confirmed, contradicted, inconclusive (of the claims whose models the files
hold; the others are named once), whether every integrity check passes, and first of all
whether an input file is partial or was repaired (first_line.py). One file or several (of one
study or of different ones, e.g. every experiment of the paper) go through the same pipeline
(reading/studies.py groups the files into studies). The output
directory is replaced whole, by one report at a time (output_dir.py). Exit codes follow the
suite's (0 ok, 1 damaged input or a failed write, 2 bad input file or command line, an output
directory that is not a report's or that another report is writing).
"""
from __future__ import annotations

import argparse
import os
import sys
import unicodedata
import warnings

import pandas as pd

from .. import rules
from ..claims import verdicts
from ..reading import (DamagedFileError, ResultsFileError, build_studies, catalogue_of,
                       read_results)
from . import output_dir
from .first_line import first_line
from .writer import fmt, rules_line

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def printable(line: str) -> str:
    """A line as the terminal should get it: names from the command line and the files (a file
    name with an escape sequence, a newline, a right-to-left mark) shown escaped, `\\x1b`, `\\n`,
    `\\u202e`, as the binary shows them; tabs stay (--next-batch's columns)."""
    out = []
    for ch in line:
        if ch == "\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp"):
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        else:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
    return "".join(out)


def error(message) -> None:
    print(f"wordsens-report: error: {printable(str(message))}", file=sys.stderr)


def verdict_text(table: pd.DataFrame, first: str | None = None) -> str:
    """The first line (`first`, first_line.py; the headline by default), then integrity failures
    and the primary rows of the claims the report judges (the first line names the others; the
    rest is in the report); the study is named when the report has several."""
    several = table[verdicts.STUDY].replace("", pd.NA).nunique() > 1
    integ_fail = table[(table["kind"] == rules.INTEGRITY) & (table["verdict"] == rules.FAIL)]
    prim = table[(table["kind"] == rules.PRIMARY) & ~verdicts.not_in_study(table)]
    lines = [first or verdicts.headline(table), rules_line()]
    where = (lambda r: f"@{r.study}" if r.study else "") if several else (lambda r: "")
    for r in integ_fail.itertuples():
        lines.append(f"  FAIL  {r.claim}{where(r)}: {r.statistic} = {fmt(r.estimate)} — "
                     f"{r.reason}")
    cols = ["claim", "theorem", "verdict", "estimate", "ci_low", "ci_high", "p_confirm_holm"]
    t = prim[([verdicts.STUDY] if several else []) + cols].copy()
    for c in ("estimate", "ci_low", "ci_high", "p_confirm_holm"):
        t[c] = t[c].map(fmt)
    lines.append(t.to_string(index=False))
    for r in prim.itertuples():
        if r.reason and r.verdict != rules.CONFIRMED:
            lines.append(f"  {r.claim}{where(r)}: {r.reason}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="wordsens-report",
        description="Figures, tables and one verdict per claim of the paper from wordsens "
                    "results files (rules: docs/VERDICT_RULES.md). Several files, also of "
                    "different studies, give one report.")
    p.add_argument("results", nargs="+",
                   help="HDF5 results files written by `wordsens run` or `merge`")
    p.add_argument("-o", "--output", default="report", help="output directory (default: report)")
    p.add_argument("--next-batch", action="store_true",
                   help="write no report: print the trials the next look adds (one line per "
                        "study to extend: study, first trial, trials, max-trials, select, the "
                        "open claims; tab-separated), nothing when every claim is decided or "
                        "at its study's max-trials (docs/VERDICT_RULES.md, 'Trials until "
                        "decided'); on stderr, the command that runs each, or why nothing is "
                        "added")
    args = p.parse_args(argv)
    real = [os.path.realpath(r) for r in args.results]
    if len(set(real)) != len(real):
        twice = sorted({r for r in args.results if real.count(os.path.realpath(r)) > 1})
        error(f"the same file given twice: {', '.join(twice)}")
        return EXIT_USAGE
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the reader's repairs are listed in the report
            results, models = [], None
            for path in args.results:
                results.append(read_results(path))
                # A file that gives a model of an earlier file another kind is refused as it is
                # read, before the files after it.
                models = catalogue_of(results[-1:], models)
    except ResultsFileError as err:
        error(err)
        # As wordsens info: a damaged file is a failure (1), a missing or foreign one bad input (2).
        return EXIT_FAILURE if isinstance(err, DamagedFileError) else EXIT_USAGE
    if args.next_batch:
        extensions, said = next_batch(results)
        # For people, on stderr: stdout stays the lines a script reads (reproduce_paper.sh).
        for line in said or ["nothing to add: no claim with data in these files is open"]:
            print(f"wordsens-report: {printable(line)}", file=sys.stderr)
        return print_result([e.line() for e in extensions])
    from .writer import write_report  # matplotlib is slow to import: input known good

    try:
        with output_dir.building(args.output) as stage:
            table, notes = write_report(results, stage)
    except output_dir.ReportDirError as err:
        error(err)
        return EXIT_USAGE
    except OSError as err:
        error(f"cannot write {args.output}: {err}")
        return EXIT_USAGE
    lines = [*verdict_text(table, first_line(table, results)).split("\n"),
             *(f"more trials: {line}" for line in more_trials_said(table, results)),
             *(f"note: {n}" for n in notes),
             f"report: {os.path.join(args.output, 'report.html')}"]
    return print_result(lines)


def more_trials_said(table, results: list) -> list:
    """For a claim left inconclusive with data, the command that runs its study's next look, or
    why more trials cannot decide it (more_trials.py); nothing when every such claim is
    decided or has no data here. The rules run once more for it, only when a row is open."""
    prim = table[(table["kind"] == rules.PRIMARY) & (table["verdict"] == rules.INCONCLUSIVE)]
    if prim.empty:
        return []
    return next_batch(results)[1]


def next_batch(results: list) -> tuple:
    """The extensions the verdicts over these files ask for (sequential.py), and what to say of
    them to a person (more_trials.py)."""
    studies, _, _ = build_studies(results)
    return verdicts.next_batch_said(studies, "in these files")


def print_result(lines: list) -> int:
    """What the report prints is part of its result, as for every wordsens command: a stdout
    that cannot take it (a full disk, /dev/full, a closed stdout) is one line on stderr and
    exit 1, never a traceback or a silent exit 0 (the files are written by then)."""
    try:
        if sys.stdout is None:  # Python's stdout when descriptor 1 was closed at start
            raise OSError("it is closed")
        sys.stdout.write("".join(printable(line) + "\n" for line in lines))
        sys.stdout.flush()
    except OSError as err:
        try:  # the interpreter's flush at exit would fail again, with a traceback
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        except OSError:
            pass
        why = err.strerror or str(err)
        if sys.stderr is not None:
            print(f"wordsens-report: error: cannot write standard output: {why}",
                  file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK
