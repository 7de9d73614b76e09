"""The partner of a paired contrast: another model's rows on the same texts (a trial's texts depend
only on its seed, data source, n, d and trial index), from the study itself or from the report's
other studies, one group of them chosen by design, never by the result.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..reading import SERIES


def has_upper(g: pd.DataFrame) -> bool:
    """Whether the group's records carry a certified bound: a bound declared by its scope or a
    value. A record without one among them (NaN, infinite) is then a shortfall of the bound's
    curves, never a reason to judge the group as if the file had none."""
    declared = bool((g["scope"] != "none").any()) if "scope" in g else False
    values = g["S_upper"].astype(float)
    return declared or bool((np.isfinite(values) & (values != 0)).any())


def ratio_frame(a: pd.DataFrame, b: pd.DataFrame, value_a: str, value_b: str) -> pd.DataFrame:
    """a's value over b's per (n, trial) of a, on the same texts (common random numbers): a
    point of a without b's value there gets a NaN ratio (a shortfall the curves name), never
    leaves the test."""
    m = a[["n", "trial", value_a]].rename(columns={value_a: "a"}).merge(
        b[["n", "trial", value_b]].rename(columns={value_b: "b"}), on=["n", "trial"], how="left")
    return m.assign(ratio=m["a"].astype(float) / m["b"].astype(float))


def partner_rows(study, model: str) -> pd.DataFrame:
    """The paired contrast's partner rows: the study's own when it has that model, else (in a
    report over several studies) the rows of the other studies, paired on the same texts."""
    ws = study.ws
    if not ws.empty and (ws["model"] == model).any():
        return ws
    if study.partners is not None and not study.partners.empty:
        return study.partners
    return ws


def partner_group(others: pd.DataFrame, own_study):
    """(label suffix, rows) of the one partner group a contrast pairs with, or ("", None): a
    group that carries a certified bound (when the partner is read for its bound) before one that
    does not, a bound over every position before one over the examined ones, then the group with
    the most values of n, then the study's own rows (chosen by design, never by the result).
    Groups of different depths, widths or studies are never pooled into one curve."""
    if others.empty:
        return "", None
    keys = ([SERIES] if SERIES in others else []) + ["layers", "k_label"]
    best, rank = None, None
    for key, g in others.groupby(keys, sort=True):
        named = dict(zip(keys, key))
        own = named.get(SERIES, own_study) == own_study
        this = (has_upper(g), bool((g["scope"] == "all").all()), g["n"].nunique(), own)
        if rank is None or this > rank:
            parts = [named["k_label"]] if named["k_label"] else []
            if not own:
                parts.append(f"{g['model'].iloc[0]}@{named[SERIES]}")
            best, rank = (",".join(parts), g), this
    return best


def partner_of(og, model: str, own_study) -> tuple:
    """(model, study) of the partner rows a contrast pairs with, () without any."""
    if og is None or og.empty:
        return ()
    return (model, og[SERIES].iloc[0] if SERIES in og else own_study)


def on_the_same_texts(pool: pd.DataFrame, model: str, g: pd.DataFrame) -> pd.DataFrame:
    """`model`'s rows of the pool at the group's d, n and trials: the same texts (a trial's texts
    depend only on its seed, data source, n, d and trial index, which reading/studies.py keeps
    apart)."""
    if g.empty:  # a planned group without records: nothing to pair with
        return pool.iloc[0:0]
    return pool[(pool["model"] == model) & (pool["d"] == g["d"].iloc[0]) & pool["n"].isin(g["n"])
                & pool["trial"].isin(g["trial"])]


def study_of_rows(sub: pd.DataFrame):
    """The study a claim's rows come from (their SERIES), or None for a table without one."""
    return sub[SERIES].iloc[0] if SERIES in sub else None
