"""The rows builders of the claims beyond the paper (claims.py, kind 'extension'): the transformer
family and the causal mask (docs/METHOD.md §2, docs/VERDICT_RULES.md "Beyond the paper").

Ω(1) of raf_v, mhraf and block is judged by Thm 3's builder (ws_claims.thm3_rows) with the
claim's model. The two contrasts here compare lower bounds (S found by ascent) on the same texts,
so that a positive verdict is at most 'not refuted (lower bound only)', and the opposite order,
significant, contradicts the claim.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import regimes, rules
from .judgement import Group, Row, missing_test
from .ws_claims import (_attention_inside, _attention_plan_of, _judged_groups, _no_group,
                        _on_the_same_texts, _own_study, _partner, _partner_of, _partner_rows,
                        _ratio_frame, mean_log_gap_test)


def residual_rows(c, study) -> list:
    """The block against its attention alone: in every d, the per-trial mean over n of
    log(S_block/S_mhraf) on the same texts below 0 (the residual path and the LayerNorms keep
    less of a word than the attention does by itself)."""
    partner = "mhraf"
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = _attention_inside(row, c, study)
    if found is None:
        return [row]
    sub, inside = found
    pool = _partner_rows(study, partner)
    n_used = set()
    for (d,), g, plan in _judged_groups(row, inside, ["d"], _attention_plan_of(study, c.model),
                                        lambda d: f"d={d}"):
        suffix, og = _partner(_on_the_same_texts(pool, partner, g), _own_study(sub))
        grp = Group(",".join(filter(None, [f"d={d}", suffix])), d=str(int(d)),
                    positive=rules.NOT_REFUTED_LB,
                    note=f"S_{c.model} and S_{partner} are lower bounds found by ascent",
                    partner=_partner_of(og, partner, _own_study(sub)),
                    axes={"d": int(d), "n": list(plan.ns)})
        row.groups.append(grp)
        if plan.shortfall:
            grp.unavailable = plan.shortfall
            continue
        label = f"mean over n of log(S_{c.model}/S_{partner}), per trial"
        if og is None:
            grp.tests = [missing_test(label, f"no {partner} records on the same texts (the "
                                             f"same heads)")]
            continue
        mean_log_gap_test(grp, _ratio_frame(g, og, "S", "S"), plan, label, "below", n_used)
    _no_group(row, c)
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
    """Under the causal mask word i reaches rows j ≥ i only: in every d, the per-trial mean over
    n of log(S at word 0 / S at word n − 1) above 0 (the first word counts more than the last)."""
    row = Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime)
    found = _attention_inside(row, c, study)
    if found is None:
        return [row]
    _sub, inside = found
    n_used = set()
    label = "mean over n of log(S at word 0 / S at word n−1), per trial"
    for (d,), g, plan in _judged_groups(row, inside, ["d"], _attention_plan_of(study, c.model),
                                        lambda d: f"d={d}"):
        grp = Group(f"d={d}", d=str(int(d)), positive=rules.NOT_REFUTED_LB,
                    note="each position's S is a lower bound found by ascent",
                    axes={"d": int(d), "n": list(plan.ns)})
        row.groups.append(grp)
        if plan.shortfall:
            grp.unavailable = plan.shortfall
            continue
        ratios = _first_over_last(g)
        if ratios["ratio"].isna().all():
            grp.tests = [missing_test(label, "the first and the last word were not both "
                                             "examined (positions = all)")]
            continue
        mean_log_gap_test(grp, ratios.dropna(), plan, label, "above", n_used)
    _no_group(row, c)
    row.n_used = regimes.ns_text(n_used)
    return [row]
