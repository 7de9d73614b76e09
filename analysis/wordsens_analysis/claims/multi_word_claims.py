"""Verdicts on several changed words (docs/METHOD.md §4, "Several words").

S_m is the sensitivity to m words changed at once (m = 1 is S). The rows here judge, with the
rules of their claims (claim_list.py, beyond the paper):
- rf's growth in m at fixed n, S_m = Θ(√(m/n)) where m ≪ n, from the lower bound S_m (its lower
  part) and the certified S_upper over the examined word sets (its upper part, restricted);
- rf at a fixed fraction m = ⌈f·n⌉: S_m = Θ(1) in n once divided by the law λ(m/n), since the
  rounding of f·n moves m/n.
S_m is a lower bound: it confirms the lower part by its slope and refutes the upper part only by a
level; S_upper over the examined sets only confirms the upper part as "restricted" and refutes
nothing. (Attention's S_m ≥ S_1 holds by the definition of the supremum, and its S_1 is Thm 3's
own statistic: it is judged once, there.)
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import rules
from ..rules import Group, Row, evidence, groups, regimes, tolerances

HALF = 0.5


def words_at_fraction(f: float, n: int) -> int:
    """m = ⌈f·n⌉ as the study planned it (src/study/study.cpp words_at): an exact product is not
    pushed over the integer by rounding."""
    m = f * n
    r = round(m)
    return int(r) if abs(m - r) <= 1e-9 * m else int(math.ceil(m))


def all_words(ws: pd.DataFrame, multi_word: pd.DataFrame, catalogue) -> pd.DataFrame:
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
    df["k_label"] = regimes.k_labels(df, catalogue)
    return df


def _claim_row(c) -> Row:
    return Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)


def _law(frame: pd.DataFrame) -> np.ndarray:
    """λ(m/n) = √(m/n)·(1 + √(m·d/k)): rf's S_m at k ≥ d up to a constant (docs/METHOD.md §4)."""
    m, n, d, k = (frame[c].to_numpy(dtype=float) for c in ("words", "n", "d", "k"))
    return np.sqrt(m / n) * (1 + np.sqrt(m * d / k))


def _theta_tests(c, grp: Group, g: pd.DataFrame, plan, x: str, used: set, window: float,
                 centre: float, what: str) -> None:
    """The tests of a Θ(x^centre) claim on one group, from the columns S and S_upper of `g`
    (already divided by the claim's law where it has one): the lower bound's slope over the end
    of the design at least centre − window (the lower part), the examined sets' certified
    bound's at most centre + window (the upper part, restricted), and the lower bound at the
    design's end above the ceiling of a certified bound (column `level`, already over it)
    refuting the upper part; without S_upper in the group the upper part is at most not
    refuted, by that level."""
    fit = groups.fit_group(grp, g, "S", plan, used, x=x)
    if fit is None:
        return
    upper = _has_upper(g)
    end = f"{x if x != 'words' else 'm'}={regimes.ns_text(fit['end'])}"
    var = "m" if x == "words" else "n"
    lower = c.judge(evidence.LOWER_RATE).test(
        fit["per_trial"], f"slope of log {what} (lower bound) vs log {var} over {end}",
        evidence.LOWER, confirm=("above", centre - window),
        fails=("below", centre - window - rules.SLOPE_MARGIN))
    cur = groups.usable_curves(g, "level", plan, x=x)
    if cur["reason"]:
        grp.unavailable = cur["reason"]
        return
    top = int(max(plan.ns))
    level = c.judge(evidence.UPPER_RATE).test(
        pd.Series(cur["matrix"][:, -1], index=cur["index"]),
        f"S_m over the ceiling of a certified bound at {var}={top} (lower bound)",
        evidence.LOWER, confirm=None if upper else ("below", 1.0), refute=("above", 1.0),
        by_level=True)
    if not upper:
        grp.tests, grp.note = [lower, level], "no upper bound over the word sets in this file"
        return
    ufit = groups.usable_fit(g, "S_upper", plan, x)
    if ufit["reason"]:
        grp.unavailable = f"S_upper: {ufit['reason']}"
        return
    grp.tests = [c.judge(evidence.UPPER_RATE).test(
        ufit["per_trial"], f"slope of log S_upper (examined sets) vs log {var} over {end}",
        evidence.UPPER_EXAMINED, confirm=("below", centre + window),
        fails=("above", centre + window + rules.SLOPE_MARGIN)), lower, level]
    grp.note = "S_upper bounds the supremum over the examined word sets only"


def _has_upper(g: pd.DataFrame) -> bool:
    values = g["S_upper"].astype(float)
    return bool((np.isfinite(values) & (values != 0)).any())


def _with_level(g: pd.DataFrame) -> pd.DataFrame:
    """`g` with its lower bound over the ceiling a certified bound on its m words can reach
    (the column `level`, tolerances.level_ceiling)."""
    ceiling = np.array([tolerances.level_ceiling(r.n, r.d, r.k, int(r.layers), int(r.words))
                        for r in g.itertuples(index=False)], dtype=float)
    return g.assign(level=g["S"].astype(float) * np.sqrt(g["n"] / g["words"]) / ceiling)


def rf_growth_rows(c, study) -> list:
    """rf's S_m against m at fixed n: Θ(√(m/n)) in every (n, d, k) group, its lower part from
    S_m, its upper part from S_upper over the examined sets."""
    if not _has_several_words(study):
        return []
    df, tol = study.words, study.settings.half_m()
    row = _claim_row(c)
    sub = df[(df["model"] == c.model)] if not df.empty else df
    if sub.empty or not (sub["words"] > 1).any():
        row.unavailable = "no rf records with several changed words in this file"
        return [row]

    def in_regime(frame):
        return (frame["k"] >= frame["d"]) & (frame["words"] * rules.M_OVER_N <= frame["n"])

    row.outside = _outside(sub, in_regime(sub), "m > n/8 or k < d")
    inside = sub[in_regime(sub)]
    used = set()
    for (n, d, L, k), g in inside.groupby(["n", "d", "layers", "k"], sort=True):
        lab = regimes.group_label({"n": n, "d": d, "k": f"k={int(k)}"})
        plan = groups.design(study.planned, g, "ws", "rf", {"n": n, "d": d, "layers": L, "k": k},
                             in_regime, x="words", one_word=False)
        grp = groups.start_group(row, lab, d, plan, x="m")
        _theta_tests(c, grp, _with_level(g), plan, "words", used, tol, HALF, "S_m")
    _finish_row(row, inside)
    row.n_used = "n=" + regimes.ns_text(used) if used else ""
    return [row]


def _finish_row(row: Row, inside: pd.DataFrame) -> None:
    if not row.groups:
        row.unavailable = row.unavailable or f"no group inside the regime ({row.regime})"
    if not inside.empty:
        row.d = regimes.ns_text(inside["d"])


def rf_fraction_rows(c, study) -> list:
    """rf at a fixed fraction m = ⌈f·n⌉ of changed words: S_m/λ(m/n) = Θ(1) in n in every
    (f, d, k) group (λ: the law, which moves with the rounding of f·n)."""
    if not _has_several_words(study):
        return []
    df, fractions, flat = study.words, study.fractions, study.settings.flat()
    row = _claim_row(c)
    if not fractions:
        row.unavailable = "the study has no words-fraction"
        return [row]
    sub = df[df["model"] == c.model] if not df.empty else df
    if sub.empty:
        row.unavailable = "no rf records in this file"
        return [row]
    inside = sub[sub["k"] >= sub["d"]]
    row.outside = _outside(sub, sub["k"] >= sub["d"], "k < d")
    used = set()
    for f in fractions:
        def at_f(frame, f=f):
            return (frame["k"] >= frame["d"]) & (
                frame["words"] == [words_at_fraction(f, int(n)) for n in frame["n"]])

        for (d, L, kl), g in inside[at_f(inside)].groupby(["d", "layers", "k_label"],
                                                          sort=True):
            lab = regimes.group_label({"f": f"{f:g}", "d": d, "k": kl})
            plan = groups.design(study.planned, g, "ws", "rf",
                                 {"d": d, "layers": L, "k_label": kl}, at_f, one_word=False)
            grp = groups.start_group(row, lab, d, plan)
            g = _with_level(g)
            law = _law(g)
            g = g.assign(S=g["S"].astype(float) / law, S_upper=g["S_upper"].astype(float) / law)
            _theta_tests(c, grp, g, plan, "n", used, flat, 0.0, "S_m/λ(m/n)")
    _finish_row(row, inside)
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
