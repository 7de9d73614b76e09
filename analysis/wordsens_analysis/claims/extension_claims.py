"""The rows builders of the claims beyond the paper (claim_list.py, kind 'extension'): the
transformer family, the causal mask and the trained layers (docs/METHOD.md §2,
docs/VERDICT_RULES.md "Beyond the paper").

Ω(1) of raf_v, mhraf and block is judged by Thm 3's builder (ws_claims.thm3_rows) with the
claim's model; that of the trained layers and their twins by the lower bound's shape alone
(flat_rows: their studies hold no certified bound). The contrasts here compare lower bounds (S found by ascent) on the same texts at
every n of the regime (per trial the worst n), so that a positive verdict is at most 'not refuted
(lower bound only)', and the opposite order refutes nothing: two lower bounds never order two
models (evidence.py).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import rules
from ..rules import Group, Row, evidence, groups, regimes, stats
from .claim_groups import (attention_inside, attention_plan_of, head_groups, judged_groups,
                           no_group, runs_several, several_heads)
from .partners import (on_the_same_texts, partner_group, partner_of, partner_rows, ratio_frame,
                       study_of_rows)
from .shared_tests import flat_slope_test, worst_log_ratio_test


def residual_rows(c, study) -> list:
    """The block against its attention alone (the claim's partner, mhraf): in every d (and H,
    and MLP width), per trial, the largest over the regime's n of log(S_block/S_mhraf) on the
    same texts and with the same heads below 0 (the residual path and the LayerNorms keep less of
    a word than the attention does by itself)."""
    return order_rows(c, study, "below")


def order_rows(c, study, side: str) -> list:
    """The claim's model against its partner on the same texts and with the same heads: in every
    group (d, and H and width k where the model runs several), per trial, the smallest over the
    regime's n of log(S_model/S_partner) above 0 (side "above": the model keeps more of a word
    at every n) or the largest below 0 ("below": less at every n). Two lower bounds: at most
    'not refuted (lower bound only)', and the other order refutes nothing."""
    partner = c.partner
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = attention_inside(row, c, study)
    if found is None:
        return [row]
    sub, inside = found
    pool = partner_rows(study, partner)
    if "heads" not in pool:
        pool = pool.assign(heads=1)
    n_used = set()
    judge = c.judge()
    keys, label_of, axes_of = head_groups(inside, study, c.model)
    worst = "smallest" if side == "above" else "largest"
    # Each MLP width k of the block is its own group, paired with the same partner (mhraf has
    # no MLP, so no width).
    for (d, H, k), g, plan in judged_groups(row, inside, keys,
                                             attention_plan_of(study, c.model), label_of):
        same = on_the_same_texts(pool, partner, g)
        suffix, og = partner_group(same[same["heads"] == H], study_of_rows(sub))
        grp = groups.start_group(row, ",".join(filter(None, [label_of(d, H, k), suffix])), d,
                                 plan, note=f"S_{c.model} and S_{partner} are lower bounds "
                                            f"found by ascent",
                                 partner=partner_of(og, partner, study_of_rows(sub)),
                                 axes={**axes_of(d, H, k), "n": list(plan.ns)})
        if grp.unavailable:
            continue
        if plan.shortfall:
            grp.unavailable = plan.shortfall
            continue
        label = f"{worst} over n of log(S_{c.model}/S_{partner}), per trial"
        if og is None:
            grp.tests = [judge.missing(label, f"no {partner} records on the same texts with "
                                              f"H = {H}", evidence.LOWER_PAIR)]
            continue
        worst_log_ratio_test(judge, grp, ratio_frame(g, og, "S", "S"), plan, label, side,
                             n_used, evidence.LOWER_PAIR)
    no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]


def flat_rows(c, study) -> list:
    """Ω(1) from the lower bound alone, for a model no certified bound reaches (the trained
    layers: no rf in their studies, rf at their sizes out of reach): in every group, per trial,
    the slope of log S against log n over the end of the design above −FLAT. S is a lower bound
    found by ascent: a decay is named, never a contradiction (the search may miss the maximum)."""
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = attention_inside(row, c, study)
    if found is None:
        return [row]
    _sub, inside = found
    flat_window = study.settings.flat()
    n_used = set()
    judge = c.judge()
    keys, label_of, axes_of = head_groups(inside, study, c.model)
    for (d, H, k), g, plan in judged_groups(row, inside, keys,
                                             attention_plan_of(study, c.model), label_of):
        grp = groups.start_group(row, label_of(d, H, k), d, plan,
                                 note=f"S_{c.model} is a lower bound found by ascent",
                                 axes={**axes_of(d, H, k), "n": list(plan.ns)})
        fit = groups.fit_group(grp, g, "S", plan, n_used)
        if fit is None:
            continue
        flat = flat_slope_test(judge, fit, c.model, flat_window)
        grp.tests = [flat]
        if flat.estimate < -flat_window:
            decays = (f"S_{c.model} decays at {label_of(d, H, k)} (median slope "
                      f"{flat.estimate:.2f}); S is a lower bound found by ascent, so this cannot "
                      "refute Ω(1): either the claim fails there or the search misses the maximum")
            row.hint = "; ".join(filter(None, [row.hint, decays]))
    no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]


def _log_s_per_head(g: pd.DataFrame, heads: list, plans: list) -> tuple:
    """(trials × H × n array of log S, trial index, n, reason): each H's complete curves over its
    design (`plans`, one per H), on the trials every H has; `reason` names what is missing, as
    the other rules do."""
    curves = []
    for H, plan in zip(heads, plans):
        gh = g[g["heads"] == H]
        if plan.shortfall:
            return None, None, None, f"H={H}: {plan.shortfall}"
        cur = groups.usable_curves(gh, "S", plan)
        if cur["reason"]:
            return None, None, None, f"H={H}: {cur['reason']}"
        curves.append(pd.DataFrame(np.log(cur["matrix"]), index=cur["index"],
                                   columns=cur["x"].astype(int)))
    ns = sorted(set.intersection(*(set(c.columns) for c in curves)))
    if any(list(c.columns) != ns for c in curves):
        return None, None, None, ("the heads' designs differ in n: "
                                  + "; ".join(f"H={H}: n={regimes.ns_text(c.columns)}"
                                              for H, c in zip(heads, curves)))
    trials = sorted(set.intersection(*(set(c.index) for c in curves)))
    if len(trials) < max(len(c.index) for c in curves):
        return None, None, None, (f"only {len(trials)} trials have S at every H and n")
    cube = np.stack([c.loc[trials, ns].to_numpy() for c in curves], axis=1)
    return cube, np.asarray(trials), ns, ""


def heads_rows(c, study) -> list:
    """More heads keep less of a word: in every d (and every MLP width k of the block), per
    trial, the largest over the regime's n of the least-squares slope of log S against log H (the
    heads grid, same texts) below 0. Listed only where the study runs the model over at least 2
    values of H."""
    ws = study.ws
    sub = ws[ws["model"] == c.model] if not ws.empty else ws
    if sub.empty or not several_heads(sub, study, c.model):
        return []
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = attention_inside(row, c, study)
    if found is None:
        return [row]
    _sub, inside = found
    plan_of = attention_plan_of(study, c.model)
    planned = plan_of.planned_keys(["d", "k", "heads"])
    widths = runs_several(inside, study, c.model, "k")
    n_used = set()
    judge = c.judge()
    label = "largest over n of the slope of log S vs log H, per trial"
    small = []
    # A group per d and width k (every (d, k) the table plans, with records or not).
    by_width = {key: g for key, g in inside.groupby(["d", "k"], sort=True)}
    for d, k in {(dd, kk) for dd, kk, _H in planned} - set(by_width):
        by_width[(d, k)] = inside.iloc[0:0]
    for (d, k) in sorted(by_width):
        g = by_width[(d, k)]
        # Every H the study planned at this (d, k), with records or not: an H that ran no trial
        # is a shortfall of the group, never a value left out.
        heads = sorted({int(h) for h in g["heads"].unique()}
                       | {int(H) for dd, kk, H in planned if (dd, kk) == (d, k)})
        where = f"d={d}" + (f",mlp={k}" if widths else "")
        plans = [plan_of({"d": d, "k": k, "heads": H}, g[g["heads"] == H]) for H in heads]
        if len(heads) < 2:
            small.append(f"{where}: only H={heads[0]}")
            continue
        grp = Group(where, d=str(int(d)),
                    note=f"S_{c.model} at each H is a lower bound found by ascent",
                    axes={"d": int(d), **({"k": int(k)} if widths else {}),
                          "n": list(plans[0].ns)})
        row.groups.append(grp)
        if any(p.too_small() for p in plans):
            grp.unavailable = (f"fewer than {rules.MIN_POINTS} values of n in the regime at "
                               f"some H: the claim stays open there")
            continue
        cube, trials, ns, why = _log_s_per_head(g, heads, plans)
        if why:
            grp.unavailable = why
            continue
        # Per trial and n, the slope over H; then the trial's largest over n (every n).
        slopes = stats.ols_slopes(np.log(heads), np.moveaxis(cube, 1, 2)).max(axis=1)
        n_used.update(ns)
        grp.n_used = regimes.ns_text(ns)
        grp.tests = [judge.test(pd.Series(slopes, index=trials),
                                f"{label} (H={','.join(map(str, heads))})", evidence.LOWER_PAIR,
                                confirm=("below", 0.0))]
    if small:
        row.outside = "; ".join(filter(None, [row.outside, "not judged: " + "; ".join(small)]))
        row.hint = "; ".join(small)
    no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]


def _first_over_last(g: pd.DataFrame) -> pd.DataFrame:
    """Per (n, trial): the best S found at word 0 over the best found at word n − 1 (the
    records' examined positions and position_S), NaN where either was not examined."""
    ratios = []
    for r in g.itertuples(index=False):
        examined = np.asarray(getattr(r, "examined", ()), dtype=np.int64).ravel()
        values = np.asarray(getattr(r, "position_S", ()), dtype=float).ravel()
        at = dict(zip(examined.tolist(), values.tolist()))
        first, last = at.get(0), at.get(int(r.n) - 1)
        ratios.append(first / last if first is not None and last is not None and last > 0
                      and r.n > 1 else np.nan)
    return pd.DataFrame({"n": g["n"].to_numpy(), "trial": g["trial"].to_numpy(),
                         "ratio": ratios})


def causal_rows(c, study) -> list:
    """Under the causal mask word i reaches rows j ≥ i only: in every d, per trial, the smallest
    over the regime's n of log(S at word 0 / S at word n − 1) above 0 (the first word counts
    more than the last at every n)."""
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = attention_inside(row, c, study)
    if found is None:
        return [row]
    _sub, inside = found
    n_used = set()
    judge = c.judge()
    label = "smallest over n of log(S at word 0 / S at word n−1), per trial"
    keys, label_of, axes_of = head_groups(inside, study, c.model)
    for (d, H, k), g, plan in judged_groups(row, inside, keys,
                                             attention_plan_of(study, c.model), label_of):
        grp = groups.start_group(row, label_of(d, H, k), d, plan,
                                 note="each position's S is a lower bound found by ascent",
                                 axes={**axes_of(d, H, k), "n": list(plan.ns)})
        if grp.unavailable:
            continue
        if plan.shortfall:
            grp.unavailable = plan.shortfall
            continue
        ratios = _first_over_last(g)
        if ratios["ratio"].isna().all():
            grp.tests = [judge.missing(label, "the first and the last word were not both "
                                              "examined (positions = all)", evidence.LOWER_PAIR)]
            continue
        worst_log_ratio_test(judge, grp, ratios, plan, label, "above", n_used,
                             evidence.LOWER_PAIR)
    no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]

