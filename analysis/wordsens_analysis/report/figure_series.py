"""The numbers a figure draws, taken from the statistics the verdicts judge, so that a figure and
the verdict table never tell two stories.

The rules judge medians over trials (sign tests on per-trial statistics), so a figure draws the
median over trials at each n with its interquartile range, never a mean. An O(1/√n) claim (rf,
drf) is judged on the certified upper bound S_upper, so that is the curve its panel calls
judged; the search's S, a lower bound, is drawn beside it. A slope in a legend is the one the
rules compute: per trial, over the end of the design (shape.py), its median and the
order-statistic interval over trials.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import claims
from ..rules import groups, regimes, stats

SERIES_COLUMNS = ["n", "median", "q25", "q75", "trials"]
KEYS = ["series", "model", "d", "layers", "heads", "k_label"]

# What each quantity is, as a legend says it: the reader must tell the judged bound from the
# search's lower bound at a glance.
UPPER_JUDGED = "median S_upper (certified bound, judged)"
LOWER = "median S (search, lower bound)"
LOWER_JUDGED = "median S (search, lower bound, judged)"


def judged_quantity(model: str) -> str:
    """The column the model's one-word claim is judged on: S_upper for the O(1/√n) claims (an
    upper bound is what confirms an upper-bound claim), S for every other."""
    c = claims.ws_claim_of_model(model)
    return c.judged_column if c is not None else "S"


def slope_is_judged(model: str) -> bool:
    """Whether the model's claim judges a slope of its judged quantity over the end of the design
    (the O(1/√n) claims and the Ω(1) ones); the softmax contrast judges a ratio, not a slope."""
    c = claims.ws_claim_of_model(model)
    return c is not None and c.judges_slope


def quantity_label(model: str, quantity: str) -> str:
    if quantity == "S_upper":
        return UPPER_JUDGED
    return LOWER_JUDGED if judged_quantity(model) == "S" and slope_is_judged(model) else LOWER


def medians(g: pd.DataFrame, value: str, positive: bool = True, x: str = "n") -> pd.DataFrame:
    """Per value of `x` (n, or the changed fraction of several words): the median over trials of
    `value`, its quartiles and the number of trials, over the usable values (finite, and
    positive where the rules take a logarithm of them). Columns: x, then SERIES_COLUMNS[1:]."""
    columns = [x, *SERIES_COLUMNS[1:]]
    if value not in g or g.empty:
        return pd.DataFrame(columns=columns)
    v = g[[x, value]].assign(**{value: g[value].astype(float)})
    v = v[np.isfinite(v[value]) & ((v[value] > 0) if positive else True)]
    rows = [(int(at) if x == "n" else float(at), float(np.median(y)), float(np.quantile(y, 0.25)),
             float(np.quantile(y, 0.75)), int(len(y)))
            for at, y in ((at, gx[value].to_numpy()) for at, gx in v.groupby(x, sort=True))]
    return pd.DataFrame(rows, columns=columns)


def ws_series(ws: pd.DataFrame) -> pd.DataFrame:
    """Every curve the word-sensitivity figures draw, one row per (group, quantity, n): the
    group's keys (KEYS), `quantity` (S or S_upper), `judged` (whether the claim is judged on
    it) and SERIES_COLUMNS. `ws` as ws_claims.prepare_ws returns it."""
    frames = []
    keys = [k for k in KEYS if k in ws]
    for key, g in ws.groupby(keys, sort=True):
        key = dict(zip(keys, key))
        judged = judged_quantity(key["model"])
        for quantity in ("S", "S_upper"):
            t = medians(g, quantity)
            if t.empty:
                continue
            frames.append(t.assign(**key, quantity=quantity, judged=quantity == judged))
    if not frames:
        return pd.DataFrame(columns=[*keys, "quantity", "judged", *SERIES_COLUMNS])
    return pd.concat(frames, ignore_index=True)[[*keys, "quantity", "judged", *SERIES_COLUMNS]]


def end_slope(g: pd.DataFrame, model: str, catalogue) -> dict | None:
    """The slope the rules judge for one group of `model` (its records in one study, d, L, k):
    per trial, of log of the judged quantity against log n over the end of the design in the
    claim's regime; its median and order-statistic interval. None when the claim judges no
    slope or the group's curves cannot give one (the verdict table says why)."""
    if not slope_is_judged(model):
        return None
    inside = g[regimes.ws_mask(g, model, catalogue)]
    if inside.empty:
        return None
    plan = groups.Design(sorted(int(n) for n in inside["n"].unique()), 0, "")
    if plan.too_small():
        return None
    quantity = judged_quantity(model)
    fit = groups.usable_fit(inside, quantity, plan)
    if fit["reason"]:
        return None
    est, lo, hi, _, m = stats.median_interval(fit["per_trial"])
    return {"quantity": quantity, "estimate": est, "ci_low": lo, "ci_high": hi, "trials": m,
            "end": list(fit["end"])}


def slope_text(fit: dict | None) -> str:
    """'slope of log S_upper over n=8..48: −0.72 [−0.73, −0.66]' for a legend ('' without)."""
    if fit is None:
        return ""
    end = fit["end"]
    return (f"slope of log {fit['quantity']} over n={end[0]}..{end[-1]}: "
            f"{fit['estimate']:+.2f} [{fit['ci_low']:+.2f}, {fit['ci_high']:+.2f}]")
