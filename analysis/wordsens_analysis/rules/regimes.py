"""Where each claim speaks: the grid points a rule may use, and a listing of the others.

A rule never silently uses a point outside its claim's regime; the verdict row lists those
points ("outside the claim's regime"), so a grid that misses the regime shows it.
Why these regimes: docs/VERDICT_RULES.md. A model's kind comes from the `catalogue` the caller
passes (the study's: reading/catalogue.py's Catalogue), never from a list of names.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import thresholds

def k_labels(df: pd.DataFrame, catalogue) -> pd.Series:
    """How k was given, per row, inferred from the widths when no k grid is known: 'k=<r>D' for
    a ratio k/(n·d) that appears at several n of a (model, d, L, N) group (k scaling with
    D = n·d), 'k=<k>' for a width that does and that those ratios do not explain (a fixed k),
    both joined by '|' where one task is both
    (`k = 512, 1D` at n·d = 512: explode_k_labels puts it in both curves), the ratio where
    neither repeats.

    Only models with a width k (random features; catalogue.py) get one; attention models ''.
    """
    labels = pd.Series("", index=df.index, dtype=object)
    if df.empty or "k" not in df:
        return labels
    ratio = (df["k"] / (df["n"] * df["d"])).map(lambda r: f"{r:.3g}")
    keys = [c for c in ("model", "d", "layers", "N") if c in df]
    for key, idx in df.groupby(keys).groups.items():
        if not catalogue.has_feature_width(key[0] if isinstance(key, tuple) else key):
            continue
        sub = df.loc[idx]
        scaled = {r for r, g in sub["n"].groupby(ratio.loc[idx]) if g.nunique() > 1}
        # A width at several n is a fixed k unless the repeated ratios explain all its rows
        # (k = 0.5D, 1D gives 40 at n = 10 and at n = 20, d = 4: two scaled curves).
        fixed = {k for k, g in sub.groupby("k").groups.items()
                 if sub.loc[g, "n"].nunique() > 1 and not set(ratio.loc[g]) <= scaled}
        for i, k, r in zip(idx, sub["k"], ratio.loc[idx]):
            found = ([f"k={int(k)}"] if k in fixed else []) + ([f"k={r}D"] if r in scaled else [])
            labels.loc[i] = "|".join(found) if found else f"k={r}D"
    return labels


def k_labels_per_series(df: pd.DataFrame, series: str, catalogue,
                        grids: dict | None = None) -> pd.Series:
    """k_labels within each study (column `series`): how one study gave k must not depend on
    another's grid. `grids` maps a study to its k grid (k_grid of its configuration): then each
    row is labelled by the grid items that give its k (k_labels_from_grid), so a grid such as
    `k = 512, 1D` is grouped by how its widths were given."""
    grids = grids or {}
    if series not in df:  # one study's table: its grid, when there is exactly one
        grid = next(iter(grids.values())) if len(grids) == 1 else None
        return k_labels_from_grid(df, grid, catalogue) if grid else k_labels(df, catalogue)
    labels = pd.Series("", index=df.index, dtype=object)
    for name, idx in df.groupby(series, sort=False).groups.items():
        grid = grids.get(name)
        labels.loc[idx] = (k_labels_from_grid(df.loc[idx], grid, catalogue) if grid
                           else k_labels(df.loc[idx], catalogue))
    return labels


def k_grid(config_text) -> list:
    """The k grid of a stored configuration, as (relative, value) items in their order: `1D`
    (k = round(1·n·d)) is (True, 1.0), `512` is (False, 512.0). Empty without a k line."""
    for line in str(config_text or "").splitlines():
        key, _, value = line.partition("=")
        if key.strip() != "k" or not value.strip():
            continue
        items = []
        for item in value.split(","):
            item = item.strip()
            try:
                items.append((True, float(item[:-1])) if item.endswith("D")
                             else (False, float(item)))
            except ValueError:
                return []
        return items
    return []


def _item_label(relative: bool, value: float) -> str:
    return f"k={value:.3g}D" if relative else f"k={int(value)}"


def k_labels_from_grid(df: pd.DataFrame, grid: list, catalogue) -> pd.Series:
    """Each row's k label from the grid items that give its k at its (n, d), as the driver
    resolves them (k = max(1, round(factor·n·d)) or the integer): 'k=1D', 'k=512', or several
    joined by '|' where two items give the same width (such a row belongs to both curves;
    explode_k_labels splits it). Rows of models without a width get ''; a row no item gives
    keeps the label k_labels infers."""
    labels = pd.Series("", index=df.index, dtype=object)
    if df.empty or "k" not in df:
        return labels
    inferred = None
    for i, r in zip(df.index, df.itertuples(index=False)):
        if not catalogue.has_feature_width(r.model):
            continue
        k = int(r.k)
        found = [_item_label(rel, v) for rel, v in grid
                 if (max(1, int(np.floor(v * r.n * r.d + 0.5))) if rel else int(v)) == k]
        if found:
            labels.loc[i] = "|".join(dict.fromkeys(found))
        else:
            inferred = k_labels(df, catalogue) if inferred is None else inferred
            labels.loc[i] = inferred.loc[i]
    return labels


def explode_k_labels(df: pd.DataFrame) -> pd.DataFrame:
    """One row per k label: a row whose width two grid items give ('k=512|k=1D') enters both
    groups, never one group's curve by chance."""
    if df is None or df.empty or "k_label" not in df:
        return df
    several = df["k_label"].astype(str).str.contains("|", regex=False)
    if not several.any():
        return df
    out = df.assign(k_label=df["k_label"].astype(str).str.split("|")).explode("k_label")
    return out.reset_index(drop=True)


def ws_mask(df: pd.DataFrame, model: str, catalogue) -> pd.Series:
    """Rows of `model` inside the regime of its word-sensitivity claim."""
    if catalogue.has_feature_width(model):  # Thms 1–2 need a width at least of the order of d
        return df["k"] >= df["d"]
    return df["n"] <= df["d"]  # Thm 3 and its softmax contrast: n ≤ d


def ws_regime_text(model: str, catalogue) -> str:
    return "k ≥ d" if catalogue.has_feature_width(model) else "n ≤ d"


def gen_mask(df: pd.DataFrame, model: str, catalogue) -> pd.Series:
    """Rows of the generalization claims inside their regime (the head's)."""
    # k ≫ N, and the retrained head interpolates N + 1 samples
    if catalogue.has_feature_width(model):
        return (df["k"] >= thresholds.K_OVER_N * df["N"]) & (df["N"] + 1 < df["k"])
    # raf's feature dimension is D = n·d; its sensitivity (what lets it generalize) needs n ≤ d
    return (df["N"] + 1 < df["n"] * df["d"]) & (df["n"] <= df["d"])


def gen_regime_text(model: str, catalogue) -> str:
    if catalogue.has_feature_width(model):
        return f"k ≥ {thresholds.K_OVER_N}·N and N + 1 < k"
    return "N + 1 < n·d and n ≤ d"


def group_label(key: dict) -> str:
    """'d=64,L=2,k=1D' from {'d': 64, 'L': 2, 'k': 'k=1D'}; empty values are left out."""
    parts = []
    for k, v in key.items():
        if v in ("", None):
            continue
        parts.append(str(v) if k in ("k", "t", "o", "model") else f"{k}={v}")
    return ",".join(parts)


def outside_text(df: pd.DataFrame, mask: pd.Series, keys: list, why: str) -> str:
    """'d=8: n=10,20 (n > d); …' for the rows not in the mask, grouped by `keys`."""
    out = df[~mask]
    if out.empty:
        return ""
    parts = []
    for key, g in out.groupby(keys if len(keys) > 1 else keys[0], sort=True):
        key = key if isinstance(key, tuple) else (key,)
        named = dict(zip([_short(k) for k in keys], key))
        if named.get("L") == 1:
            named["L"] = ""  # depth is only worth naming for drf
        lab = group_label(named)
        ns = ",".join(str(int(n)) for n in sorted(g["n"].unique()))
        parts.append(f"{lab}: n={ns}" if lab else f"n={ns}")
    return "; ".join(parts) + f" ({why})"


def _short(col: str) -> str:
    return {"layers": "L", "heads": "H", "k_label": "k", "training": "t",
            "objective": "o"}.get(col, col)


def ns_text(values) -> str:
    vals = sorted({int(v) for v in values if np.isfinite(v)})
    return ",".join(str(v) for v in vals)
