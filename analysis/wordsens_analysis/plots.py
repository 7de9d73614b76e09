"""Figures of the report (PNG and PDF, Agg backend: no display needed)."""
from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from . import catalogue, claims, regimes, rules, stats  # noqa: E402
from .model_pieces import attention, style as _style  # noqa: E402
from .witness import perturbed  # noqa: E402

OBJECTIVE_STYLE = {"loss": "-", "align": "--", "best": ":"}
S_LABEL = "word sensitivity S = ‖φ(Xⁱ(Δ)) − φ(X)‖ / ‖φ(X)‖  (dimensionless)"
N_LABEL = "sequence length n  (tokens per sample)"


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


def _mean_ci(g: pd.DataFrame, value: str) -> pd.DataFrame:
    """Mean over trials per n with its 95% Student-t interval (as the verdict rules use)."""
    rows = []
    for n, gn in g.groupby("n", sort=True):
        est, lo, hi, _, m = stats.t_interval(gn[value])
        rows.append((n, est, lo, hi, m))
    return pd.DataFrame(rows, columns=["n", "mean", "lo", "hi", "count"])


def _errorbar(ax, t: pd.DataFrame, label: str, **style):
    lo = np.where(np.isfinite(t["lo"]), t["mean"] - t["lo"], 0.0)
    hi = np.where(np.isfinite(t["hi"]), t["hi"] - t["mean"], 0.0)
    ax.errorbar(t["n"], t["mean"], yerr=[np.maximum(lo, 0), np.maximum(hi, 0)], capsize=3,
                label=label, lw=1.5, ms=5, **style)


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


def _fit_line(ax, g: pd.DataFrame, model: str, color) -> str:
    """Draws the fitted power law over the claim's regime; returns 'slope s [lo, hi]'."""
    inside = g[regimes.ws_mask(g, model)]
    fit = stats.loglog_slope(inside, "n", "S", min_trials=rules.MIN_TRIALS,
                             min_points=rules.MIN_POINTS)
    if fit["reason"]:
        return f"not fitted: < {rules.MIN_POINTS} n in its regime ({regimes.ws_regime_text(model)})"
    xs = fit["xs"]
    means = inside[inside["n"].isin(xs)].groupby("n")["S"].apply(lambda v: np.exp(np.log(v).mean()))
    x0 = float(np.exp(np.log(xs).mean()))
    y0 = float(np.exp(np.log(means.to_numpy()).mean()))
    grid = np.geomspace(xs.min(), xs.max(), 20)
    ax.plot(grid, y0 * (grid / x0) ** fit["estimate"], color=color, lw=0.8, ls=(0, (1, 1)))
    return f"slope {fit['estimate']:+.2f} [{fit['ci_low']:+.2f}, {fit['ci_high']:+.2f}]"


def ws_figure(ws: pd.DataFrame, outdir: str, verdicts=None) -> list:
    """WS against n on log–log axes, one panel per d, every model with its fitted slope (over
    its claim's regime) and its primary verdict in the legend; guides of slope −1/2 and 0; the
    attention claims' regime boundary n = d."""
    if ws.empty:
        return []
    ws = ws.copy()
    for column in ("layers", "heads"):
        if column not in ws:
            ws[column] = 1
    ds = sorted(ws["d"].unique())
    fig, axes = plt.subplots(1, len(ds), figsize=(5.8 * len(ds), 4.6), squeeze=False)
    for ax, d in zip(axes[0], ds):
        wd = ws[ws["d"] == d]
        wd = wd.assign(k_label=regimes.k_labels(wd))
        several_k = wd.groupby("model")["k_label"].nunique()
        several_h = wd.groupby("model")["heads"].nunique()
        for (model, L, H, kl), g in wd.groupby(["model", "layers", "heads", "k_label"],
                                               sort=True):
            label = f"{model} (L={L})" if catalogue.is_deep(model) else model
            if several_h.get(model, 1) > 1:
                label += f" (H={H})"
            if several_k.get(model, 1) > 1 or kl:
                label += f", {kl}"
            st = _style(model)
            if catalogue.is_deep(model):  # tell the depths apart
                i = (int(L) - 1) % 4
                st = dict(st, ls=("-", "--", ":", "-.")[i], marker=("s", "D", "P", "X")[i])
            elif several_h.get(model, 1) > 1:  # and the heads
                i = sorted(wd.loc[wd["model"] == model, "heads"].unique()).index(H) % 4
                st = dict(st, ls=("-", "--", ":", "-.")[i], marker=("s", "D", "P", "X")[i])
            if "S_upper" in g and g["S_upper"].notna().any():
                up = g.groupby("n")["S_upper"].mean()
                lo = g.groupby("n")["S"].mean()
                ax.fill_between(up.index, lo.values, up.values, color=st["color"], alpha=0.15,
                                label=f"{model} bracket [S, S_upper] (means)")
            slope = _fit_line(ax, g, model, st["color"])
            verdict = _verdict_of(verdicts, model)
            text = f"{label}: {slope}" + (f"\n    {verdict}" if verdict else "")
            _errorbar(ax, _mean_ci(g, "S"), text, **st)
        ns = np.array(sorted(wd["n"].unique()), dtype=float)
        if len(ns) >= 2:
            ref = wd.groupby("n")["S"].mean()
            y0 = float(np.exp(np.log(ref[ref > 0]).mean())) if (ref > 0).any() else 1.0
            n0 = float(np.exp(np.log(ns).mean()))
            ax.plot(ns, y0 * (ns / n0) ** -0.5, "k--", lw=1, alpha=0.5, label="guide: slope −1/2")
            ax.plot(ns, y0 * (ns / n0) ** 0.0, "k-.", lw=0.8, alpha=0.5, label="guide: slope 0")
        ax.set_xscale("log")
        if wd["model"].map(catalogue.is_attention).any() and len(ns) and ns.max() > d:
            lim = ax.get_xlim()  # the shading must not widen the axis
            ax.axvspan(max(d, lim[0]), lim[1], color="0.85", alpha=0.5, lw=0,
                       label="n > d: outside Thm 3's regime (not fitted)")
            ax.set_xlim(lim)
        ax.set_yscale("log")
        _log_ticks(ax, "x", ns)
        _log_ticks(ax, "y")
        ax.set_xlabel(N_LABEL)
        ax.set_ylabel(S_LABEL, fontsize=8)
        ax.set_title(f"Word sensitivity vs n (d = {d}); dotted: fitted slope")
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    # One legend, outside the last panel, so that it never hides data (added after the layout:
    # savefig's tight bounding box widens the image to include it).
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return _save(fig, outdir, "ws_vs_n")


def gen_figure(gen: pd.DataFrame, outdir: str) -> list:
    """Test error E after the one-word change, per model / training mode / objective."""
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
                t = _mean_ci(gm, "E")
                label = f"{model}, Δ by {objective}" + (f", N={N}" if several_N else "")
                _errorbar(ax, t, label, color=st["color"],
                          marker=st["marker"], ls=OBJECTIVE_STYLE.get(objective, "-"))
            ax.axhline(4.0, color="gray", ls="--", lw=1, label="E = 4 (D1 = y: wrong label)")
            ax.axhline(0.0, color="gray", ls=":", lw=1, label="E = 0 (right label)")
            ax.set_xscale("log")
            _log_ticks(ax, "x", g["n"].unique())
            ax.set_xlabel(N_LABEL)
            ax.set_ylabel("test error E = (D1 − y_Δ)², mean ± 95% CI  (dimensionless)",
                          fontsize=8)
            ax.set_title(f"Generalization after a one-word change ({training}, d = {d})",
                         fontsize=10)
            ax.grid(True, alpha=0.3)
    fig.tight_layout()
    for row in axes:
        row[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
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


def multi_word_figure(df: pd.DataFrame, outdir: str) -> list:
    """S_m against the changed fraction m/n, one panel per (model, d) and one series per n
    (mean over trials, 95% t-interval), log–log; rf and drf panels carry the √(m/n) law's
    slope, anchored at one word of the longest text."""
    if df.empty or "words" not in df or not (df["words"] > 1).any():
        return []
    panels = [(m, d) for m in catalogue.models() if (df["model"] == m).any()
              for d in sorted(df.loc[df["model"] == m, "d"].unique())]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.0), squeeze=False)
    for ax, (model, d) in zip(axes[0], panels):
        g = df[(df["model"] == model) & (df["d"] == d)].assign(
            fraction=lambda x: x["words"] / x["n"])
        ns = sorted(g["n"].unique())
        colours = plt.cm.viridis(np.linspace(0.1, 0.9, len(ns)))
        for colour, n in zip(colours, ns):
            rows = []
            for f, gf in g[g["n"] == n].groupby("fraction", sort=True):
                est, lo, hi, _, _ = stats.t_interval(gf["S"])
                rows.append((f, est, lo, hi))
            t = pd.DataFrame(rows, columns=["f", "mean", "lo", "hi"])
            ax.errorbar(t["f"], t["mean"], yerr=[t["mean"] - t["lo"], t["hi"] - t["mean"]],
                        color=colour, marker=_style(model)["marker"], ms=4, capsize=2,
                        label=f"n={int(n)}")
        if catalogue.has_width(model):
            longest = g[g["n"] == ns[-1]]
            f0 = longest["fraction"].min()
            f = np.array([f0, max(1.0 / rules.M_OVER_N, 2 * f0)])
            anchor = longest.loc[longest["fraction"] == f0, "S"].mean()
            ax.plot(f, anchor * np.sqrt(f / f0), "k--", lw=1, label="slope 1/2: √(m/n)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{model}, d={int(d)}")
        ax.set_xlabel("m/n  (changed words / words per text)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("S_m = ‖φ(X^M(Δ)) − φ(X)‖ / ‖φ(X)‖  (dimensionless)")
    fig.suptitle("Sensitivity to m changed words against the changed fraction m/n")
    return _save(fig, outdir, "multi_word")
