"""The claims on the trained heads (Thms 4–5 and their contrast): their rows builders.

E at the best Δ found is attained by that Δ: a small E is certified, a large E only says that the
search found nothing better.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import regimes, rules
from .combined import SERIES
from .judgement import Row, missing_test, sign_test, t_test
from .stats import pool_trials

MIN_TRIALS = rules.MIN_TRIALS
GEN_GROUP = ["d", "N", "k_label"]


def with_best_objective(gen: pd.DataFrame) -> pd.DataFrame:
    """Adds objective 'best': per task and training mode, the Δ with the smallest E (the best
    the search found over the objectives run; with one objective, that one)."""
    gen = gen[np.isfinite(gen["E"].astype(float))] if not gen.empty else gen
    if gen.empty:
        return gen
    best = gen.loc[gen.groupby(["task_id", "training"])["E"].idxmin()].copy()
    best["objective"] = "best"
    if gen["objective"].nunique() < 2:
        return best
    return pd.concat([gen, best], ignore_index=True)


def prepare_gen(gen: pd.DataFrame) -> pd.DataFrame:
    if gen.empty:
        return gen
    gen = with_best_objective(gen)
    return gen.assign(k_label=regimes.k_labels_per_series(gen, SERIES))


def _largest_two(g: pd.DataFrame):
    counts = g.groupby("n")["E"].count()
    ns = sorted(n for n, c in counts.items() if c >= MIN_TRIALS)
    return ns[-2:]


def head_rows(c, study) -> list:
    """Thms 4–5 (rf) or their contrast (raf): one primary row per training mode and the
    breakdown per objective, d, N and k."""
    gen = study.gen
    out = []
    trainings = sorted(gen["training"].unique()) if not gen.empty else []
    claim_id = c.id
    sub = gen[gen["model"] == c.model] if not gen.empty else gen
    if sub.empty:
        return [Row(rules.PRIMARY, claim_id, c.name, c.theorem, c.model, "", regime=c.regime,
                    unavailable=f"no {c.model} gen records in this file")]
    for training in trainings:
        st = sub[sub["training"] == training]
        row = Row(rules.PRIMARY, f"{claim_id}[{training}]", c.name, c.theorem, c.model, "",
                  regime=c.regime)
        out.append(row)
        if st.empty:
            row.unavailable = f"no {c.model} {training} records"
            continue
        mask = regimes.gen_mask(st, c.model)
        best = st[st["objective"] == "best"]
        row.outside = regimes.outside_text(best, mask[best.index], GEN_GROUP,
                                           f"not {regimes.gen_regime_text(c.model)}")
        inside = st[mask]
        if inside.empty:
            row.unavailable = f"no grid point inside the claim's regime ({c.regime})"
            continue
        row.d = regimes.ns_text(inside["d"])
        levels, gaps, reasons, n_used, tops = [], [], [], set(), set()
        for (objective, d, N, kl), g in inside.groupby(["objective", *GEN_GROUP], sort=True):
            lab = regimes.group_label({"t": training, "o": objective, "d": d, "N": N,
                                       "k": kl})
            ns = _largest_two(g)
            if not ns:
                reasons.append(f"{lab}: no n with ≥ {MIN_TRIALS} trials")
                continue
            top = g[g["n"] == ns[-1]].groupby("trial")["E"].mean()
            sec = Row(rules.SECONDARY, f"level[{c.model},{lab}]",
                      "median E at the largest n", c.theorem, c.model, str(int(d)),
                      regime=c.regime, n_used=str(int(ns[-1])))
            sec.tests = [_level_test(claim_id, top, ns[-1])]
            out.append(sec)
            gap = None
            if claim_id == "thm45_rf" and len(ns) == 2:
                m = g[g["n"].isin(ns)].pivot_table(index="trial", columns="n", values="E")
                m = m.dropna()
                lg = np.log(np.maximum(np.abs(4.0 - m), 1e-12))
                gap = (lg[ns[1]] - lg[ns[0]]) / (np.log(ns[1]) - np.log(ns[0]))
                gsec = Row(rules.SECONDARY, f"gap_slope[{c.model},{lab}]",
                           "the gap to 4 still closes at the end of the grid", c.theorem,
                           c.model, str(int(d)), regime=c.regime,
                           n_used=f"{int(ns[0])},{int(ns[1])}")
                gsec.tests = [_gap_test(gap, ns)]
                out.append(gsec)
            if objective != "best":
                continue
            levels.append(top)
            tops.add(ns[-1])
            n_used.update(ns if claim_id == "thm45_rf" else ns[-1:])
            if gap is not None:
                gaps.append(gap)
            elif claim_id == "thm45_rf":
                reasons.append(f"{lab}: only one n with ≥ {MIN_TRIALS} trials (the gap to 4 "
                               "needs two)")
        if not levels:
            row.unavailable = "; ".join(reasons) or "no usable group"
            continue
        row.n_used = regimes.ns_text(n_used)
        # Pooled over groups per trial, conservatively: the smallest E_rf, the largest E_raf.
        level = pool_trials(levels, "min" if claim_id == "thm45_rf" else "max")
        single = next(iter(tops)) if len(tops) == 1 else None
        row.tests = [_level_test(claim_id, level, single)]
        if claim_id == "thm45_rf":
            ns2 = sorted(n_used)[-2:] if single is not None and len(n_used) == 2 else None
            row.tests.append(_gap_test(pool_trials(gaps, "max"), ns2) if gaps else missing_test(
                "two-point slope of log|4 − E|", "needs two values of n in the regime"))
        if reasons:
            row.hint = "left out: " + "; ".join(reasons)
    return out


def _level_test(claim_id: str, values, n):
    at = f" at n={int(n)}" if n is not None else " at the largest n"
    if claim_id == "thm45_rf":
        return sign_test(values, "E" + at, confirm=("above", rules.E_FAR),
                         refute=("below", rules.E_NEAR))
    return sign_test(values, "E" + at, confirm=("below", rules.E_NEAR))


def _gap_test(values, ns):
    at = f" (n={int(ns[0])}→{int(ns[1])})" if ns is not None else ""
    return t_test(values, "two-point slope of log|4 − E|" + at,
                  confirm=("below", rules.E_GAP_SLOPE))

