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

from . import groups, regimes, rules
from .judgement import Group, Row, missing_test, sign_test

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


def _bracketed(grp: Group, fit: dict, ufit, centre: float, tol: float, what: str,
               x: str) -> None:
    """The tests of a Θ(x^centre) claim on one group: the lower bound's slope above centre − tol
    (confirms), above centre + tol (refutes); the upper bound's below centre + tol (confirms),
    below centre − tol (refutes). Without an upper bound: the lower bound alone, inside
    centre ± tol, at most not refuted."""
    label = f"slope of log {what} (lower bound) vs log {x}"
    if ufit is not None and not ufit["reason"]:
        grp.tests = [
            sign_test(ufit["per_trial"], f"slope of log S_upper (examined sets) vs log {x}",
                      confirm=("below", centre + tol), refute=("below", centre - tol)),
            sign_test(fit["per_trial"], label, confirm=("above", centre - tol),
                      refute=("above", centre + tol)),
        ]
        grp.positive = rules.SUPPORTED_RESTRICTED
        grp.note = "S_upper bounds the supremum over the examined word sets only"
    else:
        grp.tests = [sign_test(fit["per_trial"], label,
                               confirm=("inside", centre - tol, centre + tol),
                               refute=("above", centre + tol))]
        grp.positive = rules.NOT_REFUTED_LB
        grp.note = "no upper bound over the word sets in this file"


def _upper_fit(g: pd.DataFrame, plan, x: str):
    return groups.usable_fit(g, "S_upper", plan, x) if g["S_upper"].notna().all() else None


def rf_growth_rows(c, study) -> list:
    """rf's S_m against m at fixed n: slope +1/2 in every (n, d, k) group, bracketed by S_m and
    S_upper."""
    if not _has_several_words(study):
        return []
    df, tol = study.words, study.settings.half_m()
    row = _claim_row(c)
    sub = df[(df["model"] == "rf")] if not df.empty else df
    if sub.empty or not (sub["words"] > 1).any():
        row.unavailable = "no rf records with several changed words in this file"
        return [row]

    def in_regime(frame):
        return (frame["k"] >= frame["d"]) & (frame["words"] * rules.M_OVER_N <= frame["n"])

    row.outside = _outside(sub, in_regime(sub), "m > n/8 or k < d")
    inside = sub[in_regime(sub)]
    used, small = set(), []
    for (n, d, L, k), g in inside.groupby(["n", "d", "layers", "k"], sort=True):
        lab = regimes.group_label({"n": n, "d": d, "k": f"k={int(k)}"})
        plan = groups.design(study.planned, g, "ws", "rf", {"n": n, "d": d, "layers": L, "k": k},
                             in_regime, x="words", one_word=False)
        grp = groups.start_group(row, lab, d, plan, small, x="m")
        fit = grp and groups.fit_group(grp, g, "S", plan, used, x="words")
        if fit:
            _bracketed(grp, fit, _upper_fit(g, plan, "words"), HALF, tol, "S_m", "m")
    _finish_row(row, inside, used, small)
    row.n_used = "n=" + regimes.ns_text(used) if used else ""
    return [row]


def _finish_row(row: Row, inside: pd.DataFrame, used: set, small: list) -> None:
    if small:
        row.outside = "; ".join(filter(None, [row.outside, "not judged: " + "; ".join(small)]))
    if not row.groups:
        row.unavailable = row.unavailable or f"no group inside the regime ({row.regime})"
    if not inside.empty:
        row.d = regimes.ns_text(inside["d"])


def rf_fraction_rows(c, study) -> list:
    """rf at a fixed fraction m = ⌈f·n⌉ of changed words: S_m flat in n in every (f, d, k)
    group."""
    if not _has_several_words(study):
        return []
    df, fractions, flat = study.words, study.fractions, study.settings.flat()
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
    used, small = set(), []
    for f in fractions:
        def at_f(frame, f=f):
            return (frame["k"] >= frame["d"]) & (
                frame["words"] == [words_at_fraction(f, int(n)) for n in frame["n"]])

        for (d, L, kl), g in inside[at_f(inside)].groupby(["d", "layers", "k_label"],
                                                          sort=True):
            lab = regimes.group_label({"f": f"{f:g}", "d": d, "k": kl})
            plan = groups.design(study.planned, g, "ws", "rf",
                                 {"d": d, "layers": L, "k_label": kl}, at_f, one_word=False)
            grp = groups.start_group(row, lab, d, plan, small)
            fit = grp and groups.fit_group(grp, g, "S", plan, used)
            if fit:
                _bracketed(grp, fit, _upper_fit(g, plan, "n"), 0.0, flat, "S_m", "n")
    _finish_row(row, inside, used, small)
    row.n_used = regimes.ns_text(used)
    return [row]


def raf_one_word_rows(c, study) -> list:
    """raf: one word already moves attention (S_1 flat in n) and more words only add to it
    (S_m ≥ S_1), in every d."""
    if not _has_several_words(study):
        return []
    df, settings = study.words, study.settings
    row = _claim_row(c)
    sub = df[df["model"] == "raf"] if not df.empty else df
    if sub.empty or not (sub["words"] > 1).any():
        row.unavailable = "no raf records with several changed words in this file"
        return [row]
    mask = settings.attention_mask(sub)
    row.outside = _outside(sub, mask, f"not {settings.attention_text()}")
    inside = sub[mask]
    used, small = set(), []
    flat = settings.flat()
    for d, g in inside.groupby("d", sort=True):
        one = g[g["words"] == 1]
        plan = groups.design(study.planned, one, "ws", "raf", {"d": d},
                             settings.attention_mask)
        grp = groups.start_group(row, f"d={d}", d, plan, small, positive=rules.NOT_REFUTED_LB,
                                 note="S_1 and S_m are lower bounds found by ascent")
        fit = grp and groups.fit_group(grp, one, "S", plan, used)
        if not fit:
            continue
        keys = ["n", "trial"]
        pairs = g[g["words"] > 1][[*keys, "S"]].merge(one[[*keys, "S"]], on=keys,
                                                      suffixes=("_m", "_1"))
        pairs = pairs[(pairs["S_m"] > 0) & (pairs["S_1"] > 0)]
        gain = np.log(pairs["S_m"] / pairs["S_1"]).groupby(pairs["trial"]).mean()
        gain_label = "mean of log(S_m/S_1) over m ≥ 2"
        grp.tests = [sign_test(fit["per_trial"], "slope of log S_1 vs log n",
                               confirm=("inside", -flat, flat)),
                     sign_test(gain, gain_label, confirm=("above", 0.0)) if len(gain) else
                     missing_test(gain_label, "no trial has S_1 and S_m at the same n")]
    _finish_row(row, inside, used, small)
    row.n_used = regimes.ns_text(used)
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
