"""Every claim the report judges, in the report's order: the paper's (CLAIMS) and those beyond it
(EXTENSION_CLAIMS), each one Claim (claim.py), and the hash of every rule text (RULES_HASH).

The verdict pipeline (verdicts.py) iterates CLAIMS in this order; the "paper vs here" table reads
`paper`; the figures find a model's claim here; the rules' hash covers every text of this module
and of the rules' thresholds (rules/thresholds.py). Adding a claim is adding one Claim below.
"""
from __future__ import annotations

import functools
import hashlib

from .. import rules
from ..rules import (E_FAR, E_LIMIT, E_NEAR, FLAT, HALF_M_TOL, K_OVER_N, M_OVER_N, RELU_BEYOND,
                     evidence)
from . import extension_claims, head_claims, multi_word_claims, ws_claims
from .claim import Claim, Paper, Statement


_O_HALF = Statement(
    (evidence.UPPER_RATE,),
    "with probability ≥ 1 − η over the weights, for every text, S ≤ C·n^−1/2 for every n ≥ n0 "
    "(C and n0 unknown), where k ≳ d",
    (evidence.UPPER, evidence.UPPER_EXAMINED, evidence.LOWER))
_O_HALF_JUDGED = (
    "per trial, the slope of log S_upper against log n over the end of the design at most "
    "−1/2 + δ, δ the largest upward drift a bound obeying the theorem can have at the group's own "
    "n and k (tolerances.py: 0 where k grows with n); refuted when S·√n at the largest n lies "
    "above C_max, the largest constant a certified bound obeying the theorem can have at the "
    f"group's sizes (tolerances.level_ceiling, with a margin of {rules.CEILING_MARGIN:g}), in "
    "significantly more than η of the trials; without S_upper in the group, at most 'not "
    "refuted (lower bound only)', when S·√n at the largest n lies below C_max")


def _omega_statement(model: str) -> Statement:
    return Statement(
        (evidence.LOWER_RATE,),
        f"with probability ≥ 1 − η over the weights, for every text, S_{model} ≥ c > 0 for "
        f"every n ≤ d (c unknown)",
        (evidence.LOWER, evidence.LOWER_OVER_UPPER))


def _omega_judged(model: str) -> str:
    return (f"per trial, the slope of log S_{model} against log n over the end of the design "
            f"above −{FLAT} (not decaying: a decay like n^−0.1 is not Ω(1) on a finite grid), "
            f"and at every n of the regime S_{model} above rf's certified upper bound on the same "
            f"texts (the smallest over n of log(S_{model}/S_upper,rf) above 0: an attained S over "
            f"a certified bound is a lower bound of the true ratio), the gap growing (the slope "
            f"of that log ratio over the end of the design above 0); 'supported (restricted "
            f"bound)' when rf's bound covers the examined positions only; never contradicted: no "
            f"upper bound of S_{model} exists, and a decaying lower bound may be a search that "
            f"misses the maximum")


def _order_statement(a: str, b: str, where: str) -> Statement:
    return Statement(
        (evidence.ORDER,),
        f"with probability ≥ 1 − η over the weights, for every text and every n {where}, "
        f"{a} > {b}", (evidence.LOWER_PAIR,))


_BOUNDED = (("", "S"), ("", "S_upper"))
_ABOVE_RF = (("", "S"), ("rf", "S_upper"))
_LB_PAIR = ("both are lower bounds found by ascent: in the claimed order at every n the claim is "
            "at most 'not refuted (lower bound only)', and the other order refutes nothing "
            "(inconclusive, with the reason)")

CLAIMS = {c.id: c for c in [
    Claim("thm1_rf", "Thm 1", "Random features forget a single word: S_rf = O(1/√n)", "rf", "ws",
          "k ≥ d (the theorem needs k ≳ d), per (d, k) group, k grouped as the grid gives it",
          _O_HALF, _O_HALF_JUDGED, ws_claims.o_half_rows,
          Paper("Thm 1: random features lose a single word, S_rf = O(1/√n) for k ≳ d",
                "rf's word sensitivity falls like n^−1/2 (k = D)",
                "slope of log S_upper vs log n over the end of the design ≤ −1/2 + δ"),
          reads=_BOUNDED, judged_column="S_upper", judges_slope=True),
    Claim("thm2_drf", "Thm 2", "Deep random features forget a single word too: S_drf = O(1/√n) "
          "for each depth L", "drf", "ws", "k ≥ d, per (d, L, k) group",
          _O_HALF, "as Thm 1, with drf's certified upper bound (all positions) and its ceiling "
          "(each hidden layer's norm), in every depth L", ws_claims.o_half_rows,
          Paper("Thm 2: deep random features too, S_drf = O(1/√n) for every depth L",
                "drf falls like n^−1/2 at every L",
                "slope of log S_upper vs log n over the end of the design ≤ −1/2 + δ in every "
                "L"), reads=_BOUNDED, judged_column="S_upper", judges_slope=True),
    Claim("thm3_raf", "Thm 3", "Random attention features keep a single word: S_raf = Ω(1)",
          "raf", "ws",
          "n ≤ d (at fixed d and n ≫ d, S_raf = O(√(d/n)): see docs/VERDICT_RULES.md), per d",
          _omega_statement("raf"), _omega_judged("raf"), ws_claims.thm3_rows,
          Paper("Thm 3: random attention keeps a single word, S_raf = Ω(1) (n not large next "
                "to d)",
                "raf's word sensitivity stays flat in n, far above rf's",
                f"slope of log S_raf over the end of the design above −{FLAT}; S_raf above "
                f"rf's S_upper at every n, the gap growing"), reads=_ABOVE_RF, partner="rf",
          judges_slope=True),
    Claim("softmax_raf_relu", "Thm 3 (contrast)", "The softmax matters: row-normalised ReLU "
          "attention keeps less of a word than softmax attention", "raf_relu", "ws",
          f"n ≤ d (as Thm 3), per d; its decay only where n ≥ {RELU_BEYOND}·d",
          _order_statement("S_raf", "S_relu", "≤ d"),
          f"per trial, the smallest over the regime's n of log(S_raf/S_relu), paired on the same "
          f"texts, above 0; {_LB_PAIR}. raf_relu keeps S ≳ 0.5 at every n < d (a floor, "
          f"docs/METHOD.md), so its decay is shown only where n ≥ {RELU_BEYOND}·d (secondary "
          f"rows relu_decay, not judged)",
          ws_claims.softmax_rows,
          Paper("The softmax matters: with row-normalised ReLU attention the word is lost",
                "raf_relu's word sensitivity decays with n while raf's does not",
                "log(S_raf/S_relu) > 0 on the same texts at every n ≤ d; raf_relu's decay "
                "where n ≥ 2d (beyond its floor), shown"), reads=(("", "S"), ("raf", "S")),
          partner="raf"),
    Claim("thm45_rf", "Thms 4–5", "A random-features head cannot tell the two texts apart "
          "after a one-word change: E_rf stays far from 0", "rf", "gen",
          f"k ≥ {K_OVER_N}·N (k ≫ N) and N + 1 < k, per (d, N, k) group",
          Statement((evidence.HEAD_CANNOT, evidence.LIMIT),
                    "with probability ≥ 1 − η over the weights, for every n large enough (k ≫ "
                    "N), every one-word change Δ leaves the fitted head wrong on the changed "
                    "text: E bounded away from 0, tending to 4 as n grows",
                    (evidence.E_SEARCH, evidence.E_SMALL)),
          f"per training mode, with Δ the best a search minimising E found (objective 'best': "
          f"the smallest E of the objectives run): per trial, the smallest E over the end of the "
          f"design's n above {E_FAR} (at most 'supported (search only)': a large E is no "
          f"certificate over the ball); contradicted when E below {E_NEAR} at some n of the end "
          f"in significantly more than η of the trials (the search found a Δ the head gets "
          f"right, which certifies it). 'E tends to {E_LIMIT:g}' is claimed only with at least "
          f"{rules.MIN_POINTS} values of n, when the interval of the per-trial limit L of "
          f"E = L + B/√n contains {E_LIMIT:g} in every group (secondary rows limit[…]); an "
          f"interval wholly above or below it says E does not tend to {E_LIMIT:g}",
          head_claims.head_rows,
          Paper("Thms 4–5: a random-features head cannot tell two texts differing in one word "
                "apart, after fine-tuning or retraining",
                "the test error E after the change stays far from 0 and tends to 4 as n grows "
                "(k ≫ N)",
                "E > 1 at every n of the end of the design (search only); E → 4 from a fitted "
                "limit whose interval contains 4"), reads=(("", "E"),)),
    Claim("raf_gen", "Thms 4–5 (contrast)", "A random-attention head can tell the two texts "
          "apart: E_raf near 0 for the best Δ", "raf", "gen",
          "N + 1 < D = n·d and n ≤ d, per (d, N) group",
          Statement((evidence.HEAD_CAN,),
                    "with probability ≥ 1 − η over the weights, for every n ≤ d with N + 1 < "
                    "n·d, some one-word change Δ makes the fitted head right on the changed "
                    "text: E near 0", (evidence.E_SMALL, evidence.E_SEARCH)),
          f"per training mode: per trial, the largest E at the best Δ found over the regime's n "
          f"below {E_NEAR} (confirmed: E is attained by a stored Δ); a large E (no Δ found) "
          f"cannot refute the claim: inconclusive",
          head_claims.head_rows,
          Paper("Thms 4–5, contrast: a random-attention head can",
                "E ≈ 0 at the best one-word change found",
                f"E < {E_NEAR} at every n ≤ d"), reads=(("", "E"),)),
    Claim("mw_rf_sqrt_m", "beyond the paper (Thm 1, several words)", "Random features notice "
          "m changed words only in proportion: S_m grows like √(m/n), slope +1/2 in m", "rf",
          "multi_word", f"k ≥ d and m ≤ n/{M_OVER_N} (m ≪ n), per (n, d, k) group",
          Statement((evidence.UPPER_RATE, evidence.LOWER_RATE),
                    "with probability ≥ 1 − η over the weights, for every text, c·√(m/n) ≤ S_m "
                    "≤ C·√(m/n) while m ≪ n (c, C unknown)",
                    (evidence.UPPER_EXAMINED, evidence.LOWER)),
          f"per trial over the end of the design in m: the slope of log S_upper (certified over "
          f"the examined word sets only) against log m at most 1/2 + {HALF_M_TOL} (the upper "
          f"part, 'supported (restricted bound)'), and the slope of log S_m (a lower bound) at "
          f"least 1/2 − {HALF_M_TOL} (the lower part); refuted when S_m at the largest m lies "
          f"above the ceiling of a certified bound on m words in significantly more than η of "
          f"the trials; without S_upper, at most 'not refuted (lower bound only)'; m = 1 is the "
          f"task with one changed word",
          multi_word_claims.rf_growth_rows, extension=True, reads=_BOUNDED),
    Claim("mw_rf_fraction", "beyond the paper (Thm 1, several words)", "A fixed fraction of "
          "changed words moves random features by a constant: at m = ⌈f·n⌉, S_m is flat in n",
          "rf", "multi_word", "k ≥ d, per (words-fraction f, d, k) group",
          Statement((evidence.UPPER_RATE, evidence.LOWER_RATE),
                    "with probability ≥ 1 − η over the weights, for every text, at m = ⌈f·n⌉ "
                    "changed words c ≤ S_m/λ(m/n) ≤ C for every n (c, C unknown), λ(r) = "
                    "√r·(1 + √(r·n·d/k)) the law of docs/METHOD.md §4: m/n moves with the "
                    "rounding of f·n, and the law with it",
                    (evidence.UPPER_EXAMINED, evidence.LOWER)),
          f"per trial over the end of the design in n: the slope of log(S_upper/λ) at most "
          f"+{FLAT} (the upper part, 'supported (restricted bound)') and the slope of "
          f"log(S_m/λ) at least −{FLAT} (the lower part); refuted when S_m at the largest n "
          f"lies above the ceiling of a certified bound on m words in significantly more than "
          f"η of the trials; without S_upper, at most 'not refuted (lower bound only)'",
          multi_word_claims.rf_fraction_rows, extension=True, reads=_BOUNDED),
]}


def _omega(model: str, what: str) -> Claim:
    return Claim(f"ext_{model}", "beyond the paper", f"{what} keeps a single word: S_{model} = "
                 f"Ω(1)", model, "ws", "n ≤ d, per d (and per H and MLP width k where the "
                 f"study runs several)", _omega_statement(model), _omega_judged(model),
                 ws_claims.thm3_rows, extension=True, reads=_ABOVE_RF, partner="rf",
                 judges_slope=True)


_TRAINED = (("trained_attn", "A pretrained encoder's attention layer (its trained weights)"),
            ("twin_attn", "The trained attention's random twin (each matrix redrawn at its norm)"),
            ("trained_layer", "A pretrained encoder's whole layer (attention, residual, "
                              "LayerNorms, feed-forward)"),
            ("twin_layer", "The trained layer's random twin (each matrix redrawn at its norm)"))
_TRAINED_REGIME = ("n ≤ d, per d (one study per layer ℓ: its states on the same texts; the "
                   "encoder's d = 384 and trained length n ≤ 256)")


def _trained_omega(model: str, what: str) -> Claim:
    return Claim(
        f"ext_{model}", "beyond the paper", f"{what} keeps a single word: S_{model} = Ω(1)",
        model, "ws", _TRAINED_REGIME,
        Statement((evidence.LOWER_RATE,),
                  f"with probability ≥ 1 − η over the texts (and, for a twin, its weights), for "
                  f"every text, S_{model} ≥ c > 0 for every n ≤ d (c unknown)", (evidence.LOWER,)),
        f"per trial, the slope of log S_{model} against log n over the end of the design above "
        f"−{FLAT} (not decaying); no level against a certified bound (a trained study holds no "
        f"rf, and no certified bound of S_{model} exists), so a decaying lower bound is named in "
        f"the row, never a contradiction: either the claim fails there or the search misses the "
        f"maximum",
        extension_claims.flat_rows, extension=True)


def _trained_order(model: str, partner: str, side: str, name: str) -> Claim:
    a, b = (model, partner) if side == "above" else (partner, model)
    worst = "smallest" if side == "above" else "largest"
    sign = ">" if side == "above" else "<"
    return Claim(
        f"ext_{model}_{'over' if side == 'above' else 'under'}_{partner}", "beyond the paper",
        name, model, "ws", _TRAINED_REGIME + f", {partner} on the same texts",
        Statement((evidence.ORDER,),
                  f"with probability ≥ 1 − η over the texts (and the random model's weights), "
                  f"for every text and every n ≤ d, S_{a} > S_{b}", (evidence.LOWER_PAIR,)),
        f"in every d, per trial, the {worst} over the regime's n of log(S_{model}/S_{partner}) "
        f"{sign} 0; {_LB_PAIR}",
        functools.partial(extension_claims.order_rows, side=side),
        extension=True, reads=(("", "S"), (partner, "S")), partner=partner)


EXTENSION_CLAIMS = [
    _omega("raf_v", "Random attention with value and output projections"),
    _omega("mhraf", "Multi-head random attention"),
    _omega("block", "A random pre-LayerNorm transformer block"),
    Claim("ext_residual", "beyond the paper", "The block keeps less of a word than its attention "
          "alone: S_block < S_mhraf on the same texts (residual path, LayerNorm, MLP)", "block",
          "ws", "n ≤ d, per d (and per H and MLP width k), mhraf with the same heads on the "
          "same texts", _order_statement("S_mhraf", "S_block", "≤ d"),
          f"in every d (and H, and width k of the block's MLP), per trial, the largest over the "
          f"regime's n of log(S_block/S_mhraf) below 0; {_LB_PAIR}",
          extension_claims.residual_rows, extension=True, reads=(("", "S"), ("mhraf", "S")),
          partner="mhraf"),
    *[Claim(f"ext_heads_{model}", "beyond the paper", f"More heads keep less of a word: "
            f"S_{model} falls with the number of heads H (each head d/H wide)", model, "ws",
            "n ≤ d, per d (and per MLP width k), the study's heads grid (listed where it has "
            "at least 2 values of H)",
            _order_statement(f"S_{model} at fewer heads", "at more heads", "≤ d"),
            f"in every d (and width k of the block's MLP), per trial, the largest over the "
            f"regime's n of the least-squares slope of log S_{model} against log H below 0; "
            f"{_LB_PAIR}",
            extension_claims.heads_rows, extension=True) for model in ("mhraf", "block")],
    *[Claim(f"ext_causal_{model}", "beyond the paper", f"Under a causal mask the first word "
            f"counts more than the last: S at word 0 above S at word n−1 ({model})",
            f"{model}/causal", "ws", "n ≤ d, per d, mask = causal, positions = all",
            _order_statement("S at word 0", "S at word n−1", "≤ d"),
            f"in every d, per trial, the smallest over the regime's n of log(S_0/S_(n−1)), each "
            f"the best S found at that word (position_S), above 0; {_LB_PAIR}",
            extension_claims.causal_rows, extension=True) for model in ("raf", "block")],
    # A pretrained encoder's layer ℓ on the states that enter it (docs/METHOD.md §2, "Trained
    # layers"): one study per layer, so every row below is per layer.
    *[_trained_omega(model, what) for model, what in _TRAINED],
    _trained_order("trained_attn", "twin_attn", "above",
                   "Training keeps more of a word in the attention than its weights' scale alone: "
                   "S_trained_attn > S_twin_attn (the twin: each trained matrix redrawn at its "
                   "own norm)"),
    _trained_order("trained_attn", "raf", "above",
                   "A trained attention layer keeps more of a word than random attention "
                   "features: S_trained_attn > S_raf (raf: one head, no projections, same d)"),
    _trained_order("trained_layer", "twin_layer", "above",
                   "Training keeps more of a word in the whole layer than its weights' scale "
                   "alone: S_trained_layer > S_twin_layer"),
    _trained_order("trained_layer", "trained_attn", "below",
                   "The whole trained layer keeps less of a word than its attention alone: "
                   "S_trained_layer < S_trained_attn (residual path, LayerNorms, feed-forward; "
                   "as ext_residual for the random block)"),
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
           f"tolerated {rules.TOLERATED}", f"slope_margin {rules.SLOPE_MARGIN}",
           f"end_doublings {rules.END_DOUBLINGS}",
           f"ceiling_margin {rules.CEILING_MARGIN}",
           "holm over primary rows", f"sequential: {rules.SEQUENTIAL_RULE}"]
    out += [" | ".join(r) for r in evidence.table_rows()]
    for c in CLAIMS.values():
        out += [c.id, c.theorem, c.name, c.model, c.regime, c.rule]
    for table in (rules.SECONDARY_RULES, rules.INTEGRITY_RULES):
        out += [f"{k}: {v}" for k, v in table.items()]
    out.append(f"extension: {rules.EXTENSION_RULE}")
    return out


RULES_HASH = hashlib.sha256("\n".join(_texts()).encode("utf-8")).hexdigest()[:12]
