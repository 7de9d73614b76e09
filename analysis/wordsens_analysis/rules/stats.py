"""Spread over independent trials: per grid point summaries, and the intervals and p-values the
verdict rules use.

Why per-trial statistics. A trial index t names one draw of the texts: every model sees the same
texts at the same (n, d, trial) (common random numbers), and different trials are independent
draws. So each trial gives a whole curve S_t(n), and any statistic computed from one trial's
curve (its least-squares slope of log S against log n, the slope of a paired ratio, a two-point
slope, a fitted limit) is one independent, identically distributed number per trial, whatever
the correlations between the points of one curve.

Why medians and sign tests. The verdict rules judge the median of those numbers with the
distribution-free interval between order statistics and the exact sign-test p-value: no
assumption on their law, which can be skewed (a search that sometimes falls short at the largest
n). The Student-t interval of the mean (t_interval, kept for the figures' error bars and for the
comparison in tests/python/test_coverage.py) errs far beyond its level in one tail on such laws.
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd
from scipy import stats as sps

LEVEL = 0.95


def summarize(df: pd.DataFrame, keys: list, value: str) -> pd.DataFrame:
    """count, mean, std, sem, median, q05, q95 of `value` per combination of `keys`."""
    cols = ["count", "mean", "std", "sem", "median", "q05", "q95"]
    if df.empty or value not in df:
        return pd.DataFrame(columns=[*keys, *cols])
    g = df.groupby(keys, sort=True)[value]
    out = pd.DataFrame(
        {
            "count": g.count(),
            "mean": g.mean(),
            "std": g.std(ddof=1),
            "median": g.median(),
            "q05": g.quantile(0.05),
            "q95": g.quantile(0.95),
        }
    )
    out["sem"] = out["std"] / np.sqrt(out["count"])
    return out[cols].reset_index()


# --- Student t on independent per-trial statistics --------------------------------------------

def t_interval(values, level: float = LEVEL):
    """(mean, low, high, standard error, count) of iid values, Student-t interval."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    m = x.size
    if m == 0:
        return np.nan, np.nan, np.nan, np.nan, 0
    est = float(x.mean())
    if m < 2:
        return est, np.nan, np.nan, np.nan, m
    se = float(x.std(ddof=1) / math.sqrt(m))
    q = float(sps.t.ppf(0.5 + level / 2, m - 1))
    return est, est - q * se, est + q * se, se, m


def p_below(est: float, se: float, m: int, bound: float) -> float:
    """One-sided t-test p-value of 'the mean is below `bound`' (H0: mean ≥ bound)."""
    if not (np.isfinite(est) and np.isfinite(se) and m >= 2):
        return np.nan
    if se == 0:
        return 0.0 if est < bound else 1.0
    return float(sps.t.cdf((est - bound) / se, m - 1))


def p_above(est: float, se: float, m: int, bound: float) -> float:
    """One-sided t-test p-value of 'the mean is above `bound`' (H0: mean ≤ bound)."""
    if not (np.isfinite(est) and np.isfinite(se) and m >= 2):
        return np.nan
    if se == 0:
        return 0.0 if est > bound else 1.0
    return float(sps.t.sf((est - bound) / se, m - 1))


def p_inside(est: float, se: float, m: int, low: float, high: float) -> float:
    """Two one-sided tests (TOST) p-value of 'the mean lies inside [low, high]'.

    At level α this rejects exactly when the two-sided (1 − 2α) t-interval lies inside the
    window; with α = 0.025, when the 95% interval does.
    """
    a, b = p_above(est, se, m, low), p_below(est, se, m, high)
    return max(a, b) if np.isfinite(a) and np.isfinite(b) else np.nan


# --- Medians: order statistics and the sign test ----------------------------------------------

def sign_test_p(values, bound: float, above: bool) -> float:
    """Exact sign-test p-value of 'the median is above (or below) `bound`'.

    Counts the values strictly on the claimed side; under H0 (median on the other side or at
    the bound) that count is at most Binomial(m, 1/2).
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return np.nan
    k = int((x > bound).sum() if above else (x < bound).sum())
    return float(sps.binom.sf(k - 1, x.size, 0.5))


@functools.lru_cache(maxsize=None)
def median_order(m: int, level: float = LEVEL) -> tuple:
    """(j, coverage): the largest order j whose interval [x_(j), x_(m+1-j)] covers the median
    with exact probability 1 − 2·P(Bin(m, ½) < j) ≥ `level`; j = 1 when none does (m ≤ 5 at
    95%: 5 values cover 93.75%)."""
    j = 1
    while j + 1 <= m // 2 and 1 - 2 * sps.binom.cdf(j, m, 0.5) >= level:
        j += 1
    return j, float(1 - 2 * sps.binom.cdf(j - 1, m, 0.5))


def median_interval(values, level: float = LEVEL):
    """(median, low, high, coverage, count): the distribution-free interval of median_order."""
    x = np.asarray(values, dtype=float)
    x = np.sort(x[np.isfinite(x)])
    m = x.size
    if m == 0:
        return np.nan, np.nan, np.nan, np.nan, 0
    med = float(np.median(x))
    if m < 2:
        return med, np.nan, np.nan, np.nan, m
    j, coverage = median_order(m, level)
    return med, float(x[j - 1]), float(x[m - j]), coverage, m


# --- Multiplicity -----------------------------------------------------------------------------

def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN stays NaN and does not count in the family).

    Reject H_i at family-wise level α iff adjusted p_i ≤ α.
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if ok.size == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    m = order.size
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


# --- Per-trial curves -------------------------------------------------------------------------

def trial_matrix(df: pd.DataFrame, x: str, y: str, trial: str = "trial") -> pd.DataFrame:
    """Trials × x-values table of y (NaN where a trial has no record at that x; the mean where
    it has several)."""
    if df.empty:
        return pd.DataFrame()
    values = df[y].astype(float)
    m = values.groupby([df[trial], df[x]]).mean().unstack(x)
    return m.dropna(axis=0, how="all").dropna(axis=1, how="all").sort_index(axis=1)


def ols_slopes(logx: np.ndarray, logy: np.ndarray) -> np.ndarray:
    """Least-squares slope of each row of logy (… × m) against logx (m); NaN rows → NaN."""
    logx = np.asarray(logx, dtype=float)
    dx = logx - logx.mean()
    with np.errstate(invalid="ignore"):
        return (logy - logy.mean(axis=-1, keepdims=True)) @ dx / (dx @ dx)


def ols_intercepts(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares intercept of each row of y (… × m) against x (m)."""
    x = np.asarray(x, dtype=float)
    dx = x - x.mean()
    with np.errstate(invalid="ignore"):
        b = (y - y.mean(axis=-1, keepdims=True)) @ dx / (dx @ dx)
        return y.mean(axis=-1) - b * x.mean()


def complete_curves(df: pd.DataFrame, x: str, y: str, trial: str = "trial",
                    min_trials: int = 5, min_points: int = 3, positive: bool = True) -> dict:
    """The trials × x matrix a per-trial statistic is computed from.

    Keeps the x values with at least `min_trials` finite values, then the trials that have a
    value at every kept x (complete curves: each trial's statistic is then the same function of
    the same design). Returns dict(matrix, x, reason) with reason None when usable.
    """
    out = {"matrix": None, "x": None, "reason": None, "points": 0, "trials": 0}
    if df.empty or y not in df:
        out["reason"] = "no records"
        return out
    vals = df[[trial, x, y]].copy()
    vals[y] = vals[y].astype(float)
    unusable = ~np.isfinite(vals[y])  # a NaN or infinite value (a bound that failed) …
    if positive:
        unusable |= ~(vals[y] > 0)  # … or the log of a non-positive value: not a usable point
    vals.loc[unusable, y] = np.nan
    m = trial_matrix(vals, x, y, trial)
    counts = m.notna().sum(axis=0)
    m = m.loc[:, counts >= min_trials]
    out["points"] = m.shape[1]
    if m.shape[1] < min_points:
        out["reason"] = (f"only {m.shape[1]} value(s) of {x} with ≥ {min_trials} trials (need "
                         f"{min_points}); trials per {x}: "
                         + ", ".join(f"{k}:{v}" for k, v in counts.items()))
        return out
    m = m.dropna(axis=0, how="any")
    out["trials"] = m.shape[0]
    if m.shape[0] < min_trials:
        out["reason"] = (f"only {m.shape[0]} trial(s) have a value at every {x} used "
                         f"(need {min_trials})")
        return out
    out["matrix"] = m.to_numpy(dtype=float)
    out["x"] = m.columns.to_numpy(dtype=float)
    out["index"] = m.index.to_numpy()
    return out


def slope_interval(vals: np.ndarray, xs: np.ndarray, level: float = LEVEL) -> dict:
    """Per-trial least-squares slopes of log(vals) against log(xs), their median and its
    order-statistic interval (what the slope rules judge, so figures and verdicts agree).

    `vals` is trials × points (complete, positive).
    """
    per_trial = ols_slopes(np.log(xs), np.log(vals))
    est, lo, hi, _, m = median_interval(per_trial, level)
    return {"estimate": est, "ci_low": lo, "ci_high": hi, "trials": m, "per_trial": per_trial}


def loglog_slope(df: pd.DataFrame, x: str, y: str, trial: str = "trial", level: float = LEVEL,
                 min_trials: int = 5, min_points: int = 3) -> dict:
    """Slope of log y against log x: the median of the per-trial least-squares slopes, with its
    order-statistic interval over trials.

    Uses the x values with at least `min_trials` trials and the trials complete at all of them.
    Returns estimate, ci_low, ci_high, trials, points (x values used), xs, per_trial (a Series
    indexed by trial) and reason (why there is no estimate, or None).
    """
    res = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "points": 0,
           "trials": 0, "xs": np.array([]), "per_trial": pd.Series(dtype=float), "reason": None}
    cur = complete_curves(df, x, y, trial, min_trials, min_points)
    res["points"], res["trials"] = cur["points"], cur["trials"]
    if cur["reason"]:
        res["reason"] = cur["reason"]
        return res
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fit = slope_interval(cur["matrix"], cur["x"], level)
    res.update({k: fit[k] for k in ("estimate", "ci_low", "ci_high", "trials")})
    res["xs"] = cur["x"]
    res["per_trial"] = pd.Series(fit["per_trial"], index=cur["index"])
    return res
