"""Tolerances from the claims' own finite-n behaviour, and the settings of the sensitivity table.

An O(1/√n) claim is judged on a finite window of n, where even a bound that obeys the theorem
does not fall exactly like n^−1/2. bound_drift(…) is the largest finite-window slope of
log(S_upper·√n) such a bound can have at the group's own sizes (docs/METHOD.md, "The tolerance
of an O(1/√n) claim"), so the rule "slope ≤ −1/2 + δ" allows that drift and nothing more: a bound
decaying like n^−0.40 is not confirmation.

rf's certified bound is S_upper = M_n·√d/(√D·‖φ(X)‖) = M_n/(√n·‖φ(X)‖) with M_n = max_i ‖G_i‖₂,
G_i the standard Gaussian k × d block of word i, and ‖φ(X)‖'s law depends on k only (its
pre-activations are iid N(0, 1) whatever the text). So log(S_upper·√n) = log(M_n/√k) + c(k), and
- one block: E‖G‖ ≈ √k + √d − ½(1/√k + 1/√d)^{1/3}·1.21 (the Tracy–Widom mean of the largest
  singular value; Gordon: at most √k + √d), a function of k and d only;
- the maximum over the n positions lies between one block and, by Gaussian concentration of a
  1-Lipschitz function, E‖G‖ + √(2 ln n): the only part of the bound that can grow with n at a
  fixed width;
- c(k) = −½·log(k/2) − E log(‖φ‖/√(k/2)) ≈ −½·log(k/2) + 1.25/k for ReLU (the relative variance
  of ‖φ‖² is 5/k), the same at every n when k is fixed;
- drf adds, per hidden layer, log of ‖V_l‖₂ for a k × k Gaussian of variance 2/k, about
  log(2√2·(1 − 0.381·k^{−2/3})) (Tracy–Widom), a function of k only.
The largest least-squares slope over the group's n of any curve between the two envelopes
(upper where the slope's weights are positive, lower where they are negative) is δ; where the
drift is downward (k growing with n: the factor 1 + √(d/k) falls) δ is 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import thresholds

TW1_MEAN = 1.2065  # −E[TW1], the mean of the largest eigenvalue's Tracy–Widom law (β = 1)
SQUARE_TW = 0.381  # E‖G_{k×k}‖ ≈ 2√k·(1 − 0.381·k^{−2/3})
RELU_PHI = 1.25    # E log(‖φ‖/√(k/2)) ≈ −1.25/k for ReLU features


def _envelopes(ns: np.ndarray, d: int, ks: np.ndarray, layers: int) -> tuple:
    """(lower, upper) of E log(S_upper·√n) up to a constant, per n: what depends on k alone
    (one block's norm, ‖φ‖, the hidden layers) is the same in both; only the maximum over the n
    positions' blocks is not known, between one block (lower) and its concentration bound."""
    k = ks.astype(float)
    block = 1 + np.sqrt(d / k) - 0.5 * TW1_MEAN * (1 / np.sqrt(k) + 1 / np.sqrt(d)) ** (1 / 3) \
        / np.sqrt(k)
    common = RELU_PHI / k + (layers - 1) * np.log(np.maximum(1 - SQUARE_TW * k ** (-2 / 3),
                                                              1e-12))
    lower = np.log(np.maximum(block, 1e-12)) + common
    upper = np.log(np.maximum(block, 1e-12) + np.sqrt(2 * np.log(ns) / k)) + common
    return lower, upper


def bound_drift(ns, d: int, ks, layers: int = 1) -> float:
    """δ of a group: the largest upward finite-window slope of log(S_upper·√n) a bound obeying
    Thms 1–2 can show at these n (with widths ks, one per n), 0 when it can only fall."""
    ns = np.asarray(ns, dtype=float)
    ks = np.asarray(ks, dtype=float)
    if ns.size < 2:
        return 0.0
    x = np.log(ns)
    w = (x - x.mean()) / ((x - x.mean()) ** 2).sum()  # least-squares slope = Σ w_j·y_j
    lower, upper = _envelopes(ns, int(d), ks, int(layers))
    steepest = float(np.where(w > 0, w * upper, w * lower).sum())
    return max(0.0, steepest)


def level_ceiling(n, d, k, layers: int = 1, words: int = 1) -> np.ndarray:
    """C_max: the largest S·√(n/m) (m = words changed, 1 for one word) a certified bound obeying
    Thms 1–2 can have at these sizes, with thresholds.CEILING_MARGIN. rf's bound (module text) is
    S_upper·√(n/m) = max_M ‖G_M‖₂/‖φ(X)‖ with G_M the k × m·d Gaussian block of the changed words
    and ‖φ(X)‖ ≈ √(k/2) for ReLU: at most √2·(1 + √(m·d/k) + √(2·m·ln n / k)) (Gordon's bound
    and the concentration of the maximum over at most n^m blocks); drf multiplies it by each
    hidden layer's norm, at most 2√2·(1 + 1/√k) for a k × k Gaussian of variance 2/k, and keeps
    ‖φ‖ ≈ √k with its first layer of variance 2/D, so the √2 stays. A lower bound S above this
    level belongs to no S = O(n^−1/2) with the theorem's constant: that is the only way a lower
    bound may refute an upper-bound claim (evidence.py)."""
    n, d, k = (np.asarray(v, dtype=float) for v in (n, d, k))
    m = float(words)
    block = 1 + np.sqrt(m * d / k) + np.sqrt(2 * m * np.log(np.maximum(n, 2)) / k)
    hidden = (2 * np.sqrt(2) * (1 + 1 / np.sqrt(k))) ** (int(layers) - 1)
    return thresholds.CEILING_MARGIN * np.sqrt(2) * block * hidden


@dataclass(frozen=True)
class Settings:
    """How the rules run: `tolerance` scales every tolerance (δ of the O(1/√n) claims, the flat
    window, the multi-word window); `cut` is the regime of the claims that speak where n ≤ d:
    'n <= d' (the rules), 'n <= d/2' or 'all n'. The sensitivity table reruns the rules under
    the others to show whether a verdict hinges on a constant."""

    tolerance: float = 1.0
    cut: str = "n <= d"

    def flat(self) -> float:
        return thresholds.FLAT * self.tolerance

    def half_m(self) -> float:
        return thresholds.HALF_M_TOL * self.tolerance

    def attention_mask(self, df):
        """Rows inside the n-versus-d regime of the attention claims under this cut."""
        if self.cut == "all n":
            return df["n"] > 0
        if self.cut == "n <= d/2":
            return 2 * df["n"] <= df["d"]
        return df["n"] <= df["d"]

    def attention_text(self) -> str:
        return {"all n": "all n", "n <= d/2": "n ≤ d/2"}.get(self.cut, "n ≤ d")

    def outside_text(self) -> str:
        """Why a point lies outside the attention claims' regime under this cut."""
        return {"all n": "", "n <= d/2": "n > d/2"}.get(self.cut, "n > d")


RULES = Settings()
SENSITIVITY = {
    "as judged": RULES,
    "δ halved": Settings(tolerance=0.5),
    "δ doubled": Settings(tolerance=2.0),
    "n ≤ d/2": Settings(cut="n <= d/2"),
    "n ≤ d": Settings(cut="n <= d"),
    "all n": Settings(cut="all n"),
}
