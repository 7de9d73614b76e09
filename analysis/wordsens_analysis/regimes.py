"""Where each claim speaks: the grid points a rule may use, and a listing of the others.

A rule never silently uses a point outside its claim's regime; the verdict row lists those
points ("outside the claim's regime"), so a grid that misses the regime shows it.
Why these regimes: docs/VERDICT_RULES.md.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import catalogue, rules

def k_labels(df: pd.DataFrame) -> pd.Series:
    """How k was given, per row: 'k=<r>D' when k scales with D = n·d, else 'k=<k>'.

    Only models with a width k (random features; catalogue.py) get one; attention models ''.
    """
    labels = pd.Series("", index=df.index, dtype=object)
    if df.empty or "k" not in df:
        return labels
    ratio = df["k"] / (df["n"] * df["d"])
    keys = [c for c in ("model", "d", "layers", "N") if c in df]
    for key, idx in df.groupby(keys).groups.items():
        if not catalogue.has_width(key[0] if isinstance(key, tuple) else key):
            continue
        sub = df.loc[idx]
        if sub["k"].nunique() == 1 and sub["n"].nunique() > 1:
            labels.loc[idx] = "k=" + sub["k"].astype(int).astype(str)
        else:
            labels.loc[idx] = ratio.loc[idx].map(lambda r: f"k={r:.3g}D")
    return labels


def k_labels_per_series(df: pd.DataFrame, series: str) -> pd.Series:
    """k_labels within each study (column `series`): how one study gave k must not depend on
    another's grid."""
    if series not in df:
        return k_labels(df)
    labels = pd.Series("", index=df.index, dtype=object)
    for _, idx in df.groupby(series, sort=False).groups.items():
        labels.loc[idx] = k_labels(df.loc[idx])
    return labels


def ws_mask(df: pd.DataFrame, model: str) -> pd.Series:
    """Rows of `model` inside the regime of its word-sensitivity claim."""
    if catalogue.has_width(model):  # Thms 1–2 need a width at least of the order of d
        return df["k"] >= df["d"]
    return df["n"] <= df["d"]  # Thm 3 and its softmax contrast: n ≤ d


def ws_regime_text(model: str) -> str:
    return "k ≥ d" if catalogue.has_width(model) else "n ≤ d"


def gen_mask(df: pd.DataFrame, model: str) -> pd.Series:
    """Rows of the generalization claims inside their regime (the head's)."""
    if catalogue.has_width(model):  # k ≫ N, and the retrained head interpolates N + 1 samples
        return (df["k"] >= rules.K_OVER_N * df["N"]) & (df["N"] + 1 < df["k"])
    # raf's feature dimension is D = n·d; its sensitivity (what lets it generalize) needs n ≤ d
    return (df["N"] + 1 < df["n"] * df["d"]) & (df["n"] <= df["d"])


def gen_regime_text(model: str) -> str:
    if catalogue.has_width(model):
        return f"k ≥ {rules.K_OVER_N}·N and N + 1 < k"
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
