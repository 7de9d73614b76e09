"""The report over several results files: `wordsens-report a.h5 b.h5 … -o DIR`.

One verdict table over every study (combined.py says how files are combined, and the report
prints it), figures laid out like the paper's (paper_figures.py, regime_map.py), the provenance
of every file, and the "paper vs here" table (paper.py). Writes report.md, report.html
(self-contained), verdicts.csv (with a leading `study` column), paper_vs_here.csv,
provenance.csv, studies.csv and the summary tables.
"""
from __future__ import annotations

import base64
import html
import os
from types import SimpleNamespace

from . import combined, paper, rules
from .report import (RULES_INTRO, _html_verdicts, _md_verdict, _rules_tables, _sections,
                     html_table, md_table, rules_line, summaries)

STANDIN = ("GloVe × Brown: the stand-in for the paper's BERT-Base × IMDb (neither BERT weights "
           "nor IMDb text can be installed from Debian or npm)")


def texts_description(study) -> str:
    data = study.data
    if data.startswith("embeddings:"):
        return f"{data} ({STANDIN})" if "glove" in data.lower() else data
    return f"{data} (Gaussian tokens)" if data == "synthetic" else data


def write_combined(results: list, outdir: str) -> tuple:
    from . import paper_figures, regime_map

    os.makedirs(outdir, exist_ok=True)
    studies, notes, blocks = combined.build_studies(results)
    for s in studies:
        notes += s.notes
    verdicts = combined.verdict_table(studies)
    verdicts.to_csv(os.path.join(outdir, "verdicts.csv"), index=False)
    texts_of = {s.label: texts_description(s) for s in studies}
    pvh = paper.paper_vs_here(verdicts, texts_of)
    files = combined.study_table(studies, blocks)
    shared = combined.shared_points(studies)
    prov = combined.provenance_table(studies)
    ws, gen = combined.combined_frames(studies)
    tables = summaries(SimpleNamespace(ws=ws, gen=gen), prefix=("series",))
    tables = {k: v.rename(columns={"series": "study"}) for k, v in tables.items()}
    for name, df in (("paper_vs_here", pvh), ("provenance", prov), ("studies", files),
                     *tables.items()):
        df.to_csv(os.path.join(outdir, f"{name}.csv"), index=False)
    figures = []
    for title, paths in (
        ("Word sensitivity against n per model family, one series per d (drf: per L) and "
         "study", paper_figures.ws_figure(ws, outdir)),
        ("Generalization error after a one-word change against n, per training mode and study",
         paper_figures.gen_figure(gen, outdir)),
    ):
        if paths:
            figures.append((title, os.path.basename(paths[0])))
    figures += [(t, os.path.basename(p)) for t, p in regime_map.figures(ws, outdir)]
    head = combined.headline(verdicts)
    parts = dict(head=head, verdicts=verdicts, pvh=pvh, files=files, shared=shared, prov=prov,
                 tables=tables, figures=figures, notes=notes, studies=studies)
    _write_md(outdir, **parts)
    _write_html(outdir, **parts)
    return verdicts, notes


def _configs(studies) -> list:
    out = []
    for s in studies:
        for res in s.files:
            cfg = res.attrs.get("config_text")
            if cfg:
                out.append((f"{s.label}: {res.path}", str(cfg).rstrip()))
    return out


def _write_md(outdir, head, verdicts, pvh, files, shared, prov, tables, figures, notes,
              studies):
    lines = [f"# {head}", "",
             f"wordsens combined report over {len(prov)} files in {len(studies)} studies · "
             f"{rules_line()}", ""]
    lines += [f"> note: {n}" for n in notes] + [""]
    lines += ["## How the files are combined", "", combined.POLICY, "", "### Studies and files",
              "", md_table(files), "### Grid points held by several studies (kept apart)", "",
              md_table(shared) if not shared.empty else "_(none)_\n"]
    lines += ["## Paper vs here", "",
              "Each claim of the paper and the trend its experiments report, beside the "
              "statistic measured here, per study (one row per primary row below).", "",
              md_table(_md_verdict(pvh))]
    for title, df, _ in _sections(verdicts, lead=("study",)):
        if title == "Primary claims":
            title = "Primary claims (grouped by theorem; one row per claim and study)"
        lines += [f"## {title}", "", md_table(_md_verdict(df))]
    lines += ["## Figures", ""]
    for title, png in figures:
        lines += [f"### {title}", "", f"![{title}]({png})", "", f"(PDF: `{png[:-4]}.pdf`)", ""]
    lines += ["## Provenance of every file", "", md_table(prov)]
    lines += ["## Rules", "", RULES_INTRO, ""]
    for title, df in _rules_tables().items():
        lines += [f"### Rules: {title}", "", md_table(df)]
    for name, df in tables.items():
        lines += [f"## Table `{name}` (also `{name}.csv`)", "", md_table(df)]
    lines += ["## Configurations", ""]
    for name, cfg in _configs(studies):
        lines += [f"### {name}", "", "```ini", cfg, "```", ""]
    with open(os.path.join(outdir, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def _write_html(outdir, head, verdicts, pvh, files, shared, prov, tables, figures, notes,
                studies):
    e = html.escape
    fail = verdicts[(verdicts["kind"] == rules.INTEGRITY) & (verdicts["verdict"] == rules.FAIL)]
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>wordsens combined report"
        "</title><style>",
        "body{font-family:sans-serif;max-width:1400px;margin:2em auto;line-height:1.4}",
        "table.t{border-collapse:collapse;font-size:12px}table.t td,table.t th{border:1px solid "
        "#ccc;padding:2px 6px}img{max-width:100%}.note{color:#a60}",
        "tr.fail td{background:#fdd;color:#900}h1.fail{color:#c00}",
        "</style></head><body>",
        f"<h1 class='{'fail' if not fail.empty else 'ok'}'>{e(head)}</h1>",
        f"<p>wordsens combined report over {len(prov)} files in {len(studies)} studies · "
        f"{e(rules_line())}</p>",
    ]
    parts += [f"<p class='note'>note: {e(n)}</p>" for n in notes]
    parts += ["<h2>How the files are combined</h2>", f"<p>{e(combined.POLICY)}</p>",
              "<h3>Studies and files</h3>", html_table(files),
              "<h3>Grid points held by several studies (kept apart)</h3>",
              html_table(shared) if not shared.empty else "<p><em>(none)</em></p>",
              "<h2>Paper vs here</h2>", _html_verdicts(pvh, "")]
    for title, df, css in _sections(verdicts, lead=("study",)):
        style = " style='color:#c00'" if css == "fail" else ""
        parts += [f"<h2{style}>{e(title)}</h2>", _html_verdicts(df, css)]
    parts.append("<h2>Figures</h2>")
    for title, png in figures:
        with open(os.path.join(outdir, png), "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        parts += [f"<h3>{e(title)}</h3>",
                  f"<img alt='{e(title)}' src='data:image/png;base64,{data}'>",
                  f"<p>PDF: <a href='{e(png[:-4])}.pdf'>{e(png[:-4])}.pdf</a></p>"]
    parts += ["<h2>Provenance of every file</h2>", html_table(prov)]
    parts += ["<h2>Rules</h2>", f"<p>{e(RULES_INTRO)}</p>"]
    for title, df in _rules_tables().items():
        parts += [f"<h3>Rules: {e(title)}</h3>", html_table(df)]
    for name, df in tables.items():
        parts += [f"<h2>Table {e(name)}</h2>", html_table(df)]
    parts.append("<h2>Configurations</h2>")
    for name, cfg in _configs(studies):
        parts += [f"<h3>{e(name)}</h3>", f"<pre>{e(cfg)}</pre>"]
    parts.append("</body></html>")
    with open(os.path.join(outdir, "report.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
