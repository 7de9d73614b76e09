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

from . import extension_claims, head_claims, multi_word, rules, ws_claims
from .rules import (E_FAR, E_LIMIT, E_NEAR, FLAT, HALF_M_TOL, K_OVER_N, M_OVER_N, REFUTE_HALF,
                    RELU_BEYOND, RELU_DECAY, RELU_FLAT)


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
    # A claim about a model beyond the paper: its rows are of kind 'extension' (their own Holm
    # family, never in the first line; docs/VERDICT_RULES.md "Beyond the paper").
    extension: bool = False


_STATS = ("statistics are per trial (the texts of a trial are shared by all models and all n, so "
          "a trial gives a whole curve) and judged by their median: exact one-sided sign tests "
          "at α, 95% order-statistic intervals; every group of the claim's axes in its regime "
          "must pass (intersection-union), any refuted group contradicts it (Bonferroni over "
          "the groups' tests), then Holm over the report's primary rows; a planned in-regime "
          "point with fewer done trials than planned makes its group inconclusive")

CLAIMS = {c.id: c for c in [
    Claim("thm1_rf", "Thm 1", "Random features forget a single word: S_rf = O(1/√n)", "rf", "ws",
          "k ≥ d (the theorem needs k ≳ d), per (d, k) group",
          f"confirmed when in every group the certified upper bound's slope of log S_upper "
          f"against log n is at most −1/2 + δ, δ the largest upward drift a bound obeying the "
          f"theorem can have at the group's own n and k (tolerances.py: the maximum over the "
          f"n positions' blocks; 0 where k grows with n); 'supported (restricted bound)' when "
          f"S_upper covers only the examined positions; contradicted when the lower bound S "
          f"decays slower than allowed (slope above {REFUTE_HALF}) in some group; without "
          f"S_upper at most 'not refuted (lower bound only)': S's slope at most −1/2 + δ and "
          f"the fit S·√n = A + B/√n with A > 0 (S does not fall faster than 1/√n, as a search "
          f"that misses the maximum at large n would make it); {_STATS}",
          ws_claims.o_half_rows,
          Paper("Thm 1: random features lose a single word, S_rf = O(1/√n) for k ≳ d",
                "rf's word sensitivity falls like n^−1/2 (k = D)",
                "slope of log S_upper vs log n ≤ −1/2 + δ (δ: the bound's own drift)")),
    Claim("thm2_drf", "Thm 2", "Deep random features forget a single word too: S_drf = O(1/√n) "
          "for each depth L", "drf", "ws", "k ≥ d, per (d, L, k) group",
          "as Thm 1, with drf's certified upper bound (all positions) where the file has one, "
          "in every depth L",
          ws_claims.o_half_rows,
          Paper("Thm 2: deep random features too, S_drf = O(1/√n) for every depth L",
                "drf falls like n^−1/2 at every L",
                "slope of log S_upper vs log n ≤ −1/2 + δ in every L")),
    Claim("thm3_raf", "Thm 3", "Random attention features keep a single word: S_raf = Ω(1)",
          "raf", "ws",
          "n ≤ d (at fixed d and n ≫ d, S_raf = O(√(d/n)): see docs/VERDICT_RULES.md), per d",
          f"confirmed when in every d, with one-sided p ≤ α after Holm (intersection-union: "
          f"the row's p is the largest of its tests'): raf is flat, its slope of log S against "
          f"log n inside [−{FLAT}, +{FLAT}] (two one-sided sign tests; a decay like n^−0.1 is "
          f"not flat), and high: per trial, the smallest over n of log(S_raf/S_upper,rf) is "
          f"above 0 (raf above rf's certified upper bound on the same texts at every n; S_raf "
          f"is attained and S_upper,rf certified, so the ratio is a lower bound of the true "
          f"one) and its slope against log n is above 0 (the gap grows, ≈ +1/2 predicted); "
          f"'supported (restricted bound)' when rf's bound covers the examined positions only. "
          f"S is a lower bound found by ascent: it can confirm Ω(1) but never refute it, so a "
          f"decaying S_raf gives inconclusive, not contradicted; {_STATS}",
          ws_claims.thm3_rows,
          Paper("Thm 3: random attention keeps a single word, S_raf = Ω(1) (n not large next "
                "to d)",
                "raf's word sensitivity stays flat in n, far above rf's",
                "slope of log S_raf inside ±0.08; S_raf above rf's S_upper at every n, the gap "
                "growing")),
    Claim("softmax_raf_relu", "Thm 3 (contrast)", "The softmax matters: row-normalised ReLU "
          "attention keeps less of a word than softmax attention", "raf_relu", "ws",
          f"n ≤ d (as Thm 3), per d; its decay only where n ≥ {RELU_BEYOND}·d",
          f"at most 'not refuted (lower bound only)' (no upper bound exists for raf_relu): in "
          f"every d, the per-trial mean over n of log(S_raf/S_relu), paired on the same texts, "
          f"above 0 with p ≤ α after Holm; contradicted when it is below 0 (raf_relu's S, found "
          f"by a search that starts from the floor construction of docs/METHOD.md, is as high "
          f"as raf's). raf_relu keeps S ≳ 0.5 at every n < d, so its decay is looked for only "
          f"where n ≥ {RELU_BEYOND}·d (secondary rows relu_decay: slope below {RELU_DECAY} not "
          f"refuted, above {RELU_FLAT} contradicted); {_STATS}",
          ws_claims.softmax_rows,
          Paper("The softmax matters: with row-normalised ReLU attention the word is lost",
                "raf_relu's word sensitivity decays with n while raf's does not",
                "log(S_raf/S_relu) > 0 on the same texts (n ≤ d); raf_relu's decay where "
                "n ≥ 2d (beyond its floor)")),
    Claim("thm45_rf", "Thms 4–5", "A random-features head cannot tell the two texts apart "
          "after a one-word change: E_rf stays far from 0", "rf", "gen",
          f"k ≥ {K_OVER_N}·N (k ≫ N) and N + 1 < k, per (d, N, k) group",
          f"per training mode, with Δ the best a search minimising E found (objective 'best': "
          f"the smallest E of the objectives run): at most 'supported (search only)' (a large "
          f"E is no certificate over the ball) when in every group the median E at the largest "
          f"planned n is above {E_FAR} (exact sign test, p ≤ α after Holm); contradicted when "
          f"it is below {E_NEAR} in some group (the search found a Δ the head gets right). "
          f"'E tends to {E_LIMIT:g}' is claimed only with at least {rules.MIN_POINTS} values of "
          f"n, when the interval of the per-trial limit L of E = L + B/√n reaches "
          f"{E_LIMIT:g} in every group (secondary rows limit[…]); {_STATS}",
          head_claims.head_rows,
          Paper("Thms 4–5: a random-features head cannot tell two texts differing in one word "
                "apart, after fine-tuning or retraining",
                "the test error E after the change stays far from 0 and tends to 4 as n grows "
                "(k ≫ N)",
                "median E at the largest n > 1 (search only); E → 4 from a fitted limit")),
    Claim("raf_gen", "Thms 4–5 (contrast)", "A random-attention head can tell the two texts "
          "apart: E_raf near 0 for the best Δ", "raf", "gen",
          "N + 1 < D = n·d and n ≤ d, per (d, N) group",
          f"per training mode: confirmed when in every group the median E at the largest "
          f"planned n is below {E_NEAR} (exact sign test, p ≤ α after Holm); E is attained by a "
          f"stored Δ, so a small E is certified, while a large E (no Δ found) cannot refute "
          f"the claim: inconclusive; {_STATS}",
          head_claims.head_rows,
          Paper("Thms 4–5, contrast: a random-attention head can",
                "E ≈ 0 at the best one-word change found",
                "median E at the largest n ≈ 0")),
    Claim("mw_rf_sqrt_m", "Thm 1 (several words)", "Random features notice m changed words only "
          "in proportion: S_m grows like √(m/n), slope +1/2 in m", "rf", "multi_word",
          f"k ≥ d and m ≤ n/{M_OVER_N} (m ≪ n), per (n, d, k) group",
          f"'supported (restricted bound)' when in every group the slope of log S_m (a lower "
          f"bound) against log m is above 1/2 − {HALF_M_TOL} and the slope of log S_upper "
          f"(certified over the examined word sets only) is below 1/2 + {HALF_M_TOL}, with "
          f"p ≤ α after Holm; 'not refuted (lower bound only)' without S_upper when the lower "
          f"bound's slope lies inside 1/2 ± {HALF_M_TOL}; contradicted when in some group the "
          f"lower bound grows faster (slope above 1/2 + {HALF_M_TOL}) or the upper bound slower "
          f"(slope below 1/2 − {HALF_M_TOL}); m = 1 is the task with one changed word; "
          f"{_STATS}",
          multi_word.rf_growth_rows),
    Claim("mw_rf_fraction", "Thm 1 (several words)", "A fixed fraction of changed words moves "
          "random features by a constant: at m = ⌈f·n⌉, S_m is flat in n", "rf", "multi_word",
          "k ≥ d, per (words-fraction f, d, k) group",
          f"in every group the slope of log S_m against log n: 'supported (restricted bound)' "
          f"when the lower bound's slope is above −{FLAT} (S_m does not decay) and S_upper's "
          f"(examined sets) is below +{FLAT}, with p ≤ α after Holm; 'not refuted (lower bound "
          f"only)' without S_upper when the lower bound's slope lies inside ±{FLAT}; "
          f"contradicted when in some group the lower bound grows (slope above +{FLAT}) or the "
          f"upper bound decays (below −{FLAT}); {_STATS}",
          multi_word.rf_fraction_rows),
    Claim("mw_raf_one_word", "Thm 3 (several words)", "One changed word already moves "
          "attention: S_1 = Ω(1), and more words only add to it (S_m ≥ S_1)", "raf", "multi_word",
          "n ≤ d, per d",
          f"'not refuted (lower bound only)' when in every d, with p ≤ α after Holm: raf's S_1 "
          f"(a lower bound) has a slope in n inside [−{FLAT}, +{FLAT}], and the per-trial mean "
          f"of log(S_m/S_1) over the m ≥ 2 of the file is above 0 (the searches for several "
          f"words find at least what one word gives); a decaying S_1 or S_m below S_1 cannot "
          f"refute the claim (lower bounds found by ascent): inconclusive with the reason; "
          f"{_STATS}",
          multi_word.raf_one_word_rows),
]}

_LB_CONTRAST = (f"both are lower bounds found by ascent, so a positive verdict is at most 'not "
                f"refuted (lower bound only)', and the opposite order with p ≤ α contradicts the "
                f"claim; {_STATS}")


def _omega(model: str, what: str) -> Claim:
    return Claim(f"ext_{model}", "beyond the paper", f"{what} keeps a single word: S_{model} = "
                 f"Ω(1)", model, "ws", "n ≤ d, per d (and per H and MLP width k where the "
                 f"study runs several)",
                 f"as Thm 3 with S_{model} in place of S_raf: confirmed when in every d its slope "
                 f"of log S against log n lies inside [−{FLAT}, +{FLAT}] and it stays above rf's "
                 f"certified upper bound on the same texts at every n, the gap growing; {_STATS}",
                 ws_claims.thm3_rows, extension=True)


EXTENSION_CLAIMS = [
    _omega("raf_v", "Random attention with value and output projections"),
    _omega("mhraf", "Multi-head random attention"),
    _omega("block", "A random pre-LayerNorm transformer block"),
    Claim("ext_residual", "beyond the paper", "The block keeps less of a word than its attention "
          "alone: S_block < S_mhraf on the same texts (residual path, LayerNorm, MLP)", "block",
          "ws", "n ≤ d, per d (and per H and MLP width k), mhraf with the same heads on the "
          "same texts",
          f"in every d (and H, and width k of the block's MLP), the per-trial mean over n of "
          f"log(S_block/S_mhraf) below 0 with p ≤ α "
          f"after Holm over the extension rows; {_LB_CONTRAST}",
          extension_claims.residual_rows, extension=True),
    *[Claim(f"ext_heads_{model}", "beyond the paper", f"More heads keep less of a word: "
            f"S_{model} falls with the number of heads H (each head d/H wide)", model, "ws",
            "n ≤ d, per d (and per MLP width k), the study's heads grid (listed where it has "
            "at least 2 values of H)",
            f"in every d (and width k of the block's MLP), per trial, the mean over n of the "
            f"least-squares slope of log S_{model} "
            f"against log H below 0 with p ≤ α after Holm over the extension rows; "
            f"{_LB_CONTRAST}",
            extension_claims.heads_rows, extension=True) for model in ("mhraf", "block")],
    *[Claim(f"ext_causal_{model}", "beyond the paper", f"Under a causal mask the first word "
            f"counts more than the last: S at word 0 above S at word n−1 ({model})",
            f"{model}/causal", "ws", "n ≤ d, per d, mask = causal, positions = all",
            f"in every d, the per-trial mean over n of log(S_0/S_(n−1)), each the best S found "
            f"at that word (position_S), above 0 with p ≤ α after Holm over the extension rows; "
            f"{_LB_CONTRAST}",
            extension_claims.causal_rows, extension=True) for model in ("raf", "block")],
]
CLAIMS.update({c.id: c for c in EXTENSION_CLAIMS})

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
           "holm over primary rows", f"sequential: {rules.SEQUENTIAL_RULE}"]
    for c in CLAIMS.values():
        out += [c.id, c.theorem, c.name, c.model, c.regime, c.rule]
    for table in (rules.SECONDARY_RULES, rules.INTEGRITY_RULES):
        out += [f"{k}: {v}" for k, v in table.items()]
    out.append(f"extension: {rules.EXTENSION_RULE}")
    return out


RULES_HASH = hashlib.sha256("\n".join(_texts()).encode("utf-8")).hexdigest()[:12]
