"""Verdicts on several changed words (docs/METHOD.md §4, "Several words").

S_m is the sensitivity to m words changed at once (m = 1 is S). The rows here judge, with the
rules of their claims (claims.py):
- rf's growth in m at fixed n (slope +1/2 where m ≪ n), from the lower bound S_m and the
  certified S_upper over the examined word sets;
- rf at a fixed fraction m = ⌈f·n⌉ (flat in n);
- raf: one word already moves attention (S_1 flat in n, S_m ≥ S_1).
S_m is a lower bound: it confirms growth from below and refutes growth from above; S_upper
(over the examined sets only: "restricted") does the opposite.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from . import regimes, rules, stats
from .judgement import Row, missing_test, t_test
from .stats import pool_trials

MIN_TRIALS, MIN_POINTS = rules.MIN_TRIALS, rules.MIN_POINTS
HALF = 0.5


def fractions_of(config_text: str | None) -> list:
    """The words-fraction values of a study's configuration text (empty when none)."""
    m = re.search(r"^words-fraction = (.*)$", config_text or "", re.M)
    if not m or not m.group(1).strip():
        return []
    return [float(v) for v in m.group(1).split(",")]


def words_at_fraction(f: float, n: int) -> int:
    """m = ⌈f·n⌉ as the study planned it (src/study/study.cpp words_at): an exact product is not
    pushed over the integer by rounding."""
    m = f * n
    r = round(m)
    return int(r) if abs(m - r) <= 1e-9 * m else int(math.ceil(m))


def all_words(ws: pd.DataFrame, multi_word: pd.DataFrame) -> pd.DataFrame:
    """The records of every m (one changed word included), with `words` and k_label."""
    frames = [f for f in (ws, multi_word) if f is not None and not f.empty]
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    if "words" not in df:
        df["words"] = 1
    if "layers" not in df:
        df["layers"] = 1
    df["S_upper"] = df["S_upper"].astype(float) if "S_upper" in df else np.nan
    df["k_label"] = regimes.k_labels(df)
    return df


def _claim_row(c) -> Row:
    return Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)


def _fit(df: pd.DataFrame, x: str, y: str) -> dict:
    return stats.loglog_slope(df, x, y, min_trials=MIN_TRIALS, min_points=MIN_POINTS)


def _bracketed_row(row: Row, lower: list, upper: list, centre: float, tol: float, what: str,
                   x: str) -> None:
    """The tests of a Θ(x^centre) claim: the lower bound's slope above centre − tol (confirms),
    above centre + tol (refutes); the upper bound's below centre + tol (confirms), below
    centre − tol (refutes). Without an upper bound for every group: the lower bound alone,
    inside centre ± tol."""
    low = pool_trials(lower)
    label = f"slope of log {what} (lower bound) vs log {x}"
    if upper and len(upper) == len(lower):
        row.tests = [
            t_test(pool_trials(upper), f"slope of log S_upper (examined sets) vs log {x}",
                   confirm=("below", centre + tol), refute=("below", centre - tol)),
            t_test(low, label, confirm=("above", centre - tol), refute=("above", centre + tol)),
        ]
        row.positive = rules.SUPPORTED_RESTRICTED
        row.note = "S_upper bounds the supremum over the examined word sets only"
    else:
        row.tests = [t_test(low, label, confirm=("inside", centre - tol, centre + tol),
                            refute=("above", centre + tol))]
        row.positive = rules.SUPPORTED_LB
        row.note = "no upper bound over the word sets in this file"


def rf_growth_rows(c, study) -> list:
    """rf's S_m against m at fixed n: slope +1/2 (bracketed by S_m and S_upper)."""
    if not _has_several_words(study):
        return []
    df = study.words
    row = _claim_row(c)
    sub = df[(df["model"] == "rf")] if not df.empty else df
    if sub.empty or not (sub["words"] > 1).any():
        row.unavailable = "no rf records with several changed words in this file"
        return [row]
    inside_mask = (sub["k"] >= sub["d"]) & (sub["words"] * rules.M_OVER_N <= sub["n"])
    row.outside = _outside(sub, inside_mask, "m > n/8 or k < d")
    inside = sub[inside_mask]
    lower, upper, reasons, secondary, used = [], [], [], [], set()
    for (n, d, L, kl), g in inside.groupby(["n", "d", "layers", "k_label"], sort=True):
        lab = regimes.group_label({"n": n, "d": d, "k": kl})
        fit = _fit(g, "words", "S")
        if fit["reason"]:
            reasons.append(f"{lab}: {fit['reason']}")
            continue
        lower.append(fit["per_trial"])
        used.add(int(n))
        sec = Row(rules.SECONDARY, f"m_slope[rf,{lab}]", "slope of S_m in m at fixed n",
                  "Thm 1 (several words)", "rf", str(int(d)), regime=row.regime,
                  n_used=f"m={regimes.ns_text(fit['xs'])}", positive=rules.SUPPORTED_LB)
        sec.tests = [t_test(fit["per_trial"], "slope of log S_m vs log m",
                            confirm=("inside", HALF - rules.HALF_M_TOL, HALF + rules.HALF_M_TOL),
                            refute=("above", HALF + rules.HALF_M_TOL))]
        secondary.append(sec)
        has_up = g["S_upper"].notna()
        if has_up.all():
            ufit = _fit(g, "words", "S_upper")
            if not ufit["reason"]:
                upper.append(ufit["per_trial"])
    if not lower:
        row.unavailable = "; ".join(reasons) or f"no grid point inside the regime ({row.regime})"
        return [row] + secondary
    row.d = regimes.ns_text(inside["d"])
    row.n_used = "n=" + regimes.ns_text(used)
    _bracketed_row(row, lower, upper, HALF, rules.HALF_M_TOL, "S_m", "m")
    if reasons:
        row.hint = "groups left out: " + "; ".join(reasons)
    return [row] + secondary


def rf_fraction_rows(c, study) -> list:
    """rf at a fixed fraction m = ⌈f·n⌉ of changed words: S_m flat in n."""
    if not _has_several_words(study):
        return []
    df, fractions = study.words, study.fractions
    row = _claim_row(c)
    if not fractions:
        row.unavailable = "the study has no words-fraction"
        return [row]
    sub = df[df["model"] == "rf"] if not df.empty else df
    if sub.empty:
        row.unavailable = "no rf records in this file"
        return [row]
    inside = sub[sub["k"] >= sub["d"]]
    row.outside = _outside(sub, sub["k"] >= sub["d"], "k < d")
    lower, upper, reasons, used = [], [], [], set()
    for f in fractions:
        at_f = inside[inside["words"] == [words_at_fraction(f, int(n)) for n in inside["n"]]]
        for (d, L, kl), g in at_f.groupby(["d", "layers", "k_label"], sort=True):
            lab = regimes.group_label({"f": f"{f:g}", "d": d, "k": kl})
            fit = _fit(g, "n", "S")
            if fit["reason"]:
                reasons.append(f"{lab}: {fit['reason']}")
                continue
            lower.append(fit["per_trial"])
            used.update(int(n) for n in fit["xs"])
            if g["S_upper"].notna().all():
                ufit = _fit(g, "n", "S_upper")
                if not ufit["reason"]:
                    upper.append(ufit["per_trial"])
    if not lower:
        row.unavailable = "; ".join(reasons) or "no rf records at a words-fraction with k ≥ d"
        return [row]
    row.d = regimes.ns_text(inside["d"])
    row.n_used = regimes.ns_text(used)
    _bracketed_row(row, lower, upper, 0.0, rules.FLAT, "S_m", "n")
    if reasons:
        row.hint = "groups left out: " + "; ".join(reasons)
    return [row]


def raf_one_word_rows(c, study) -> list:
    """raf: one word already moves attention (S_1 flat in n), more words only add (S_m ≥ S_1)."""
    if not _has_several_words(study):
        return []
    df = study.words
    row = _claim_row(c)
    sub = df[df["model"] == "raf"] if not df.empty else df
    if sub.empty or not (sub["words"] > 1).any():
        row.unavailable = "no raf records with several changed words in this file"
        return [row]
    mask = sub["n"] <= sub["d"]
    row.outside = _outside(sub, mask, "n > d")
    inside = sub[mask]
    if inside.empty:
        row.unavailable = "no grid point inside the claim's regime (n ≤ d)"
        return [row]
    row.d = regimes.ns_text(inside["d"])
    one = inside[inside["words"] == 1]
    flat, reasons = [], []
    for d, g in one.groupby("d", sort=True):
        fit = _fit(g, "n", "S")
        if fit["reason"]:
            reasons.append(f"d={d}: {fit['reason']}")
        else:
            flat.append(fit["per_trial"])
            row.n_used = regimes.ns_text(fit["xs"])
    keys = ["n", "d", "trial"]
    pairs = inside[inside["words"] > 1][[*keys, "S"]].merge(
        one[[*keys, "S"]], on=keys, suffixes=("_m", "_1"))
    pairs = pairs[(pairs["S_m"] > 0) & (pairs["S_1"] > 0)]
    gain = np.log(pairs["S_m"] / pairs["S_1"]).groupby(pairs["trial"]).mean()
    t_flat = (t_test(pool_trials(flat), "slope of log S_1 vs log n", confirm=("inside", -rules.FLAT,
                                                                          rules.FLAT))
              if flat else missing_test("slope of log S_1 vs log n", "; ".join(reasons)))
    t_gain = (t_test(gain, "mean of log(S_m/S_1) over m ≥ 2", confirm=("above", 0.0))
              if len(gain) else missing_test("mean of log(S_m/S_1) over m ≥ 2",
                                             "no trial has S_1 and S_m at the same n"))
    row.tests = [t_flat, t_gain]
    row.positive = rules.SUPPORTED_LB
    row.note = "S_1 and S_m are lower bounds found by ascent"
    if reasons:
        row.hint = "left out: " + "; ".join(reasons)
    return [row]


def _outside(sub: pd.DataFrame, mask: pd.Series, why: str) -> str:
    out = sub[~mask]
    if out.empty:
        return ""
    points = sorted({(int(n), int(m)) for n, m in zip(out["n"], out["words"])})
    shown = ", ".join(f"n={n} m={m}" for n, m in points[:8])
    more = f" and {len(points) - 8} more" if len(points) > 8 else ""
    return f"{why}: {shown}{more}"


def _has_several_words(study) -> bool:
    """The multi-word claims are judged only in studies with tasks of m ≥ 2 changed words."""
    return study.multi_word is not None and not study.multi_word.empty
