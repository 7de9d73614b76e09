"""The word-sensitivity claims (Thms 1–3 and the softmax contrast): their rows builders.

Each builder takes its Claim (claims.py) and one study (verdicts.StudyData) and returns the
claim's primary row and its breakdown (secondary rows), not yet decided: verdicts.py decides
every row of a report at once (Holm runs over all primary rows).

The kind of evidence decides what a verdict may say. S is a lower bound (a witness attains it):
it can refute an O(·) claim and confirm an Ω(·) claim, never the other way round. S_upper is a
certified upper bound: it can confirm an O(·) claim.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import regimes, rules, stats
from .combined import SERIES
from .judgement import Row, missing_test, t_test
from .regimes import k_labels
from .stats import pool_trials

MIN_TRIALS, MIN_POINTS = rules.MIN_TRIALS, rules.MIN_POINTS
WS_GROUP = ["d", "layers", "k_label"]
UPPER_MODELS = ("rf", "drf")
NO_UPPER = "no upper bound in this file"
HALF_UPPER = -0.5 + rules.HALF_TOL


# --- preparation ------------------------------------------------------------------------------

SCOPE_CODES = {0: "none", 1: "all", 2: "examined"}


def prepare_ws(ws: pd.DataFrame) -> pd.DataFrame:
    ws = ws.copy()
    if ws.empty:
        return ws
    if "layers" not in ws:
        ws["layers"] = 1
    if "S_upper" not in ws:
        ws["S_upper"] = np.nan
    ws["S_upper"] = ws["S_upper"].astype(float)
    ws["k_label"] = regimes.k_labels_per_series(ws, SERIES)
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
    return regimes.group_label({"d": d, "L": L if model == "drf" else "", "k": kl})


def _ratio_frame(a: pd.DataFrame, b: pd.DataFrame, value: str = "S") -> pd.DataFrame:
    """log(a/b) per (n, trial) on the same texts (common random numbers): paired by n and trial."""
    m = a[["n", "trial", value]].merge(b[["n", "trial", value]], on=["n", "trial"],
                                       suffixes=("_a", "_b"))
    return m.assign(ratio=m[f"{value}_a"] / m[f"{value}_b"])


def _per_trial_fit(df: pd.DataFrame, y: str):
    fit = stats.loglog_slope(df, "n", y, min_trials=MIN_TRIALS, min_points=MIN_POINTS)
    return fit


def _rate_intercepts(g: pd.DataFrame):
    """Per-trial intercept A of S·√n = A + B/√n (least squares over the trial's n)."""
    cur = stats.complete_curves(g.assign(Ssn=g["S"] * np.sqrt(g["n"])), "n", "Ssn",
                                min_trials=MIN_TRIALS, min_points=MIN_POINTS)
    if cur["reason"]:
        return None, cur["reason"]
    a = stats.ols_intercepts(1 / np.sqrt(cur["x"]), cur["matrix"])
    return pd.Series(a, index=cur["index"]), None


# --- word sensitivity -------------------------------------------------------------------------

def o_half_rows(c, study) -> list:
    """Thms 1–2: the primary row of an O(1/√n) claim and its per-group secondary rows."""
    ws, model = study.ws, c.model
    sub = ws[ws["model"] == model] if not ws.empty else ws
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, model, "", regime=c.regime)
    if sub.empty:
        row.unavailable = f"no {model} ws records in this file"
        return [row]
    mask = regimes.ws_mask(sub, model)
    row.outside = regimes.outside_text(sub, mask, WS_GROUP, "k < d")
    inside = sub[mask]
    row.d = regimes.ns_text(inside["d"]) if not inside.empty else ""
    if inside.empty:
        row.unavailable = f"no grid point inside the claim's regime ({c.regime})"
        return [row]
    lower, upper, rate, reasons, n_used, restricted = [], [], [], [], set(), False
    secondary = []
    for (d, L, kl), g in inside.groupby(WS_GROUP, sort=True):
        lab = _key_label(d, L, kl, model)
        fit = _per_trial_fit(g, "S")
        if fit["reason"]:
            reasons.append(f"{lab}: {fit['reason']}")
            continue
        n_used.update(fit["xs"])
        lower.append(fit["per_trial"])
        secondary += _ws_group_rows(g, model, lab, d, fit)
        has_up = g["S_upper"].notna()
        if has_up.any():
            ufit = _per_trial_fit(g[has_up], "S_upper")
            if not ufit["reason"]:
                upper.append(ufit["per_trial"])
                restricted |= bool((g.loc[has_up, "scope"] == "examined").any())
                secondary.append(_upper_row(model, lab, d, ufit,
                                            (g.loc[has_up, "scope"] == "examined").any()))
        a, why = _rate_intercepts(g)
        if a is not None:
            rate.append(a)
            secondary.append(_rate_row(model, lab, d, a))
    if not lower:
        row.unavailable = "; ".join(reasons)
        return [row] + secondary
    row.n_used = regimes.ns_text(n_used)
    low = pool_trials(lower)
    t_low = t_test(low, "slope of log S (lower bound) vs log n",
                   confirm=("below", HALF_UPPER) if not upper else None,
                   refute=("above", rules.REFUTE_HALF))
    if upper and len(upper) == len(lower):
        t_up = t_test(pool_trials(upper), "slope of log S_upper (certified upper bound) vs log n",
                      confirm=("below", HALF_UPPER))
        row.tests = [t_up, t_low]
        if restricted:
            row.positive = rules.SUPPORTED_RESTRICTED
            row.note = ("S_upper bounds the supremum over the examined positions only, not S "
                        "itself")
    else:
        rate_label = "intercept A of S·√n = A + B/√n"
        t_rate = (t_test(pool_trials(rate), rate_label, confirm=("above", 0.0))
                  if rate else missing_test(rate_label, "no fit"))
        row.tests = [t_low, t_rate]
        row.positive = rules.SUPPORTED_LB
        row.note = NO_UPPER + (" for some of its groups" if upper else "")
    if reasons:
        row.hint = "groups left out: " + "; ".join(reasons)
    return [row] + secondary


def _ws_group_rows(g, model, lab, d, fit) -> list:
    """Secondary rows of one (model, d, L, k) group: its slope and its local slopes."""
    rows = []
    r = Row(rules.SECONDARY, f"slope[{model},{lab}]", "slope of the lower bound S in one group",
            _theorem_of(model), model, str(int(d)), regime=regimes.ws_regime_text(model),
            n_used=regimes.ns_text(fit["xs"]), positive=rules.SUPPORTED_LB)
    r.tests = [t_test(fit["per_trial"], "slope of log S vs log n", **_slope_rule(model))]
    rows.append(r)
    return rows


def _slope_rule(model: str) -> dict:
    if model in UPPER_MODELS:
        return dict(confirm=("below", HALF_UPPER), refute=("above", rules.REFUTE_HALF))
    if model == "raf":
        return dict(confirm=("inside", -rules.FLAT, rules.FLAT))
    return dict(confirm=("below", rules.RELU_DECAY), refute=("above", rules.RELU_FLAT))


def _theorem_of(model: str) -> str:
    return {"rf": "Thm 1", "drf": "Thm 2", "raf": "Thm 3", "raf_relu": "Thm 3 (contrast)"}.get(
        model, "")


def _upper_row(model, lab, d, ufit, restricted) -> Row:
    r = Row(rules.SECONDARY, f"upper_slope[{model},{lab}]",
            "slope of the certified upper bound S_upper in one group", _theorem_of(model), model,
            str(int(d)), regime="k ≥ d", n_used=regimes.ns_text(ufit["xs"]),
            positive=rules.SUPPORTED_RESTRICTED if restricted else rules.CONFIRMED)
    r.tests = [t_test(ufit["per_trial"], "slope of log S_upper vs log n",
                      confirm=("below", HALF_UPPER))]
    return r


def _rate_row(model, lab, d, a) -> Row:
    r = Row(rules.SECONDARY, f"rate_fit[{model},{lab}]",
            "S·√n = A + B/√n: S falls like 1/√n, not faster", _theorem_of(model), model,
            str(int(d)), regime="k ≥ d", positive=rules.SUPPORTED_LB)
    r.tests = [t_test(a, "intercept A of S·√n = A + B/√n", confirm=("above", 0.0))]
    return r


def local_slope_rows(study) -> list:
    """Slopes between successive n, per model and group: where along the grid a trend lives."""
    ws = study.ws
    rows = []
    if ws.empty:
        return rows
    for (model, d, L, kl), g in ws.groupby(["model", *WS_GROUP], sort=True):
        lab = _key_label(d, L, kl, model)
        m = stats.trial_matrix(g.assign(S=g["S"].where(g["S"] > 0)), "n", "S")
        ns = [n for n in m.columns if m[n].notna().sum() >= MIN_TRIALS]
        inside = regimes.ws_mask(g.drop_duplicates("n").set_index("n", drop=False), model)
        for a, b in zip(ns[:-1], ns[1:]):
            pair = m[[a, b]].dropna()
            r = Row(rules.SECONDARY, f"local_slope[{model},{lab},n={int(a)}→{int(b)}]",
                    "slope between successive n", _theorem_of(model), model, str(int(d)),
                    regime=regimes.ws_regime_text(model), n_used=f"{int(a)},{int(b)}",
                    positive=rules.SUPPORTED_LB)
            per = (np.log(pair[b]) - np.log(pair[a])) / (np.log(b) - np.log(a))
            if not (bool(inside.get(a, True)) and bool(inside.get(b, True))):
                r.tests = [t_test(per, "two-point slope of log S")]
                r.verdict, r.reason = rules.OUTSIDE, (
                    f"not judged: {regimes.ws_regime_text(model)} fails at n={int(b)}")
            elif len(pair) < MIN_TRIALS:
                r.unavailable = f"only {len(pair)} trials at both n (need {MIN_TRIALS})"
            else:
                r.tests = [t_test(per, "two-point slope of log S", **_slope_rule(model))]
            rows.append(r)
    return rows


def _partner_rows(ws: pd.DataFrame, partners, model: str) -> pd.DataFrame:
    """The paired contrast's partner rows: the file's own when it has that model, else (in a
    report over several files) the rows of other studies on the same texts, if any."""
    if not ws.empty and (ws["model"] == model).any():
        return ws
    if partners is not None and not partners.empty:
        return partners
    return ws


def _partner_groups(others: pd.DataFrame) -> list:
    """Groups of partner rows that are never pooled into one curve: per depth and width, and
    per study when the partners come from several."""
    if others.empty:
        return []
    keys = ([SERIES] if SERIES in others else []) + ["layers", "k_label"]
    return [(dict(zip(keys, key)), g) for key, g in others.groupby(keys, sort=True)]


def thm3_rows(c, study) -> list:
    """Thm 3: the primary row and the per-d slopes and paired contrasts with rf."""
    return _attention_rows(c, study)


def softmax_rows(c, study) -> list:
    """The softmax contrast: the primary row and the per-d slopes and contrasts with raf."""
    return _attention_rows(c, study)


def _attention_rows(c, study) -> list:
    """Thm 3 or the softmax contrast: primary row and the per-d paired contrasts.

    `study.partners`: rows of other studies on the same texts (same seed and data source), used
    for the paired contrast when this study lacks the partner model (a report over several
    files).
    """
    ws, partners = study.ws, study.partners
    out = []
    claim_id = c.id
    row = Row(rules.PRIMARY, claim_id, c.name, c.theorem, c.model, "", regime=c.regime)
    out.append(row)
    sub = ws[ws["model"] == c.model] if not ws.empty else ws
    if sub.empty:
        row.unavailable = f"no {c.model} ws records in this file"
        return out
    mask = regimes.ws_mask(sub, c.model)
    row.outside = regimes.outside_text(sub, mask, ["d"], "n > d")
    inside = sub[mask]
    if inside.empty:
        row.unavailable = "no grid point inside the claim's regime (n ≤ d)"
        return out
    row.d = regimes.ns_text(inside["d"])
    own_study = sub[SERIES].iloc[0] if SERIES in sub else None
    own, contrast, reasons, n_used = [], [], [], set()
    partner = "rf" if claim_id == "thm3_raf" else "raf"
    for d, g in inside.groupby("d", sort=True):
        fit = _per_trial_fit(g, "S")
        if fit["reason"]:
            reasons.append(f"d={d}: {fit['reason']}")
            continue
        own.append(fit["per_trial"])
        n_used.update(fit["xs"])
        if claim_id == "thm3_raf":
            out.extend(_ws_group_rows(g, "raf", f"d={d}", d, fit))
        else:
            out.extend(_ws_group_rows(g, "raf_relu", f"d={d}", d, fit))
        pool = _partner_rows(ws, partners, partner)
        others = pool[(pool["model"] == partner) & (pool["d"] == d) & pool["n"].isin(g["n"])]
        if partner == "rf":
            others = others[regimes.ws_mask(others, "rf")]
        for key, og in _partner_groups(others):
            kl, elsewhere = key["k_label"], ""
            if key.get(SERIES, own_study) != own_study:  # the partner comes from another study
                elsewhere = f"{partner}@{key[SERIES]}"
                kl = ",".join(filter(None, [kl, elsewhere]))
            if claim_id == "thm3_raf":
                pair = _ratio_frame(g, og)  # log(S_raf / S_rf)
                label, bound = "slope of log(S_raf/S_rf) vs log n", rules.CONTRAST_RF
            else:
                pair = _ratio_frame(og, g)  # log(S_raf / S_relu)
                label, bound = "slope(raf) − slope(raf_relu)", 0.0
            pfit = _per_trial_fit(pair, "ratio")
            if pfit["reason"]:
                with_ = f" with {elsewhere}" if elsewhere else ""
                reasons.append(f"d={d} contrast{with_}: {pfit['reason']}")
                continue
            contrast.append(pfit["per_trial"])
            sec = Row(rules.SECONDARY, f"contrast[{claim_id},d={d}{','+kl if kl else ''}]",
                      "paired contrast on the same texts", c.theorem, c.model, str(int(d)),
                      regime="n ≤ d", n_used=regimes.ns_text(pfit["xs"]),
                      positive=rules.SUPPORTED_LB)
            sec.tests = [t_test(pfit["per_trial"], label, confirm=("above", bound))]
            out.append(sec)
    if not own:
        row.unavailable = "; ".join(reasons)
        return out
    row.n_used = regimes.ns_text(n_used)
    if claim_id == "thm3_raf":
        t_own = t_test(pool_trials(own), "slope of log S_raf vs log n",
                       confirm=("inside", -rules.FLAT, rules.FLAT))
        t_c = (t_test(pool_trials(contrast), "slope of log(S_raf/S_rf) vs log n",
                      confirm=("above", rules.CONTRAST_RF)) if contrast else
               missing_test("slope of log(S_raf/S_rf) vs log n",
                            "no rf records (k ≥ d) on the same texts for the paired contrast"))
        row.tests = [t_own, t_c]
        if np.isfinite(t_own.ci_high) and t_own.ci_high < -rules.FLAT:
            row.hint = ("S_raf decays here; S is a lower bound found by ascent, so this "
                        "cannot refute Ω(1): either the claim fails in this regime or the "
                        "search misses the maximum")
    else:
        t_own = t_test(pool_trials(own), "slope of log S_relu vs log n",
                       confirm=("below", rules.RELU_DECAY), refute=("above", rules.RELU_FLAT))
        t_c = (t_test(pool_trials(contrast), "slope(raf) − slope(raf_relu)",
                      confirm=("above", 0.0)) if contrast else
               missing_test("slope(raf) − slope(raf_relu)",
                            "no raf records on the same texts for the paired contrast"))
        row.tests = [t_own, t_c]
        row.positive = rules.SUPPORTED_LB
        row.note = "no upper bound exists for raf_relu: its decay is seen in a lower bound"
    if reasons:
        row.hint = "; ".join(filter(None, [row.hint, "left out: " + "; ".join(reasons)]))
    return out
