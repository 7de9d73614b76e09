"""Statistics: summaries, bootstrap CIs of means and of log–log slopes."""
import numpy as np
import pandas as pd
import pytest

from wordsens_analysis import stats


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


def test_slope_bootstrap_resamples_trials_jointly_across_n():
    # Only a per-trial effect shared by every n: any joint resample keeps the exact slope, so the
    # CI collapses; an independent resample per n would spread it.
    df = power_law(-0.5, noise=0.0, shared=0.5)
    fit = stats.loglog_slope(df, "n", "S")
    assert fit["ci_high"] - fit["ci_low"] < 1e-9
    assert fit["estimate"] == pytest.approx(-0.5, abs=1e-12)


def test_slope_is_deterministic():
    df = power_law(-0.5)
    assert stats.loglog_slope(df, "n", "S") == stats.loglog_slope(df, "n", "S")


def test_slope_needs_enough_points_and_trials():
    fit = stats.loglog_slope(power_law(-0.5, ns=(10, 20)), "n", "S")
    assert np.isnan(fit["estimate"]) and "only 2 value(s) of n" in fit["reason"]
    fit = stats.loglog_slope(power_law(-0.5, trials=2), "n", "S")
    assert np.isnan(fit["estimate"]) and "≥ 3 trials" in fit["reason"]


def test_slope_with_missing_trials_at_some_n():
    df = power_law(-0.5, ns=(10, 20, 40, 80, 160))
    df = df[~((df.n == 160) & (df.trial >= 2))]  # a partial file: n = 160 has 2 trials only
    fit = stats.loglog_slope(df, "n", "S")
    assert fit["points"] == 4 and fit["ci_low"] <= -0.5 <= fit["ci_high"]


def test_bootstrap_mean_ci_covers_and_shrinks():
    rng = np.random.default_rng(3)
    x = rng.normal(5.0, 1.0, size=400)
    est, lo, hi = stats.bootstrap_ci(x)
    assert lo < 5.0 < hi and hi - lo < 0.3 and est == pytest.approx(x.mean())
    assert np.isnan(stats.bootstrap_ci([1.0])[1])


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
