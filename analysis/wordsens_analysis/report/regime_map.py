"""The regime map: where attention keeps a single word (Ω(1)) and where that fades.

Thm 3 speaks where d is not small next to n. At fixed d and n ≫ d, raf's output rows tend to a
tilted mean of the tokens and S_raf falls like √(d/n) (docs/VERDICT_RULES.md). The map shows
mean S of raf (and raf_relu) over a grid of n and d, and the local slope of log mean S between
successive n: about 0 where Ω(1) holds, about −1/2 where it fades. The boundary should follow
the line n = d, drawn on both panels. Any file with at least MIN_D values of d for an attention
model gets the map.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..reading import Catalogue
from ..rules import stats

MIN_D = 3


def mapped(ws: pd.DataFrame, catalogue: Catalogue | None = None) -> list:
    """(study, model) pairs with at least MIN_D values of d and 2 values of n; study is None
    for a single file."""
    if ws.empty:
        return []
    catalogue = catalogue if catalogue is not None else Catalogue.before_1_7()
    att = ws[ws["model"].map(catalogue.is_attention).astype(bool)]
    if "series" not in att:
        att = att.assign(series="")
    out = []
    for (study, model), g in att.groupby(["series", "model"], sort=False):
        if g["d"].nunique() >= MIN_D and g["n"].nunique() >= 2:
            out.append((study or None, model))
    return out


def level_table(g: pd.DataFrame) -> pd.DataFrame:
    """Mean S per (d, n) with its count (rows: d ascending, columns: n ascending)."""
    return g.pivot_table(index="d", columns="n", values="S", aggfunc="mean").sort_index(
        axis=0).sort_index(axis=1)


def local_slopes(g: pd.DataFrame) -> pd.DataFrame:
    """Per d, the local slope between successive n: the mean over trials of the two-point slope
    of log S (trials present at both n; the paired, per-trial statistic the verdict rules use
    for their local slopes). Columns are the intervals' left ends; NaN where < 2 trials."""
    out = {}
    for d, gd in g.groupby("d", sort=True):
        m = stats.trial_matrix(gd.assign(S=gd["S"].where(gd["S"] > 0)), "n", "S")
        ns = list(m.columns)
        row = {}
        for a, b in zip(ns[:-1], ns[1:]):
            pair = m[[a, b]].dropna()
            if len(pair) >= 2:
                row[a] = float(((np.log(pair[b]) - np.log(pair[a])) / np.log(b / a)).mean())
            else:
                row[a] = np.nan
        out[d] = row
    return pd.DataFrame.from_dict(out, orient="index").sort_index(axis=0).sort_index(axis=1)


def _edges(values) -> np.ndarray:
    """Cell edges on a log axis: geometric midpoints, the outer ones mirrored."""
    v = np.asarray(sorted(values), dtype=float)
    if v.size == 1:
        return np.array([v[0] / 1.5, v[0] * 1.5])
    mid = np.sqrt(v[:-1] * v[1:])
    return np.concatenate([[v[0] ** 2 / mid[0]], mid, [v[-1] ** 2 / mid[-1]]])


def figure(ws: pd.DataFrame, study, model: str, outdir: str, heads=None) -> list:
    """Two heatmaps of one (study, model): mean S over (n, d), and the local slope; `heads`:
    one H of a model run over a heads grid (its maps are never averaged over H)."""
    from matplotlib import colors, ticker

    from . import plots

    plt = plots.plt
    g = ws[ws["model"] == model]
    if study is not None:
        g = g[g["series"] == study]
    if heads is not None:
        g = g[g["heads"] == heads]
    lev = level_table(g)
    slo = local_slopes(g)
    ns, ds = np.asarray(lev.columns, dtype=float), np.asarray(lev.index, dtype=float)
    fig, axes = plt.subplots(1, 2, figsize=(13.5, 4.8))
    ax = axes[0]
    vals = lev.to_numpy(dtype=float)
    pos = vals[np.isfinite(vals) & (vals > 0)]
    norm = colors.LogNorm(vmin=pos.min(), vmax=pos.max()) if pos.size else None
    im = ax.pcolormesh(_edges(ns), _edges(ds), np.ma.masked_invalid(vals), cmap="viridis",
                       norm=norm, shading="flat")
    cb = fig.colorbar(im, ax=ax, label="mean S over trials (log colour scale)")
    plain = ticker.FuncFormatter(lambda v, _: f"{v:.3g}")
    cb.ax.yaxis.set_major_formatter(plain)
    cb.ax.yaxis.set_minor_formatter(plain)
    for i, d in enumerate(ds):
        for j, n in enumerate(ns):
            if np.isfinite(vals[i, j]):
                ax.text(n, d, f"{vals[i, j]:.2g}", ha="center", va="center", fontsize=7,
                        color="w" if norm is not None and norm(vals[i, j]) < 0.6 else "k")
    title = f"{model}: mean word sensitivity S over (n, d)"
    if model == "raf_relu":
        _hatch_floor(ax, ns, ds)
        title += "\nhatched: n − 1 < d, where a floor keeps S ≳ 0.5 (docs/METHOD.md)"
    ax.set_title(title, fontsize=10)
    ax2 = axes[1]
    svals = slo.to_numpy(dtype=float)
    if slo.shape[1]:
        left = np.asarray(slo.columns, dtype=float)
        right = ns[1:len(left) + 1]
        xedges = np.concatenate([left, right[-1:]])
        sds = np.asarray(slo.index, dtype=float)
        lim = max(0.6, float(np.nanmax(np.abs(svals))) if np.isfinite(svals).any() else 0.6)
        im2 = ax2.pcolormesh(xedges, _edges(sds), np.ma.masked_invalid(svals), cmap="RdBu",
                             norm=colors.TwoSlopeNorm(vmin=-lim, vcenter=0.0, vmax=lim),
                             shading="flat")
        fig.colorbar(im2, ax=ax2, label="local slope of log S vs log n "
                                        "(0: Ω(1) holds; −1/2: fades like √(d/n))")
        for i, d in enumerate(sds):
            for j, a in enumerate(left):
                if np.isfinite(svals[i, j]):
                    ax2.text(np.sqrt(a * right[j]), d, f"{svals[i, j]:+.2f}", ha="center",
                             va="center", fontsize=7,
                             color="w" if abs(svals[i, j]) > 0.6 * lim else "k")
    ax2.set_title(f"{model}: local slope between successive n", fontsize=10)
    lo = min(ns.min(), ds.min()) / 2
    hi = max(ns.max(), ds.max()) * 2
    for a in axes:
        xl, yl = _edges(ns)[[0, -1]], _edges(ds)[[0, -1]]
        a.plot([lo, hi], [lo, hi], "k--", lw=1.2, label="n = d")
        a.set_xscale("log")
        a.set_yscale("log")
        a.set_xlim(*(xl if a is ax else (ns[0], ns[-1])))
        a.set_ylim(*yl)
        plots._log_ticks(a, "x", ns)
        plots._log_ticks(a, "y", ds)
        a.set_xlabel(plots.N_LABEL)
        a.set_ylabel("embedding dimension d")
        a.legend(loc="upper left", fontsize=8)
    where = f" — study {study}" if study else ""
    which = model + (f" (H={heads})" if heads is not None else "")
    fig.suptitle(f"Regime map of {which}{where}: below the dashed line n > d, where Thm 3 does "
                 "not speak", fontsize=10)
    fig.tight_layout()
    name = ("regime_map_" + model + (f"_H{heads}" if heads is not None else "")
            + (f"_{_safe(study)}" if study else ""))
    return plots._save(fig, outdir, name)


def _hatch_floor(ax, ns, ds) -> None:
    """Hatches the cells where the floor construction applies (n − 1 < d): moving one word so
    that only one other keeps a positive score in its row keeps raf_relu's S near 1/2 there, so
    a fall of S in those cells is not the decay the softmax contrast speaks of."""
    from matplotlib.patches import Rectangle

    xe, ye = _edges(ns), _edges(ds)
    for i, d in enumerate(ds):
        for j, n in enumerate(ns):
            if n - 1 < d:
                ax.add_patch(Rectangle((xe[j], ye[i]), xe[j + 1] - xe[j], ye[i + 1] - ye[i],
                                       fill=False, hatch="//", lw=0, edgecolor="0.35",
                                       alpha=0.5))


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in str(text))


def figures(ws: pd.DataFrame, outdir: str, catalogue: Catalogue | None = None) -> list:
    """[(title, png path)] for every (study, model) that has a map."""
    out = []
    for study, model in mapped(ws, catalogue):
        rows = ws[ws["model"] == model]
        if study is not None:
            rows = rows[rows["series"] == study]
        several = "heads" in rows and rows["heads"].nunique() > 1
        for heads in sorted(rows["heads"].unique()) if several else [None]:
            paths = figure(ws, study, model, outdir, heads)
            where = f" ({study})" if study else ""
            which = model + (f" (H={heads})" if heads is not None else "")
            out.append((f"Regime map of {which}{where}: mean S and local slope over (n, d), "
                        "with the line n = d", paths[0]))
    return out
