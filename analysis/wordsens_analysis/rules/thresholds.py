"""The verdict rules: thresholds, verdict words and the texts of the secondary and integrity rules,
versioned.

Every number a verdict depends on is a constant here (or derived from the grid by
tolerances.py), fixed before looking at data, and every rule's text is built from those
constants; the claims' own texts are in claims/claim_list.py. The report prints the texts
verbatim, and claims.RULES_HASH (a hash of all of them) goes into verdicts.csv and the report, so
two reports can be compared by their rules at a glance. Changing a threshold or a text changes
the hash; the changelog is in docs/VERDICT_RULES.md, with the reasons for every rule.
"""
from __future__ import annotations

RULES_VERSION = "4.1"

# Verdicts of claims (primary and secondary rows), positive ones strongest first.
CONFIRMED = "confirmed"  # evidence of the kind that can decide the claim, every group agreeing
SUPPORTED_RESTRICTED = "supported (restricted bound)"  # a bound over the examined positions only
SUPPORTED_SEARCH = "supported (search only)"  # a search that minimises E found no better Δ
NOT_REFUTED_LB = "not refuted (lower bound only)"  # a lower bound agrees; it cannot confirm
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
OUTSIDE = "outside the claim's regime"  # shown for information, never judged
SHOWN = "shown (not judged)"  # a diagnostic row: where along the grid a trend lives
# Verdicts of integrity rows.
PASS, FAIL, NOT_IN_FILE = "pass", "FAIL", "n/a"
POSITIVE = (CONFIRMED, SUPPORTED_RESTRICTED, SUPPORTED_SEARCH, NOT_REFUTED_LB)

PRIMARY, SECONDARY, INTEGRITY = "primary", "secondary", "integrity"
# Claims beyond the paper (the transformer family, the causal mask): judged like primary rows but
# in a Holm family of their own, never counted in the report's first line nor extended by trials.
EXTENSION = "extension"
EXTENSION_RULE = ("rows of the claims beyond the paper (kind 'extension': the transformer family, "
                  "the causal mask, several changed words, the trained layers): each group's tests as for a primary "
                  "claim, Holm's correction over the extension rows of the report only (the "
                  "paper's primary rows are another family); not counted in the first line, not "
                  "extended by more trials; a study with mask = causal names its attention "
                  "models '<model>/causal', which only the causal claims read")

ALPHA = 0.025  # one-sided level of every test: at 0.025 a one-sided test agrees with the 95% CI
LEVEL = 0.95
MIN_TRIALS = 5  # per grid point; see docs/VERDICT_RULES.md ("Statistics")
MIN_POINTS = 3  # distinct n for a slope fitted over the grid, or for a fitted limit

# The quantifier "with probability at least 1 − η over the weights". The theorems hold with high
# probability over the random weights, for every text: a claim is confirmed only when at most a
# fraction TOLERATED of the trials (each an independent draw of weights and texts) fails its
# per-trial condition, besides the median's sign test; it is contradicted when the trials that
# meet its refuting condition are significantly more than that fraction (an exact binomial test).
TOLERATED = 0.1
# A trial fails a slope claim when its slope misses the claim's window by more than this (about
# twice the spread of one trial's slope of S at the default study's sizes, and far beyond that
# of a certified bound's): a trial's curve mixes independent weights at each n and the texts'
# own noise, so a trial just outside the window is noise, one this far outside is a failure.
# Levels, orders and the heads' E fail whenever they are not on the confirming side (a trial
# without the evidence: for a head, no Δ found that decides it).
SLOPE_MARGIN = 0.1
# The end of the design, where an asymptotic claim (for every n ≥ n0, n0 unknown) is judged: the
# smallest final stretch of the design's n spanning END_DOUBLINGS doublings (n_max/4 … n_max)
# with at least MIN_POINTS values; the whole design when it spans less (shape.py).
END_DOUBLINGS = 2

# Thresholds (exponents of n unless said otherwise). The tolerance of an O(1/√n) claim is not a
# constant: tolerances.bound_drift derives it per group from the bound's own finite-n drift.
FLAT = 0.08             # Ω(1): the lower bound's slope at the end of the design above −FLAT
RELU_BEYOND = 2         # raf_relu's decay is shown where n ≥ RELU_BEYOND·d only
E_FAR = 1.0             # E_rf: above this at every n of the end of the design
E_NEAR = 0.25           # E_raf: below this at every n of the regime (rf: below → contradicted)
E_LIMIT = 4.0           # "E tends to 4": the fitted limit's interval contains this
K_OVER_N = 10           # rf head regime k ≫ N, read as k ≥ 10·N
# Several changed words (docs/METHOD.md §4): rf's S_m ≈ √(m/n)·(1 + √(m·d/k)), so the slope of
# log S_m against log m exceeds 1/2 by ½·√(m/n)/(1 + √(m/n)) ≤ 0.13 where m ≤ n/8 at k = D.
M_OVER_N = 8            # m ≪ n, read as m ≤ n/8
HALF_M_TOL = 0.2        # slope in m within 1/2 ± this (0.13 of the law's own curvature + search)
# A lower bound refutes an O(·) claim only by a level: S·n^(1/2) at the largest n above the
# largest constant C a certified bound obeying the theorem can have (tolerances.level_ceiling),
# which allows CEILING_MARGIN for ‖φ(X)‖'s fluctuation and the activation (tanh keeps less of
# ‖φ‖ than ReLU).
CEILING_MARGIN = 1.5

# Integrity thresholds.
CERT_TOL = 1e-9         # certificates: relative error of S (or D1) recomputed from scratch
BRACKET_TOL = 1e-9      # S ≤ S_upper·(1 + tol)
T1_TOL = 1e-6           # the trained head fits the new sample: |t1 − y| ≤ tol
LABEL_TOL = 1e-9        # E = (D1 + y)² with y = sign(t1), relative to max(1, E)
COND_MAX = 1e12         # cond(K) beyond this: the head's solve keeps < 4 digits
BUDGET_GAIN_MAX = 0.05  # S with 4× budget and starts at most 5% above S


# Trials until decided (sequential.py): a study planned with max-trials M and a first batch of T
# trials may be looked at after T, 2T, 4T, … (capped at M) trials, K looks, of which J can decide
# (t trials with 2^−t ≤ ALPHA: the smallest p-value of an exact sign test); a test read at the
# first of those has its p-value divided by FIRST_LOOK_SHARE, one read at a later one by
# (1 − FIRST_LOOK_SHARE)/(J − 1), one read at a look that cannot decide stays at 1 (weighted
# Bonferroni over the looks). The paper's claims are expected to be decided at the first look
# that can, so it gets nearly all of α.
FIRST_LOOK_SHARE = 0.9
SEQUENTIAL_RULE = (f"the plan of looks (first batch T, max-trials M) comes from the study's "
                   f"configuration and must be the same in every file of the study (files that "
                   f"plan different looks leave the study's claims inconclusive, named); looks at "
                   f"T, 2T, 4T, … ≤ M trials per point; α split over the planned looks that can "
                   f"decide (t trials with 2^−t ≤ α), {FIRST_LOOK_SHARE:g} of it at the first and "
                   f"the rest equally at the others, none at a look that cannot (every p-value "
                   f"divided by its look's share: weighted Bonferroni over looks); a trial count "
                   f"that is none of the schedule's (replicates pooled off the schedule, a study "
                   f"extended by hand) gets no share of α, so no pooling of files can spend α "
                   f"twice; trials added only at the points of groups of claims no primary row "
                   f"decides, from one look to the next")

SECONDARY_RULES = {
    "<claim>/<group>": "one row per group of every primary claim (every d, depth L, width k, "
                       "training set size N, fraction f … in its regime), decided by the "
                       "claim's tests on that group alone at level α (no correction): which "
                       "group decided what",
    "local_slope": "every model, the slope between successive n (median of per-trial "
                   "two-point slopes): shown as a diagnostic, not judged",
    "relu_decay": f"raf_relu per d, where n ≥ {RELU_BEYOND}·d (beyond the floor): median "
                  f"per-trial slope of log S, shown, not judged (S is a lower bound: its decay "
                  f"cannot show that the true S_relu decays)",
    "level": f"heads per (model, training, objective, d, N, k): E at every n of the end of the "
             f"design (rf above {E_FAR}) or of the regime (raf below {E_NEAR}), as the claim's "
             f"own test",
    "limit": f"rf head per (training, d, N, k) with at least {MIN_POINTS} values of n: E = L + "
             f"B/√n fitted per trial; 'E tends to {E_LIMIT:g}' is supported (search only) when "
             f"the 95% interval of the median limit L contains {E_LIMIT:g}, not claimed "
             f"otherwise (an interval wholly above or below {E_LIMIT:g} says E does not tend "
             f"to it)",
}

INTEGRITY_RULES = {
    "bracket": f"every record with an upper bound has S ≤ S_upper·(1 + {BRACKET_TOL:g})",
    "cert_rel_err": f"every certificate's relative error (S, or D1, recomputed from scratch) "
                    f"is ≤ {CERT_TOL:g}",
    "witness_recompute": f"S (S_m for several words, from M* and its moves) recomputed in numpy "
                         f"from the stored X, weights and Δ* agrees to {CERT_TOL:g} relative",
    "head_t1": f"the trained head fits the new sample: |t1 − y| ≤ {T1_TOL:g} (y = sign t1)",
    "head_label": f"the head was fitted to the label its test error is measured against: "
                  f"E = (D1 − y_Δ)² with y_Δ = −y = −sign(t1), to {LABEL_TOL:g} relative to "
                  f"max(1, E) (a head fitted to −y fails)",
    "head_cond_K": f"the kernel of the head is solvable in double precision: cond(K) ≤ "
                   f"{COND_MAX:g}",
    "budget_gain": f"S rerun with the config's budget-check factor times the evaluation "
                   f"budget and the starts (trial 0 of each point) exceeds S by at most "
                   f"{BUDGET_GAIN_MAX:.0%} and never falls below it: the search has converged, "
                   f"so slopes of S are not artefacts of the budget",
}
