"""Every claim the report judges, each one object: what it says, where it speaks, the records it
reads, the function that builds its rows, and the paper's side of it.

The verdict pipeline (verdicts.py) iterates CLAIMS in this order; the "paper vs here" table reads
`paper`; the figures find a model's claim here; the rules' hash (RULES_HASH) covers every text
of this module and of rules.py. Adding a claim is adding one Claim below.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from . import head_claims, multi_word, rules, ws_claims
from .rules import (CONTRAST_RF, E_FAR, E_GAP_SLOPE, E_NEAR, FLAT, HALF_M_TOL, HALF_TOL, K_OVER_N,
                    M_OVER_N, REFUTE_HALF, RELU_DECAY, RELU_FLAT)


@dataclass(frozen=True)
class Paper:
    """The paper's side of a claim: its statement, the trend its experiments report, and what
    this suite measures for it (not numbers read off the paper's figures)."""

    statement: str
    trend: str
    measured: str


@dataclass(frozen=True)
class Claim:
    id: str
    theorem: str   # the paper's numbering
    name: str      # what a reader should understand
    model: str
    table: str     # the records it reads: "ws", "gen" or "multi_word" (several changed words)
    regime: str    # where the claim speaks; other grid points are listed, never used
    rule: str      # how the verdict is decided
    rows: Callable  # rows(claim, study) -> [Row]: its primary row(s) and their breakdown
    paper: Paper | None = None  # None: a claim beyond the paper


_SLOPE_DEF = ("slopes are least-squares slopes of log S against log n computed per trial (the "
              "texts of a trial are shared by all models and all n), averaged over trials and "
              "over the in-regime (d, L, k) groups of a trial; 95% Student-t intervals over "
              "trials")

_M_SLOPE_DEF = (f"slopes of log S_m against log m are computed per trial at each (n, d, k) from "
                f"the m ≤ n/{M_OVER_N} of the file (m = 1 is the task with one changed word), "
                "averaged over the groups of a trial; 95% Student-t intervals over trials")

CLAIMS = {c.id: c for c in [
    Claim("thm1_rf", "Thm 1", "Random features forget a single word: S_rf = O(1/√n)", "rf", "ws",
          "k ≥ d (the theorem needs k ≳ d)",
          f"confirmed by the certified upper bound: the slope of log S_upper against log n is "
          f"at most −1/2 + {HALF_TOL} (S_upper·√n does not grow) with one-sided p ≤ α after "
          f"Holm; 'supported (restricted bound)' when S_upper covers only the examined "
          f"positions; contradicted when the lower bound S decays slower than allowed (slope "
          f"above {REFUTE_HALF}); without S_upper 'supported (lower bound only)' when S's slope "
          f"is below −1/2 + {HALF_TOL} and the fit S·√n = A + B/√n has A > 0 (S does not "
          f"fall faster than 1/√n, as a search that misses the maximum at large n would make "
          f"it), else inconclusive; {_SLOPE_DEF}",
          ws_claims.o_half_rows,
          Paper("Thm 1: random features lose a single word, S_rf = O(1/√n) for k ≳ d",
                "rf's word sensitivity falls like n^−1/2 (k = D)",
                "slope of log S_upper and of log S vs log n ≈ −0.5")),
    Claim("thm2_drf", "Thm 2", "Deep random features forget a single word too: S_drf = O(1/√n) "
          "for each depth L", "drf", "ws", "k ≥ d",
          "as Thm 1, with drf's certified upper bound (all positions) where the file has one",
          ws_claims.o_half_rows,
          Paper("Thm 2: deep random features too, S_drf = O(1/√n) for every depth L",
                "drf falls like n^−1/2 at every L",
                "slope of log S (S_upper where the file has it) vs log n ≈ −0.5")),
    Claim("thm3_raf", "Thm 3", "Random attention features keep a single word: S_raf = Ω(1)",
          "raf", "ws",
          "n ≤ d (at fixed d and n ≫ d, S_raf = O(√(d/n)): see docs/VERDICT_RULES.md)",
          f"confirmed when both hold with one-sided p ≤ α after Holm (intersection-union test: "
          f"the row's p is the larger of the two): raf's slope lies inside [−{FLAT}, +{FLAT}] "
          f"(two one-sided tests), and the paired contrast slope of log(S_raf/S_rf) on the same "
          f"texts (rf with k ≥ d) is above {CONTRAST_RF} (≈ +1/2 predicted). S is a lower bound "
          f"found by ascent: it can confirm Ω(1) but never refute it, so a decaying S_raf gives "
          f"inconclusive with the reason, not contradicted",
          ws_claims.thm3_rows,
          Paper("Thm 3: random attention keeps a single word, S_raf = Ω(1) (n not large next "
                "to d)",
                "raf's word sensitivity stays flat in n, far above rf's",
                "slope of log S_raf ≈ 0; paired slope of log(S_raf/S_rf) ≈ +0.5")),
    Claim("softmax_raf_relu", "Thm 3 (contrast)", "The softmax matters: with row-normalised "
          "ReLU attention the word is lost (S_relu decays while S_raf does not)", "raf_relu", "ws",
          "n ≤ d (as Thm 3)",
          f"'supported (lower bound only)' when raf_relu's slope is below {RELU_DECAY} and the "
          f"paired slope difference slope(raf) − slope(raf_relu) is above 0, both with p ≤ α "
          f"after Holm: no upper bound exists for raf_relu, so its decay cannot be confirmed; "
          f"contradicted when raf_relu's lower bound does not decay (slope above {RELU_FLAT})",
          ws_claims.softmax_rows,
          Paper("The softmax matters: with row-normalised ReLU attention the word is lost",
                "raf_relu's word sensitivity decays with n while raf's does not",
                "slope of log S_relu < 0; slope(raf) − slope(raf_relu) > 0")),
    Claim("thm45_rf", "Thms 4–5", "A random-features head cannot tell the two texts apart "
          "after a one-word change: E_rf stays far from 0 and tends to 4", "rf", "gen",
          f"k ≥ {K_OVER_N}·N (k ≫ N) and N + 1 < k",
          f"per training mode, with Δ the best the search found (objective 'best': the smaller "
          f"E of the objectives run): confirmed when the median E at the largest n is above "
          f"{E_FAR} (exact sign test) and the gap to 4 still closes at the end of the grid (the "
          f"two-point slope of log|4 − E| between the two largest n, per trial, is below "
          f"{E_GAP_SLOPE}), both with p ≤ α after Holm; contradicted when the median E is below "
          f"{E_NEAR} (the search found a Δ that the head gets right)",
          head_claims.head_rows,
          Paper("Thms 4–5: a random-features head cannot tell two texts differing in one word "
                "apart, after fine-tuning or retraining",
                "the test error E after the change stays far from 0 and tends to 4 as n grows "
                "(k ≫ N)",
                "median E at the largest n > 1, the gap 4 − E still closing")),
    Claim("raf_gen", "Thms 4–5 (contrast)", "A random-attention head can tell the two texts "
          "apart: E_raf near 0 for the best Δ", "raf", "gen", "N + 1 < D = n·d and n ≤ d",
          f"per training mode: confirmed when the median E at the largest n is below {E_NEAR} "
          f"(exact sign test, p ≤ α after Holm); E is attained by a stored Δ, so a small E is "
          f"certified, while a large E (no Δ found) cannot refute the claim: inconclusive",
          head_claims.head_rows,
          Paper("Thms 4–5, contrast: a random-attention head can",
                "E ≈ 0 at the best one-word change found",
                "median E at the largest n ≈ 0")),
    Claim("mw_rf_sqrt_m", "Thm 1 (several words)", "Random features notice m changed words only "
          "in proportion: S_m grows like √(m/n), slope +1/2 in m", "rf", "multi_word",
          f"k ≥ d and m ≤ n/{M_OVER_N} (m ≪ n)",
          f"'supported (restricted bound)' when the slope of log S_m (a lower bound) against "
          f"log m is above 1/2 − {HALF_M_TOL} and the slope of log S_upper (certified over the "
          f"examined word sets only) is below 1/2 + {HALF_M_TOL}, both with p ≤ α after Holm; "
          f"'supported (lower bound only)' without S_upper when the lower bound's slope lies "
          f"inside 1/2 ± {HALF_M_TOL}; contradicted when the lower bound grows faster (slope "
          f"above 1/2 + {HALF_M_TOL}) or the upper bound slower (slope below "
          f"1/2 − {HALF_M_TOL}); {_M_SLOPE_DEF}",
          multi_word.rf_growth_rows),
    Claim("mw_rf_fraction", "Thm 1 (several words)", "A fixed fraction of changed words moves "
          "random features by a constant: at m = ⌈f·n⌉, S_m is flat in n", "rf", "multi_word",
          "k ≥ d, each words-fraction f of the study",
          f"per fraction f, the slope of log S_m against log n: 'supported (restricted bound)' "
          f"when the lower bound's slope is above −{FLAT} (S_m does not decay) and S_upper's "
          f"(examined sets) is below +{FLAT}, with p ≤ α after Holm; 'supported (lower bound "
          f"only)' without S_upper when the lower bound's slope lies inside ±{FLAT}; "
          f"contradicted when the lower bound grows (slope above +{FLAT}) or the upper bound "
          f"decays (below −{FLAT}); slopes per trial over the n of the study, pooled over "
          f"fractions and groups",
          multi_word.rf_fraction_rows),
    Claim("mw_raf_one_word", "Thm 3 (several words)", "One changed word already moves "
          "attention: S_1 = Ω(1), and more words only add to it (S_m ≥ S_1)", "raf", "multi_word",
          "n ≤ d",
          f"'supported (lower bound only)' when both hold with p ≤ α after Holm: raf's S_1 "
          f"(a lower bound) has a slope in n inside [−{FLAT}, +{FLAT}], and the per-trial mean "
          f"of log(S_m/S_1) over the m ≥ 2 of the file is above 0 (the searches for several "
          f"words find at least what one word gives); a decaying S_1 or S_m below S_1 cannot "
          f"refute the claim (lower bounds found by ascent): inconclusive with the reason",
          multi_word.raf_one_word_rows),
]}

# Rows built after the claims of a table and before those of the next: diagnostics that belong
# to no single claim (the slopes between successive n, of every model).
DIAGNOSTICS = {"ws": ws_claims.local_slope_rows}
TABLES = ("ws", "gen", "multi_word")


def of_table(table: str) -> list:
    return [c for c in CLAIMS.values() if c.table == table]


def ws_claim_of_model(model: str) -> Claim | None:
    """The one-word word-sensitivity claim about `model` (its figure panel names it)."""
    return next((c for c in of_table("ws") if c.model == model), None)


def _texts() -> list:
    out = [f"version {rules.RULES_VERSION}", f"alpha {rules.ALPHA}", f"level {rules.LEVEL}",
           f"min_trials {rules.MIN_TRIALS}", f"min_points {rules.MIN_POINTS}",
           "holm over primary rows"]
    for c in CLAIMS.values():
        out += [c.id, c.theorem, c.name, c.model, c.regime, c.rule]
    for table in (rules.SECONDARY_RULES, rules.INTEGRITY_RULES):
        out += [f"{k}: {v}" for k, v in table.items()]
    return out


RULES_HASH = hashlib.sha256("\n".join(_texts()).encode("utf-8")).hexdigest()[:12]
