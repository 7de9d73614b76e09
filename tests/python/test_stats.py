"""Statistics: summaries, per-trial slopes with t-intervals, tests, medians, Holm."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from wordsens_analysis.rules import stats


def power_law(slope, ns=(10, 20, 40, 80), trials=20, noise=0.1, shared=0.0, seed=1):
    rng = np.random.default_rng(seed)
    effect = rng.normal(0, shared, size=trials)
    rows = [(n, t, 2.0 * n ** slope * np.exp(effect[t] + rng.normal(0, noise)))
            for n in ns for t in range(trials)]
    return pd.DataFrame(rows, columns=["n", "trial", "S"])


@pytest.mark.parametrize("slope", [-0.5, 0.0, -0.25])
def test_slope_ci_covers_the_true_slope(slope):
    fit = stats.loglog_slope(power_law(slope), "n", "S")
    assert fit["reason"] is None
    assert fit["ci_low"] <= slope <= fit["ci_high"]
    assert abs(fit["estimate"] - slope) < 0.05
    assert fit["ci_high"] - fit["ci_low"] < 0.2  # informative, not just wide


def test_slope_is_the_median_of_per_trial_least_squares_slopes():
    df = power_law(-0.5, trials=7)
    fit = stats.loglog_slope(df, "n", "S")
    by_hand = [np.polyfit(np.log(g["n"]), np.log(g["S"]), 1)[0] for _, g in df.groupby("trial")]
    assert fit["per_trial"].to_numpy() == pytest.approx(by_hand, rel=1e-12)
    # 7 values: the order statistics x_(1), x_(7) cover the median with 1 − 2/128 ≥ 95%.
    ordered = np.sort(by_hand)
    assert (fit["estimate"], fit["ci_low"], fit["ci_high"]) == pytest.approx(
        (np.median(by_hand), ordered[0], ordered[-1]), rel=1e-12)


def test_slope_is_immune_to_a_per_trial_effect_shared_by_every_n():
    # Common random numbers: a trial's texts raise or lower S at every n alike; a per-trial
    # slope cancels that exactly, so the interval collapses.
    df = power_law(-0.5, noise=0.0, shared=0.5)
    fit = stats.loglog_slope(df, "n", "S")
    assert fit["ci_high"] - fit["ci_low"] < 1e-9
    assert fit["estimate"] == pytest.approx(-0.5, abs=1e-12)


def test_slope_is_deterministic():
    df = power_law(-0.5)
    a, b = stats.loglog_slope(df, "n", "S"), stats.loglog_slope(df, "n", "S")
    assert a["estimate"] == b["estimate"] and a["ci_low"] == b["ci_low"]


def test_slope_needs_enough_points_and_trials():
    fit = stats.loglog_slope(power_law(-0.5, ns=(10, 20)), "n", "S")
    assert np.isnan(fit["estimate"]) and "only 2 value(s) of n" in fit["reason"]
    fit = stats.loglog_slope(power_law(-0.5, trials=4), "n", "S")
    assert np.isnan(fit["estimate"]) and "≥ 5 trials" in fit["reason"]


def test_slope_with_missing_trials_at_some_n():
    df = power_law(-0.5, ns=(10, 20, 40, 80, 160))
    df = df[~((df.n == 160) & (df.trial >= 2))]  # a partial file: n = 160 has 2 trials only
    df = df[~((df.n == 10) & (df.trial == 5))]  # and trial 5 misses n = 10
    fit = stats.loglog_slope(df, "n", "S")
    assert fit["points"] == 4 and fit["trials"] == 19  # complete curves only
    assert fit["ci_low"] <= -0.5 <= fit["ci_high"]


def test_one_sided_and_tost_p_values_match_the_interval():
    rng = np.random.default_rng(4)
    x = rng.normal(0.05, 0.05, size=8)
    est, lo, hi, se, m = stats.t_interval(x)
    # At α = 0.025 a one-sided test rejects exactly when the 95% interval is beyond the bound.
    for bound in (lo - 1e-9, lo + 1e-9, hi - 1e-9, hi + 1e-9):
        assert (stats.p_above(est, se, m, bound) <= 0.025) == (lo > bound)
        assert (stats.p_below(est, se, m, bound) <= 0.025) == (hi < bound)
    assert (stats.p_inside(est, se, m, -0.15, 0.15) <= 0.025) == (-0.15 < lo and hi < 0.15)
    assert stats.p_inside(est, se, m, hi - 0.01, hi + 1) > 0.025


def test_sign_test_and_median_interval():
    x = np.array([2.0, 2.5, 3.0, 3.1, 2.9, 2.8, 3.3, 0.5])
    assert stats.sign_test_p(x, 1.0, above=True) == pytest.approx(sps.binom.sf(6, 8, 0.5))
    assert stats.sign_test_p(x, 1.0, above=False) == pytest.approx(sps.binom.sf(0, 8, 0.5))
    med, lo, hi, cov, m = stats.median_interval(x)
    xs = np.sort(x)
    # 8 values: [x(2), x(7)] covers 1 − 2·P(Bin(8,½) ≤ 1) = 93% < 95%, so [x(1), x(8)].
    assert (lo, hi) == (xs[0], xs[-1]) and cov == pytest.approx(1 - 2 / 256)
    med, lo, hi, cov, m = stats.median_interval(np.arange(20.0))
    assert (lo, hi) == (5.0, 14.0) and cov >= 0.95  # j = 6 for 20 values
    assert stats.median_interval([1.0, 2.0, 3.0, 4.0, 5.0])[3] == pytest.approx(1 - 2 / 32)


def test_holm_matches_its_definition():
    p = np.array([0.01, 0.04, np.nan, 0.03, 0.005])
    adj = stats.holm(p)
    # sorted: 0.005 (×4), 0.01 (×3), 0.03 (×2), 0.04 (×1), running maximum
    assert adj[4] == pytest.approx(0.02) and adj[0] == pytest.approx(0.03)
    assert adj[3] == pytest.approx(0.06) and adj[1] == pytest.approx(0.06)
    assert np.isnan(adj[2])
    assert list(stats.holm([0.9, 0.8])) == [1.0, 1.0]  # capped at 1, never below a smaller p


def test_summarize_matches_numpy():
    df = power_law(-0.5)
    s = stats.summarize(df, ["n"], "S")
    assert list(s.columns) == ["n", "count", "mean", "std", "sem", "median", "q05", "q95"]
    x = df.loc[df.n == 20, "S"].to_numpy()
    row = s[s.n == 20].iloc[0]
    assert row["count"] == 20
    assert row["mean"] == pytest.approx(x.mean())
    assert row["sem"] == pytest.approx(x.std(ddof=1) / np.sqrt(20))
    assert row["q95"] == pytest.approx(np.quantile(x, 0.95))
