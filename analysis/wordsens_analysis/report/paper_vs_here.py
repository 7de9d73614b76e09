"""The "paper vs here" table: each claim of Bombari & Mondelli (ICML 2024) and the trend its
experiments report, beside what this report measured (statistic, interval, verdict) per study.

The paper's side is the claim and its measurable form (a slope, a level), not numbers read off
its figures: its experiments use BERT-Base embeddings of IMDb reviews (d = 768, n ≤ 250) and
synthetic Gaussian texts; here the real-text stand-ins are all-MiniLM-L6-v2's layer 0 × Brown
(d = 384) and static GloVe × Brown (analysis/datasets).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import claims, rules

COLUMNS = ["claim", "paper: statement", "paper: reported trend", "measured here", "study",
           "texts", "estimate [95% CI]", "verdict", "per group", "n used", "d"]


def _interval(r) -> str:
    est, lo, hi = r["estimate"], r["ci_low"], r["ci_high"]
    if not np.isfinite(est):
        return "–"
    if np.isfinite(lo) and np.isfinite(hi):
        return f"{est:.3g} [{lo:.3g}, {hi:.3g}]"
    return f"{est:.3g}"


def _groups(verdicts: pd.DataFrame, study: str, claim: str) -> str:
    """The per-group verdicts behind a primary row: each group's statistic and verdict, from the
    secondary rows '<claim>/<group>'."""
    sec = verdicts[(verdicts["kind"] == rules.SECONDARY) & (verdicts["study"] == study)
                   & verdicts["claim"].str.startswith(claim + "/")]
    parts = []
    for r in sec.itertuples():
        est = f" {r.estimate:.3g}" if np.isfinite(r.estimate) else ""
        parts.append(f"{r.claim[len(claim) + 1:]}:{est} ({r.verdict})")
    return "; ".join(parts)


def paper_vs_here(verdicts: pd.DataFrame, texts_of: dict) -> pd.DataFrame:
    """One row per primary row of the verdict table (claim × study), in the paper's order."""
    prim = verdicts[verdicts["kind"] == rules.PRIMARY]
    rows = []
    for r in prim.to_dict("records"):
        c = claims.CLAIMS.get(r["claim"].split("[")[0])
        side = c.paper if c is not None and c.paper is not None else None
        statement, trend, measured = ((side.statement, side.trend, side.measured) if side
                                      else ("(beyond the paper)", "", ""))
        rows.append({
            "claim": r["claim"], "paper: statement": statement, "paper: reported trend": trend,
            "measured here": r["statistic"] or measured, "study": r["study"] or "–",
            "texts": texts_of.get(r["study"], "–"), "estimate [95% CI]": _interval(r),
            "verdict": r["verdict"], "per group": _groups(verdicts, r["study"], r["claim"]),
            "n used": r["n_used"], "d": r["d"],
        })
    return pd.DataFrame(rows, columns=COLUMNS)
