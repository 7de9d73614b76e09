"""Figures of the report (PNG and PDF, Agg backend: no display needed)."""
from __future__ import annotations

import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from matplotlib.patches import Patch  # noqa: E402

from .. import claims, rules  # noqa: E402
from ..reading import Catalogue  # noqa: E402
from ..rules import regimes  # noqa: E402
from ..twins import attention, perturbed, style as _style  # noqa: E402
from . import figure_series, figure_words  # noqa: E402

OBJECTIVE_STYLE = {"loss": "-", "align": "--", "best": ":"}
S_LABEL = "word sensitivity S = ‖φ(Xⁱ(Δ)) − φ(X)‖ / ‖φ(X)‖  (dimensionless)"
N_LABEL = "sequence length n  (tokens per sample)"
LEGEND_PT = 8  # the smallest legend a reader can read beside the paper


def _plain_tick_labels(fig) -> None:
    """Log axes' tick labels as plain numbers where mathtext is off (the report draws names from
    files as text, text.parse_math False): matplotlib's default log formatter writes
    `$\\mathdefault{10^{-1}}$`, which would then be drawn as those very characters."""
    if matplotlib.rcParams["text.parse_math"]:
        return
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for get, put in ((axis.get_major_formatter, axis.set_major_formatter),
                             (axis.get_minor_formatter, axis.set_minor_formatter)):
                f = get()
                if isinstance(f, ticker.LogFormatterMathtext):
                    put(ticker.LogFormatter(base=f._base, labelOnlyBase=f.labelOnlyBase,
                                            minor_thresholds=f.minor_thresholds))


def _save(fig, outdir: str, name: str, dpi: int = 130) -> list:
    _plain_tick_labels(fig)
    paths = []
    for ext in ("png", "pdf"):
        p = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(p, dpi=dpi, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def suptitle(fig, lines: list, fontsize: float = 9) -> None:
    """The figure's title lines, each wrapped to the figure's width: a line wider than the
    panels would widen the saved image (tight bounding box) and shrink the panels in it."""
    width = int(15 * 9 / fontsize * fig.get_figwidth())
    text = "\n".join(textwrap.fill(part, width) for line in lines if line
                     for part in line.split("\n"))  # a line's own breaks stay breaks
    fig.suptitle(text, fontsize=fontsize)


def _log_ticks(ax, axis: str, values=None) -> None:
    """Plain-number labels: at the grid's own values when there are few of them (every n of the
    study gets a label), else at 1, 2, 5 × 10^k."""
    a = ax.xaxis if axis == "x" else ax.yaxis
    if values is not None and 0 < len(values) <= 10:
        a.set_major_locator(ticker.FixedLocator(sorted(values)))
    else:
        a.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    a.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_formatter(ticker.NullFormatter())


def _median_band(ax, t: pd.DataFrame, label: str, color, **style) -> None:
    """The median over trials at each n (figure_series.medians) as a line, its interquartile
    range as a band: the statistic the verdicts judge, and how far the trials spread."""
    ax.fill_between(t["n"], t["q25"], t["q75"], color=color, alpha=0.15, lw=0)
    ax.plot(t["n"], t["median"], color=color, label=label, lw=1.5, ms=5, **style)


def _iqr_note(ax, below: bool = False) -> None:
    """The legend, outside the panel so that it never hides data (right of it, or below it in
    the paper's grid of panels), with the bands' meaning."""
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Patch(color="0.6", alpha=0.4))
    labels.append("band: interquartile range over trials")
    if below:
        ax.legend(handles, labels, fontsize=LEGEND_PT, loc="upper center",
                  bbox_to_anchor=(0.5, -0.16), ncol=1)
    else:
        ax.legend(handles, labels, fontsize=LEGEND_PT, loc="upper left",
                  bbox_to_anchor=(1.02, 1.0))


SHORT_VERDICT = {rules.NOT_REFUTED_LB: "not refuted (LB only)",
                 rules.SUPPORTED_RESTRICTED: "supported (restricted)",
                 rules.SUPPORTED_SEARCH: "supported (search only)"}


def _verdict_of(verdicts, model: str) -> str:
    """'Thm 1: confirmed' from the model's primary (or extension) row, '' when there is none."""
    if verdicts is None or verdicts.empty:
        return ""
    claim = claims.ws_claim_of_model(model)
    row = verdicts[verdicts["kind"].isin([rules.PRIMARY, rules.EXTENSION])
                   & (verdicts["claim"] == (claim.id if claim else ""))]
    if row.empty:
        return ""
    r = row.iloc[0]
    return f"{r['theorem']}: {SHORT_VERDICT.get(r['verdict'], r['verdict'])}"


def _series_style(model: str, L, H, wd: pd.DataFrame, several_h, catalogue) -> dict:
    st = _style(model)
    if catalogue.is_deep(model):  # tell the depths apart
        i = (int(L) - 1) % 4
        st = dict(st, ls=("-", "--", ":", "-.")[i], marker=("s", "D", "P", "X")[i])
    elif several_h.get(model, 1) > 1:  # and the heads
        i = sorted(wd.loc[wd["model"] == model, "heads"].unique()).index(H) % 4
        st = dict(st, ls=("-", "--", ":", "-.")[i], marker=("s", "D", "P", "X")[i])
    return st


def _sources_of(df: pd.DataFrame, sources_of: dict | None) -> str:
    labels = list(dict.fromkeys(df["series"])) if "series" in df else []
    return figure_words.sources_line(sources_of or {}, labels) if labels else ""


def ws_figure(ws: pd.DataFrame, outdir: str, verdicts=None, sources_of=None,
              catalogue: Catalogue | None = None) -> list:
    """WS against n on log–log axes, one panel per d, every model: the median over trials of the
    quantity its claim is judged on (S_upper for rf and drf, S otherwise) with its interquartile
    band, rf's and drf's search S dotted beside it, the judged slope (figure_series.end_slope)
    and the primary verdict in the legend; guides of slope −1/2 and 0; the attention claims'
    regime boundary n = d."""
    if ws.empty:
        return []
    catalogue = catalogue if catalogue is not None else Catalogue.before_1_7()
    ws = ws.copy()
    for column in ("layers", "heads"):
        if column not in ws:
            ws[column] = 1
    ds = sorted(ws["d"].unique())
    fig, axes = plt.subplots(1, len(ds), figsize=(5.8 * len(ds), 4.8), squeeze=False)
    for ax, d in zip(axes[0], ds):
        wd = ws[ws["d"] == d]
        wd = wd.assign(k_label=regimes.k_labels(wd, catalogue))
        several_k = wd.groupby("model")["k_label"].nunique()
        several_h = wd.groupby("model")["heads"].nunique()
        for (model, L, H, kl), g in wd.groupby(["model", "layers", "heads", "k_label"],
                                               sort=True):
            label = f"{model} (L={L})" if catalogue.is_deep(model) else model
            if several_h.get(model, 1) > 1:
                label += f" (H={H})"
            if several_k.get(model, 1) > 1 or kl:
                label += f", {kl}"
            st = _series_style(model, L, H, wd, several_h, catalogue)
            judged = figure_series.judged_quantity(model)
            t = figure_series.medians(g, judged)
            if judged != "S" and not t.empty:  # the search's lower bound beside the bound
                s = figure_series.medians(g, "S")
                ax.plot(s["n"], s["median"], color=st["color"], lw=1.0, ls=":", marker=".",
                        label=f"{label}: {figure_series.LOWER}")
            if t.empty:  # no bound in the file: S is all there is
                judged, t = "S", figure_series.medians(g, "S")
            slope = figure_series.slope_text(figure_series.end_slope(g, model, catalogue))
            verdict = _verdict_of(verdicts, model)
            text = (f"{label}: {figure_series.quantity_label(model, judged)}"
                    + (f"\n    {slope}" if slope else "") + (f"\n    {verdict}" if verdict else ""))
            _median_band(ax, t, text, **st)
        ns = np.array(sorted(wd["n"].unique()), dtype=float)
        if len(ns) >= 2:
            ref = wd.groupby("n")["S"].median()
            y0 = float(np.exp(np.log(ref[ref > 0]).mean())) if (ref > 0).any() else 1.0
            n0 = float(np.exp(np.log(ns).mean()))
            ax.plot(ns, y0 * (ns / n0) ** -0.5, "k--", lw=1, alpha=0.5,
                    label="guide: slope −1/2 (the rate of Thms 1–2)")
            ax.plot(ns, y0 * (ns / n0) ** 0.0, "k-.", lw=0.8, alpha=0.5,
                    label="guide: slope 0 (flat, as Thm 3)")
        ax.set_xscale("log")
        if wd["model"].map(catalogue.is_attention).any() and len(ns) and ns.max() > d:
            lim = ax.get_xlim()  # the shading must not widen the axis
            ax.axvspan(max(d, lim[0]), lim[1], color="0.85", alpha=0.5, lw=0,
                       label="n > d: outside Thm 3's regime (not judged)")
            ax.set_xlim(lim)
        ax.set_yscale("log")
        _log_ticks(ax, "x", ns)
        _log_ticks(ax, "y")
        ax.set_xlabel(N_LABEL)
        ax.set_ylabel(S_LABEL, fontsize=8)
        ax.set_title(f"Word sensitivity vs n, d = {d}: every model on the same texts",
                     fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    suptitle(fig, [figure_words.PAPER_WS, _sources_of(ws, sources_of), figure_words.READING])
    fig.tight_layout()
    # One legend, outside the last panel, so that it never hides data (added after the layout:
    # savefig's tight bounding box widens the image to include it).
    _iqr_note(axes[0][-1])
    return _save(fig, outdir, "ws_vs_n")


def gen_figure(gen: pd.DataFrame, outdir: str, sources_of=None) -> list:
    """Test error E after the one-word change, per model / training mode / objective: the median
    over trials with its interquartile band."""
    if gen.empty:
        return []
    ds = sorted(gen["d"].unique())
    trainings = sorted(gen["training"].unique())
    fig, axes = plt.subplots(len(trainings), len(ds), figsize=(5.4 * len(ds), 4.0 * len(trainings)),
                             squeeze=False)
    for i, training in enumerate(trainings):
        for j, d in enumerate(ds):
            ax = axes[i][j]
            g = gen[(gen["training"] == training) & (gen["d"] == d)]
            several_N = g["N"].nunique() > 1 if "N" in g else False
            for (model, objective, N), gm in g.groupby(["model", "objective", "N"], sort=True):
                st = _style(model)
                t = figure_series.medians(gm, "E", positive=False)  # E = 0 is a right label
                label = f"{model}, Δ by {objective}" + (f", N={N}" if several_N else "")
                _median_band(ax, t, f"{label}: median E", st["color"],
                             marker=st["marker"], ls=OBJECTIVE_STYLE.get(objective, "-"))
            ax.axhline(4.0, color="gray", ls="--", lw=1, label="E = 4 (D1 = y: wrong label)")
            ax.axhline(0.0, color="gray", ls=":", lw=1, label="E = 0 (right label)")
            ax.set_xscale("log")
            _log_ticks(ax, "x", g["n"].unique())
            ax.set_xlabel(N_LABEL)
            ax.set_ylabel("test error E = (D1 − y_Δ)², median over trials  (dimensionless)",
                          fontsize=8)
            ax.set_title(f"Generalization after a one-word change ({training}, d = {d})",
                         fontsize=10)
            ax.grid(True, alpha=0.3)
    suptitle(fig, [figure_words.PAPER_GEN, _sources_of(gen, sources_of),
                   "lines: median over trials; bands: interquartile range over trials"])
    fig.tight_layout()
    for row in axes:
        _iqr_note(row[-1])
    return _save(fig, outdir, "gen_error")


def witness_figure(witness, outdir: str) -> list:
    """Attention matrix before and after the one-word change of a saved raf witness."""
    if witness is None or witness.X is None or witness.W is None:
        return []
    X = np.asarray(witness.X, dtype=float)
    i = int(witness.position)
    Xp = perturbed(X, i, witness.delta)
    A, Ap = attention(X, witness.W, witness.model), attention(Xp, witness.W, witness.model)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    vmax = max(A.max(), Ap.max())
    for ax, M, title in ((axes[0], A, "before: softmax(XWXᵀ/√d)"),
                         (axes[1], Ap, f"after changing word i* = {i}")):
        im = ax.imshow(M, cmap="viridis", vmin=0, vmax=vmax, aspect="equal")
        ax.set_title(title)
        ax.set_xlabel("key position l (word attended to)")
        ax.set_ylabel("query position j")
        fig.colorbar(im, ax=ax, fraction=0.046, label="attention weight A_jl")
    diff = Ap - A
    m = np.abs(diff).max() or 1.0
    im = axes[2].imshow(diff, cmap="RdBu_r", vmin=-m, vmax=m, aspect="equal")
    axes[2].set_title("change (after − before)")
    axes[2].set_xlabel("key position l (word attended to)")
    axes[2].set_ylabel("query position j")
    fig.colorbar(im, ax=axes[2], fraction=0.046, label="Δ attention weight")
    n, d = X.shape
    fig.suptitle(f"{witness.model} witness, task {witness.task_id}: n = {n}, d = {d}, "
                 f"‖Δ*‖ = {np.linalg.norm(witness.delta):.3g} (≤ √d = {np.sqrt(d):.3g}), "
                 f"S = {witness.S:.3g}")
    fig.tight_layout()
    return _save(fig, outdir, "raf_witness_attention")


def multi_word_figure(df: pd.DataFrame, outdir: str, sources_of=None,
                      catalogue: Catalogue | None = None) -> list:
    """S_m against the changed fraction m/n, one panel per (model, d) and one series per n
    (median over trials, bars: interquartile range), log–log; rf and drf panels carry the √(m/n)
    law's slope, anchored at one word of the longest text."""
    if df.empty or "words" not in df or not (df["words"] > 1).any():
        return []
    catalogue = catalogue if catalogue is not None else Catalogue.before_1_7()
    panels = [(m, d) for m in catalogue.models() if (df["model"] == m).any()
              for d in sorted(df.loc[df["model"] == m, "d"].unique())]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.6), squeeze=False,
                             layout="constrained")  # room for the title's lines above the panels
    for ax, (model, d) in zip(axes[0], panels):
        g = df[(df["model"] == model) & (df["d"] == d)].assign(
            fraction=lambda x: x["words"] / x["n"])
        ns = sorted(g["n"].unique())
        colours = plt.cm.viridis(np.linspace(0.1, 0.9, len(ns)))
        for colour, n in zip(colours, ns):
            t = figure_series.medians(g[g["n"] == n], "S", x="fraction")
            ax.errorbar(t["fraction"], t["median"],
                        yerr=[t["median"] - t["q25"], t["q75"] - t["median"]],
                        color=colour, marker=_style(model)["marker"], ms=4, capsize=2,
                        label=f"n={int(n)}: median S_m")
        if catalogue.has_feature_width(model):
            longest = g[g["n"] == ns[-1]]
            f0 = longest["fraction"].min()
            f = np.array([f0, max(1.0 / rules.M_OVER_N, 2 * f0)])
            anchor = longest.loc[longest["fraction"] == f0, "S"].median()
            ax.plot(f, anchor * np.sqrt(f / f0), "k--", lw=1, label="guide: slope 1/2, √(m/n)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{model}, d={int(d)}")
        ax.set_xlabel("m/n  (changed words / words per text)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=LEGEND_PT)
    axes[0][0].set_ylabel("S_m = ‖φ(X^M(Δ)) − φ(X)‖ / ‖φ(X)‖  (dimensionless)", fontsize=9)
    suptitle(fig, [f"Sensitivity to m changed words against the changed fraction m/n "
                   f"({figure_words.BEYOND})", _sources_of(df, sources_of),
                   "points: median over trials; bars: interquartile range over trials"])
    return _save(fig, outdir, "multi_word")
