"""`wordsens-report results.h5 [more.h5 …] -o report/`: tables, figures, one verdict per claim.

Writes report.md, report.html (self-contained: figures embedded), verdicts.csv, the summary
tables as CSV and the figures as PNG and PDF; prints the headline and the primary verdicts. The
first line of the report and of the printout answers at a glance: how many primary claims are
confirmed, contradicted, inconclusive, and whether every integrity check passes. Exit codes
follow the suite's (0 ok, 2 bad input file or command line).

Several files (of different studies, e.g. every experiment of the paper) give one combined
report: combined_report.py, with the policy of combined.py.
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

from . import multi_word, rules, stats, theorems
from .witness import CHECK_COLUMNS, activation_of, check_witnesses
from .io import DamagedFileError, ResultsFileError, read_results

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
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


def summaries(res, prefix: tuple = ()) -> dict:
    """Per grid point statistics of S (and S_upper's mean) and of E; `prefix`: leading group
    columns (the study, in a combined report)."""
    out = {}
    ws, gen = res.ws, res.gen
    if not ws.empty:
        keys = [*prefix, *[k for k in WS_KEYS if k in ws]]
        s = stats.summarize(ws, keys, "S")
        if "S_upper" in ws and ws["S_upper"].notna().any():
            up = stats.summarize(ws.dropna(subset=["S_upper"]), keys, "S_upper")
            s = s.merge(up[[*keys, "mean"]].rename(columns={"mean": "S_upper_mean"}), on=keys,
                        how="left")
        out["ws_summary"] = s
    several = getattr(res, "multi_word", None)
    if several is not None and not several.empty:
        keys = [*prefix, *[k for k in (*WS_KEYS, "words") if k in several]]
        out["multi_word_summary"] = stats.summarize(several, keys, "S")
    if not gen.empty:
        keys = [*prefix, *[k for k in GEN_KEYS if k in gen]]
        out["gen_summary"] = stats.summarize(gen, keys, "E")
    return out


def _pick_witness(res):
    """A raf witness to draw: the longest text up to n = 40 (larger heatmaps get unreadable)."""
    cands = [w for w in res.witnesses if w.model == "raf" and w.X is not None and w.W is not None
             and not w.words]  # the heatmaps show one changed word
    if not cands:
        return None
    small = [w for w in cands if w.X.shape[0] <= 40]
    if small:
        return min(small, key=lambda w: (-w.X.shape[0], w.task_id))
    return min(cands, key=lambda w: (w.X.shape[0], w.task_id))


RULES_INTRO = (
    "Every claim is judged only on the grid points inside its regime (the others are listed in "
    "the row, never used), with the kind of evidence that can decide it: S is a lower bound "
    "attained by a stored witness, so it can refute an O(·) claim and confirm an Ω(·) claim; "
    "S_upper is a certified upper bound and confirms O(·) claims. Statistics are computed per "
    "trial (all models and all n of a trial share its texts, so a trial gives a whole curve: "
    "its least-squares slope of log S against log n, a paired ratio log(S_raf/S_rf), a "
    "two-point slope) and averaged over trials with a 95% Student-t interval; the level of E "
    "is a median with the distribution-free order-statistic interval and the exact sign test. "
    f"Every test is one-sided at α = {rules.ALPHA} (so it agrees with the 95% interval); a "
    "claim needing several tests takes the largest p (intersection-union test); primary rows "
    "are decided on Holm-adjusted p-values across the primary rows of this report. Fewer than "
    f"{rules.MIN_POINTS} values of n, or fewer than {rules.MIN_TRIALS} trials complete at "
    "them, gives *inconclusive* with the reason. Objective `best` is, per task and training "
    "mode, the Δ with the smallest E found. Rules, regimes and their reasons, the coverage "
    "simulation and the changelog: docs/VERDICT_RULES.md."
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


PRIMARY_SHOWN = ["theorem", "name", "claim", "verdict", "statistic", "estimate", "ci_low",
                 "ci_high", "trials", "p_confirm", "p_confirm_holm", "reason", "n_used",
                 "outside_regime"]
INTEGRITY_SHOWN = ["claim", "verdict", "statistic", "estimate", "trials", "reason", "name"]
SECONDARY_SHOWN = ["claim", "theorem", "verdict", "statistic", "estimate", "ci_low", "ci_high",
                   "trials", "p_confirm", "reason", "n_used"]


def rules_line() -> str:
    return (f"verdict rules {rules.RULES_VERSION} (hash {rules.RULES_HASH}; "
            "changelog in docs/VERDICT_RULES.md)")


def _rules_tables() -> dict:
    claims = pd.DataFrame([(c.id, c.theorem, c.name, c.model, c.regime, c.rule)
                           for c in [*rules.CLAIMS.values(), *rules.MULTI_WORD_CLAIMS.values()]],
                          columns=["claim", "theorem", "name", "model", "regime", "rule"])
    secondary = pd.DataFrame(list(rules.SECONDARY_RULES.items()), columns=["rows", "rule"])
    integrity = pd.DataFrame(list(rules.INTEGRITY_RULES.items()), columns=["check", "rule"])
    return {"primary claims": claims, "secondary rows": secondary, "integrity checks": integrity}


def _sections(verdicts: pd.DataFrame, lead: tuple = ()) -> list:
    """(title, table, css class) in reading order: integrity failures, primary, integrity,
    secondary. `lead`: columns shown first in every table (the study, in a combined report)."""
    integ = verdicts[verdicts["kind"] == rules.INTEGRITY].rename(columns={"trials": "records"})
    failed = integ[integ["verdict"] == rules.FAIL]
    shown = [*lead, *[c if c != "trials" else "records" for c in INTEGRITY_SHOWN]]
    out = []
    if not failed.empty:
        out.append(("Integrity checks that FAIL (the numbers below cannot be trusted)",
                    failed[shown], "fail"))
    out.append(("Primary claims",
                verdicts[verdicts["kind"] == rules.PRIMARY][[*lead, *PRIMARY_SHOWN]], "primary"))
    out.append(("Integrity checks", integ[integ["verdict"] != rules.FAIL][shown], ""))
    out.append(("Secondary rows (breakdown)",
                verdicts[verdicts["kind"] == rules.SECONDARY][[*lead, *SECONDARY_SHOWN]], ""))
    return out


def write_report(res, outdir: str) -> pd.DataFrame:
    from . import plots  # matplotlib is slow to import: only once the input is known good

    os.makedirs(outdir, exist_ok=True)
    notes = list(res.notes)
    checks = check_witnesses(res.witnesses, activation_of(res.attrs.get("config_text")))
    table = pd.DataFrame(checks, columns=CHECK_COLUMNS)
    fractions = multi_word.fractions_of(res.attrs.get("config_text"))
    verdicts = theorems.check_all(res.ws, res.gen, table if res.witnesses else None,
                                  res.multi_word, fractions)
    verdicts.to_csv(os.path.join(outdir, "verdicts.csv"), index=False)
    tables = summaries(res)
    if checks:
        tables["witness_check"] = table
        if table["rel_diff_upper"].notna().any():
            notes.append("rf upper bounds recomputed from V: max relative difference = "
                         f"{table['rel_diff_upper'].max():.2e}")
    for name, df in tables.items():
        df.to_csv(os.path.join(outdir, f"{name}.csv"), index=False)
    figures = []  # (title, png path relative to outdir)
    witness = _pick_witness(res)
    for title, paths in (
        ("Word sensitivity against n, with each model's fitted slope and verdict",
         plots.ws_figure(res.ws, outdir, verdicts)),
        ("Generalization error after a one-word change", plots.gen_figure(res.gen, outdir)),
        ("Attention before and after the one-word change (raf witness)",
         plots.witness_figure(witness, outdir)),
        ("Sensitivity to m changed words against the changed fraction m/n",
         plots.multi_word_figure(multi_word.all_words(res.ws, res.multi_word), outdir)),
    ):
        if paths:
            figures.append((title, os.path.basename(paths[0])))
    from . import regime_map  # a file with >= 3 values of d for an attention model
    figures += [(t, os.path.basename(p)) for t, p in regime_map.figures(res.ws, outdir)]
    if witness is None:
        notes.append("no raf witness with X and W in the file (run with --save-witness for the "
                      "attention heatmaps)")
    head = theorems.headline(verdicts)
    _write_md(res, outdir, head, verdicts, tables, figures, notes)
    _write_html(res, outdir, head, verdicts, tables, figures, notes)
    return verdicts


def _md_verdict(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    if "verdict" in df:
        df["verdict"] = df["verdict"].map(lambda v: f"**❌ {v}**" if v == rules.FAIL else v)
    return df


def _write_md(res, outdir, head, verdicts, tables, figures, notes):
    lines = [f"# {head}", "", f"wordsens report · {rules_line()}", ""]
    lines += [f"- **{k}**: {v}" for k, v in _provenance(res)]
    lines += [""] + [f"> note: {n}" for n in notes] + [""]
    for title, df, _ in _sections(verdicts):
        lines += [f"## {title}", "", md_table(_md_verdict(df))]
    lines += ["## Rules", "", RULES_INTRO, ""]
    for title, df in _rules_tables().items():
        lines += [f"### Rules: {title}", "", md_table(df)]
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


def _html_verdicts(df: pd.DataFrame, css: str) -> str:
    """A verdict table with integrity failures in red and each verdict coloured."""
    colours = {rules.FAIL: "#c00", rules.CONFIRMED: "#060", rules.CONTRADICTED: "#c00",
               rules.SUPPORTED_LB: "#470", rules.SUPPORTED_RESTRICTED: "#470"}
    if df.empty:
        return "<p><em>(no rows)</em></p>"
    e = html.escape
    head = "".join(f"<th>{e(str(c))}</th>" for c in df.columns)
    body = []
    for rec in df.to_dict("records"):
        cls = " class='fail'" if rec.get("verdict") == rules.FAIL else ""
        cells = []
        for c, v in rec.items():
            text = e(_fmt(v))
            if c == "verdict" and v in colours:
                text = f"<b style='color:{colours[v]}'>{text}</b>"
            cells.append(f"<td>{text}</td>")
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return (f"<table class='t {css}'><thead><tr>{head}</tr></thead><tbody>"
            + "".join(body) + "</tbody></table>")


def _write_html(res, outdir, head, verdicts, tables, figures, notes):
    e = html.escape
    fail = verdicts[(verdicts["kind"] == rules.INTEGRITY) & (verdicts["verdict"] == rules.FAIL)]
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>wordsens report</title><style>",
        "body{font-family:sans-serif;max-width:1300px;margin:2em auto;line-height:1.4}",
        "table.t{border-collapse:collapse;font-size:13px}table.t td,table.t th{border:1px solid "
        "#ccc;padding:2px 6px}img{max-width:100%}.note{color:#a60}",
        "tr.fail td{background:#fdd;color:#900}h1.fail{color:#c00}",
        "</style></head><body>",
        f"<h1 class='{'fail' if not fail.empty else 'ok'}'>{e(head)}</h1>",
        f"<p>wordsens report · {e(rules_line())}</p><ul>",
    ]
    parts += [f"<li><b>{e(k)}</b>: {e(str(v))}</li>" for k, v in _provenance(res)]
    parts.append("</ul>")
    parts += [f"<p class='note'>note: {e(n)}</p>" for n in notes]
    for title, df, css in _sections(verdicts):
        style = " style='color:#c00'" if css == "fail" else ""
        parts += [f"<h2{style}>{e(title)}</h2>", _html_verdicts(df, css)]
    parts += ["<h2>Rules</h2>", f"<p>{e(RULES_INTRO)}</p>"]
    for title, df in _rules_tables().items():
        parts += [f"<h3>Rules: {e(title)}</h3>", html_table(df)]
    parts.append("<h2>Figures</h2>")
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


def verdict_text(verdicts: pd.DataFrame, combined: bool = False) -> str:
    """The headline, then integrity failures and primary rows (the rest is in the report)."""
    from . import combined as comb

    integ_fail = verdicts[(verdicts["kind"] == rules.INTEGRITY)
                          & (verdicts["verdict"] == rules.FAIL)]
    prim = verdicts[verdicts["kind"] == rules.PRIMARY]
    lines = [comb.headline(verdicts) if combined else theorems.headline(verdicts), rules_line()]
    where = (lambda r: f"@{r.study}" if r.study else "") if combined else (lambda r: "")
    for r in integ_fail.itertuples():
        lines.append(f"  FAIL  {r.claim}{where(r)}: {r.statistic} = {_fmt(r.estimate)} — "
                     f"{r.reason}")
    cols = ["claim", "theorem", "verdict", "estimate", "ci_low", "ci_high", "p_confirm_holm"]
    t = prim[(["study"] if combined else []) + cols].copy()
    for c in ("estimate", "ci_low", "ci_high", "p_confirm_holm"):
        t[c] = t[c].map(_fmt)
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
                    "different studies, give one combined report.")
    p.add_argument("results", nargs="+",
                   help="HDF5 results files written by `wordsens run` or `merge`")
    p.add_argument("-o", "--output", default="report", help="output directory (default: report)")
    args = p.parse_args(argv)
    real = [os.path.realpath(r) for r in args.results]
    if len(set(real)) != len(real):
        twice = sorted({r for r in args.results if real.count(os.path.realpath(r)) > 1})
        print(f"wordsens-report: error: the same file given twice: {', '.join(twice)}",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the reader's repairs are listed in the report
            results = [read_results(r) for r in args.results]
    except ResultsFileError as err:
        print(f"wordsens-report: error: {err}", file=sys.stderr)
        # As wordsens info: a damaged file is a failure (1), a missing or foreign one bad input (2).
        return EXIT_FAILURE if isinstance(err, DamagedFileError) else EXIT_USAGE
    try:
        if len(results) == 1:
            verdicts = write_report(results[0], args.output)
            text, notes = verdict_text(verdicts), results[0].notes
        else:
            from .combined_report import write_combined
            verdicts, notes = write_combined(results, args.output)
            text = verdict_text(verdicts, combined=True)
    except OSError as err:
        print(f"wordsens-report: error: cannot write {args.output}: {err}", file=sys.stderr)
        return EXIT_USAGE
    print(text)
    for n in notes:
        print(f"note: {n}")
    print(f"report: {os.path.join(args.output, 'report.html')}")
    return EXIT_OK
