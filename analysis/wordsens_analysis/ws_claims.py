"""The word-sensitivity claims (Thms 1–3 and the softmax contrast): their rows builders.

Each builder takes its Claim (claims.py) and one study (verdicts.StudyData) and returns the
claim's primary row, whose groups (judgement.Group: one per d, depth L, width k in its regime)
hold the tests, and diagnostics, not yet decided: verdicts.py decides every row of a report at
once (Holm runs over all primary rows).

The kind of evidence decides what a verdict may say. S is a lower bound (a witness attains it):
it can refute an O(·) claim and confirm an Ω(·) claim, never the other way round. S_upper is a
certified upper bound: it can confirm an O(·) claim. Per-trial statistics are judged by their
median with exact sign tests (stats.py: valid whatever their law).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import catalogue, groups, regimes, rules, stats, tolerances
from .combined import SERIES
from .judgement import Group, Row, missing_test, sign_test

MIN_TRIALS, MIN_POINTS = rules.MIN_TRIALS, rules.MIN_POINTS
WS_GROUP = ["d", "layers", "k_label"]
NO_UPPER = "no upper bound in this file"
SCOPE_CODES = {0: "none", 1: "all", 2: "examined"}


# --- preparation ------------------------------------------------------------------------------

def prepare_ws(ws: pd.DataFrame, k_label: pd.Series | None = None) -> pd.DataFrame:
    """ws records for the rules: layers, float S_upper, the scope of S_upper as text and each
    record's k label (`k_label`, by task, from the planned table when given)."""
    ws = ws.copy()
    if ws.empty:
        return ws
    for column in ("layers", "heads"):  # 1 where a table built by hand leaves them out
        ws[column] = ws[column].fillna(1).astype(np.int64) if column in ws else 1
    if "S_upper" not in ws:
        ws["S_upper"] = np.nan
    ws["S_upper"] = ws["S_upper"].astype(float)
    ws["k_label"] = (k_label if k_label is not None
                     else regimes.k_labels_per_series(ws, SERIES))
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


def _key_label(d, L, kl, model) -> str:
    return regimes.group_label({"d": d, "L": L if catalogue.is_deep(model) else "", "k": kl})


def _ratio_frame(a: pd.DataFrame, b: pd.DataFrame, value_a: str, value_b: str) -> pd.DataFrame:
    """a's value over b's per (n, trial) on the same texts (common random numbers)."""
    m = a[["n", "trial", value_a]].rename(columns={value_a: "a"}).merge(
        b[["n", "trial", value_b]].rename(columns={value_b: "b"}), on=["n", "trial"])
    return m.assign(ratio=m["a"] / m["b"])


def _rate_intercepts(g: pd.DataFrame, plan: groups.Design):
    """Per-trial intercept A of S·√n = A + B/√n (least squares over the trial's n)."""
    cur = groups.usable_curves(g.assign(Ssn=g["S"] * np.sqrt(g["n"])), "Ssn", plan)
    if cur["reason"]:
        return None, cur["reason"]
    a = stats.ols_intercepts(1 / np.sqrt(cur["x"]), cur["matrix"])
    return pd.Series(a, index=cur["index"]), None


def _width_per_n(g: pd.DataFrame, xs) -> np.ndarray:
    k = g.groupby("n")["k"].median()
    return np.array([float(k.loc[x]) for x in xs])


def _judged_groups(row: Row, frame: pd.DataFrame, keys: list, plan_of, label_of) -> list:
    """(key, frame, design) of the groups a claim can judge, in the order of their keys; groups
    whose grid has fewer than MIN_POINTS values of n in the regime are listed in the row's
    outside_regime instead. A group the task table plans but none of whose tasks is done (a d or
    an H a partial run never reached) comes with no rows and its shortfall: never left out."""
    found = {}
    for key, g in frame.groupby(keys if len(keys) > 1 else keys[0], sort=True):
        found[key if isinstance(key, tuple) else (key,)] = g
    for key in getattr(plan_of, "planned_keys", lambda _: set())(keys) - set(found):
        found[key] = frame.iloc[0:0]
    out, small = [], []
    for key in sorted(found):
        g = found[key]
        plan = plan_of(dict(zip(keys, key)), g)
        if plan.too_small():
            small.append(plan.small_text(label_of(*key)))
            continue
        out.append((key, g, plan))
    if small:
        row.outside = "; ".join(filter(None, [row.outside, "not judged: " + "; ".join(small)]))
        row.hint = "; ".join(small)
    return out


def _planner(study, model: str, in_regime):
    def plan_of(key: dict, g: pd.DataFrame) -> groups.Design:
        return groups.design(study.planned, g, "ws", model, key, in_regime)

    def planned_keys(keys: list) -> set:
        """The groups the task table plans for the model's one-word ws tasks in the regime."""
        p = study.planned
        if p is None or p.empty or any(k not in p for k in keys):
            return set()
        p = p[(p["experiment"] == "ws") & (p["model"] == model) & (p["words"] == 1)]
        p = p[in_regime(p)] if not p.empty else p
        return {tuple(r) for r in p[keys].drop_duplicates().itertuples(index=False)}

    plan_of.planned_keys = planned_keys
    return plan_of


def _no_group(row: Row, c) -> None:
    if not row.groups:
        row.unavailable = row.unavailable or row.hint or (
            f"no group with {MIN_POINTS} values of n inside the claim's regime ({c.regime})")


# --- Thms 1–2: O(1/√n) ------------------------------------------------------------------------

def o_half_rows(c, study) -> list:
    """Thms 1–2: S = O(1/√n) in every (d, L, k) group with k ≥ d, confirmed by the certified
    upper bound's slope within the bound's own finite-n drift δ of −1/2."""
    ws, model, settings = study.ws, c.model, study.settings
    sub = ws[ws["model"] == model] if not ws.empty else ws
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, model, "", regime=c.regime)
    if sub.empty:
        row.unavailable = f"no {model} ws records in this file"
        return [row]
    mask = regimes.ws_mask(sub, model)
    row.outside = regimes.outside_text(sub, mask, WS_GROUP, "k < d")
    inside = sub[mask]
    if inside.empty:
        row.unavailable = f"no grid point inside the claim's regime ({c.regime})"
        return [row]
    row.d = regimes.ns_text(inside["d"])
    n_used = set()
    plan_of = _planner(study, model, lambda p: regimes.ws_mask(p, model))
    label_of = lambda d, L, kl: _key_label(d, L, kl, model)  # noqa: E731
    for (d, L, kl), g, plan in _judged_groups(row, inside, WS_GROUP, plan_of, label_of):
        grp = Group(label_of(d, L, kl), d=str(int(d)),
                    axes={"d": int(d), "L": int(L), "n": list(plan.ns)})
        row.groups.append(grp)
        fit = groups.fit_group(grp, g, "S", plan, n_used)
        if fit is None:
            continue
        xs = fit["xs"]
        delta = settings.tolerance * tolerances.bound_drift(xs, d, _width_per_n(g, xs), L)
        limit = -0.5 + delta
        lower = sign_test(fit["per_trial"], "slope of log S (lower bound) vs log n",
                          refute=("above", rules.REFUTE_HALF))
        ufit = groups.usable_fit(g, "S_upper", plan) if g["S_upper"].notna().all() else None
        if ufit is not None and not ufit["reason"]:
            grp.tests = [sign_test(ufit["per_trial"],
                                   f"slope of log S_upper (certified bound) vs log n, δ = "
                                   f"{delta:.3f}", confirm=("below", limit)), lower]
            if (g["scope"] == "examined").any():
                grp.positive = rules.SUPPORTED_RESTRICTED
                grp.note = ("S_upper bounds the supremum over the examined positions only, not "
                            "S itself")
            continue
        a, why = _rate_intercepts(g, plan)
        lower = sign_test(fit["per_trial"], f"slope of log S (lower bound) vs log n, δ = "
                          f"{delta:.3f}", confirm=("below", limit),
                          refute=("above", rules.REFUTE_HALF))
        rate_label = "intercept A of S·√n = A + B/√n"
        grp.tests = [lower, sign_test(a, rate_label, confirm=("above", 0.0)) if a is not None
                     else missing_test(rate_label, why)]
        grp.positive = rules.NOT_REFUTED_LB
        grp.note = NO_UPPER
    _no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]


# --- Thm 3 and the softmax contrast -----------------------------------------------------------

def _partner_rows(study, model: str) -> pd.DataFrame:
    """The paired contrast's partner rows: the study's own when it has that model, else (in a
    report over several studies) the rows of the other studies, paired on the same texts."""
    ws = study.ws
    if not ws.empty and (ws["model"] == model).any():
        return ws
    if study.partners is not None and not study.partners.empty:
        return study.partners
    return ws


def _partner(others: pd.DataFrame, own_study):
    """(label suffix, rows) of the one partner group a contrast pairs with, or ("", None): a
    certified bound over every position before one over the examined ones, then the group with
    the most values of n, then the study's own rows (chosen by design, never by the result).
    Groups of different depths, widths or studies are never pooled into one curve."""
    if others.empty:
        return "", None
    keys = ([SERIES] if SERIES in others else []) + ["layers", "k_label"]
    best, rank = None, None
    for key, g in others.groupby(keys, sort=True):
        named = dict(zip(keys, key))
        own = named.get(SERIES, own_study) == own_study
        this = ((g["scope"] == "all").all(), g["n"].nunique(), own)
        if rank is None or this > rank:
            parts = [named["k_label"]] if named["k_label"] else []
            if not own:
                parts.append(f"{g['model'].iloc[0]}@{named[SERIES]}")
            best, rank = (",".join(parts), g), this
    return best


def _partner_of(og, model: str, own_study) -> tuple:
    """(model, study) of the partner rows a contrast pairs with, () without any."""
    if og is None or og.empty:
        return ()
    return (model, og[SERIES].iloc[0] if SERIES in og else own_study)


def _on_the_same_texts(pool: pd.DataFrame, model: str, g: pd.DataFrame) -> pd.DataFrame:
    """`model`'s rows of the pool at the group's d, n and trials: the same texts (a trial's texts
    depend only on its seed, data source, n, d and trial index, which combined.py keeps apart)."""
    if g.empty:  # a planned group without records: nothing to pair with
        return pool.iloc[0:0]
    return pool[(pool["model"] == model) & (pool["d"] == g["d"].iloc[0]) & pool["n"].isin(g["n"])
                & pool["trial"].isin(g["trial"])]


def _own_study(sub: pd.DataFrame):
    return sub[SERIES].iloc[0] if SERIES in sub else None


def _attention_inside(row: Row, c, study):
    """(rows of the claim's model, in-regime rows) under the study's settings, or None."""
    ws, settings = study.ws, study.settings
    sub = ws[ws["model"] == c.model] if not ws.empty else ws
    if sub.empty:
        row.unavailable = f"no {c.model} ws records in this file"
        return None
    if "k" not in sub:  # tables built by hand: attention models have no width
        sub = sub.assign(k=0)
    mask = settings.attention_mask(sub)
    row.outside = regimes.outside_text(sub, mask, ["d"], settings.outside_text())
    inside = sub[mask]
    if inside.empty:
        row.unavailable = (f"no grid point inside the claim's regime "
                           f"({settings.attention_text()})")
        return None
    row.d = regimes.ns_text(inside["d"])
    return sub, inside


def _attention_plan_of(study, model: str):
    return _planner(study, model, study.settings.attention_mask)


def _runs_several(inside: pd.DataFrame, study, model: str, column: str) -> bool:
    """Whether the model runs more than one value of `column`: in its records or in the
    study's task table."""
    values = set(inside[column].unique()) if column in inside else set()
    p = study.planned
    if p is not None and not p.empty and column in p:
        values |= set(p.loc[p["model"] == model, column].unique())
    return len(values) > 1


def several_heads(inside: pd.DataFrame, study, model: str) -> bool:
    """Whether the model runs more than one H: in its records or in the study's task table."""
    return _runs_several(inside, study, model, "heads")


def head_groups(inside: pd.DataFrame, study, model: str) -> tuple:
    """(group keys, label of a key, axes of a key) of an attention claim: per d, per H and per
    width k (block's MLP), each named where the model runs more than one value (a multi-head
    model over a heads grid, a block over an mlp-width grid); groups of different H or k are
    never pooled into one curve. The axes are sequential.py's selectors of the group."""
    heads = several_heads(inside, study, model)
    widths = _runs_several(inside, study, model, "k")

    # The width is named mlp=k: a group's label may go on with its rf partner's k (k=1D).
    def label_of(d, H, k) -> str:
        return ",".join([f"d={d}"] + ([f"H={H}"] if heads else []) +
                        ([f"mlp={k}"] if widths else []))

    def axes_of(d, H, k) -> dict:
        return {"d": int(d), **({"H": int(H)} if heads else {}),
                **({"k": int(k)} if widths else {})}

    return ["d", "heads", "k"], label_of, axes_of


def thm3_rows(c, study) -> list:
    """Thm 3: in every d, S_raf flat in n (inside the window ±FLAT) and high: above rf's
    certified upper bound on the same texts at every n, the ratio growing with n. The same for
    the claim's model beyond the paper (raf_v, mhraf, block)."""
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = _attention_inside(row, c, study)
    if found is None:
        return [row]
    sub, inside = found
    flat_window = study.settings.flat()
    pool = _partner_rows(study, "rf")
    n_used = set()
    plan_of = _attention_plan_of(study, c.model)
    keys, label_of, axes_of = head_groups(inside, study, c.model)
    for (d, H, k), g, plan in _judged_groups(row, inside, keys, plan_of, label_of):
        partners = _on_the_same_texts(pool, "rf", g)
        partners = partners[regimes.ws_mask(partners, "rf") & partners["S_upper"].notna()]
        suffix, og = _partner(partners, _own_study(sub))
        grp = Group(",".join(filter(None, [label_of(d, H, k), suffix])), d=str(int(d)),
                    partner=_partner_of(og, "rf", _own_study(sub)),
                    axes={**axes_of(d, H, k), "n": list(plan.ns)})
        row.groups.append(grp)
        fit = groups.fit_group(grp, g, "S", plan, n_used)
        if fit is None:
            continue
        flat = sign_test(fit["per_trial"], f"slope of log S_{c.model} vs log n",
                         confirm=("inside", -flat_window, flat_window))
        grp.tests = [flat, *_level_tests(g, og, c.model)]
        if og is not None and (og["scope"] == "examined").any():
            grp.positive = rules.SUPPORTED_RESTRICTED
            grp.note = ("rf's S_upper bounds the examined positions only: the ratio is not "
                        "a certified lower bound of the true one")
        if flat.estimate < -flat_window:
            decays = (f"S_{c.model} decays at {label_of(d, H, k)}; S is a lower bound found by ascent, so this "
                      "cannot refute Ω(1): either the claim fails there or the search misses "
                      "the maximum")
            row.hint = "; ".join(filter(None, [row.hint, decays]))
    _no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]


def mean_log_gap_test(grp: Group, ratios: pd.DataFrame, plan: groups.Design, label: str,
                      side: str, n_used: set) -> None:
    """A paired contrast's test of one group: per trial, the mean over the design's n of the log
    of `ratios`' column ratio (columns n, trial, ratio), on `side` of 0 ("above" or "below")
    confirms, the other side refutes; the group is unavailable when the curves are incomplete."""
    cur = groups.usable_curves(ratios, "ratio", plan)
    if cur["reason"]:
        grp.unavailable = cur["reason"]
        return
    gap = pd.Series(np.log(cur["matrix"]).mean(axis=1), index=cur["index"])
    n_used.update(cur["x"])
    grp.n_used = regimes.ns_text(cur["x"])
    other = "below" if side == "above" else "above"
    grp.tests = [sign_test(gap, label, confirm=(side, 0.0), refute=(other, 0.0))]


def _level_tests(g: pd.DataFrame, og, model: str = "raf") -> list:
    """`model` (raf) above rf's certified bound at every common n, per trial, and the ratio
    growing."""
    level_label = f"smallest over n of log(S_{model}/S_upper,rf), per trial"
    growth_label = f"slope of log(S_{model}/S_upper,rf) vs log n"
    if og is None:
        why = "no rf records with a certified bound (k ≥ d) on the same texts"
        return [missing_test(level_label, why), missing_test(growth_label, why)]
    pair = _ratio_frame(g, og, "S", "S_upper")
    cur = stats.complete_curves(pair, "n", "ratio", min_trials=MIN_TRIALS,
                                min_points=MIN_POINTS)
    if cur["reason"]:
        return [missing_test(level_label, cur["reason"]),
                missing_test(growth_label, cur["reason"])]
    logs = np.log(cur["matrix"])
    level = pd.Series(logs.min(axis=1), index=cur["index"])
    growth = pd.Series(stats.ols_slopes(np.log(cur["x"]), logs), index=cur["index"])
    n_text = f" (n={regimes.ns_text(cur['x'])})"
    return [sign_test(level, level_label + n_text, confirm=("above", 0.0)),
            sign_test(growth, growth_label + n_text, confirm=("above", 0.0))]


def softmax_rows(c, study) -> list:
    """The softmax contrast: in every d, raf keeps more of a word than raf_relu's best found
    (paired log(S_raf/S_relu) above 0); raf_relu's decay is looked for only beyond its floor
    (n ≥ RELU_BEYOND·d), in diagnostic rows."""
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = _attention_inside(row, c, study)
    if found is None:
        return [row]
    sub, inside = found
    pool = _partner_rows(study, "raf")
    n_used = set()
    plan_of = _attention_plan_of(study, c.model)
    for (d,), g, plan in _judged_groups(row, inside, ["d"], plan_of, lambda d: f"d={d}"):
        suffix, og = _partner(_on_the_same_texts(pool, "raf", g), _own_study(sub))
        grp = Group(",".join(filter(None, [f"d={d}", suffix])), d=str(int(d)),
                    positive=rules.NOT_REFUTED_LB,
                    note="S_relu is a lower bound (a search with the floor starts): "
                         "raf_relu might keep more",
                    partner=_partner_of(og, "raf", _own_study(sub)),
                    axes={"d": int(d), "n": list(plan.ns)})
        row.groups.append(grp)
        if plan.shortfall:
            grp.unavailable = plan.shortfall
            continue
        label = "mean over n of log(S_raf/S_relu), per trial"
        if og is None:
            grp.tests = [missing_test(label, "no raf records on the same texts")]
            continue
        mean_log_gap_test(grp, _ratio_frame(og, g, "S", "S"), plan, label, "above", n_used)
    _no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row] + _relu_decay_rows(c, sub)


def _relu_decay_rows(c, sub: pd.DataFrame) -> list:
    """raf_relu per d where n ≥ RELU_BEYOND·d, beyond the reach of the floor construction."""
    out = []
    beyond = sub[sub["n"] >= rules.RELU_BEYOND * sub["d"]]
    for d, g in beyond.groupby("d", sort=True):
        plan = groups.Design(sorted(int(n) for n in g["n"].unique()), 0, "")
        if plan.too_small():
            continue
        r = Row(rules.SECONDARY, f"relu_decay[d={d}]", "raf_relu decays where its floor does "
                "not reach (n ≥ 2d)", c.theorem, c.model, str(int(d)),
                regime=f"n ≥ {rules.RELU_BEYOND}·d", positive=rules.NOT_REFUTED_LB)
        fit = groups.usable_fit(g, "S", plan)
        if fit["reason"]:
            r.unavailable = fit["reason"]
        else:
            r.n_used = regimes.ns_text(fit["xs"])
            r.tests = [sign_test(fit["per_trial"], "slope of log S_relu vs log n",
                                 confirm=("below", rules.RELU_DECAY),
                                 refute=("above", rules.RELU_FLAT))]
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
        lab = _key_label(d, L, kl, model)
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
