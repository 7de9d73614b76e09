"""The groups of a claim in its regime, as the rows builders of several claims find them: every
combination of the claim's axes with records or planned tasks (a planned group without a done
task comes with its shortfall, never left out), and for the attention claims the in-regime rows
and the groups per d, H and MLP width k.
"""
from __future__ import annotations

import pandas as pd

from ..rules import Row, groups, regimes


def judged_groups(row: Row, frame: pd.DataFrame, keys: list, plan_of, label_of) -> list:
    """(key, frame, design) of every group of a claim in its regime, in the order of their keys.
    A group the task table plans but none of whose tasks is done (a d or an H a partial run
    never reached) comes with no rows and its shortfall; a group whose design has too few values
    of n for its tests is a shortfall too (groups.start_group): never left out."""
    found = {}
    for key, g in frame.groupby(keys if len(keys) > 1 else keys[0], sort=True):
        found[key if isinstance(key, tuple) else (key,)] = g
    for key in getattr(plan_of, "planned_keys", lambda _: set())(keys) - set(found):
        found[key] = frame.iloc[0:0]
    return [(key, found[key], plan_of(dict(zip(keys, key)), found[key]))
            for key in sorted(found)]


def planner(study, model: str, in_regime):
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


def no_group(row: Row, c) -> None:
    if not row.groups:
        row.unavailable = row.unavailable or row.hint or (
            f"no group inside the claim's regime ({c.regime})")


def attention_inside(row: Row, c, study):
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


def attention_plan_of(study, model: str):
    return planner(study, model, study.settings.attention_mask)


def runs_several(inside: pd.DataFrame, study, model: str, column: str) -> bool:
    """Whether the model runs more than one value of `column`: in its records or in the
    study's task table."""
    values = set(inside[column].unique()) if column in inside else set()
    p = study.planned
    if p is not None and not p.empty and column in p:
        values |= set(p.loc[p["model"] == model, column].unique())
    return len(values) > 1


def several_heads(inside: pd.DataFrame, study, model: str) -> bool:
    """Whether the model runs more than one H: in its records or in the study's task table."""
    return runs_several(inside, study, model, "heads")


def head_groups(inside: pd.DataFrame, study, model: str) -> tuple:
    """(group keys, label of a key, axes of a key) of an attention claim: per d, per H and per
    width k (block's MLP), each named where the model runs more than one value (a multi-head
    model over a heads grid, a block over an mlp-width grid); groups of different H or k are
    never pooled into one curve. The axes are sequential.py's selectors of the group."""
    heads = several_heads(inside, study, model)
    widths = runs_several(inside, study, model, "k")

    # The width is named mlp=k: a group's label may go on with its rf partner's k (k=1D).
    def label_of(d, H, k) -> str:
        return ",".join([f"d={d}"] + ([f"H={H}"] if heads else []) +
                        ([f"mlp={k}"] if widths else []))

    def axes_of(d, H, k) -> dict:
        return {"d": int(d), **({"H": int(H)} if heads else {}),
                **({"k": int(k)} if widths else {})}

    return ["d", "heads", "k"], label_of, axes_of
