"""Integrity rows: checks that hold by construction for a correct program and a converged search.

They are not evidence for any theorem (S ≤ S_upper holds by construction, for instance), but a
failure means the numbers the claims are judged on cannot be trusted, so the report shows
failures first, and every claim that reads a failing column of a failing model (COLUMNS_OF) is
left inconclusive, with the check named (gate). A check whose column is not in the file (older
formats, or a config that did not ask for it) is "n/a" with the reason, never a crash.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import thresholds


def _row(claim: str, model: str, statistic: str, estimate: float, verdict: str,
         reason: str = "", trials: int = 0) -> dict:
    return {"kind": thresholds.INTEGRITY, "claim": claim, "theorem": "",
        "name": thresholds.INTEGRITY_RULES[claim.split("[")[0]], "model": model, "d": "",
        "statistic": statistic, "estimate": estimate, "ci_low": np.nan, "ci_high": np.nan,
        "trials": trials, "p_confirm": np.nan, "p_refute": np.nan, "p_confirm_holm": np.nan,
        "p_refute_holm": np.nan, "verdict": verdict, "reason": reason, "regime": "",
        "n_used": "", "outside_regime": "", "tests": ""}


def _by_model(df: pd.DataFrame, column: str):
    if df.empty or column not in df:
        return []
    sub = df[np.isfinite(df[column].astype(float))]
    return list(sub.groupby("model", sort=True)) if not sub.empty else []


def bracket_rows(ws: pd.DataFrame) -> list:
    groups = _by_model(ws, "S_upper")
    if not groups:
        return [_row("bracket", "", "max S/S_upper", np.nan, thresholds.NOT_IN_FILE,
                     "no upper bound in this file")]
    out = []
    for model, g in groups:
        ratio = float((g["S"] / g["S_upper"]).max())
        ok = ratio <= 1 + thresholds.BRACKET_TOL
        bad = int((g["S"] > g["S_upper"] * (1 + thresholds.BRACKET_TOL)).sum())
        out.append(_row(f"bracket[{model}]", model, "max over records of S/S_upper", ratio,
                        thresholds.PASS if ok else thresholds.FAIL,
                        "" if ok else f"{bad} records with S above its certified upper bound",
                        len(g)))
    return out


def cert_rows(df: pd.DataFrame, table: str) -> list:
    name = f"cert_rel_err[{table}]"
    if df.empty:
        return []
    if "cert_rel_err" not in df or not np.isfinite(df["cert_rel_err"].astype(float)).any():
        return [_row(name, "", "max cert_rel_err", np.nan, thresholds.NOT_IN_FILE,
                     "no cert_rel_err column in this file (format before 1.2)")]
    err = df["cert_rel_err"].astype(float)
    worst = float(err.max())
    ok = worst <= thresholds.CERT_TOL
    bad = ",".join(sorted(set(df.loc[err > thresholds.CERT_TOL, "model"].astype(str)))) \
        if not ok and "model" in df else ""
    return [_row(name, bad, "max over records of cert_rel_err", worst,
                 thresholds.PASS if ok else thresholds.FAIL,
                 "" if ok else f"{int((err > thresholds.CERT_TOL).sum())} records above "
                               f"{thresholds.CERT_TOL:g}", int(err.notna().sum()))]


def witness_rows(checks: pd.DataFrame | None) -> list:
    if checks is None:
        return []
    if checks.empty:
        return [_row("witness_recompute", "", "max relative difference", np.nan,
                     thresholds.NOT_IN_FILE, "no witnesses in this file (run with --save-witness)")]
    worst = float(checks["rel_diff"].max())
    ok = worst <= thresholds.CERT_TOL
    bad = ",".join(sorted(set(checks.loc[checks["rel_diff"] > thresholds.CERT_TOL, "model"]
                              .astype(str)))) if not ok else ""
    return [_row("witness_recompute", bad, "max relative difference of S recomputed in numpy",
                 worst, thresholds.PASS if ok else thresholds.FAIL,
                 "" if ok else "a stored S does not follow from its stored witness",
                 len(checks))]


def head_rows(gen: pd.DataFrame) -> list:
    out = []
    if gen.empty:
        return out
    for model, g in gen.groupby("model", sort=True):
        if "t1" in g:
            t1 = g["t1"].astype(float)
            dev = float((t1 - np.sign(t1)).abs().max()) if len(t1) else np.nan
            ok = np.isfinite(dev) and dev <= thresholds.T1_TOL
            out.append(_row(f"head_t1[{model}]", model, "max |t1 − y|", dev,
                            thresholds.PASS if ok else thresholds.FAIL,
                            "" if ok else "the trained head does not fit the new sample",
                            len(g)))
        if {"t1", "D1", "E"} <= set(g.columns):
            out.append(_label_row(model, g))
        if "cond_K" in g:
            cond = g["cond_K"].astype(float)
            worst = float(cond.max()) if cond.notna().all() else np.inf
            ok = np.isfinite(worst) and worst <= thresholds.COND_MAX
            out.append(_row(f"head_cond_K[{model}]", model, "max cond(K)", worst,
                            thresholds.PASS if ok else thresholds.FAIL,
                            "" if ok else "the kernel is too ill-conditioned for double "
                                          "precision", len(g)))
    return out


def _label_row(model: str, g: pd.DataFrame) -> dict:
    """The head was fitted to the label its error is measured against: the changed text's label
    is y_Δ = −y and the head fits y = sign(t1), so E = (D1 + sign(t1))². A head fitted to −y
    (t1 = −y) has E = (D1 − sign(t1))² instead, which differs by 4·|D1|."""
    t1, D1, E = (g[c].astype(float) for c in ("t1", "D1", "E"))
    recomputed = (D1 + np.sign(t1)) ** 2
    err = (E - recomputed).abs() / np.maximum(1.0, E.abs())
    worst = float(err.max()) if len(err) else np.nan
    ok = np.isfinite(worst) and worst <= thresholds.LABEL_TOL
    return _row(f"head_label[{model}]", model, "max |E − (D1 + sign t1)²| / max(1, E)", worst,
                thresholds.PASS if ok else thresholds.FAIL,
                "" if ok else f"{int((~(err <= thresholds.LABEL_TOL)).sum())} records whose E does "
                              "not follow from D1 and the label the head was fitted to",
                len(g))


def budget_rows(ws: pd.DataFrame) -> list:
    groups = _by_model(ws, "S_budget_check")
    if ws.empty:
        return []
    if not groups:
        return [_row("budget_gain", "", "max S_budget_check/S − 1", np.nan, thresholds.NOT_IN_FILE,
                     "no S_budget_check in this file (set budget-check in the configuration)")]
    out = []
    for model, g in groups:
        gain = g["S_budget_check"].astype(float) / g["S"] - 1
        worst, least = float(gain.max()), float(gain.min())
        ok = worst <= thresholds.BUDGET_GAIN_MAX and least >= -thresholds.CERT_TOL
        if ok:
            why = ""
        elif least < -thresholds.CERT_TOL:
            why = ("the budget-check search, a superset of the original one, found less than S: "
                   "the searches are not nested as they should be")
        else:
            at = g.loc[gain.idxmax()]
            why = (f"the search is not converged (at n={int(at['n'])}, d={int(at['d'])} S "
                   f"grows by {worst:.1%} with the budget-check factor times the budget and the "
                   "starts): slopes of S are suspect")
        out.append(_row(f"budget_gain[{model}]", model, "max S_budget_check/S − 1", worst,
                        thresholds.PASS if ok else thresholds.FAIL, why, len(g)))
    return out


def rows(ws: pd.DataFrame, gen: pd.DataFrame, witness_checks: pd.DataFrame | None = None
         ) -> list:
    out = []
    if not ws.empty:
        out += bracket_rows(ws)
    out += cert_rows(ws, "ws") + cert_rows(gen, "gen")
    out += witness_rows(witness_checks)
    out += head_rows(gen)
    out += budget_rows(ws)
    return out


# The columns of a model each check vouches for: a failure leaves every claim that reads one of
# them (of that model) inconclusive. cert_rel_err[gen] and the head checks vouch for E.
COLUMNS_OF = {
    "bracket": ("S", "S_upper"),
    "cert_rel_err[ws]": ("S",),
    "cert_rel_err[gen]": ("E",),
    "witness_recompute": ("S",),
    "head_t1": ("E",),
    "head_label": ("E",),
    "head_cond_K": ("E",),
    "budget_gain": ("S",),
}


def failures(checks: list) -> dict:
    """{(model, column): check name} of the failing checks (a check that names no model vouches
    for every model's column)."""
    out = {}
    for c in checks:
        if c.get("verdict") != thresholds.FAIL:
            continue
        name = c["claim"]
        columns = COLUMNS_OF.get(name) or COLUMNS_OF.get(name.split("[")[0], ())
        for model in (str(c.get("model") or "*")).split(","):
            for column in columns:
                out.setdefault((model, column), name)
    return out


def gate(row, reads: list, failed: dict) -> None:
    """Leaves `row` inconclusive when a column it reads ((model, column) pairs) failed an
    integrity check: the numbers it would be decided on cannot be trusted."""
    named = []
    for model, column in reads:
        for key in ((model, column), ("*", column)):
            if key in failed:
                named.append(f"{failed[key]} fails for {model}'s {column}")
    if named:
        row.unavailable = ("integrity: " + "; ".join(dict.fromkeys(named)) + " — the evidence "
                           "this verdict rests on cannot be trusted")
