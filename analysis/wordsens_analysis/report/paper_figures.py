"""Figures laid out like the paper's, for one study or several (reading/studies.py).

- Word sensitivity against n, one panel per model family and kind of texts that has records, one
  series per d (drf: per depth L) and per study where several studies hold the family (never
  pooled). The curve each claim is judged on is drawn solid with its interquartile band: the
  median certified bound S_upper for rf and drf, the median S for the attention models; rf's and
  drf's search S (a lower bound) dotted beside it.
- Generalization error after a one-word change against n, one panel per study and training mode
  that has records, one series per model and training-set size N (Δ: the best found).

What is drawn comes from figure_series (the statistics the verdicts judge); what the titles say
from figure_words (the paper's experiment, the data in words).
"""
from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from .. import rules
from ..claims import prepare_gen, prepare_ws
from ..reading import Catalogue
from ..twins import model_pieces
from . import figure_series, figure_words, plots

plt = plots.plt
FAMILIES = [("rf", "rf: random features (Thm 1)"),
            ("drf", "drf: deep random features, per depth L (Thm 2)"),
            ("raf", "raf: random attention (Thm 3)"),
            ("raf_relu", "raf_relu: ReLU attention (softmax contrast)")]
TRAININGS = {"finetune": "fine-tuned head", "retrain": "retrained head"}
DPI = 100  # many panels: the PNGs stay near 200-300 KB for the docs
STUDY_STYLES = [dict(ls="-", marker="o"), dict(ls="--", marker="s"), dict(ls=":", marker="^"),
                dict(ls="-.", marker="D"), dict(ls=(0, (5, 1)), marker="v")]
PANEL_W, PANEL_H = 5.6, 4.2


def _colours(values) -> dict:
    values = sorted(values)
    cmap = plt.get_cmap("viridis")
    if len(values) == 1:
        return {values[0]: cmap(0.35)}
    return {v: cmap(0.9 * i / (len(values) - 1)) for i, v in enumerate(values)}


def _grid(panels: list):
    """A figure with exactly one axes per panel: a last row shorter than the others has its
    unused places removed, never drawn empty."""
    ncols = 2 if len(panels) == 4 else min(len(panels), 3)  # four panels: two by two
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(PANEL_W * ncols, (PANEL_H + 2.2) * nrows),
                             squeeze=False, layout="constrained")
    flat = list(axes.ravel())
    for ax in flat[len(panels):]:
        fig.delaxes(ax)
    return fig, flat[:len(panels)]


def _label_of(key: dict, model: str, g: pd.DataFrame, several_studies: bool, catalogue) -> str:
    label = f"d={key['d']}" + (f", L={key['layers']}" if catalogue.is_deep(model) else "")
    if key["k_label"] and catalogue.has_feature_width(model) and g["k_label"].nunique() > 1:
        label += f", {key['k_label']}"
    if several_studies:
        label += f" ({key['series']})"
    return label


def _ws_panel(ax, g: pd.DataFrame, model: str, studies: list, catalogue) -> None:
    colour_key = "layers" if catalogue.is_deep(model) else "d"
    colours = _colours(g[colour_key].unique())
    several = g["series"].nunique() > 1
    judged = figure_series.judged_quantity(model)
    keys = ["series", "d", "layers", "heads", "k_label"]
    for key, gs in g.groupby(keys, sort=True):
        key = dict(zip(keys, key))
        st = STUDY_STYLES[studies.index(key["series"]) % len(STUDY_STYLES)]
        colour = colours[key[colour_key]]
        label = _label_of(key, model, g, several, catalogue)
        for quantity in (judged, "S") if judged != "S" else ("S",):
            t = figure_series.medians(gs, quantity)
            if t.empty:
                continue
            text = f"{label}: {figure_series.quantity_label(model, quantity)}"
            if quantity == judged:
                slope = figure_series.slope_text(figure_series.end_slope(gs, model, catalogue))
                text += f"\n    {slope}" if slope else ""
                ax.fill_between(t["n"], t["q25"], t["q75"], color=colour, alpha=0.18, lw=0)
                ax.plot(t["n"], t["median"], color=colour, lw=1.6, ms=5, label=text, **st)
            else:  # the search's lower bound beside the judged bound
                ax.plot(t["n"], t["median"], color=colour, lw=1.0, ls=":", marker=".", ms=6,
                        alpha=0.9, label=text)
        if catalogue.is_attention(model) and gs["n"].max() > key["d"] >= gs["n"].min():
            ax.axvline(key["d"], color=colour, lw=0.8, ls=":", alpha=0.8)
    ns = np.array(sorted(g["n"].unique()), dtype=float)
    ref = figure_series.medians(g, judged).groupby("n")["median"].median()
    if len(ns) >= 2 and (ref > 0).any():
        y0 = float(np.exp(np.log(ref[ref > 0]).mean()))
        n0 = float(np.exp(np.log(ns).mean()))
        ax.plot(ns, y0 * (ns / n0) ** -0.5, "k--", lw=1, alpha=0.4,
                label="guide: slope −1/2 (the rate of Thms 1–2)")
        ax.plot(ns, y0 * (ns / n0) ** 0.0, "k-.", lw=0.8, alpha=0.4,
                label="guide: slope 0 (flat, as Thm 3)")
    plots._iqr_note(ax, below=True)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plots._log_ticks(ax, "x", ns)
    plots._log_ticks(ax, "y")
    ax.set_xlabel(plots.N_LABEL)
    ax.set_ylabel("word sensitivity S (median over trials)", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)


def ws_panels(ws: pd.DataFrame) -> list:
    """(kind of texts, model, title) of every panel the figure draws: a family with records on
    that kind of texts, in the paper's order."""
    return [(source, model, title) for source in dict.fromkeys(ws["data"])
            for model, title in FAMILIES
            if ((ws["model"] == model) & (ws["data"] == source)).any()]


def _with_study_columns(df: pd.DataFrame) -> pd.DataFrame:
    """A table built by hand may lack the study and the texts: one study, synthetic texts."""
    if "series" not in df:
        df = df.assign(series="")
    if "data" not in df:
        df = df.assign(data="synthetic")
    return df


def ws_figure(ws: pd.DataFrame, outdir: str, sources_of: dict | None = None,
              catalogue: Catalogue | None = None) -> list:
    if ws.empty:
        return []
    catalogue = catalogue if catalogue is not None else Catalogue.before_1_7()
    ws = _with_study_columns(prepare_ws(ws, catalogue))
    panels = ws_panels(ws)
    if not panels:
        return []
    fig, axes = _grid(panels)
    studies = list(dict.fromkeys(ws["series"]))
    for ax, (source, model, title) in zip(axes, panels):
        g = ws[(ws["model"] == model) & (ws["data"] == source)]
        _ws_panel(ax, g, model, studies, catalogue)
        extra = "; dotted verticals: n = d" if catalogue.is_attention(model) else ""
        ax.set_title(f"{title}\ntexts: {figure_words.data_words(source)}{extra}", fontsize=10)
    shown = list(dict.fromkeys(ws.loc[ws["model"].isin([p[1] for p in panels]), "series"]))
    plots.suptitle(fig, ["Word sensitivity against n — " + figure_words.PAPER_WS,
                    figure_words.sources_line(sources_of or {}, shown), figure_words.READING],
                   fontsize=10)
    return plots._save(fig, outdir, "paper_ws_vs_n", dpi=DPI)


def gen_panels(gen: pd.DataFrame) -> list:
    """(study, training) of every panel of the generalization figure that has records."""
    return [(study, training) for study in dict.fromkeys(gen["series"])
            for training in sorted(gen["training"].unique())
            if ((gen["series"] == study) & (gen["training"] == training)).any()]


def gen_figure(gen: pd.DataFrame, outdir: str, sources_of: dict | None = None,
               catalogue: Catalogue | None = None) -> list:
    if gen.empty:
        return []
    catalogue = catalogue if catalogue is not None else Catalogue.before_1_7()
    gen = _with_study_columns(prepare_gen(gen, catalogue))
    gen = gen[gen["objective"] == "best"]
    if gen.empty:
        return []
    panels = gen_panels(gen)
    fig, axes = _grid(panels)
    sources_of = sources_of or {}
    for ax, (study, training) in zip(axes, panels):
        g = gen[(gen["series"] == study) & (gen["training"] == training)]
        combos = sorted(set(zip(g["N"], g["d"])))
        several_d = g["d"].nunique() > 1
        for (model, d, N), gm in g.groupby(["model", "d", "N"], sort=True):
            st = model_pieces.style(model)
            ls = ("-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))[
                combos.index((N, d)) % 6]
            t = figure_series.medians(gm, "E", positive=False)  # E = 0 is a right label
            label = f"{model}, N={N}" + (f", d={d}" if several_d else "") + ": median E"
            ax.fill_between(t["n"], t["q25"], t["q75"], color=st["color"], alpha=0.15, lw=0)
            ax.plot(t["n"], t["median"], color=st["color"], marker=st["marker"], ls=ls, lw=1.5,
                    ms=5, label=label)
        ax.axhline(4.0, color="gray", ls="--", lw=1, label="E = 4 (wrong label)")
        ax.axhline(rules.E_FAR, color="tab:blue", ls=":", lw=1,
                   label=f"E = {rules.E_FAR:g}: rf's head judged above it")
        ax.axhline(rules.E_NEAR, color="tab:red", ls=":", lw=1,
                   label=f"E = {rules.E_NEAR:g}: raf's head judged below it")
        plots._iqr_note(ax, below=True)
        ax.set_xscale("log")
        plots._log_ticks(ax, "x", g["n"].unique())
        ax.set_xlabel(plots.N_LABEL)
        ax.set_ylabel("test error E (median over trials, best Δ found)", fontsize=9)
        where = sources_of.get(study, study)
        ax.set_title(textwrap.fill(f"{TRAININGS.get(training, training)}: {where}", 60)
                     if where else TRAININGS.get(training, training), fontsize=10)
        ax.grid(True, alpha=0.3)
    plots.suptitle(fig, ["Generalization after a one-word change — " + figure_words.PAPER_GEN,
                    "lines: median over trials; bands: interquartile range over trials"],
                   fontsize=10)
    return plots._save(fig, outdir, "paper_gen_error", dpi=DPI)
