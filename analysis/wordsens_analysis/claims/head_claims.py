"""The claims on the trained heads (Thms 4–5 and their contrast): their rows builders.

E at the best Δ found is attained by that Δ: a small E is certified (raf's head can be made
right: confirmed), while a large E only says that a search minimising E found nothing better
(rf's head "cannot tell the texts apart": at most supported (search only)). A certificate of a
large E over the whole ball would need ‖θ‖·‖φ(X)‖·S_upper < 2 (docs/METHOD.md), far from true at
these sizes. rf's claim speaks for n large (judged over the end of the design, per trial at its
smallest E there), raf's for every n ≤ d (per trial at its largest E over the regime). "E tends
to 4" is claimed only from at least MIN_POINTS values of n, by a fitted limit whose interval
contains 4.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import rules
from ..reading import SERIES
from ..rules import Group, Row, evidence, groups, regimes, shape, sign_test, stats

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


def prepare_gen(gen: pd.DataFrame, catalogue, k_label: pd.Series | None = None) -> pd.DataFrame:
    """gen records for the rules: objective 'best' added and each record's k label (by task,
    from the planned table when given)."""
    if gen.empty:
        return gen
    if k_label is not None:
        gen = gen.assign(k_label=k_label)
    gen = with_best_objective(gen)
    if k_label is None:
        gen = gen.assign(k_label=regimes.k_labels_per_series(gen, SERIES, catalogue))
    return gen


def _in_regime(c, settings, catalogue):
    def mask(df: pd.DataFrame) -> pd.Series:
        inside = regimes.gen_mask(df, c.model, catalogue)
        if catalogue.is_attention(c.model):  # raf's head rests on its sensitivity: n ≤ d
            inside &= settings.attention_mask(df)
        return inside
    return mask


def head_rows(c, study) -> list:
    """Thms 4–5 (rf) or their contrast (raf): one primary row per training mode, judged in every
    (d, N, k) group by the best Δ's E: rf's at every n of the end of the design, raf's at every
    n of the regime."""
    gen, settings = study.gen, study.settings
    trainings = sorted(gen["training"].unique()) if not gen.empty else []
    sub = gen[gen["model"] == c.model] if not gen.empty else gen
    if sub.empty:
        return [Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime,
                    unavailable=f"no {c.model} gen records in this file")]
    cannot = evidence.HEAD_CANNOT in c.statement.kinds
    in_regime = _in_regime(c, settings, study.catalogue)
    out = []
    for training in trainings:
        row = Row(rules.PRIMARY, f"{c.id}[{training}]", c.name, c.theorem, c.model, "",
                  regime=c.regime)
        out.append(row)
        st = sub[sub["training"] == training]
        if st.empty:
            row.unavailable = f"no {c.model} {training} records"
            continue
        mask = in_regime(st)
        best = st[st["objective"] == "best"]
        row.outside = regimes.outside_text(best, mask[best.index], GEN_GROUP,
                                           f"not {c.regime}")
        inside = st[mask]
        if inside.empty:
            row.unavailable = f"no grid point inside the claim's regime ({c.regime})"
            continue
        row.d = regimes.ns_text(inside["d"])
        out += _objective_rows(c, inside, training)
        limits, n_used = [], set()
        for (d, N, kl), g in inside[inside["objective"] == "best"].groupby(GEN_GROUP, sort=True):
            lab = regimes.group_label({"d": d, "N": N, "k": kl})
            grp = Group(lab, d=str(int(d)))
            row.groups.append(grp)
            plan = groups.design(study.planned, g, "gen", c.model,
                                 {"d": d, "N": N, "k_label": kl}, in_regime)
            if plan.shortfall:
                grp.unavailable = plan.shortfall
                continue
            ns = shape.end_of_design(plan.ns) if cannot else list(plan.ns)
            grp.axes = {"d": int(d), "N": int(N), "n": [int(n) for n in ns]}
            tests, why = _level_tests(c, g, plan, ns)
            if why:
                grp.unavailable = why
                continue
            grp.tests = tests
            grp.n_used = regimes.ns_text(ns)
            n_used.update(ns)
            if cannot:
                limit = _limit_row(c, training, lab, d, g, plan)
                out.append(limit)
                limits.append((lab, limit))
        if not row.groups:
            row.unavailable = f"no group inside the claim's regime ({c.regime})"
        row.n_used = regimes.ns_text(n_used)
        if cannot:
            text = _limit_summary(limits)
            row.note = "; ".join(filter(None, [
                "E is the smallest a search found, not a certificate over the ball", text]))
            row.hint = text
    return out


def _level_tests(c, g: pd.DataFrame, plan, ns: list) -> tuple:
    """(tests, why not) of one group at the values `ns` of its design: rf's smallest E there
    above E_FAR (supported, search only) and below E_NEAR refuting (attained); raf's largest E
    there below E_NEAR (confirmed, attained). Every trial must have a finite E at every n of
    the design."""
    cur = groups.usable_curves(g, "E", plan, positive=False)
    if cur["reason"]:
        return [], cur["reason"]
    cols = shape.columns_of(cur["x"], ns)
    at = cur["matrix"][:, cols]
    where = f"n={regimes.ns_text(ns)}"
    if evidence.HEAD_CANNOT in c.statement.kinds:
        low = pd.Series(at.min(axis=1), index=cur["index"])
        label = f"smallest E over {where} (best Δ found)"
        return [c.judge(evidence.HEAD_CANNOT).test(low, label, evidence.E_SEARCH,
                                                   confirm=("above", rules.E_FAR)),
                c.judge(evidence.HEAD_CANNOT).test(low, label, evidence.E_SMALL,
                                                   refute=("below", rules.E_NEAR))], ""
    high = pd.Series(at.max(axis=1), index=cur["index"])
    return [c.judge().test(high, f"largest E over {where} (best Δ found)", evidence.E_SMALL,
                           confirm=("below", rules.E_NEAR))], ""


def _objective_rows(c, inside: pd.DataFrame, training: str) -> list:
    """E per objective run (diagnostics beside the best Δ's, when several ran), each judged as
    the claim's own test on that objective's Δ."""
    objectives = [o for o in inside["objective"].unique() if o != "best"]
    if len(objectives) < 2:
        return []
    out = []
    cannot = evidence.HEAD_CANNOT in c.statement.kinds
    for (objective, d, N, kl), g in inside[inside["objective"] != "best"].groupby(
            ["objective", *GEN_GROUP], sort=True):
        lab = regimes.group_label({"t": training, "o": objective, "d": d, "N": N, "k": kl})
        plan = groups.Design(sorted(int(n) for n in g["n"].unique()), 0, "")
        ns = shape.end_of_design(plan.ns) if cannot else plan.ns
        r = Row(rules.SECONDARY, f"level[{c.model},{lab}]",
                "E at every n of the end of the design" if cannot
                else "E at every n of the regime", c.theorem, c.model, str(int(d)),
                regime=c.regime, n_used=regimes.ns_text(ns))
        tests, why = _level_tests(c, g, plan, ns)
        r.tests, r.unavailable = tests, why
        out.append(r)
    return out


def _limit_row(c, training: str, lab: str, d, g: pd.DataFrame, plan) -> Row:
    """'E tends to 4' in one group: E = L + B/√n fitted per trial over the design; claimed
    (supported, search only) when the interval of the median L contains 4."""
    r = Row(rules.SECONDARY, f"limit[{c.model},{training},{lab}]",
            "E tends to 4: the limit L of E = L + B/√n", c.theorem, c.model, str(int(d)),
            regime=c.regime, positive=rules.SUPPORTED_SEARCH)
    if len(plan.ns) < rules.MIN_POINTS:
        r.verdict = rules.INCONCLUSIVE
        r.reason = (f"not claimed: {len(plan.ns)} value(s) of n in the regime; a limit needs "
                    f"{rules.MIN_POINTS}")
        return r
    cur = groups.usable_curves(g, "E", plan, positive=False)
    if cur["reason"]:
        r.verdict, r.reason = rules.INCONCLUSIVE, f"not claimed: {cur['reason']}"
        return r
    limit = pd.Series(stats.ols_intercepts(1 / np.sqrt(cur["x"]), cur["matrix"]),
                      index=cur["index"])
    test = sign_test(limit, f"limit L of E = L + B/√n (n={regimes.ns_text(cur['x'])})")
    r.tests, r.n_used = [test], regimes.ns_text(cur["x"])
    if not (np.isfinite(test.ci_low) and np.isfinite(test.ci_high)):
        r.verdict, r.reason = rules.INCONCLUSIVE, "not claimed: no interval for the limit"
    elif test.ci_low <= rules.E_LIMIT <= test.ci_high:
        r.verdict = rules.SUPPORTED_SEARCH
        r.reason = f"the interval of the limit contains {rules.E_LIMIT:g}"
    else:
        side = "above" if test.ci_low > rules.E_LIMIT else "below"
        r.verdict = rules.INCONCLUSIVE
        r.reason = (f"not claimed: the limit's interval [{test.ci_low:.3g}, "
                    f"{test.ci_high:.3g}] lies {side} {rules.E_LIMIT:g}")
    return r


def _limit_summary(limits: list) -> str:
    if not limits:
        return f"E tending to {rules.E_LIMIT:g} is not claimed: no group to fit"
    ok = [lab for lab, r in limits if r.verdict == rules.SUPPORTED_SEARCH]
    if len(ok) == len(limits):
        return (f"E tends to {rules.E_LIMIT:g}: the fitted limit's interval contains it in every "
                "group (search only)")
    why = "; ".join(f"{lab}: {r.reason}" for lab, r in limits if r.verdict != rules.SUPPORTED_SEARCH)
    return f"E tending to {rules.E_LIMIT:g} is not claimed ({why})"
