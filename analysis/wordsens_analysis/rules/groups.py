"""What a claim's group has to show before it is judged: every planned in-regime point done, and a
per-trial statistic from every planned trial.

A group is a combination of the axes a claim speaks of (d, depth L, width k, N, fraction f …).
Its design is the set of in-regime values of n the study planned for it (the /tasks table of
the file; the user's grid, so a grid the user restricted misses nothing). A point of the design
with fewer done trials than planned, or whose records are not usable (a non-positive S cannot
enter a logarithm, a NaN or infinite bound), makes the group unavailable with a reason naming
the point: a partial run never drops its largest n silently. A group whose design has fewer
values of n than a slope needs is a shortfall of its claim too (the claim stays open, the reason
names the group), never a group left out. Slopes are per trial, over the end of the design
(shape.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import regimes, shape, stats, thresholds
from .judgement import Group


@dataclass
class Design:
    """The planned in-regime n of a group and what is missing of them."""

    ns: list            # planned in-regime n (or those with records, without a task table)
    trials: int         # planned trials per point (the smallest over the points), 0 if unknown
    shortfall: str      # "n=64 has 4 of 10 trials done; …", empty when complete

    def too_small(self) -> bool:
        return len(self.ns) < thresholds.MIN_POINTS

    def small_text(self, label: str, x: str = "n") -> str:
        return (f"{label}: only {len(self.ns)} value(s) of {x} in the regime (a slope needs "
                f"{thresholds.MIN_POINTS}): the claim stays open there")


def prepare_planned(tasks: pd.DataFrame | None, series: str, catalogue,
                    grids: dict | None = None) -> pd.DataFrame | None:
    """The planned task table with each task's k label (the same labels as its records get;
    `grids`: each study's k grid, regimes.k_labels_per_series; `catalogue`: the models' kinds)."""
    if tasks is None or tasks.empty:
        return None
    tasks = tasks.copy()
    for column, default in (("layers", 1), ("heads", 1), ("words", 1), ("N", 0)):
        if column not in tasks:
            tasks[column] = default
    tasks["done"] = tasks["done"].astype(bool) if "done" in tasks else True
    tasks["k_label"] = regimes.k_labels_per_series(tasks, series, catalogue, grids)
    return tasks


def design(planned: pd.DataFrame | None, records: pd.DataFrame, experiment: str, model: str,
           key: dict, in_regime, x: str = "n", one_word: bool = True) -> Design:
    """The design of the group `key` (column → value) of `model` in `experiment`: the planned
    values of `x` (n, or m = words) inside the regime (`in_regime` maps a frame to its mask),
    of tasks with one changed word unless `one_word` is False. Without a task table (or one
    that does not list these records' tasks), the values that have records."""
    p = planned
    if p is not None:
        p = p[(p["experiment"] == experiment) & (p["model"] == model)]
        if one_word:
            p = p[p["words"] == 1]
        for column, value in key.items():
            if column in p:  # a table built by hand may lack k (attention models have none)
                p = p[p[column] == value]
        p = p[in_regime(p)] if not p.empty else p
    if p is None or p.empty:
        return Design(sorted(int(v) for v in records[x].unique()), 0, "")
    counts = p.groupby(x).agg(planned=("trial", "size"), done=("done", "sum"))
    short = counts[counts["done"] < counts["planned"]]
    text = "; ".join(f"{x}={int(v)} has {int(r.done)} of {int(r.planned)} trials done"
                     for v, r in short.iterrows())
    return Design([int(v) for v in counts.index], int(counts["planned"].min()), text)


def usable_fit(g: pd.DataFrame, y: str, plan: Design, x: str = "n") -> dict:
    """Per-trial least-squares slopes of log y against log x over the end of the design
    (shape.end_of_design), from complete curves over the whole design: `reason` is set when a
    point of the design or a planned trial has no usable value. Keys: per_trial (a Series by
    trial), xs (the design), end (the end's values), trials, reason."""
    cur = usable_curves(g, y, plan, x=x)
    if cur["reason"]:
        return cur
    slopes, end = shape.end_slopes(cur["x"], cur["matrix"])
    cur["per_trial"] = pd.Series(slopes, index=cur["index"])
    cur["end"] = end
    return cur


def usable_curves(g: pd.DataFrame, y: str, plan: Design, positive: bool = True,
                  x: str = "n") -> dict:
    """The trials × x matrix of y over the design (stats.complete_curves), every point of the
    design and every trial present in the records included: a trial with a missing, NaN,
    infinite (or, for a log, non-positive) value at some point is a shortfall named in
    `reason`, never dropped."""
    design = g[g[x].isin(plan.ns)]
    cur = stats.complete_curves(design, x, y, min_trials=thresholds.MIN_TRIALS,
                                min_points=min(thresholds.MIN_POINTS, len(plan.ns)),
                                positive=positive)
    if cur["reason"]:
        return cur
    cur["xs"] = cur["x"]
    cur["trials"] = cur["matrix"].shape[0]
    return _check_complete(cur, plan, y, x, design)


def _check_complete(fit: dict, plan: Design, y: str, x: str, design: pd.DataFrame) -> dict:
    used = {int(v) for v in np.asarray(fit["xs"])}
    missing = [n for n in plan.ns if n not in used]
    present = design["trial"].nunique()
    if missing:
        fit["reason"] = (f"{x}={','.join(map(str, missing))} left out: fewer than "
                         f"{thresholds.MIN_TRIALS} usable {y} values")
    elif plan.trials and fit["trials"] < plan.trials:
        fit["reason"] = (f"only {fit['trials']} of {plan.trials} planned trials have a usable "
                         f"{y} at every {x}")
    elif fit["trials"] < present:
        fit["reason"] = (f"{present - fit['trials']} of {present} trials have no usable {y} "
                         f"(missing, NaN, infinite or not positive) at some {x} of the design")
    return fit


def start_group(row, label: str, d, plan: Design, x: str = "n", **kw):
    """The group `label` of a claim's row; a design with too few values of x to be judged makes
    it a shortfall of the claim (unavailable, with the reason)."""
    grp = Group(label, d=str(int(d)), **kw)
    row.groups.append(grp)
    if plan.too_small():
        grp.unavailable = plan.small_text("", x).lstrip(": ")
    return grp


def fit_group(grp, g: pd.DataFrame, y: str, plan: Design, used: set, x: str = "n"):
    """The group's per-trial fit of log y against log x over the end of its design, or None when
    the group cannot be judged (too few points, a planned point not done, or without usable
    values: its reason is set). The n the fit used join `used`."""
    if grp.unavailable:
        return None
    fit = usable_fit(g, y, plan, x)
    if plan.shortfall or fit["reason"]:
        grp.unavailable = plan.shortfall or fit["reason"]
        return None
    grp.n_used = (f"{x}=" if x != "n" else "") + regimes.ns_text(fit["end"])
    used.update(int(v) for v in (g["n"].unique() if x != "n" else fit["end"]))
    return fit
