"""The verdict rules: thresholds, regimes and the written text of every rule, versioned.

Every number a verdict depends on is a constant here, fixed before looking at data, and every
rule's text is built from those constants. The report prints the texts verbatim, and
RULES_HASH (a hash of all of them) goes into verdicts.csv and the report, so two reports can be
compared by their rules at a glance. Changing a threshold or a text changes the hash; the
changelog is in docs/VERDICT_RULES.md, with the reasons for every rule.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

RULES_VERSION = "2.2"

# Verdicts of claims (primary and secondary rows).
CONFIRMED = "confirmed"
SUPPORTED_LB = "supported (lower bound only)"
SUPPORTED_RESTRICTED = "supported (restricted bound)"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
OUTSIDE = "outside the claim's regime"  # shown for information, never judged
# Verdicts of integrity rows.
PASS, FAIL, NOT_IN_FILE = "pass", "FAIL", "n/a"
POSITIVE = (CONFIRMED, SUPPORTED_LB, SUPPORTED_RESTRICTED)

PRIMARY, SECONDARY, INTEGRITY = "primary", "secondary", "integrity"

ALPHA = 0.025  # one-sided level of every test: at 0.025 a one-sided test agrees with the 95% CI
LEVEL = 0.95
MIN_TRIALS = 5  # per grid point; see docs/VERDICT_RULES.md ("Intervals that cover")
MIN_POINTS = 3  # distinct n for a slope fitted over the grid

# Thresholds (exponents of n unless said otherwise).
HALF_TOL = 0.15        # O(1/√n): slope ≤ −1/2 + HALF_TOL (the same allowance as FLAT for Ω(1))
REFUTE_HALF = -0.25     # lower-bound slope above this: decays slower than O(1/√n) allows
FLAT = 0.15             # Ω(1): slope of the lower bound inside [−FLAT, +FLAT]
CONTRAST_RF = 0.25      # slope of log(S_raf/S_rf) above this (≈ +1/2 predicted)
RELU_DECAY = -0.1       # raf_relu decays: slope below this
RELU_FLAT = -0.05       # raf_relu's lower bound above this: it does not decay
E_FAR = 1.0             # E_rf: median above this at the largest n
E_NEAR = 0.25           # E_raf: median below this at the largest n (rf: below → contradicted)
E_GAP_SLOPE = -0.25     # the gap 4 − E still closes: two-point slope of log|4 − E| below this
K_OVER_N = 10           # rf head regime k ≫ N, read as k ≥ 10·N
# Several changed words (docs/METHOD.md §4): rf's S_m ≈ √(m/n)·(1 + √(m/n)) at k = D, so the
# slope of log S_m against log m exceeds 1/2 by ½·√(m/n)/(1 + √(m/n)) ≤ 0.13 where m ≤ n/8.
M_OVER_N = 8            # m ≪ n, read as m ≤ n/8
HALF_M_TOL = 0.2        # slope in m within 1/2 ± this (0.13 of the law's own curvature + search)

# Integrity thresholds.
CERT_TOL = 1e-9         # certificates: relative error of S (or D1) recomputed from scratch
BRACKET_TOL = 1e-9      # S ≤ S_upper·(1 + tol)
T1_TOL = 1e-6           # the trained head fits the new sample: |t1 − y| ≤ tol
COND_MAX = 1e12         # cond(K) beyond this: the head's solve keeps < 4 digits
BUDGET_GAIN_MAX = 0.05  # S with 4× budget and starts at most 5% above S


@dataclass(frozen=True)
class Claim:
    id: str
    theorem: str   # the paper's numbering
    name: str      # what a reader should understand
    model: str
    regime: str    # where the claim speaks; other grid points are listed, never used
    rule: str      # how the verdict is decided


_SLOPE_DEF = ("slopes are least-squares slopes of log S against log n computed per trial (the "
              "texts of a trial are shared by all models and all n), averaged over trials and "
              "over the in-regime (d, L, k) groups of a trial; 95% Student-t intervals over "
              "trials")

CLAIMS = {c.id: c for c in [
    Claim("thm1_rf", "Thm 1", "Random features forget a single word: S_rf = O(1/√n)", "rf",
          "k ≥ d (the theorem needs k ≳ d)",
          f"confirmed by the certified upper bound: the slope of log S_upper against log n is "
          f"at most −1/2 + {HALF_TOL} (S_upper·√n does not grow) with one-sided p ≤ α after "
          f"Holm; 'supported (restricted bound)' when S_upper covers only the examined "
          f"positions; contradicted when the lower bound S decays slower than allowed (slope "
          f"above {REFUTE_HALF}); without S_upper 'supported (lower bound only)' when S's slope "
          f"is below −1/2 + {HALF_TOL} and the fit S·√n = A + B/√n has A > 0 (S does not "
          f"fall faster than 1/√n, as a search that misses the maximum at large n would make "
          f"it), else inconclusive; {_SLOPE_DEF}"),
    Claim("thm2_drf", "Thm 2", "Deep random features forget a single word too: S_drf = O(1/√n) "
          "for each depth L", "drf", "k ≥ d",
          "as Thm 1, with drf's certified upper bound (all positions) where the file has one"),
    Claim("thm3_raf", "Thm 3", "Random attention features keep a single word: S_raf = Ω(1)",
          "raf", "n ≤ d (at fixed d and n ≫ d, S_raf = O(√(d/n)): see docs/VERDICT_RULES.md)",
          f"confirmed when both hold with one-sided p ≤ α after Holm (intersection-union test: "
          f"the row's p is the larger of the two): raf's slope lies inside [−{FLAT}, +{FLAT}] "
          f"(two one-sided tests), and the paired contrast slope of log(S_raf/S_rf) on the same "
          f"texts (rf with k ≥ d) is above {CONTRAST_RF} (≈ +1/2 predicted). S is a lower bound "
          f"found by ascent: it can confirm Ω(1) but never refute it, so a decaying S_raf gives "
          f"inconclusive with the reason, not contradicted"),
    Claim("softmax_raf_relu", "Thm 3 (contrast)", "The softmax matters: with row-normalised "
          "ReLU attention the word is lost (S_relu decays while S_raf does not)", "raf_relu",
          "n ≤ d (as Thm 3)",
          f"'supported (lower bound only)' when raf_relu's slope is below {RELU_DECAY} and the "
          f"paired slope difference slope(raf) − slope(raf_relu) is above 0, both with p ≤ α "
          f"after Holm: no upper bound exists for raf_relu, so its decay cannot be confirmed; "
          f"contradicted when raf_relu's lower bound does not decay (slope above {RELU_FLAT})"),
    Claim("thm45_rf", "Thms 4–5", "A random-features head cannot tell the two texts apart "
          "after a one-word change: E_rf stays far from 0 and tends to 4", "rf",
          f"k ≥ {K_OVER_N}·N (k ≫ N) and N + 1 < k",
          f"per training mode, with Δ the best the search found (objective 'best': the smaller "
          f"E of the objectives run): confirmed when the median E at the largest n is above "
          f"{E_FAR} (exact sign test) and the gap to 4 still closes at the end of the grid (the "
          f"two-point slope of log|4 − E| between the two largest n, per trial, is below "
          f"{E_GAP_SLOPE}), both with p ≤ α after Holm; contradicted when the median E is below "
          f"{E_NEAR} (the search found a Δ that the head gets right)"),
    Claim("raf_gen", "Thms 4–5 (contrast)", "A random-attention head can tell the two texts "
          "apart: E_raf near 0 for the best Δ", "raf", "N + 1 < D = n·d and n ≤ d",
          f"per training mode: confirmed when the median E at the largest n is below {E_NEAR} "
          f"(exact sign test, p ≤ α after Holm); E is attained by a stored Δ, so a small E is "
          f"certified, while a large E (no Δ found) cannot refute the claim: inconclusive"),
]}

_M_SLOPE_DEF = (f"slopes of log S_m against log m are computed per trial at each (n, d, k) from "
                f"the m ≤ n/{M_OVER_N} of the file (m = 1 is the task with one changed word), "
                "averaged over the groups of a trial; 95% Student-t intervals over trials")

MULTI_WORD_CLAIMS = {c.id: c for c in [
    Claim("mw_rf_sqrt_m", "Thm 1 (several words)", "Random features notice m changed words only "
          "in proportion: S_m grows like √(m/n), slope +1/2 in m", "rf",
          f"k ≥ d and m ≤ n/{M_OVER_N} (m ≪ n)",
          f"'supported (restricted bound)' when the slope of log S_m (a lower bound) against "
          f"log m is above 1/2 − {HALF_M_TOL} and the slope of log S_upper (certified over the "
          f"examined word sets only) is below 1/2 + {HALF_M_TOL}, both with p ≤ α after Holm; "
          f"'supported (lower bound only)' without S_upper when the lower bound's slope lies "
          f"inside 1/2 ± {HALF_M_TOL}; contradicted when the lower bound grows faster (slope "
          f"above 1/2 + {HALF_M_TOL}) or the upper bound slower (slope below "
          f"1/2 − {HALF_M_TOL}); {_M_SLOPE_DEF}"),
    Claim("mw_rf_fraction", "Thm 1 (several words)", "A fixed fraction of changed words moves "
          "random features by a constant: at m = ⌈f·n⌉, S_m is flat in n", "rf",
          "k ≥ d, each words-fraction f of the study",
          f"per fraction f, the slope of log S_m against log n: 'supported (restricted bound)' "
          f"when the lower bound's slope is above −{FLAT} (S_m does not decay) and S_upper's "
          f"(examined sets) is below +{FLAT}, with p ≤ α after Holm; 'supported (lower bound "
          f"only)' without S_upper when the lower bound's slope lies inside ±{FLAT}; "
          f"contradicted when the lower bound grows (slope above +{FLAT}) or the upper bound "
          f"decays (below −{FLAT}); slopes per trial over the n of the study, pooled over "
          f"fractions and groups"),
    Claim("mw_raf_one_word", "Thm 3 (several words)", "One changed word already moves "
          "attention: S_1 = Ω(1), and more words only add to it (S_m ≥ S_1)", "raf", "n ≤ d",
          f"'supported (lower bound only)' when both hold with p ≤ α after Holm: raf's S_1 "
          f"(a lower bound) has a slope in n inside [−{FLAT}, +{FLAT}], and the per-trial mean "
          f"of log(S_m/S_1) over the m ≥ 2 of the file is above 0 (the searches for several "
          f"words find at least what one word gives); a decaying S_1 or S_m below S_1 cannot "
          f"refute the claim (lower bounds found by ascent): inconclusive with the reason"),
]}

SECONDARY_RULES = {
    "slope": f"per (model, d[, L], k), in the claim's regime: slope of log S vs log n (95% "
             f"t-interval over per-trial slopes). rf/drf: below −1/2 + {HALF_TOL} → supported "
             f"(lower bound only), above {REFUTE_HALF} → contradicted; raf: inside "
             f"[−{FLAT}, +{FLAT}] → supported (lower bound only); raf_relu: below {RELU_DECAY} "
             f"→ supported (lower bound only), above {RELU_FLAT} → contradicted",
    "upper_slope": f"per (model, d[, L], k): slope of log S_upper vs log n at most "
                   f"−1/2 + {HALF_TOL} → confirmed ('supported (restricted bound)' for a bound "
                   f"over the examined positions only); otherwise inconclusive (an upper bound "
                   f"cannot refute)",
    "rate_fit": "rf/drf per (d[, L], k): S·√n = A + B/√n fitted per trial; A > 0 → supported "
                "(lower bound only): S does not fall faster than 1/√n",
    "local_slope": "every model, the slope between successive n (per trial, two points), "
                   "judged by the model's slope rule; pairs outside the claim's regime are "
                   "shown, not judged",
    "contrast": f"per d, paired on the same texts: slope of log(S_raf/S_rf) above {CONTRAST_RF}; "
                f"slope(raf) − slope(raf_relu) above 0 → supported (lower bound only)",
    "m_slope": f"rf per (n, d, k): slope of log S_m vs log m for m ≤ n/{M_OVER_N}, lower bound "
               f"inside 1/2 ± {HALF_M_TOL} → supported (lower bound only), above "
               f"1/2 + {HALF_M_TOL} → contradicted",
    "gen": f"per (model, training, objective, N, k): median E at the largest n (rf above "
           f"{E_FAR}, raf below {E_NEAR}); rf: two-point slope of log|4 − E| between the two "
           f"largest n below {E_GAP_SLOPE}",
}

INTEGRITY_RULES = {
    "bracket": f"every record with an upper bound has S ≤ S_upper·(1 + {BRACKET_TOL:g})",
    "cert_rel_err": f"every certificate's relative error (S, or D1, recomputed from scratch) "
                    f"is ≤ {CERT_TOL:g}",
    "witness_recompute": f"S (S_m for several words, from M* and its moves) recomputed in numpy "
                         f"from the stored X, weights and Δ* agrees to {CERT_TOL:g} relative",
    "head_t1": f"the trained head fits the new sample: |t1 − y| ≤ {T1_TOL:g} (y = sign t1)",
    "head_cond_K": f"the kernel of the head is solvable in double precision: cond(K) ≤ "
                   f"{COND_MAX:g}",
    "budget_gain": f"S rerun with the config's budget-check factor times the evaluation "
                   f"budget and the starts (trial 0 of each point) exceeds S by at most "
                   f"{BUDGET_GAIN_MAX:.0%} and never falls below it: the search has converged, "
                   f"so slopes of S are not artefacts of the budget",
}


def _texts() -> list:
    out = [f"version {RULES_VERSION}", f"alpha {ALPHA}", f"level {LEVEL}",
           f"min_trials {MIN_TRIALS}", f"min_points {MIN_POINTS}", "holm over primary rows"]
    for c in [*CLAIMS.values(), *MULTI_WORD_CLAIMS.values()]:
        out += [c.id, c.theorem, c.name, c.model, c.regime, c.rule]
    for table in (SECONDARY_RULES, INTEGRITY_RULES):
        out += [f"{k}: {v}" for k, v in table.items()]
    return out


RULES_HASH = hashlib.sha256("\n".join(_texts()).encode("utf-8")).hexdigest()[:12]
