#!/usr/bin/env python3
"""The results section of docs/REPRODUCE.md, written from what ran: the combined report
(report.md's first line, verdicts.csv, paper_vs_here.csv, provenance.csv) and the run's own
records (timings.tsv and machine.txt, written by jobs/reproduce_paper.sh into the results
directory), so the document cannot drift from the run.

    reproduce_results.py --report report/paper --results results/paper
        [--expect FILE …] [--failed "STUDY: exit N" …] [--update docs/REPRODUCE.md]

writes REPORT/results.md; with --update, also replaces the text between the markers
"<!-- results: begin -->" and "<!-- results: end -->" of that file (nothing else of it).

Only a complete run is published: nothing is written, and one line on stderr says what is
missing, when a study failed (--failed), an expected file (--expect: each selected study's
results file) is not in the report, or any file of the report is not complete.

The time table counts successful runs only. timings.tsv has one row per attempt of a run on a
file (refused, failed, checkpointed, interrupted and no-op attempts included, with their exit
codes); a row counts when its attempt exited 0 having run tasks, and when it belongs to the file
the report read: the same file name, creation time and configuration hash as the file's own
provenance (provenance.csv), so rows of an earlier file of the same name never count. The
totals are recomputed from the counted rows.
Exit codes: 0 written, 1 not written (the run is not complete: one line saying what is missing),
2 a missing or unreadable input (one line on stderr).
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys

BEGIN, END = "<!-- results: begin -->", "<!-- results: end -->"
REASON_MAX = 300


class InputError(Exception):
    pass


def read_csv(path: str) -> list:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f, delimiter="\t" if path.endswith(".tsv") else ","))
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror or err}") from err


def hms(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "–"
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


def number(text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def headline(report: str) -> str:
    try:
        with open(os.path.join(report, "report.md"), encoding="utf-8") as f:
            first = f.readline().strip()
    except OSError as err:
        raise InputError(f"cannot read {report}/report.md: {err.strerror or err}") from err
    return first.lstrip("# ").strip()


def machine(results: str) -> dict:
    out = {}
    path = os.path.join(results, "machine.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                out[key.strip()] = value.strip()
    return out


def count(text) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        return -1


def ran_tasks(r: dict) -> int:
    """The tasks an attempt ran (-1 when the row does not say: an older timings.tsv)."""
    before, after = count(r.get("done_before")), count(r.get("done_after"))
    return after - before if before >= 0 and after >= 0 else -1


def counted(rows: list, prov: list) -> tuple:
    """(the attempts the time table counts, the others): an attempt counts when it exited 0
    having run tasks, on the file the report read (same name, creation time and configuration
    hash as in the file's own provenance)."""
    files = {os.path.basename(p["file"]): (p.get("created_utc", ""), p.get("config_hash", ""))
             for p in prov}
    yes, no = [], []
    for r in rows:
        ident = files.get(r.get("file"))
        mine = ident is not None and (r.get("created_utc"), r.get("config_hash")) == ident
        (yes if mine and r.get("exit") == "0" and ran_tasks(r) > 0 else no).append(r)
    return yes, no


def why_not_counted(r: dict, prov: list) -> str:
    names = {os.path.basename(p["file"]) for p in prov}
    if r.get("file") not in names:
        return "a file the report did not read"
    if r.get("exit") != "0":
        return f"exit {r.get('exit') or '?'}"
    if ran_tasks(r) == 0:
        return "nothing to run"
    return "an earlier file of the same name"


def timing_table(rows: list, prov: list) -> tuple:
    """(table lines, per study [predicted, measured], total measured, lines on what was not
    counted)."""
    lines = ["| study | look | file | tasks run | predicted | measured | measured / predicted |",
             "|---|--:|---|--:|--:|--:|--:|"]
    per_study: dict = {}
    tot_tasks = 0
    tot_p = tot_m = tot_m_priced = 0.0
    rows_in, rows_out = counted(rows, prov)
    resumed = 0
    for r in rows_in:
        p, m = number(r["predicted_s"]), number(r["measured_s"])
        ran = ran_tasks(r)
        # The prediction prices the whole file: only an attempt that ran it all compares.
        whole = count(r.get("done_before")) == 0 and count(r.get("done_after")) == count(
            r.get("tasks"))
        priced = whole and math.isfinite(p) and p > 0 and math.isfinite(m)
        resumed += not whole
        lines.append(f"| {cell(r['study'])} | {cell(r['look'])} | `{cell(r['file'])}` | {ran} | "
                     f"{hms(p) if whole else '–'} | {hms(m)} | "
                     f"{f'{m / p:.2f}' if priced else '–'} |")
        s = per_study.setdefault(r["study"], [0.0, 0.0, 0])
        s[0] += p if priced else 0.0
        s[1] += m if math.isfinite(m) else 0.0
        s[2] += not whole
        tot_tasks += ran
        tot_m += m if math.isfinite(m) else 0.0
        if priced:
            tot_p += p
            tot_m_priced += m
    lines.append(f"| **total** | | | {tot_tasks} | {hms(tot_p)} | **{hms(tot_m)}** | "
                 f"{f'{tot_m_priced / tot_p:.2f}' if tot_p else '–'} |")
    notes = []
    if resumed:
        notes.append(f"{resumed} run(s) resumed a file an earlier attempt had begun: the "
                     "earlier attempts' time is not counted, and their prediction (of the whole "
                     "file) is left out of the ratio.")
    if rows_out:
        why: dict = {}
        for r in rows_out:
            key = why_not_counted(r, prov)
            why[key] = why.get(key, 0) + 1
        notes.append(f"Not counted: {len(rows_out)} other attempt(s) ("
                     + ", ".join(f"{k}: {v}" for k, v in sorted(why.items()))
                     + "); `timings.tsv` lists every attempt with its exit code.")
    untimed = sorted({os.path.basename(p["file"]) for p in prov}
                     - {r["file"] for r in rows_in})
    if untimed:
        notes.append("Not timed by a counted run: " + ", ".join(f"`{f}`" for f in untimed)
                     + " (complete before, or written by another command).")
    return lines, per_study, tot_m, notes


def missing(prov: list, expected: list, failed: list) -> list:
    """What keeps this run from being published; empty when every selected study succeeded
    and every file of the report is complete."""
    out = list(failed)
    by_name = {os.path.basename(p["file"]): p for p in prov}
    for f in expected:
        if os.path.basename(f) not in by_name:
            out.append(f"{os.path.basename(f)} is not in the report (its study wrote no file)")
    for name, p in by_name.items():
        if p.get("state") != "complete":
            out.append(f"{name} is {p.get('state') or 'of unknown state'}")
    return out


def verdict_table(rows: list, kind: str = "primary") -> list:
    """The rows of `verdicts.csv` of one kind (primary: the paper's claims; extension: the
    claims beyond the paper, which the report's first line does not count)."""
    prim = [r for r in rows if r["kind"] == kind]
    lines = ["| study | claim | theorem | verdict | look | estimate [95 % CI] | reason |",
             "|---|---|---|---|---|---|---|"]
    for r in prim:
        est = number(r["estimate"])
        ci = ""
        if math.isfinite(est):
            ci = f"{est:.3g} [{number(r['ci_low']):.3g}, {number(r['ci_high']):.3g}]"
        reason = r["reason"] if r["verdict"] != "confirmed" else ""
        if len(reason) > REASON_MAX:  # the whole reason is in verdicts.csv
            reason = reason[:REASON_MAX].rsplit(" ", 1)[0] + " … (verdicts.csv)"
        lines.append(f"| {cell(r['study']) or '–'} | `{cell(r['claim'])}` | {cell(r['theorem'])} "
                     f"| **{cell(r['verdict'])}** | {cell(r.get('looks', ''))} | {ci} | "
                     f"{cell(reason)} |")
    return lines


def paper_table(rows: list) -> list:
    lines = ["| claim | the paper | measured here | study | estimate [95 % CI] | verdict |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{cell(r['claim'])}` | {cell(r['paper: statement'])} | "
                     f"{cell(r['measured here'])} | {cell(r['study'])} | "
                     f"{cell(r['estimate [95% CI]'])} | **{cell(r['verdict'])}** |")
    return lines


def section(report: str, results: str, prov: list) -> str:
    verdicts = read_csv(os.path.join(report, "verdicts.csv"))
    paper = read_csv(os.path.join(report, "paper_vs_here.csv"))
    timings_path = os.path.join(results, "timings.tsv")
    timings = read_csv(timings_path) if os.path.exists(timings_path) else []
    mach = machine(results)
    partial = [f"`{os.path.basename(p['file'])}`" for p in prov if p.get("state") != "complete"]
    shas = sorted({p["git_sha"] for p in prov if p.get("git_sha")})
    builds = sorted({p["build"] for p in prov if p.get("build")})
    versions = sorted({p["software_version"] for p in prov if p.get("software_version")})
    rules = sorted({(v["rules_version"], v["rules_hash"]) for v in verdicts
                    if v.get("rules_version")})
    out = [BEGIN,
           "<!-- written by jobs/reproduce_results.py from the combined report and the run's "
           "timings; do not edit by hand -->",
           "",
           f"The combined report's first line: **{headline(report)}**",
           "",
           (f"- machine: {mach.get('cpu', 'unknown')}, {mach.get('cores', '?')} cores, "
            f"{mach.get('memory', '?')}, {mach.get('os', '?')}; {mach.get('ranks', '?')} MPI "
            "ranks" if mach else "- machine: not recorded (no machine.txt: these files were not "
            "written by jobs/reproduce_paper.sh of this version)"),
           f"- software: wordsens {', '.join(versions) or '?'}, commit "
           f"{', '.join(f'`{s}`' for s in shas) or '?'}, build {', '.join(builds) or '?'}",
           "- verdict rules: " + (", ".join(f"{v} (hash {h})" for v, h in rules) or "?"),
           f"- files: {len(prov)}" + (", all complete" if not partial else
                                      f", {len(partial)} PARTIAL: " + ", ".join(partial)),
           ""]
    if timings:
        lines, per_study, total, notes = timing_table(timings, prov)
        out += ["### Time per run: predicted by the cost model, measured", "",
                f"From `bash jobs/reproduce_paper.sh` to the report, the runs took {hms(total)} "
                "(the successful runs, one study after another; look 1 is the first batch, later "
                "looks add trials only where a claim was open):", "", *lines, "",
                "Per study: " + "; ".join(
                    f"{s} {hms(v[1])} " + ("(resumed: not priced)" if v[2] and not v[0] else
                                            f"(predicted {hms(v[0])})")
                    for s, v in per_study.items()) + ".", "",
                *[line for n in notes for line in (n, "")]]
    out += ["### Verdicts", "", "The primary rows of `verdicts.csv`:", "",
            *verdict_table(verdicts), "", "### Paper vs here", "", *paper_table(paper), ""]
    if any(r["kind"] == "extension" for r in verdicts):
        out += ["### Beyond the paper", "",
                "The extension rows of `verdicts.csv`: claims the paper does not make, judged by "
                "the same rules and left out of the first line's count:", "",
                *verdict_table(verdicts, "extension"), ""]
    out += [END]
    return "\n".join(out) + "\n"


def write_whole(path: str, text: str) -> None:
    """A temporary file renamed into place: a reader sees the old text or the new one."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def update(doc: str, text: str) -> None:
    with open(doc, encoding="utf-8") as f:
        old = f.read()
    if BEGIN not in old or END not in old:
        raise InputError(f"{doc} has no '{BEGIN}' … '{END}' markers")
    head, rest = old.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    write_whole(doc, head + text.rstrip("\n") + tail)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="reproduce_results.py", description=__doc__.split("\n")[0])
    p.add_argument("--report", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--expect", action="append", default=[], metavar="FILE",
                   help="a results file the report must hold, complete (each selected study's)")
    p.add_argument("--failed", action="append", default=[], metavar="TEXT",
                   help="a study that failed, as the run's log says it ('STUDY: exit N')")
    p.add_argument("--update", metavar="DOC", help="replace the results section of DOC")
    args = p.parse_args(argv)
    try:
        prov = read_csv(os.path.join(args.report, "provenance.csv"))
        gaps = missing(prov, args.expect, args.failed)
        if gaps:
            print("reproduce_results: the run is not complete, so no results section is "
                  f"written{' (nor ' + args.update + ')' if args.update else ''}: "
                  + "; ".join(gaps), file=sys.stderr)
            return 1
        text = section(args.report, args.results, prov)
        write_whole(os.path.join(args.report, "results.md"), text)
        if args.update:
            update(args.update, text)
    except (InputError, OSError) as err:
        print(f"reproduce_results: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
