"""The verdict table: each claim of the paper judged in its regime, with the right kind of
evidence, by rules that can fail (rules.py holds the thresholds and texts).

Three kinds of rows:
- primary: one per theorem and model family, the rows to read; Holm's correction across them;
- secondary: the breakdown (per d, L, k; local slopes between successive n; the S·√n fit;
  paired contrasts per d; per objective and N for the heads), each at its own 95% level;
- integrity: checks that cannot fail for a correct program (bracket, certificates, heads'
  numerics, search convergence). A failure is shown first and in red in the report.

The kind of evidence decides what a verdict may say. S is a lower bound (a witness attains it):
it can refute an O(·) claim and confirm an Ω(·) claim, never the other way round. S_upper is a
certified upper bound: it can confirm an O(·) claim. E at the best Δ found is attained by that
Δ: a small E is certified, a large E only says that the search found nothing better.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import integrity, regimes, rules, stats
from . import multi_word as several_words
from .judgement import Row, finish, missing_test, sign_test, t_test
from .stats import pool_trials
from .regimes import k_labels  # noqa: F401  (re-exported: plots and older callers use it)

VERDICT_COLUMNS = ["kind", "claim", "theorem", "name", "model", "d", "statistic", "estimate",
                   "ci_low", "ci_high", "trials", "p_confirm", "p_refute", "p_confirm_holm",
                   "p_refute_holm", "verdict", "reason", "regime", "n_used", "outside_regime",
                   "tests", "rules_version", "rules_hash"]
MIN_TRIALS, MIN_POINTS = rules.MIN_TRIALS, rules.MIN_POINTS
SERIES = "series"  # the study a row belongs to, in a report over several files (combined.py)
WS_GROUP = ["d", "layers", "k_label"]
GEN_GROUP = ["d", "N", "k_label"]
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
    ws["k_label"] = _k_labels_per_series(ws)
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


def _k_labels_per_series(df: pd.DataFrame) -> pd.Series:
    """k_labels within each study: how one study gave k must not depend on another's grid."""
    if SERIES not in df:
        return k_labels(df)
    labels = pd.Series("", index=df.index, dtype=object)
    for _, idx in df.groupby(SERIES, sort=False).groups.items():
        labels.loc[idx] = k_labels(df.loc[idx])
    return labels


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
    return gen.assign(k_label=_k_labels_per_series(gen))


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

def _o_half_rows(ws: pd.DataFrame, model: str, claim_id: str) -> list:
    """Thms 1–2: the primary row of an O(1/√n) claim and its per-group secondary rows."""
    c = rules.CLAIMS[claim_id]
    sub = ws[ws["model"] == model] if not ws.empty else ws
    row = Row(rules.PRIMARY, claim_id, c.name, c.theorem, model, "", regime=c.regime)
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


def _local_slope_rows(ws: pd.DataFrame) -> list:
    """Slopes between successive n, per model and group: where along the grid a trend lives."""
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


def _attention_rows(ws: pd.DataFrame, partners=None) -> list:
    """Thm 3 and the softmax contrast: primary rows and the per-d paired contrasts.

    `partners`: rows of other studies on the same texts (same seed and data source), used for
    the paired contrast when this file lacks the partner model (a report over several files).
    """
    out = []
    for claim_id in ("thm3_raf", "softmax_raf_relu"):
        c = rules.CLAIMS[claim_id]
        row = Row(rules.PRIMARY, claim_id, c.name, c.theorem, c.model, "", regime=c.regime)
        out.append(row)
        sub = ws[ws["model"] == c.model] if not ws.empty else ws
        if sub.empty:
            row.unavailable = f"no {c.model} ws records in this file"
            continue
        mask = regimes.ws_mask(sub, c.model)
        row.outside = regimes.outside_text(sub, mask, ["d"], "n > d")
        inside = sub[mask]
        if inside.empty:
            row.unavailable = "no grid point inside the claim's regime (n ≤ d)"
            continue
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
            continue
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


def ws_rows(ws: pd.DataFrame, partners=None) -> list:
    ws = prepare_ws(ws)
    if partners is not None:
        partners = prepare_ws(partners)
    rows = _o_half_rows(ws, "rf", "thm1_rf") + _o_half_rows(ws, "drf", "thm2_drf")
    rows += _attention_rows(ws, partners)
    rows += _local_slope_rows(ws)
    return rows


# --- the trained heads ------------------------------------------------------------------------

def _largest_two(g: pd.DataFrame):
    counts = g.groupby("n")["E"].count()
    ns = sorted(n for n, c in counts.items() if c >= MIN_TRIALS)
    return ns[-2:]


def _gen_rows(gen: pd.DataFrame) -> list:
    out = []
    trainings = sorted(gen["training"].unique()) if not gen.empty else []
    for claim_id in ("thm45_rf", "raf_gen"):
        c = rules.CLAIMS[claim_id]
        sub = gen[gen["model"] == c.model] if not gen.empty else gen
        if sub.empty:
            out.append(Row(rules.PRIMARY, claim_id, c.name, c.theorem, c.model, "",
                           regime=c.regime, unavailable=f"no {c.model} gen records in this file"))
            continue
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


def gen_rows(gen: pd.DataFrame) -> list:
    return _gen_rows(prepare_gen(gen))


# --- the table --------------------------------------------------------------------------------

def claim_rows(ws: pd.DataFrame, gen: pd.DataFrame, partners=None) -> list:
    """The primary and secondary rows of one study, not yet decided: `finish` decides them
    (Holm runs over every primary row passed to it, so a report over several studies calls it
    once on all of their rows)."""
    return ws_rows(ws, partners) + gen_rows(gen)


def sort_table(table: pd.DataFrame) -> pd.DataFrame:
    """Integrity failures first, then primary rows, the other integrity rows, secondary rows
    (stable: the order within each kind is kept)."""
    order = np.select([(table["kind"] == rules.INTEGRITY) & (table["verdict"] == rules.FAIL),
                       table["kind"] == rules.PRIMARY, table["kind"] == rules.INTEGRITY],
                      [0, 1, 2], 3)
    return table.assign(_o=order).sort_values("_o", kind="stable").drop(columns="_o")


def check_all(ws: pd.DataFrame, gen: pd.DataFrame, witness_checks: pd.DataFrame | None = None,
              multi_word: pd.DataFrame | None = None, fractions: tuple = ()) -> pd.DataFrame:
    """The verdict table (VERDICT_COLUMNS): integrity failures first, then primary rows, then
    the other integrity rows, then secondary rows. `multi_word` (the records with several
    changed words) and the study's words-fraction values add the multi-word claims."""
    claims = claim_rows(ws, gen) + several_words.claim_rows(ws, multi_word, list(fractions))
    finish(claims)
    checks = integrity.rows(prepare_ws(ws), gen, witness_checks)
    table = pd.DataFrame([r.record() for r in claims] + checks)
    if table.empty:
        return pd.DataFrame(columns=VERDICT_COLUMNS)
    table["rules_version"], table["rules_hash"] = rules.RULES_VERSION, rules.RULES_HASH
    return sort_table(table).reindex(columns=VERDICT_COLUMNS).reset_index(drop=True)


def headline(table: pd.DataFrame) -> str:
    """'P of Q primary claims confirmed, S supported …, C contradicted, I inconclusive;
    integrity checks: all pass' — the report's first line."""
    prim = table[table["kind"] == rules.PRIMARY]
    q = len(prim)
    conf = int((prim["verdict"] == rules.CONFIRMED).sum())
    sup = int(prim["verdict"].isin([rules.SUPPORTED_LB, rules.SUPPORTED_RESTRICTED]).sum())
    contra = int((prim["verdict"] == rules.CONTRADICTED).sum())
    inc = q - conf - sup - contra
    integ = table[table["kind"] == rules.INTEGRITY]
    failed = integ[integ["verdict"] == rules.FAIL]
    if failed.empty:
        na = int((integ["verdict"] == rules.NOT_IN_FILE).sum())
        checks = "all pass" + (f" ({na} not in this file)" if na else "")
    else:
        checks = f"{len(failed)} of {len(integ)} FAIL: " + ", ".join(failed["claim"])
    return (f"{conf} of {q} primary claims confirmed, {sup} supported by weaker evidence, "
            f"{contra} contradicted, {inc} inconclusive; integrity checks: {checks}")
