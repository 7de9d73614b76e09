"""The verdict rules: thresholds, verdict words and the texts of the secondary and integrity rules,
versioned.

Every number a verdict depends on is a constant here, fixed before looking at data, and every
rule's text is built from those constants; the claims' own texts are in claims.py. The report
prints the texts verbatim, and claims.RULES_HASH (a hash of all of them) goes into verdicts.csv
and the report, so two reports can be compared by their rules at a glance. Changing a threshold
or a text changes the hash; the changelog is in docs/VERDICT_RULES.md, with the reasons for every
rule.
"""
from __future__ import annotations

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

