"""One verdict per row of SPEC §5: confirmed, contradicted or inconclusive, by written rules.

Each rule is stated once here (RULES) and printed verbatim in the report, so the reader of a
report sees exactly which numbers decided each verdict. Thresholds are choices made before
looking at data; a CI straddling a threshold gives "inconclusive", never a guess.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from . import stats

CONFIRMED, CONTRADICTED, INCONCLUSIVE = "confirmed", "contradicted", "inconclusive"
VERDICT_COLUMNS = ["claim", "model", "d", "statistic", "estimate", "ci_low", "ci_high", "verdict"]
MIN_TRIALS = 3  # per grid point
MIN_POINTS = 3  # distinct n values for a slope
WIDTH_MODELS = ("rf", "drf")  # models with a feature width k


@dataclass(frozen=True)
class Rule:
    claim: str
    theorem: str
    model: str
    statistic: str
    text: str
    # (estimate, lo, hi) → verdict, (verdict, reason), or None for "inconclusive"
    decide: Callable[[float, float, float], str | tuple | None]


FASTER_THAN_PREDICTED = ("decays faster than n^−3/4: within the O(1/√n) bound, but not the "
                         "predicted rate ≈ −1/2 (is the ascent missing the maximum at large n?)")


def _slope_half(est, lo, hi):
    if -0.75 <= lo and hi <= -0.25:
        return CONFIRMED
    if lo > -0.25:
        return CONTRADICTED
    if hi < -0.75:  # an O(·) bound cannot be contradicted by a faster decay
        return INCONCLUSIVE, FASTER_THAN_PREDICTED
    return None


RULES = {
    r.claim: r
    for r in [
        Rule("thm1_slope", "Thm 1: S_rf = O(1/√n)", "rf", "slope of log mean S vs log n",
             "confirmed if the 95% CI lies inside [−0.75, −0.25] (so it excludes 0); "
             "contradicted if the CI lies entirely above −0.25 (slower decay than the bound "
             "allows); otherwise inconclusive (a CI entirely below −0.75 is reported as faster "
             "than predicted: it does not break an O(1/√n) bound)", _slope_half),
        Rule("thm1_upper_sqrt_n", "Thm 1: S_upper·√n bounded", "rf",
             "slope of log mean (S_upper·√n) vs log n",
             "confirmed if the CI's upper end is below +0.1 (S_upper·√n does not grow faster "
             "than n^0.1); contradicted if the CI's lower end is above +0.1; otherwise "
             "inconclusive",
             lambda e, lo, hi: CONFIRMED if hi < 0.1 else CONTRADICTED if lo > 0.1 else None),
        Rule("rf_bracket", "Thm 1: certified bracket S ≤ S_upper", "rf", "max over records of S/S_upper",
             "confirmed if S ≤ S_upper·(1 + 1e-9) in every record; contradicted otherwise",
             lambda e, lo, hi: CONFIRMED if e <= 1 + 1e-9 else CONTRADICTED),
        Rule("thm2_slope", "Thm 2: deep RF, S_drf = O(1/√n) for each L", "drf",
             "slope of log mean S vs log n",
             "as thm1_slope: CI inside [−0.75, −0.25] → confirmed; CI entirely above −0.25 → "
             "contradicted; otherwise inconclusive", _slope_half),
        Rule("thm3_slope", "Thm 3: S_raf = Ω(1)", "raf", "slope of log mean S vs log n",
             "confirmed if the CI lies inside [−0.15, +0.15]; contradicted if the CI lies "
             "entirely below −0.25 (a decay at least like n^−1/4); otherwise inconclusive",
             lambda e, lo, hi: CONFIRMED if lo >= -0.15 and hi <= 0.15
             else CONTRADICTED if hi < -0.25 else None),
        Rule("thm3_floor", "Thm 3: S_raf bounded below by a constant", "raf",
             "mean S at the largest n",
             "confirmed if the CI lies above 0.1 (a constant fixed in advance); contradicted if "
             "it lies below 0.1; otherwise inconclusive",
             lambda e, lo, hi: CONFIRMED if lo > 0.1 else CONTRADICTED if hi < 0.1 else None),
        Rule("relu_slope", "softmax matters: raf_relu WS decays", "raf_relu",
             "slope of log mean S vs log n",
             "confirmed if the CI lies entirely below −0.1; contradicted if it lies entirely "
             "above −0.05 (no decay); otherwise inconclusive",
             lambda e, lo, hi: CONFIRMED if hi < -0.1 else CONTRADICTED if lo > -0.05 else None),
        Rule("thm45_E_far", "Thms 4–5: E_rf stays far from 0", "rf", "median E at the largest n",
             "confirmed if the CI of the median lies above 1; contradicted if it lies below "
             "0.25; otherwise inconclusive",
             lambda e, lo, hi: CONFIRMED if lo > 1 else CONTRADICTED if hi < 0.25 else None),
        Rule("thm45_E_to_4", "Thms 4–5: E_rf → 4 as n grows", "rf",
             "slope of log mean |E − 4| vs log n",
             "confirmed if the CI lies below 0 (E approaches 4); contradicted if it lies above "
             "0 (E moves away from 4); otherwise inconclusive",
             lambda e, lo, hi: CONFIRMED if hi < 0 else CONTRADICTED if lo > 0 else None),
        Rule("raf_E_near_0", "RAF can tell the sentences apart: E_raf near 0", "raf",
             "median E at the largest n",
             "confirmed if the CI of the median lies below 0.25; contradicted if it lies above "
             "1; otherwise inconclusive",
             lambda e, lo, hi: CONFIRMED if hi < 0.25 else CONTRADICTED if lo > 1 else None),
    ]
}


def k_labels(df: pd.DataFrame) -> pd.Series:
    """How k was given, per row: 'k=<r>D' when k scales with D = n·d, else 'k=<k>'.

    Only rf and drf have a width k; attention models get ''.
    """
    labels = pd.Series("", index=df.index, dtype=object)
    if df.empty or "k" not in df:
        return labels
    ratio = df["k"] / (df["n"] * df["d"])
    keys = [c for c in ("model", "d", "layers", "N") if c in df]
    for key, idx in df.groupby(keys).groups.items():
        if (key[0] if isinstance(key, tuple) else key) not in WIDTH_MODELS:
            continue
        sub = df.loc[idx]
        if sub["k"].nunique() == 1 and sub["n"].nunique() > 1:
            labels.loc[idx] = "k=" + sub["k"].astype(int).astype(str)
        else:
            labels.loc[idx] = ratio.loc[idx].map(lambda r: f"k={r:.3g}D")
    return labels


def _qualifier(parts: dict) -> str:
    shown = [f"{k}={v}" if k in ("L", "N") else str(v) for k, v in parts.items() if v != ""]
    return f"[{','.join(shown)}]" if shown else ""


def _row(rule: Rule, d, est, lo, hi, qual: str = "", reason: str | None = None, model=None,
         statistic: str | None = None) -> dict:
    verdict = INCONCLUSIVE
    if reason is None and not np.isfinite(est):
        reason = "no estimate"
    if reason is None:
        if rule.claim != "rf_bracket" and not (np.isfinite(lo) and np.isfinite(hi)):
            reason = "no confidence interval (too few trials)"
        else:
            verdict = rule.decide(est, lo, hi) or INCONCLUSIVE
            if isinstance(verdict, tuple):
                verdict, reason = verdict
            elif verdict == INCONCLUSIVE:
                reason = "CI not decisive under the rule"
    return {
        "claim": rule.claim + qual,
        "model": model or rule.model,
        "d": "" if d is None else int(d),
        "statistic": statistic or rule.statistic,
        "estimate": est,
        "ci_low": lo,
        "ci_high": hi,
        "verdict": verdict,
        "reason": reason or "",
        "theorem": rule.theorem,
    }


def _missing(rule: Rule, what: str) -> dict:
    return _row(rule, None, np.nan, np.nan, np.nan, reason=f"no {what} records in this file")


def _slope_claims(ws: pd.DataFrame, rule: Rule, value: str = "S") -> list:
    sub = ws[ws["model"] == rule.model] if not ws.empty else ws
    if sub.empty:
        return [_missing(rule, f"{rule.model} ws")]
    rows = []
    for (d, L, kl), g in sub.groupby(["d", "layers", "k_label"], sort=True):
        qual = {"L": L} if rule.model == "drf" else {}
        qual["k"] = kl
        fit = stats.loglog_slope(g, "n", value, min_trials=MIN_TRIALS, min_points=MIN_POINTS)
        rows.append(_row(rule, d, fit["estimate"], fit["ci_low"], fit["ci_high"],
                         _qualifier(qual), fit["reason"]))
    return rows


def _at_largest_n(g: pd.DataFrame, value: str, statistic):
    counts = g.groupby("n")[value].count()
    usable = counts[counts >= MIN_TRIALS]
    if usable.empty:
        return None, (np.nan, np.nan, np.nan), (
            f"no n with ≥ {MIN_TRIALS} trials (max {int(counts.max()) if len(counts) else 0})")
    n = int(usable.index.max())
    return n, stats.bootstrap_ci(g.loc[g["n"] == n, value], statistic), None


def ws_claims(ws: pd.DataFrame) -> list:
    ws = ws.copy()
    if not ws.empty:
        if "layers" not in ws:
            ws["layers"] = 1
        ws["k_label"] = k_labels(ws)
    rows = []
    rows += _slope_claims(ws, RULES["thm1_slope"])
    rf = ws[ws["model"] == "rf"] if not ws.empty else ws
    up_rule, br_rule = RULES["thm1_upper_sqrt_n"], RULES["rf_bracket"]
    if rf.empty or "S_upper" not in rf or rf["S_upper"].notna().sum() == 0:
        rows += [_missing(up_rule, "rf S_upper"), _missing(br_rule, "rf S_upper")]
    else:
        rf = rf.assign(Su_sqrt_n=rf["S_upper"] * np.sqrt(rf["n"]))
        rows += _slope_claims(rf, up_rule, "Su_sqrt_n")
        for (d, kl), g in rf.groupby(["d", "k_label"], sort=True):
            ratio = (g["S"] / g["S_upper"]).max()
            rows.append(_row(br_rule, d, float(ratio), np.nan, np.nan, _qualifier({"k": kl})))
    rows += _slope_claims(ws, RULES["thm2_slope"])
    rows += _slope_claims(ws, RULES["thm3_slope"])
    floor = RULES["thm3_floor"]
    raf = ws[ws["model"] == "raf"] if not ws.empty else ws
    if raf.empty:
        rows.append(_missing(floor, "raf ws"))
    for d, g in raf.groupby("d", sort=True) if not raf.empty else []:
        n, (est, lo, hi), reason = _at_largest_n(g, "S", np.mean)
        stat = f"mean S at n={n}" if n else floor.statistic
        rows.append(_row(floor, d, est, lo, hi, reason=reason, statistic=stat))
    rows += _slope_claims(ws, RULES["relu_slope"])
    return rows


def _with_best_objective(gen: pd.DataFrame) -> pd.DataFrame:
    """Adds objective 'best': per task and training mode, the Δ with the smallest E."""
    if gen.empty or gen["objective"].nunique() < 2:
        return gen
    best = gen.loc[gen.groupby(["task_id", "training"])["E"].idxmin()].copy()
    best["objective"] = "best"
    return pd.concat([gen, best], ignore_index=True)


def gen_claims(gen: pd.DataFrame) -> list:
    rows = []
    gen = _with_best_objective(gen)
    for claim in ("thm45_E_far", "thm45_E_to_4", "raf_E_near_0"):
        rule = RULES[claim]
        sub = gen[gen["model"] == rule.model] if not gen.empty else gen
        if sub.empty:
            rows.append(_missing(rule, f"{rule.model} gen"))
            continue
        sub = sub.assign(k_label=k_labels(sub))
        keys = ["d", "training", "objective", "N", "k_label"]
        for (d, training, objective, N, kl), g in sub.groupby(keys, sort=True):
            qual = _qualifier({"t": training, "o": objective, "N": N, "k": kl})
            if claim == "thm45_E_to_4":
                g = g.assign(dist4=(g["E"] - 4.0).abs())
                fit = stats.loglog_slope(g, "n", "dist4", min_trials=MIN_TRIALS,
                                         min_points=MIN_POINTS)
                rows.append(_row(rule, d, fit["estimate"], fit["ci_low"], fit["ci_high"], qual,
                                 fit["reason"]))
            else:
                n, (est, lo, hi), reason = _at_largest_n(g, "E", np.median)
                stat = f"median E at n={n}" if n else rule.statistic
                rows.append(_row(rule, d, est, lo, hi, qual, reason, statistic=stat))
    return rows


def check_all(ws: pd.DataFrame, gen: pd.DataFrame) -> pd.DataFrame:
    """The verdict table: VERDICT_COLUMNS plus 'reason' and 'theorem' for the report."""
    rows = ws_claims(ws) + gen_claims(gen)
    return pd.DataFrame(rows, columns=[*VERDICT_COLUMNS, "reason", "theorem"])
