#!/usr/bin/env python3
"""The results section of docs/REPRODUCE.md, written from what ran: the combined report
(report.md's first line, verdicts.csv, paper_vs_here.csv, provenance.csv) and the run's own
records (timings.tsv and machine.txt, written by jobs/reproduce_paper.sh into the results
directory), so the document cannot drift from the run.

    reproduce_results.py --report report/paper --results results/paper [--update docs/REPRODUCE.md]

writes REPORT/results.md; with --update, also replaces the text between the markers
"<!-- results: begin -->" and "<!-- results: end -->" of that file (nothing else of it).
Exit codes: 0 written, 2 a missing or unreadable input (one line on stderr).
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


def timing_table(rows: list) -> list:
    lines = ["| study | look | file | tasks | predicted | measured | measured / predicted |",
             "|---|--:|---|--:|--:|--:|--:|"]
    per_study: dict = {}
    tot_p = tot_m = 0.0
    for r in rows:
        p, m = number(r["predicted_s"]), number(r["measured_s"])
        ratio = f"{m / p:.2f}" if math.isfinite(p) and p > 0 and math.isfinite(m) else "–"
        lines.append(f"| {cell(r['study'])} | {r['look']} | `{cell(r['file'])}` | {r['tasks']} | "
                     f"{hms(p)} | {hms(m)} | {ratio} |")
        s = per_study.setdefault(r["study"], [0.0, 0.0])
        s[0] += p if math.isfinite(p) else 0.0
        s[1] += m if math.isfinite(m) else 0.0
        tot_p += p if math.isfinite(p) else 0.0
        tot_m += m if math.isfinite(m) else 0.0
    lines.append(f"| **total** | | | | {hms(tot_p)} | **{hms(tot_m)}** | "
                 f"{(tot_m / tot_p if tot_p else math.nan):.2f} |")
    return lines, per_study, tot_m


def verdict_table(rows: list) -> list:
    prim = [r for r in rows if r["kind"] == "primary"]
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


def section(report: str, results: str) -> str:
    verdicts = read_csv(os.path.join(report, "verdicts.csv"))
    paper = read_csv(os.path.join(report, "paper_vs_here.csv"))
    prov = read_csv(os.path.join(report, "provenance.csv"))
    timings_path = os.path.join(results, "timings.tsv")
    timings = read_csv(timings_path) if os.path.exists(timings_path) else []
    mach = machine(results)
    shas = sorted({p["git_sha"] for p in prov if p.get("git_sha")})
    builds = sorted({p["build"] for p in prov if p.get("build")})
    versions = sorted({p["software_version"] for p in prov if p.get("software_version")})
    rules = sorted({(v["rules_version"], v["rules_hash"]) for v in verdicts
                    if v.get("rules_version")})
    partial = [p["file"] for p in prov if p.get("state") != "complete"]
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
           f"- files: {len(prov)}" + (f", {len(partial)} PARTIAL: "
                                      + ", ".join(f"`{os.path.basename(p)}`" for p in partial)
                                      if partial else ", all complete"),
           ""]
    if timings:
        lines, per_study, total = timing_table(timings)
        out += ["### Time per run: predicted by the cost model, measured", "",
                f"From `bash jobs/reproduce_paper.sh` to the report, the runs took {hms(total)} "
                "(one study after another; look 1 is the first batch, later looks add trials only "
                "where a claim was open):", "", *lines, "",
                "Per study: " + "; ".join(f"{s} {hms(v[1])} (predicted {hms(v[0])})"
                                          for s, v in per_study.items()) + ".", ""]
    out += ["### Verdicts", "", "The primary rows of `verdicts.csv`:", "",
            *verdict_table(verdicts), "", "### Paper vs here", "", *paper_table(paper), "", END]
    return "\n".join(out) + "\n"


def update(doc: str, text: str) -> None:
    with open(doc, encoding="utf-8") as f:
        old = f.read()
    if BEGIN not in old or END not in old:
        raise InputError(f"{doc} has no '{BEGIN}' … '{END}' markers")
    head, rest = old.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(doc + ".tmp", "w", encoding="utf-8") as f:
        f.write(head + text.rstrip("\n") + tail)
    os.replace(doc + ".tmp", doc)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="reproduce_results.py", description=__doc__.split("\n")[0])
    p.add_argument("--report", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--update", metavar="DOC", help="replace the results section of DOC")
    args = p.parse_args(argv)
    try:
        text = section(args.report, args.results)
        with open(os.path.join(args.report, "results.md"), "w", encoding="utf-8") as f:
            f.write(text)
        if args.update:
            update(args.update, text)
    except (InputError, OSError) as err:
        print(f"reproduce_results: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
