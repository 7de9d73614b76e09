"""Where along a design a claim is judged, and the per-trial statistics of a trial's curve there.

An asymptotic statement (S ≤ C·n^−1/2 for every n ≥ n0, n0 unknown) speaks about the end of the
design: a slope fitted over the whole grid can hide a bound that stops falling over its last
doublings. So slopes are judged on the **end of the design**: the smallest final stretch
n_j … n_max of the design's values of n that spans thresholds.END_DOUBLINGS doublings
(n_max/n_j ≥ 4) with at least thresholds.MIN_POINTS values; the whole design when it spans less.
A statement "for every n of the regime" (a level, a contrast between two models) is judged at
every n of the design: per trial its worst point (the smallest margin over n), never a mean over n.
"""
from __future__ import annotations

import numpy as np

from . import thresholds


def end_of_design(ns) -> list:
    """The values of n an asymptotic claim is judged on (see the module's text)."""
    ns = sorted(int(n) for n in ns)
    for j in range(len(ns) - thresholds.MIN_POINTS, -1, -1):
        if ns[-1] >= ns[j] * 2 ** thresholds.END_DOUBLINGS:
            return ns[j:]
    return ns


def end_text(ns) -> str:
    """'n=16..48 (end of the design)' for a reason or a label."""
    end = end_of_design(ns)
    whole = len(end) == len(list(ns))
    span = f"{end[0]}..{end[-1]}" if len(end) > 1 else str(end[0])
    return f"n={span}" + ("" if whole else " (end of the design)")


def columns_of(xs, wanted) -> np.ndarray:
    """Indices of the values `wanted` among the curve's columns `xs`."""
    xs = [int(v) for v in np.asarray(xs)]
    return np.array([xs.index(int(w)) for w in wanted], dtype=int)


def end_slopes(xs, matrix: np.ndarray) -> tuple:
    """(per-trial least-squares slopes of log y against log x over the end of the design, the
    end's values of x) of a trials × points matrix of positive values over the design `xs`."""
    end = end_of_design(xs)
    cols = columns_of(xs, end)
    logx = np.log(np.asarray(end, dtype=float))
    logy = np.log(matrix[:, cols])
    dx = logx - logx.mean()
    with np.errstate(invalid="ignore"):
        slopes = (logy - logy.mean(axis=1, keepdims=True)) @ dx / (dx @ dx)
    return slopes, end
