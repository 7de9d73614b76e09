"""Spread over independent trials: per grid point summaries, bootstrap CIs of means and of
log–log slopes.

Bootstrap resamples *trials*. A trial's sample X depends only on (n, d, trial) (SPEC §6), so the
measurements of one trial at different n are not independent of each other's noise in general;
a slope's bootstrap therefore draws trial indices once and uses the same draw at every n.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

N_BOOT = 2000
SEED = 20240214  # fixed: the report is a function of the results file
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


def _rng(seed: int | None):
    return np.random.default_rng(SEED if seed is None else seed)


def bootstrap_ci(values, statistic=np.mean, n_boot: int = N_BOOT, seed: int | None = None,
                 level: float = LEVEL):
    """Percentile bootstrap CI of statistic(values); returns (estimate, low, high)."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return np.nan, np.nan, np.nan
    est = float(statistic(x))
    if x.size < 2:
        return est, np.nan, np.nan
    idx = _rng(seed).integers(0, x.size, size=(n_boot, x.size))
    boots = statistic(x[idx], axis=1)
    a = (1 - level) / 2
    lo, hi = np.quantile(boots, [a, 1 - a])
    return est, float(lo), float(hi)


def trial_matrix(df: pd.DataFrame, x: str, y: str, trial: str = "trial") -> pd.DataFrame:
    """Trials × x-values table of y (NaN where a trial has no record at that x)."""
    return df.pivot_table(index=trial, columns=x, values=y, aggfunc="mean").sort_index(axis=1)


def _ols_slopes(logx: np.ndarray, logy: np.ndarray):
    """Least-squares slopes of each row of logy (… × m) against logx (m), ignoring NaNs."""
    ok = np.isfinite(logy)
    cnt = ok.sum(axis=-1)
    xs = np.where(ok, logx, 0.0)
    ys = np.where(ok, logy, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = xs.sum(-1) / cnt
        my = ys.sum(-1) / cnt
        dx = np.where(ok, logx - mx[..., None], 0.0)
        dy = np.where(ok, logy - my[..., None], 0.0)
        slope = (dx * dy).sum(-1) / (dx * dx).sum(-1)
    return np.where(cnt >= 2, slope, np.nan)


def loglog_slope(df: pd.DataFrame, x: str, y: str, trial: str = "trial",
                 n_boot: int = N_BOOT, seed: int | None = None, level: float = LEVEL,
                 min_trials: int = 3, min_points: int = 3) -> dict:
    """Slope of log(mean y) against log x, with a bootstrap CI over trials.

    Only x values with at least `min_trials` trials are used. Returns a dict with estimate,
    ci_low, ci_high, points (x values used), trials (smallest count over the points used) and
    reason (why there is no estimate, or None).
    """
    res = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "points": 0, "trials": 0,
           "reason": None}
    if df.empty:
        res["reason"] = "no records"
        return res
    m = trial_matrix(df, x, y, trial)
    counts = m.notna().sum(axis=0)
    m = m.loc[:, counts >= min_trials]
    res["points"] = m.shape[1]
    res["trials"] = int(m.notna().sum(axis=0).min()) if m.shape[1] else int(counts.max())
    if m.shape[1] < min_points:
        res["reason"] = (f"only {m.shape[1]} value(s) of {x} with ≥ {min_trials} trials "
                         f"(need {min_points}); trials per {x}: "
                         + ", ".join(f"{k}:{v}" for k, v in counts.items()))
        return res
    vals = m.to_numpy(dtype=float)
    logx = np.log(m.columns.to_numpy(dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample may miss a point entirely
        mean = np.nanmean(vals, axis=0)
        res["estimate"] = float(_ols_slopes(logx, np.log(np.where(mean > 0, mean, np.nan))))
        idx = _rng(seed).integers(0, vals.shape[0], size=(n_boot, vals.shape[0]))
        boot_mean = np.nanmean(vals[idx], axis=1)  # n_boot × points: same trials at every x
        boots = _ols_slopes(logx, np.log(np.where(boot_mean > 0, boot_mean, np.nan)))
    boots = boots[np.isfinite(boots)]
    if boots.size:
        a = (1 - level) / 2
        res["ci_low"], res["ci_high"] = (float(v) for v in np.quantile(boots, [a, 1 - a]))
    return res
