"""Figures laid out like the paper's, over the rows of several studies (combined.py).

- Word sensitivity against n, one panel per model family, one series per d (drf: per depth L),
  and per study where several studies hold the family (never pooled: one series per study).
- Generalization error after a one-word change against n, one panel per training mode, one row
  of panels per study, one series per model and training-set size N (Δ: the best found).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import catalogue, model_pieces, plots, regimes, rules, stats
from .head_claims import prepare_gen
from .ws_claims import prepare_ws

plt = plots.plt
FAMILIES = [("rf", "rf: random features (Thm 1)"),
            ("drf", "drf: deep random features, per depth L (Thm 2)"),
            ("raf", "raf: random attention (Thm 3)"),
            ("raf_relu", "raf_relu: ReLU attention (softmax contrast)")]
DPI = 100  # many panels: the PNGs stay near 200-300 KB for the docs
STUDY_STYLES = [dict(ls="-", marker="o"), dict(ls="--", marker="s"), dict(ls=":", marker="^"),
                dict(ls="-.", marker="D"), dict(ls=(0, (5, 1)), marker="v")]


def _colours(values) -> dict:
    values = sorted(values)
    cmap = plt.get_cmap("viridis")
    if len(values) == 1:
        return {values[0]: cmap(0.35)}
    return {v: cmap(0.9 * i / (len(values) - 1)) for i, v in enumerate(values)}


def _slope_text(g: pd.DataFrame, model: str) -> str:
    inside = g[regimes.ws_mask(g, model)]
    fit = stats.loglog_slope(inside, "n", "S", min_trials=rules.MIN_TRIALS,
                             min_points=rules.MIN_POINTS)
    if fit["reason"]:
        return "slope: not fitted"
    return f"slope {fit['estimate']:+.2f} [{fit['ci_low']:+.2f}, {fit['ci_high']:+.2f}]"


def ws_figure(ws: pd.DataFrame, outdir: str) -> list:
    if ws.empty:
        return []
    ws = prepare_ws(ws)
    families = [(m, t) for m, t in FAMILIES if (ws["model"] == m).any()]
    if not families:
        return []
    # One row of panels per data source (synthetic texts, real text): the paper's figures keep
    # them apart too.
    sources = list(dict.fromkeys(ws["data"])) if "data" in ws else [None]
    fig, axes = plt.subplots(len(sources), len(families),
                             figsize=(5.6 * len(families), 6.2 * len(sources)), squeeze=False)
    studies = list(dict.fromkeys(ws["series"])) if "series" in ws else [None]
    for ax, (source, (model, title)) in zip(axes.ravel(),
                                            [(s, f) for s in sources for f in families]):
        g = ws[ws["model"] == model]
        if source is not None:
            g = g[g["data"] == source]
            title = f"{title}\ntexts: {source}"
        if g.empty:
            ax.set_axis_off()
            continue
        colour_key = "layers" if catalogue.is_deep(model) else "d"
        colours = _colours(g[colour_key].unique())
        several = g["series"].nunique() > 1 if "series" in g else False
        keys = ["series"] if "series" in g else []
        keys += ["d", "layers", "k_label"]
        for key, gs in g.groupby(keys, sort=True):
            key = dict(zip(keys, key))
            st = STUDY_STYLES[studies.index(key.get("series")) % len(STUDY_STYLES)]
            colour = colours[key[colour_key]]
            label = f"d={key['d']}" + (f", L={key['layers']}" if catalogue.is_deep(model) else "")
            if key["k_label"] and catalogue.has_width(model) and g["k_label"].nunique() > 1:
                label += f", {key['k_label']}"
            if several:
                label += f" ({key['series']})"
            t = plots._mean_ci(gs, "S")
            plots._errorbar(ax, t, f"{label}: {_slope_text(gs, model)}", color=colour, **st)
            if gs["S_upper"].notna().any():
                up = gs.groupby("n")["S_upper"].mean()
                scope = gs.loc[gs["S_upper"].notna(), "scope"].iloc[0]
                ax.plot(up.index, up.values, color=colour, lw=0.9, ls=st["ls"], marker="_",
                        ms=8, alpha=0.7, label=f"{label}: mean S_upper (scope {scope})")
            if catalogue.is_attention(model) and gs["n"].max() > key["d"] >= gs["n"].min():
                ax.axvline(key["d"], color=colour, lw=0.8, ls=":", alpha=0.8)
        ns = np.array(sorted(g["n"].unique()), dtype=float)
        if len(ns) >= 2:
            ref = g.groupby("n")["S"].mean()
            y0 = float(np.exp(np.log(ref[ref > 0]).mean()))
            n0 = float(np.exp(np.log(ns).mean()))
            ax.plot(ns, y0 * (ns / n0) ** -0.5, "k--", lw=1, alpha=0.4, label="guide: slope −1/2")
            ax.plot(ns, y0 * (ns / n0) ** 0.0, "k-.", lw=0.8, alpha=0.4, label="guide: slope 0")
        ax.set_xscale("log")
        ax.set_yscale("log")
        plots._log_ticks(ax, "x", ns)
        plots._log_ticks(ax, "y")
        ax.set_xlabel(plots.N_LABEL)
        ax.set_ylabel("word sensitivity S (mean ± 95% CI over trials)", fontsize=8)
        extra = "; dotted verticals: n = d" if catalogue.is_attention(model) else ""
        ax.set_title(f"{title}{extra}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)
    fig.tight_layout()
    return plots._save(fig, outdir, "paper_ws_vs_n", dpi=DPI)


def gen_figure(gen: pd.DataFrame, outdir: str) -> list:
    if gen.empty:
        return []
    gen = prepare_gen(gen)
    gen = gen[gen["objective"] == "best"]
    if gen.empty:
        return []
    studies = list(dict.fromkeys(gen["series"])) if "series" in gen else [None]
    trainings = sorted(gen["training"].unique())
    fig, axes = plt.subplots(len(studies), len(trainings),
                             figsize=(6.0 * len(trainings), 4.4 * len(studies)), squeeze=False)
    for i, study in enumerate(studies):
        gs = gen if study is None else gen[gen["series"] == study]
        # one line style per (N, d) of the study, the colour and marker per model
        combos = sorted(set(zip(gs["N"], gs["d"])))
        for j, training in enumerate(trainings):
            ax = axes[i][j]
            g = gs[gs["training"] == training]
            for (model, d, N), gm in g.groupby(["model", "d", "N"], sort=True):
                st = model_pieces.style(model)
                ls = ("-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))[
                    combos.index((N, d)) % 6]
                several_d = g["d"].nunique() > 1
                label = f"{model}, N={N}" + (f", d={d}" if several_d else "")
                plots._errorbar(ax, plots._mean_ci(gm, "E"), label, color=st["color"],
                                marker=st["marker"], ls=ls)
            ax.axhline(4.0, color="gray", ls="--", lw=1, label="E = 4 (wrong label)")
            ax.axhline(0.0, color="gray", ls=":", lw=1, label="E = 0 (right label)")
            ax.set_xscale("log")
            plots._log_ticks(ax, "x", g["n"].unique())
            ax.set_xlabel(plots.N_LABEL)
            ax.set_ylabel("test error E, mean ± 95% CI (best Δ found)", fontsize=8)
            where = f" — {study}" if study else ""
            ax.set_title(f"Generalization after a one-word change: {training}{where}",
                         fontsize=9)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    return plots._save(fig, outdir, "paper_gen_error", dpi=DPI)
