"""The report of one or several results files: report.md, report.html (self-contained),
verdicts.csv, paper_vs_here.csv, provenance.csv, studies.csv, the summary tables and figures.

One writer for every report: the files are grouped into studies (reading/studies.py; a single
file is one study), one verdict table is built over all of them (verdicts.py), and the same
sections are written whatever the number of files; the parts that only exist with several files
(how they are combined, grid points shared by studies) are left out with one.
"""
from __future__ import annotations

import base64
import html
import os
import re

import numpy as np
import pandas as pd

from .. import claims, rules
from ..claims import multi_word_claims, verdicts
from ..reading import (POLICY, SERIES, build_studies, combined_frames, provenance_table,
                       shared_points, study_table)
from ..rules import stats
from . import background
from .first_line import first_line, input_state
from .paper_vs_here import paper_vs_here

WS_KEYS = ["model", "layers", "d", "k", "n"]
GEN_KEYS = ["model", "training", "objective", "d", "N", "k", "n"]
STANDIN = ("GloVe × Brown: static word vectors (no positions, no context, d ≤ 100) standing in "
           "for the paper's BERT-base layer 0 × IMDb (d = 768); IMDb text cannot be installed")
# The encoder files of analysis/datasets/encoder_brown.py are named minilm_brown_l<layer>.h5.
ENCODER_FILE = re.compile(r"minilm_brown_l(\d+)")
ENCODER_STANDIN = ("all-MiniLM-L6-v2 × Brown: this encoder's layer 0 on Brown windows stands in "
                   "for the paper's BERT-base layer 0 on IMDb reviews; d = 384 here, 768 in the "
                   "paper (IMDb text cannot be installed)")
ENCODER_CONTEXTUAL = ("all-MiniLM-L6-v2 × Brown, contextual layer {layer}: beyond the paper, "
                      "which used layer 0 (BERT-base on IMDb, d = 768); d = 384 here")

RULES_INTRO = (
    "Every claim is judged as the statement it is: with probability ≥ 1 − η over the weights "
    f"(η = {rules.TOLERATED:g}), for every text, for every n of its regime (or past some n0). "
    "Only the grid points inside the regime are used (the others are listed in the row), in "
    "every group of the axes it speaks of (each d, depth L, width k as the grid gives it, N, "
    "fraction f), with the kind of evidence that can decide it: S is a lower bound attained by "
    "a stored witness, so it confirms an Ω(·) claim and refutes an O(·) claim only by a level "
    "(S·√n above the largest constant a certified bound can have), never by its slope; S_upper "
    "is a certified upper bound and confirms O(·) claims; two lower bounds never order two "
    "models; E found by a search that minimises it is no certificate of a large E. Statistics "
    "are computed per trial (all models and all n of a trial share its texts, so a trial gives "
    "a whole curve): slopes over the end of the design (its last two doublings of n), levels "
    "and contrasts at every n (each trial's worst n), fitted limits. A test confirms when the "
    "median is on the confirming side (exact sign test) and at most ⌊η·m⌋ of the m trials "
    "fail; it refutes when significantly more than η·m trials are on the refuting side. "
    f"Every test is one-sided at α = {rules.ALPHA}; a group needing several tests takes the "
    "largest p, a claim the largest over its groups (intersection-union tests); any refuted "
    "group contradicts it (Bonferroni over the groups' tests); primary rows are decided on "
    "Holm-adjusted p-values across the primary rows of this report, the claims beyond the "
    "paper in a family of their own, outside the first line's count. A planned in-regime point "
    f"with fewer done trials than planned, fewer than {rules.MIN_POINTS} values of n in a "
    "group, a partner's point short of trials, a NaN bound or a failed integrity check of a "
    "column the claim reads gives *inconclusive* with the reason. The tolerance δ of an O(1/√n) "
    "claim is the bound's own finite-n drift at the group's sizes. Rules, regimes, their "
    "reasons, the error simulation and the changelog: docs/VERDICT_RULES.md."
)
PRIMARY_SHOWN = ["theorem", "name", "claim", "verdict", "statistic", "estimate", "ci_low",
                 "ci_high", "trials", "p_confirm", "p_confirm_holm", "reason", "n_used",
                 "outside_regime"]
INTEGRITY_SHOWN = ["claim", "verdict", "statistic", "estimate", "trials", "reason", "name"]
SECONDARY_SHOWN = ["claim", "theorem", "verdict", "statistic", "estimate", "ci_low", "ci_high",
                   "trials", "p_confirm", "reason", "n_used"]


# --- tables -----------------------------------------------------------------------------------

def fmt(v) -> str:
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
    body = ["| " + " | ".join(fmt(v).replace("|", "\\|") for v in row) + " |"
            for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body]) + "\n"


def html_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "<p><em>(no rows)</em></p>"
    return df.to_html(index=False, na_rep="–", float_format=lambda v: f"{v:.4g}", border=0,
                      classes="t")


def _point_keys(df: pd.DataFrame, keys) -> list:
    """The grid keys `df` has, with H after the depth where a study runs more than one head."""
    out = [k for k in keys if k in df]
    if "heads" in df and (df["heads"] != 1).any():
        out.insert(out.index("layers") + 1 if "layers" in out else 1, "heads")
    return out


def summaries(ws, gen, several, prefix: tuple = ()) -> dict:
    """Per grid point statistics of S (and S_upper's mean), of S_m and of E; `prefix`: leading
    group columns (the study, in a report over several studies)."""
    out = {}
    if not ws.empty:
        keys = [*prefix, *_point_keys(ws, WS_KEYS)]
        s = stats.summarize(ws, keys, "S")
        if "S_upper" in ws and ws["S_upper"].notna().any():
            up = stats.summarize(ws.dropna(subset=["S_upper"]), keys, "S_upper")
            s = s.merge(up[[*keys, "mean"]].rename(columns={"mean": "S_upper_mean"}), on=keys,
                        how="left")
        out["ws_summary"] = s
    if several is not None and not several.empty:
        keys = [*prefix, *_point_keys(several, (*WS_KEYS, "words"))]
        out["multi_word_summary"] = stats.summarize(several, keys, "S")
    if not gen.empty:
        keys = [*prefix, *_point_keys(gen, GEN_KEYS)]
        out["gen_summary"] = stats.summarize(gen, keys, "E")
    return out


def rules_line() -> str:
    return (f"verdict rules {rules.RULES_VERSION} (hash {claims.RULES_HASH}; "
            "changelog in docs/VERDICT_RULES.md)")


def judged_claims(table: pd.DataFrame) -> set:
    """The claims the report judges: those with a primary or extension row, except the claims
    whose model no study holds (verdicts.not_in_study), which the first line names instead."""
    own = table[table["kind"].isin([rules.PRIMARY, rules.EXTENSION])
                & ~verdicts.not_in_study(table)]
    return {c.split("[")[0] for c in own["claim"]}


def rules_tables(judged: set | None = None) -> dict:
    """The rules' texts; `judged`: the claims whose rules are shown (all when None), so that a
    focused study's report does not explain claims about models it never ran."""
    def of(extension: bool) -> pd.DataFrame:
        return pd.DataFrame([(c.id, c.theorem, c.name, c.model, c.regime, c.rule)
                             for c in claims.CLAIMS.values() if c.extension == extension
                             and (judged is None or c.id in judged)],
                            columns=["claim", "theorem", "name", "model", "regime", "rule"])
    secondary = pd.DataFrame(list(rules.SECONDARY_RULES.items()), columns=["rows", "rule"])
    integrity = pd.DataFrame(list(rules.INTEGRITY_RULES.items()), columns=["check", "rule"])
    beyond = of(True)
    beyond["rule"] = beyond["rule"] + "; " + rules.EXTENSION_RULE
    out = {"primary claims": of(False), "claims beyond the paper": beyond}
    if judged is not None:  # a claims' table with none judged is left out, not shown empty
        out = {k: v for k, v in out.items() if not v.empty}
    return {**out, "secondary rows": secondary, "integrity checks": integrity}


def sections(table: pd.DataFrame, lead: tuple = ()) -> list:
    """(title, table, css class) in reading order: integrity failures, primary (the claims the
    report judges; the first line names the others), the claims beyond the paper (when the file
    has any), integrity, secondary. `lead`: columns shown first in every table (the study, with
    several)."""
    integ = table[table["kind"] == rules.INTEGRITY].rename(columns={"trials": "records"})
    failed = integ[integ["verdict"] == rules.FAIL]
    shown = [*lead, *[c if c != "trials" else "records" for c in INTEGRITY_SHOWN]]
    out = []
    if not failed.empty:
        out.append(("Integrity checks that FAIL (the numbers below cannot be trusted)",
                    failed[shown], "fail"))
    judged = table[(table["kind"] == rules.PRIMARY) & ~verdicts.not_in_study(table)]
    out.append(("Primary claims", judged[[*lead, *PRIMARY_SHOWN]], "primary"))
    beyond = table[table["kind"] == rules.EXTENSION]
    if not beyond.empty:
        out.append(("Claims beyond the paper (a Holm family of their own)",
                    beyond[[*lead, *PRIMARY_SHOWN]], "primary"))
    out.append(("Integrity checks", integ[integ["verdict"] != rules.FAIL][shown], ""))
    out.append(("Secondary rows (breakdown)",
                table[table["kind"] == rules.SECONDARY][[*lead, *SECONDARY_SHOWN]], ""))
    return out


def texts_description(study) -> str:
    data = study.data
    if data.startswith("embeddings:"):
        encoder = ENCODER_FILE.search(data)
        if encoder:
            layer = int(encoder.group(1))
            what = ENCODER_STANDIN if layer == 0 else ENCODER_CONTEXTUAL.format(layer=layer)
            return f"{data} ({what})"
        return f"{data} ({STANDIN})" if "glove" in data.lower() else data
    return f"{data} (Gaussian tokens)" if data == "synthetic" else data


def _pick_witness(witnesses: list):
    """A raf witness to draw: the longest text up to n = 40 (larger heatmaps get unreadable)."""
    cands = [w for w in witnesses if w.model == "raf" and w.X is not None and w.W is not None
             and not w.words]  # the heatmaps show one changed word
    if not cands:
        return None
    small = [w for w in cands if w.X.shape[0] <= 40]
    if small:
        return min(small, key=lambda w: (-w.X.shape[0], w.task_id))
    return min(cands, key=lambda w: (w.X.shape[0], w.task_id))


# --- the report -------------------------------------------------------------------------------

def _without_absent(df: pd.DataFrame, absent: set) -> pd.DataFrame:
    """A per-claim table as the report shows it: without the claims no study holds (their rows
    stay in the CSV files; the first line names them once)."""
    return df[~df["claim"].isin(absent)] if not df.empty else df


def _witness_note(studies, witness) -> str | None:
    """Why the attention heatmaps are missing, as a note only when witnesses were asked for
    (save_witness, or any witness in a file) and yet no raf witness can be drawn: a study run
    without --save-witness (the default) lacks them by design, which the figures section says
    without a warning."""
    if witness is not None:
        return None
    files = [res for s in studies for res in s.files]
    asked = any(int(res.attrs.get("save_witness", 0) or 0) or res.witnesses for res in files)
    if not asked:
        return None
    return ("no raf witness with X and W in the file although witnesses were saved (the "
            "attention heatmaps need one)")


def write_report(results: list, outdir: str) -> tuple:
    """Writes the report of `results` (read_results of each file) into outdir; returns
    (verdict table, notes)."""
    os.makedirs(outdir, exist_ok=True)
    studies, notes, blocks = build_studies(results)
    for s in studies:
        notes += s.notes
    several = len(studies) > 1
    where = "in this file" if len(results) == 1 else "in any of the files"
    table = verdicts.judge_studies(studies, where)
    table.to_csv(os.path.join(outdir, "verdicts.csv"), index=False)
    per_claim = verdicts.claim_verdicts(table)
    # The verdicts under the other tolerance settings, on another core while the figures draw.
    sensitivity_of = background.start(lambda: verdicts.sensitivity(studies, where, table))
    texts_of = {s.label: texts_description(s) for s in studies}
    pvh = paper_vs_here(table, texts_of)
    files = study_table(studies, blocks)
    shared = shared_points(studies) if several else pd.DataFrame()
    prov = provenance_table(studies)
    ws, gen = combined_frames(studies)
    several_words = _concat([s.multi_word for s in studies])
    prefix = (SERIES,) if several else ()
    tables = summaries(ws, gen, several_words, prefix)
    tables = {k: v.rename(columns={SERIES: "study"}) for k, v in tables.items()}
    witness_checks = [s.witness_checks for s in studies if s.witness_checks is not None]
    if witness_checks:
        checks = pd.concat(witness_checks, ignore_index=True)
        tables["witness_check"] = checks
        if checks["rel_diff_upper"].notna().any():
            notes.append("rf upper bounds recomputed from V: max relative difference = "
                         f"{checks['rel_diff_upper'].max():.2e}")
    for name, df in (("claims", per_claim), ("paper_vs_here", pvh), ("provenance", prov),
                     ("studies", files), *tables.items()):
        df.to_csv(os.path.join(outdir, f"{name}.csv"), index=False)
    figures, witness = _figures(studies, ws, gen, several_words, table, outdir)
    sensitivity = sensitivity_of()
    sensitivity.to_csv(os.path.join(outdir, "sensitivity.csv"), index=False)
    why = _witness_note(studies, witness)
    if why:
        notes.append(why)
    absent = set(table.loc[verdicts.not_in_study(table), "claim"])
    parts = dict(head=first_line(table, results), table=table,
                 pvh=_without_absent(pvh, absent), files=files, shared=shared, prov=prov,
                 tables=tables, figures=figures, notes=notes, studies=studies, several=several,
                 per_claim=_without_absent(per_claim, absent),
                 sensitivity=_without_absent(sensitivity, absent),
                 judged=judged_claims(table), no_heatmap=_no_heatmap(studies, ws, witness),
                 unclean=bool(input_state(results)))
    _write_md(outdir, **parts)
    _write_html(outdir, **parts)
    return table, notes


def _concat(frames: list) -> pd.DataFrame:
    frames = [f for f in frames if f is not None and not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _figures(studies, ws, gen, several_words, table, outdir) -> tuple:
    """[(title, caption, png name)] and the witness drawn (None when no file has one). The
    figures in the paper's layout (one panel per model family) for one study or several; one
    study adds its overview (every model on one panel per d, with each claim's judged slope and
    verdict)."""
    import warnings

    import matplotlib  # only once the input is good: slow to import

    # Labels carry names from the files (a study is its file's name, a model its /models row):
    # text, never mathtext, so that a `$` in a name is drawn as a `$`; a control character in a
    # name has no glyph, and matplotlib's warning would print it raw to the terminal.
    with matplotlib.rc_context({"text.parse_math": False}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from current font")
        return _draw(studies, ws, gen, several_words, table, outdir)


def _draw(studies, ws, gen, several_words, table, outdir) -> tuple:
    from . import figure_words as words, paper_figures, plots, regime_map

    catalogue = studies[0].catalogue  # every study's is the report's (reading.catalogue_of)
    witnesses = [w for s in studies for res in s.files for w in res.witnesses]
    witness = _pick_witness(witnesses)
    sources = words.sources(studies)

    def data_of(df) -> str:
        labels = list(dict.fromkeys(df[SERIES])) if SERIES in df else []
        return "; ".join(sources[label] for label in labels if label in sources)

    def caption(paper_ref: str, df) -> str:
        data = data_of(df)
        return f"{paper_ref[0].upper()}{paper_ref[1:]}." + (f" Data: {data}." if data else "")

    ws_caption, gen_caption = caption(words.PAPER_WS, ws), caption(words.PAPER_GEN, gen)
    # The paper's layout first, for one study as for several: the figures a reader puts beside
    # the paper's.
    drawn = [("Word sensitivity against n, per model family (the paper's layout)", ws_caption,
              paper_figures.ws_figure(ws, outdir, sources, catalogue)),
             ("Generalization error after a one-word change against n, per training mode (the "
              "paper's layout)", gen_caption,
              paper_figures.gen_figure(gen, outdir, sources, catalogue))]
    if len(studies) == 1:
        s = studies[0]
        drawn += [("Word sensitivity against n, every model on one panel per d, with each "
                   "claim's judged slope and verdict", ws_caption,
                   plots.ws_figure(s.ws, outdir, table, sources, catalogue)),
                  ("Generalization error after a one-word change, every search objective",
                   gen_caption, plots.gen_figure(s.gen, outdir, sources))]
    beyond = f"{words.BEYOND[0].upper()}{words.BEYOND[1:]}."
    drawn += [("Attention before and after the one-word change (raf witness)", beyond,
               plots.witness_figure(witness, outdir)),
              ("Sensitivity to m changed words against the changed fraction m/n",
               caption(words.BEYOND, several_words),
               plots.multi_word_figure(multi_word_claims.all_words(ws, several_words, catalogue),
                                       outdir, sources, catalogue))]
    figures = [(title, text, os.path.basename(paths[0])) for title, text, paths in drawn
               if paths]
    mapped = ws.drop(columns=SERIES) if len(studies) == 1 and not ws.empty else ws
    figures += [(t, beyond, os.path.basename(p))
                for t, p in regime_map.figures(mapped, outdir, catalogue)]
    return figures, witness


def _configs(studies) -> list:
    out = []
    for s in studies:
        for res in s.files:
            cfg = res.attrs.get("config_text")
            if cfg:
                out.append((f"{s.label}: {res.path}", str(cfg).rstrip()))
    return out


def _md_verdict(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    if "verdict" in df:
        df["verdict"] = df["verdict"].map(lambda v: f"**❌ {v}**" if v == rules.FAIL else v)
    return df


def _meta(prov, studies) -> str:
    return (f"wordsens report over {len(prov)} file{'s' if len(prov) != 1 else ''} in "
            f"{len(studies)} stud{'ies' if len(studies) != 1 else 'y'} · {rules_line()}")


SENSITIVITY_TEXT = (
    "Each primary verdict as judged and under other constants: every tolerance halved and "
    "doubled (δ of the O(1/√n) claims, the flat window of Ω(1), the multi-word window), and "
    "the attention claims' regime cut at n ≤ d/2, n ≤ d (the rules) and all n (the other "
    "claims' regimes do not depend on n against d). A verdict that changes here hinges on a "
    "constant.")
CLAIMS_TEXT = ("One row per claim, whatever the number of studies that judge it: contradicted "
               "when a study contradicts it, else the strongest verdict a study gives it.")


NO_HEATMAP = ("The attention heatmaps (a raf witness) need a study run with --save-witness; "
              "this one was run without it.")


def _no_heatmap(studies, ws, witness) -> str:
    """The figures section's word on the missing heatmaps when the study has raf but saved no
    witness (by design, not a fault: _witness_note covers witnesses asked for and missing)."""
    if witness is not None or _witness_note(studies, witness) or ws.empty or "model" not in ws:
        return ""
    return NO_HEATMAP if (ws["model"] == "raf").any() else ""


def _split_sections(table, lead) -> tuple:
    """The failing integrity checks (shown right under the first line: every number below hangs
    on them) and the other sections (after the figures)."""
    secs = sections(table, lead=lead)
    return [s for s in secs if s[2] == "fail"], [s for s in secs if s[2] != "fail"]


# Reading order of both reports: the answer first (first line, failing checks, one verdict per
# claim), then the figures that back it, then the tables behind the verdicts, and last what a
# reader consults (how files combine, provenance, the rules of the claims judged, data tables,
# configurations).

def _write_md(outdir, head, table, pvh, files, shared, prov, tables, figures, notes, studies,
              several, per_claim, sensitivity, judged, no_heatmap, unclean):
    lead = ("study",) if several else ()
    failing, rest = _split_sections(table, lead)
    lines = [f"# {head}", "", _meta(prov, studies), ""]
    for title, df, _ in failing:
        lines += [f"## {title}", "", md_table(_md_verdict(df))]
    lines += ["## Claims", "", CLAIMS_TEXT, "", md_table(_md_verdict(per_claim))]
    lines += ["## Figures", ""]
    for title, text, png in figures:
        lines += [f"### {title}", "", f"![{title}]({png})", "", text, "",
                  f"(PDF: `{png[:-4]}.pdf`)", ""]
    if no_heatmap:
        lines += [no_heatmap, ""]
    if notes:
        lines += ["## Notes", ""] + [f"> note: {n}" for n in notes] + [""]
    lines += ["## Paper vs here", "",
              "Each claim of the paper and the trend its experiments report, beside the "
              "statistic measured here, per study (one row per primary row below).", "",
              md_table(_md_verdict(pvh))]
    for title, df, _ in rest:
        if title == "Primary claims" and several:
            title = "Primary claims (grouped by theorem; one row per claim and study)"
        lines += [f"## {title}", "", md_table(_md_verdict(df))]
    lines += ["## Sensitivity of the primary verdicts", "", SENSITIVITY_TEXT, "",
              md_table(sensitivity)]
    if len(prov) > 1:
        lines += ["## How the files are combined", "", POLICY, "",
                  "### Studies and files", "", md_table(files)]
        if several:
            lines += ["### Grid points held by several studies (kept apart)", "",
                      md_table(shared) if not shared.empty else "_(none)_\n"]
    lines += ["## Provenance of every file", "", md_table(prov)]
    lines += ["## Rules", "", RULES_INTRO, ""]
    for title, df in rules_tables(judged).items():
        lines += [f"### Rules: {title}", "", md_table(df)]
    for name, df in tables.items():
        lines += [f"## Table `{name}` (also `{name}.csv`)", "", md_table(df)]
    lines += ["## Configurations", ""]
    for name, cfg in _configs(studies):
        lines += [f"### {name}", "", "```ini", cfg, "```", ""]
    with open(os.path.join(outdir, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def html_verdicts(df: pd.DataFrame, css: str) -> str:
    """A verdict table with integrity failures in red and each verdict coloured."""
    colours = {rules.FAIL: "#c00", rules.CONFIRMED: "#060", rules.CONTRADICTED: "#c00",
               rules.SUPPORTED_RESTRICTED: "#470", rules.SUPPORTED_SEARCH: "#470",
               rules.NOT_REFUTED_LB: "#470"}
    if df.empty:
        return "<p><em>(no rows)</em></p>"
    e = html.escape
    head = "".join(f"<th>{e(str(c))}</th>" for c in df.columns)
    body = []
    for rec in df.to_dict("records"):
        cls = " class='fail'" if rec.get("verdict") == rules.FAIL else ""
        cells = []
        for c, v in rec.items():
            text = e(fmt(v))
            if c == "verdict" and v in colours:
                text = f"<b style='color:{colours[v]}'>{text}</b>"
            cells.append(f"<td>{text}</td>")
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return (f"<table class='t {css}'><thead><tr>{head}</tr></thead><tbody>"
            + "".join(body) + "</tbody></table>")


def _write_html(outdir, head, table, pvh, files, shared, prov, tables, figures, notes, studies,
                several, per_claim, sensitivity, judged, no_heatmap, unclean):
    e = html.escape
    lead = ("study",) if several else ()
    failing, rest = _split_sections(table, lead)
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(head)}</title><style>",
        "body{font-family:sans-serif;max-width:1400px;margin:2em auto;line-height:1.4}",
        "table.t{border-collapse:collapse;font-size:12px}table.t td,table.t th{border:1px solid "
        "#ccc;padding:2px 6px}img{max-width:100%}.note{color:#a60}",
        "tr.fail td{background:#fdd;color:#900}h1.fail{color:#c00}h1.partial{color:#a60}",
        # Figures two abreast, so that the first screen holds the verdicts and the first figures.
        ".figs{display:flex;flex-wrap:wrap;gap:1em}.figs figure{margin:0;flex:1 1 560px;"
        "max-width:690px}.figs figcaption{font-weight:bold;font-size:14px}"
        ".figs img{max-height:460px;object-fit:contain}",
        "</style></head><body>",
        f"<h1 class='{'fail' if failing else 'partial' if unclean else 'ok'}'>{e(head)}</h1>",
        f"<p>{e(_meta(prov, studies))}</p>",
    ]
    for title, df, css in failing:
        parts += [f"<h2 style='color:#c00'>{e(title)}</h2>", html_verdicts(df, css)]
    parts += ["<h2>Claims</h2>", f"<p>{e(CLAIMS_TEXT)}</p>", html_verdicts(per_claim, "")]
    parts += ["<h2>Figures</h2>", "<div class='figs'>"]
    for title, text, png in figures:
        with open(os.path.join(outdir, png), "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        parts += [f"<figure><figcaption>{e(title)}</figcaption>",
                  f"<img alt='{e(title)}' src='data:image/png;base64,{data}'>",
                  f"<p class='caption'>{e(text)}</p>",
                  f"<p>PDF: <a href='{e(png[:-4])}.pdf'>{e(png[:-4])}.pdf</a></p></figure>"]
    parts.append("</div>")
    if no_heatmap:
        parts.append(f"<p>{e(no_heatmap)}</p>")
    if notes:
        parts.append("<h2>Notes</h2>")
        parts += [f"<p class='note'>note: {e(n)}</p>" for n in notes]
    parts += ["<h2>Paper vs here</h2>", html_verdicts(pvh, "")]
    for title, df, css in rest:
        parts += [f"<h2>{e(title)}</h2>", html_verdicts(df, css)]
    parts += ["<h2>Sensitivity of the primary verdicts</h2>", f"<p>{e(SENSITIVITY_TEXT)}</p>",
              html_table(sensitivity)]
    if len(prov) > 1:
        parts += ["<h2>How the files are combined</h2>", f"<p>{e(POLICY)}</p>",
                  "<h3>Studies and files</h3>", html_table(files)]
        if several:
            parts += ["<h3>Grid points held by several studies (kept apart)</h3>",
                      html_table(shared) if not shared.empty else "<p><em>(none)</em></p>"]
    parts += ["<h2>Provenance of every file</h2>", html_table(prov)]
    parts += ["<h2>Rules</h2>", f"<p>{e(RULES_INTRO)}</p>"]
    for title, df in rules_tables(judged).items():
        parts += [f"<h3>Rules: {e(title)}</h3>", html_table(df)]
    for name, df in tables.items():
        parts += [f"<h2>Table {e(name)}</h2>", html_table(df)]
    parts.append("<h2>Configurations</h2>")
    for name, cfg in _configs(studies):
        parts += [f"<h3>{e(name)}</h3>", f"<pre>{e(cfg)}</pre>"]
    parts.append("</body></html>")
    with open(os.path.join(outdir, "report.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
