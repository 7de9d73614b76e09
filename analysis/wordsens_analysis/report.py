"""`wordsens-report results.h5 -o report/`: tables, figures and one verdict per theorem.

Writes report.md, report.html (self-contained: figures embedded), verdicts.csv, the summary
tables as CSV and the figures as PNG and PDF; prints the verdict table. Exit codes follow the
suite's (0 ok, 2 bad input file or command line).
"""
from __future__ import annotations

import argparse
import base64
import html
import os
import sys
import warnings

import numpy as np
import pandas as pd

from . import stats, theorems
from .witness import CHECK_COLUMNS, activation_of, check_witnesses
from .io import ResultsFileError, read_results

EXIT_OK, EXIT_USAGE = 0, 2
WS_KEYS = ["model", "layers", "d", "k", "n"]
GEN_KEYS = ["model", "training", "objective", "d", "N", "k", "n"]


def _fmt(v) -> str:
    if isinstance(v, (float, np.floating)):
        if not np.isfinite(v):
            return "–"
        return f"{v:.4g}"
    return str(v)


def md_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "_(no rows)_\n"
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(_fmt(v).replace("|", "\\|") for v in row) + " |"
            for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body]) + "\n"


def html_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "<p><em>(no rows)</em></p>"
    return df.to_html(index=False, na_rep="–", float_format=lambda v: f"{v:.4g}", border=0,
                      classes="t")


def summaries(res) -> dict:
    out = {}
    ws, gen = res.ws, res.gen
    if not ws.empty:
        keys = [k for k in WS_KEYS if k in ws]
        s = stats.summarize(ws, keys, "S")
        if "S_upper" in ws and ws["S_upper"].notna().any():
            up = stats.summarize(ws.dropna(subset=["S_upper"]), keys, "S_upper")
            s = s.merge(up[[*keys, "mean"]].rename(columns={"mean": "S_upper_mean"}), on=keys,
                        how="left")
        out["ws_summary"] = s
    if not gen.empty:
        keys = [k for k in GEN_KEYS if k in gen]
        out["gen_summary"] = stats.summarize(gen, keys, "E")
    return out


def _pick_witness(res):
    """A raf witness to draw: the longest text up to n = 40 (larger heatmaps get unreadable)."""
    cands = [w for w in res.witnesses if w.model == "raf" and w.X is not None and w.W is not None]
    if not cands:
        return None
    small = [w for w in cands if w.X.shape[0] <= 40]
    if small:
        return min(small, key=lambda w: (-w.X.shape[0], w.task_id))
    return min(cands, key=lambda w: (w.X.shape[0], w.task_id))


RULES_INTRO = (
    "Each claim of SPEC §5 is checked per (model, d[, L], k) for word sensitivity and per "
    "(model, d, training mode, objective, N, k) for generalization. Slopes are least-squares "
    "fits of log(mean over trials) against log n; 95% confidence intervals are percentile "
    f"bootstraps with {stats.N_BOOT} resamples (seed {stats.SEED}) of trial indices, drawn once "
    "and shared by all n (trial t draws its text from the same stream at every n, and all "
    "models see the same texts), so correlations across n are kept. Too little data "
    f"(fewer than {theorems.MIN_POINTS} values of n with at least {theorems.MIN_TRIALS} trials, "
    f"or fewer than {theorems.MIN_TRIALS} trials at a point) gives *inconclusive* with the "
    "reason. Objective `best` is, per task and training mode, the Δ with the smaller E."
)


def _provenance(res) -> list:
    a = res.attrs
    items = [("file", res.path), ("format_version", ".".join(map(str, res.format_version)))]
    for key in ("software_version", "git_sha", "build", "created_utc", "command_line",
                "mpi_ranks", "master_seed"):
        if key in a:
            items.append((key, _fmt(a[key]) if not isinstance(a[key], list) else str(a[key])))
    state = "complete" if res.complete else "PARTIAL (run unfinished or interrupted)"
    items.append(("tasks done", f"{res.done} / {res.planned} — {state}"))
    items.append(("records", f"{len(res.ws)} ws rows, {len(res.gen)} gen rows"))
    return items


def write_report(res, outdir: str) -> pd.DataFrame:
    from . import plots  # matplotlib is slow to import: only once the input is known good

    os.makedirs(outdir, exist_ok=True)
    verdicts = theorems.check_all(res.ws, res.gen)
    verdicts[theorems.VERDICT_COLUMNS].to_csv(os.path.join(outdir, "verdicts.csv"), index=False)
    tables = summaries(res)
    for name, df in tables.items():
        df.to_csv(os.path.join(outdir, f"{name}.csv"), index=False)
    figures = []  # (title, png path relative to outdir)
    witness = _pick_witness(res)
    for title, paths in (
        ("Word sensitivity against n", plots.ws_figure(res.ws, outdir)),
        ("Generalization error after a one-word change", plots.gen_figure(res.gen, outdir)),
        ("Attention before and after the one-word change (raf witness)",
         plots.witness_figure(witness, outdir)),
    ):
        if paths:
            figures.append((title, os.path.basename(paths[0])))
    notes = list(res.notes)
    checks = check_witnesses(res.witnesses, activation_of(res.attrs.get("config_text")))
    if checks:
        table = pd.DataFrame(checks, columns=CHECK_COLUMNS)
        tables["witness_check"] = table
        table.to_csv(os.path.join(outdir, "witness_check.csv"), index=False)
        worst = table["rel_diff"].max()
        notes.append(f"{len(table)} witnesses recomputed independently in numpy from the stored "
                     f"X, weights and Δ*: max relative difference to the stored S = {worst:.2e} "
                     f"({'OK' if worst <= 1e-9 else 'ABOVE the 1e-9 certificate'})")
        if table["rel_diff_upper"].notna().any():
            notes.append("rf upper bounds recomputed from V: max relative difference = "
                         f"{table['rel_diff_upper'].max():.2e}")
    if witness is None:
        notes.append("no raf witness with X and W in the file (run with --save-witness for the "
                     "attention heatmaps)")
    shown = verdicts[["claim", "model", "d", "statistic", "estimate", "ci_low", "ci_high",
                      "verdict", "reason"]]
    rules = pd.DataFrame(
        [(r.claim, r.theorem, r.model, r.statistic, r.text) for r in theorems.RULES.values()],
        columns=["claim", "theorem", "model", "statistic", "rule"])
    _write_md(res, outdir, shown, rules, tables, figures, notes)
    _write_html(res, outdir, shown, rules, tables, figures, notes)
    return verdicts


def _write_md(res, outdir, shown, rules, tables, figures, notes):
    lines = ["# wordsens report", ""]
    lines += [f"- **{k}**: {v}" for k, v in _provenance(res)]
    lines += [""] + [f"> note: {n}" for n in notes] + ["", "## Verdicts", "", md_table(shown)]
    lines += ["## Rules", "", RULES_INTRO, "", md_table(rules)]
    lines += ["## Figures", ""]
    for title, png in figures:
        lines += [f"### {title}", "", f"![{title}]({png})", "",
                  f"(PDF: `{png[:-4]}.pdf`)", ""]
    for name, df in tables.items():
        lines += [f"## Table `{name}` (also `{name}.csv`)", "", md_table(df)]
    cfg = res.attrs.get("config_text")
    if cfg:
        lines += ["## Configuration", "", "```ini", str(cfg).rstrip(), "```", ""]
    with open(os.path.join(outdir, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def _write_html(res, outdir, shown, rules, tables, figures, notes):
    e = html.escape
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>wordsens report</title><style>",
        "body{font-family:sans-serif;max-width:1200px;margin:2em auto;line-height:1.4}",
        "table.t{border-collapse:collapse;font-size:13px}table.t td,table.t th{border:1px solid "
        "#ccc;padding:2px 6px}img{max-width:100%}.note{color:#a60}",
        "</style></head><body><h1>wordsens report</h1><ul>",
    ]
    parts += [f"<li><b>{e(k)}</b>: {e(str(v))}</li>" for k, v in _provenance(res)]
    parts.append("</ul>")
    parts += [f"<p class='note'>note: {e(n)}</p>" for n in notes]
    styled = shown.copy()
    parts += ["<h2>Verdicts</h2>", html_table(styled), "<h2>Rules</h2>", f"<p>{e(RULES_INTRO)}</p>",
              html_table(rules), "<h2>Figures</h2>"]
    for title, png in figures:
        with open(os.path.join(outdir, png), "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        parts += [f"<h3>{e(title)}</h3>", f"<img alt='{e(title)}' src='data:image/png;base64,{data}'>",
                  f"<p>PDF: <a href='{e(png[:-4])}.pdf'>{e(png[:-4])}.pdf</a></p>"]
    for name, df in tables.items():
        parts += [f"<h2>Table {e(name)}</h2>", html_table(df)]
    cfg = res.attrs.get("config_text")
    if cfg:
        parts += ["<h2>Configuration</h2>", f"<pre>{e(str(cfg))}</pre>"]
    parts.append("</body></html>")
    with open(os.path.join(outdir, "report.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))


def verdict_text(verdicts: pd.DataFrame) -> str:
    cols = theorems.VERDICT_COLUMNS
    t = verdicts[cols].copy()
    for c in ("estimate", "ci_low", "ci_high"):
        t[c] = t[c].map(_fmt)
    return t.to_string(index=False)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="wordsens-report",
        description="Figures, tables and one verdict per theorem (SPEC §5) from a wordsens "
                    "results file.")
    p.add_argument("results", help="HDF5 results file written by `wordsens run` or `merge`")
    p.add_argument("-o", "--output", default="report", help="output directory (default: report)")
    args = p.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the reader's repairs are listed in the report
            res = read_results(args.results)
    except ResultsFileError as err:
        print(f"wordsens-report: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    try:
        verdicts = write_report(res, args.output)
    except OSError as err:
        print(f"wordsens-report: error: cannot write {args.output}: {err}", file=sys.stderr)
        return EXIT_USAGE
    print(verdict_text(verdicts))
    for n in res.notes:
        print(f"note: {n}")
    print(f"report: {os.path.join(args.output, 'report.html')}")
    return EXIT_OK
