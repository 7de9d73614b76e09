"""The word-sensitivity claims (Thms 1–3 and the softmax contrast): their rows builders.

Each builder takes its Claim (claim.py) and one study (verdicts.StudyData) and returns the
claim's primary row, whose groups (rules.Group: one per d, depth L, width k in its regime)
hold the tests, and diagnostics, not yet decided: verdicts.py decides every row of a report at
once (Holm runs over all primary rows).

The kind of evidence decides what a verdict may say (evidence.py, through Claim.judge()): S is a
lower bound (a witness attains it): it can confirm an Ω(·) claim, and it refutes an O(·) claim
only by a level (S·√n above the theorem's largest constant), never by its slope. S_upper is a
certified upper bound: it can confirm an O(·) claim. Two lower bounds never order two models.
Slopes are read over the end of the design (shape.py), levels and contrasts at every n; every
test judges its per-trial values as "with probability ≥ 1 − η over the weights" (sign_test).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import rules
from ..reading import SERIES
from ..rules import Row, evidence, groups, regimes, shape, sign_test, stats, tolerances
from .claim_groups import (attention_inside, attention_plan_of, head_groups, judged_groups,
                           no_group, planner)
from .partners import (has_upper, on_the_same_texts, partner_group, partner_of, partner_rows,
                       ratio_frame, study_of_rows)
from .shared_tests import flat_slope_test, worst_log_ratio_test

MIN_TRIALS, MIN_POINTS = rules.MIN_TRIALS, rules.MIN_POINTS
WS_GROUP = ["d", "layers", "k_label"]
NO_UPPER = "no upper bound in this file"
SCOPE_CODES = {0: "none", 1: "all", 2: "examined"}


# --- preparation ------------------------------------------------------------------------------

def prepare_ws(ws: pd.DataFrame, catalogue, k_label: pd.Series | None = None) -> pd.DataFrame:
    """ws records for the rules: layers, float S_upper, the scope of S_upper as text and each
    record's k label (`k_label`, by task, from the planned table when given; else from the
    widths, for the models `catalogue` gives a width)."""
    ws = ws.copy()
    if ws.empty:
        return ws
    for column in ("layers", "heads"):  # 1 where a table built by hand leaves them out
        ws[column] = ws[column].fillna(1).astype(np.int64) if column in ws else 1
    if "S_upper" not in ws:
        ws["S_upper"] = np.nan
    ws["S_upper"] = ws["S_upper"].astype(float)
    ws["k_label"] = (k_label if k_label is not None
                     else regimes.k_labels_per_series(ws, SERIES, catalogue))
    if "S_upper_scope" in ws:
        scope = ws["S_upper_scope"]
        if scope.dtype.kind in "iuf":
            scope = scope.map(lambda v: SCOPE_CODES.get(int(v), str(v)) if np.isfinite(v)
                              else "none")
        ws["scope"] = scope.astype(str)
    else:
        # Before format 1.2 only the full rf sampler wrote S_upper, a bound over all positions.
        ws["scope"] = np.where(np.isfinite(ws["S_upper"]), "all", "none")
    return ws


def _key_label(d, L, kl, model, catalogue) -> str:
    return regimes.group_label({"d": d, "L": L if catalogue.is_deep(model) else "", "k": kl})


def _width_per_n(g: pd.DataFrame, xs) -> np.ndarray:
    k = g.groupby("n")["k"].median()
    return np.array([float(k.loc[x]) for x in xs])


def _ceiling_test(judge, g: pd.DataFrame, plan: groups.Design, d, L, confirm: bool) -> tuple:
    """(test, why not): the level at which a lower bound refutes an O(1/√n) claim: per trial
    S·√n at the largest n of the design over C_max (tolerances.level_ceiling); above 1 in
    significantly more than η of the trials refutes; with `confirm` (no certified bound in the
    group), below 1 is 'not refuted (lower bound only)'."""
    top = max(plan.ns)
    at_top = g.loc[g["n"] == top, "k"]
    k = float(at_top.median()) if len(at_top) else float("nan")
    ceiling = float(tolerances.level_ceiling(top, d, k, L))
    cur = groups.usable_curves(g, "S", plan)
    if cur["reason"]:
        return None, cur["reason"]
    per = pd.Series(cur["matrix"][:, -1] * np.sqrt(top) / ceiling, index=cur["index"])
    label = f"S·√n / C_max at n={top} (lower bound; C_max = {ceiling:.3g})"
    return judge.test(per, label, evidence.LOWER, confirm=("below", 1.0) if confirm else None,
                      refute=("above", 1.0), by_level=True), ""


# --- Thms 1–2: O(1/√n) ------------------------------------------------------------------------

def o_half_rows(c, study) -> list:
    """Thms 1–2: S = O(1/√n) in every (d, L, k) group with k ≥ d, confirmed by the certified
    upper bound's slope over the end of the design within the bound's own finite-n drift δ of
    −1/2, refuted by a lower bound only above the theorem's level."""
    ws, model, settings = study.ws, c.model, study.settings
    sub = ws[ws["model"] == model] if not ws.empty else ws
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, model, "", regime=c.regime)
    if sub.empty:
        row.unavailable = f"no {model} ws records in this file"
        return [row]
    mask = regimes.ws_mask(sub, model, study.catalogue)
    row.outside = regimes.outside_text(sub, mask, WS_GROUP, "k < d")
    inside = sub[mask]
    if inside.empty:
        row.unavailable = f"no grid point inside the claim's regime ({c.regime})"
        return [row]
    row.d = regimes.ns_text(inside["d"])
    n_used = set()
    judge = c.judge()
    plan_of = planner(study, model, lambda p: regimes.ws_mask(p, model, study.catalogue))
    label_of = lambda d, L, kl: _key_label(d, L, kl, model, study.catalogue)  # noqa: E731
    for (d, L, kl), g, plan in judged_groups(row, inside, WS_GROUP, plan_of, label_of):
        grp = groups.start_group(row, label_of(d, L, kl), d, plan,
                                 axes={"d": int(d), "L": int(L), "n": list(plan.ns)})
        if grp.unavailable:
            continue
        if plan.shortfall:
            grp.unavailable = plan.shortfall
            continue
        upper = has_upper(g)
        level, why = _ceiling_test(judge, g, plan, d, L, confirm=not upper)
        if level is None:
            grp.unavailable = f"S: {why}"
            continue
        if not upper:
            grp.tests, grp.note = [level], NO_UPPER
            grp.n_used = str(max(plan.ns))
            n_used.add(max(plan.ns))
            continue
        ufit = groups.usable_fit(g, "S_upper", plan)
        if ufit["reason"]:
            grp.unavailable = f"S_upper: {ufit['reason']}"
            continue
        end = ufit["end"]
        delta = settings.tolerance * tolerances.bound_drift(end, d, _width_per_n(g, end), L)
        examined = bool((g["scope"] == "examined").any())
        grp.tests = [judge.test(ufit["per_trial"],
                                f"slope of log S_upper (certified bound) vs log n over "
                                f"n={regimes.ns_text(end)}, δ = {delta:.3f}",
                                evidence.UPPER_EXAMINED if examined else evidence.UPPER,
                                confirm=("below", -0.5 + delta),
                                fails=("above", -0.5 + delta + rules.SLOPE_MARGIN)), level]
        grp.n_used = regimes.ns_text(end)
        n_used.update(end)
        if examined:
            grp.note = ("S_upper bounds the supremum over the examined positions only, not S "
                        "itself")
    no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]


# --- Thm 3 and the softmax contrast -----------------------------------------------------------


def thm3_rows(c, study) -> list:
    """Thm 3: in every d, S_raf not decaying over the end of the design and high: above rf's
    certified upper bound on the same texts at every n, the ratio growing with n. The same for
    the claim's model beyond the paper (raf_v, mhraf, block)."""
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = attention_inside(row, c, study)
    if found is None:
        return [row]
    sub, inside = found
    flat_window = study.settings.flat()
    pool = partner_rows(study, c.partner)
    n_used = set()
    judge = c.judge()
    plan_of = attention_plan_of(study, c.model)
    keys, label_of, axes_of = head_groups(inside, study, c.model)
    for (d, H, k), g, plan in judged_groups(row, inside, keys, plan_of, label_of):
        partners = on_the_same_texts(pool, c.partner, g)
        partners = partners[regimes.ws_mask(partners, c.partner, study.catalogue)]
        suffix, og = partner_group(partners, study_of_rows(sub))
        grp = groups.start_group(row, ",".join(filter(None, [label_of(d, H, k), suffix])), d,
                                 plan, partner=partner_of(og, c.partner, study_of_rows(sub)),
                                 axes={**axes_of(d, H, k), "n": list(plan.ns)})
        fit = groups.fit_group(grp, g, "S", plan, n_used)
        if fit is None:
            continue
        flat = flat_slope_test(judge, fit, c.model, flat_window)
        grp.tests = [flat, *level_tests(judge, g, og, plan, c.model,
                                         _partner_grid(study, og, c.partner, study_of_rows(sub)))]
        grp.n_used = regimes.ns_text(plan.ns)  # the level is read at every n of the design
        n_used.update(plan.ns)
        if og is not None and (og["scope"] == "examined").any():
            grp.note = ("rf's S_upper bounds the examined positions only: the ratio is not "
                        "a certified lower bound of the true one")
        if flat.estimate < -flat_window:
            decays = (f"S_{c.model} decays at {label_of(d, H, k)}; S is a lower bound found by "
                      "ascent, so this cannot refute Ω(1): either the claim fails there or the "
                      "search misses the maximum")
            row.hint = "; ".join(filter(None, [row.hint, decays]))
    no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]


def _partner_grid(study, og, model: str, own_study) -> list | None:
    """The n the partner's study planned for `model` at the partner group's d (one changed
    word; groups.design, from the study's own `planned` when the partner is its own rows), or
    the n its records have without a task table."""
    if og is None or og.empty:
        return None
    series = og[SERIES].iloc[0] if SERIES in og else own_study
    tasks = study.planned if series == own_study else study.partner_tasks
    key = {"d": int(og["d"].iloc[0]), **({SERIES: series} if series is not None else {})}
    return groups.design(tasks, og, "ws", model, key, lambda f: np.ones(len(f), dtype=bool)).ns


def level_tests(judge, g: pd.DataFrame, og, plan: groups.Design, model: str = "raf",
                 partner_ns=None) -> list:
    """`model` (raf) above rf's certified bound at every n of the design that rf's grid also
    has, per trial, and the ratio growing over the end of those n; a shared point where rf's
    bound is missing on the same texts (a trial short, no trial done, a NaN bound) keeps the
    group open. rf's grid is what its study planned (`partner_ns`, _partner_grid; its records'
    n without a task table): an n it never planned (the paper's rf stops at n = 100) is outside
    the contrast, not a shortfall; fewer than rules.MIN_POINTS shared values of n keep the group
    open."""
    level_label = f"smallest over n of log(S_{model}/S_upper,rf), per trial"
    growth_label = f"slope of log(S_{model}/S_upper,rf) vs log n"
    examined = og is not None and bool((og["scope"] == "examined").any())
    kind = evidence.LOWER_OVER_EXAMINED if examined else evidence.LOWER_OVER_UPPER
    if og is None or not has_upper(og):
        why = "no rf records with a certified bound (k ≥ d) on the same texts"
        return [judge.missing(level_label, why, kind), judge.missing(growth_label, why, kind)]
    grid = partner_ns if partner_ns is not None else {int(v) for v in og["n"].unique()}
    shared = [n for n in plan.ns if n in grid]
    if len(shared) < rules.MIN_POINTS:
        why = (f"rf's grid shares only n={regimes.ns_text(shared) or 'none'} with the design "
               f"(the contrast needs {rules.MIN_POINTS} values of n)")
        return [judge.missing(level_label, why, kind), judge.missing(growth_label, why, kind)]
    both = groups.Design(shared, plan.trials, plan.shortfall)
    cur = groups.usable_curves(ratio_frame(g, og, "S", "S_upper"), "ratio", both)
    if cur["reason"]:
        why = f"rf's bound on the same texts: {cur['reason']}"
        return [judge.missing(level_label, why, kind), judge.missing(growth_label, why, kind)]
    logs = np.log(cur["matrix"])
    level = pd.Series(logs.min(axis=1), index=cur["index"])
    slopes, end = shape.end_slopes(cur["x"], cur["matrix"])
    growth = pd.Series(slopes, index=cur["index"])
    return [judge.test(level, f"{level_label} (n={regimes.ns_text(cur['x'])})", kind,
                       confirm=("above", 0.0)),
            judge.test(growth, f"{growth_label} over n={regimes.ns_text(end)}", kind,
                       confirm=("above", 0.0), fails=("below", -rules.SLOPE_MARGIN))]


def softmax_rows(c, study) -> list:
    """The softmax contrast: in every d, raf keeps more of a word than raf_relu's best found at
    every n of the regime (paired log(S_raf/S_relu) above 0, per trial its smallest over n); two
    lower bounds, so at most not refuted; raf_relu's decay is shown only beyond its floor
    (n ≥ RELU_BEYOND·d), in diagnostic rows."""
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = attention_inside(row, c, study)
    if found is None:
        return [row]
    sub, inside = found
    pool = partner_rows(study, c.partner)
    n_used = set()
    judge = c.judge()
    plan_of = attention_plan_of(study, c.model)
    for (d,), g, plan in judged_groups(row, inside, ["d"], plan_of, lambda d: f"d={d}"):
        suffix, og = partner_group(on_the_same_texts(pool, c.partner, g), study_of_rows(sub))
        grp = groups.start_group(row, ",".join(filter(None, [f"d={d}", suffix])), d, plan,
                                 note="S_relu is a lower bound (a search with the floor "
                                      "starts): raf_relu might keep more",
                                 partner=partner_of(og, c.partner, study_of_rows(sub)),
                                 axes={"d": int(d), "n": list(plan.ns)})
        if grp.unavailable:
            continue
        if plan.shortfall:
            grp.unavailable = plan.shortfall
            continue
        label = "smallest over n of log(S_raf/S_relu), per trial"
        if og is None:
            grp.tests = [judge.missing(label, "no raf records on the same texts",
                                       evidence.LOWER_PAIR)]
            continue
        pair = ratio_frame(g, og, "S", "S")
        pair["ratio"] = 1.0 / pair["ratio"]
        worst_log_ratio_test(judge, grp, pair, plan, label, "above", n_used, evidence.LOWER_PAIR)
    no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row] + _relu_decay_rows(c, sub)


def _relu_decay_rows(c, sub: pd.DataFrame) -> list:
    """raf_relu per d where n ≥ RELU_BEYOND·d, beyond the reach of the floor construction: its
    slope, shown (a lower bound's decay cannot show that the true S_relu decays)."""
    out = []
    beyond = sub[sub["n"] >= rules.RELU_BEYOND * sub["d"]]
    for d, g in beyond.groupby("d", sort=True):
        plan = groups.Design(sorted(int(n) for n in g["n"].unique()), 0, "")
        if plan.too_small():
            continue
        r = Row(rules.SECONDARY, f"relu_decay[d={d}]", "raf_relu beyond its floor (n ≥ 2d)",
                c.theorem, c.model, str(int(d)), regime=f"n ≥ {rules.RELU_BEYOND}·d")
        fit = groups.usable_fit(g, "S", plan)
        if fit["reason"]:
            r.verdict, r.reason = rules.SHOWN, fit["reason"]
        else:
            r.n_used = regimes.ns_text(fit["end"])
            r.tests = [sign_test(fit["per_trial"], "slope of log S_relu vs log n (lower bound)")]
            r.verdict = rules.SHOWN
            r.reason = ("shown, not judged: S_relu is a lower bound, whose decay cannot show "
                        "that the true S_relu decays")
        out.append(r)
    return out


# --- diagnostics ------------------------------------------------------------------------------

def local_slope_rows(study) -> list:
    """Slopes between successive n, per model and group: where along the grid a trend lives
    (shown, never judged)."""
    ws = study.ws
    rows = []
    if ws.empty:
        return rows
    for (model, d, L, kl), g in ws.groupby(["model", *WS_GROUP], sort=True):
        lab = _key_label(d, L, kl, model, study.catalogue)
        m = stats.trial_matrix(g.assign(S=g["S"].where(g["S"] > 0)), "n", "S")
        ns = [n for n in m.columns if m[n].notna().sum() >= MIN_TRIALS]
        for a, b in zip(ns[:-1], ns[1:]):
            pair = m[[a, b]].dropna()
            r = Row(rules.SECONDARY, f"local_slope[{model},{lab},n={int(a)}→{int(b)}]",
                    "slope between successive n", "", model, str(int(d)),
                    n_used=f"{int(a)},{int(b)}")
            per = (np.log(pair[b]) - np.log(pair[a])) / (np.log(b) - np.log(a))
            r.tests = [sign_test(per, "two-point slope of log S")]
            r.verdict, r.reason = rules.SHOWN, "a diagnostic: where along the grid a trend lives"
            rows.append(r)
    return rows
