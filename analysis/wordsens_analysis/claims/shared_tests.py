"""The tests several claims build the same way: Ω(1) from a lower bound's slope over the end of
the design, and a contrast "at every n of the regime" from the worst per-trial log ratio.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import rules
from ..rules import Group, evidence, groups, regimes


def flat_slope_test(judge, fit: dict, model: str, flat_window: float):
    """Ω(1) from a lower bound's shape: per trial, the slope of log S against log n over the end
    of the design (fit, from groups.fit_group) above −flat_window; a slope below it by more
    than the margin counts as failing."""
    end = regimes.ns_text(fit["end"])
    return judge.test(fit["per_trial"], f"slope of log S_{model} vs log n over n={end}",
                      evidence.LOWER, confirm=("above", -flat_window),
                      fails=("below", -flat_window - rules.SLOPE_MARGIN))


def worst_log_ratio_test(judge, grp: Group, ratios: pd.DataFrame, plan: groups.Design,
                         label: str, side: str, n_used: set, kind: str) -> None:
    """A contrast "at every n of the regime" on one group: per trial, the worst over the design's
    n of the log of `ratios`' ratio column (columns n, trial, ratio): its smallest above 0
    (side "above") or its largest below 0 ("below") confirms with evidence `kind`; the group is
    unavailable when a curve is incomplete (a partner's point short of trials included)."""
    cur = groups.usable_curves(ratios, "ratio", plan)
    if cur["reason"]:
        grp.unavailable = cur["reason"]
        return
    logs = np.log(cur["matrix"])
    worst = logs.min(axis=1) if side == "above" else logs.max(axis=1)
    n_used.update(cur["x"])
    grp.n_used = regimes.ns_text(cur["x"])
    grp.tests = [judge.test(pd.Series(worst, index=cur["index"]), label, kind,
                            confirm=(side, 0.0))]
