"""One verdict from a few statistical tests: the building blocks of every rule.

A row of the verdict table is decided by one or more tests on per-trial statistics. Each test
has a confirming direction (its p-value `p_confirm`, or None when the test has no confirming
role) and a refuting direction (`p_refute`, or None). A claim needing several tests to hold is
an intersection-union test: its p-value is the largest of the parts (valid at level α without
any correction). A claim refuted by any one of several tests takes the smallest refuting p
times their number (Bonferroni). Primary rows then get Holm's correction across the report.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import rules, stats


@dataclass
class Test:
    label: str            # what was measured, e.g. "slope of log S_upper vs log n"
    estimate: float
    ci_low: float
    ci_high: float
    trials: int
    p_confirm: float | None  # None: this test cannot confirm; NaN: it could, but no estimate
    p_refute: float | None
    wants: str = ""       # the confirming condition, for reasons ("≤ −0.4")
    refutes: str = ""     # the refuting condition
    kind: str = "t"       # "t" (mean, Student-t) or "sign" (median, order statistics)
    coverage: float = np.nan  # exact coverage of a median interval
    per_trial: object = None

    def text(self) -> str:
        center = "median" if self.kind == "sign" else "mean"
        if not np.isfinite(self.estimate):
            return f"{self.label}: no estimate"
        ci = (f" [{self.ci_low:.3g}, {self.ci_high:.3g}]" if np.isfinite(self.ci_low) else "")
        return f"{self.label} = {self.estimate:.3g}{ci} ({center} of {self.trials} trials)"


def _short_of(t: Test, alpha: float) -> str:
    """Why a test did not confirm. A sign test whose every trial lies on the confirming side has
    the smallest p-value its trial count allows, 2^−trials: say so, and how many trials would
    do, rather than that the median is "not" on that side."""
    if t.kind == "sign" and t.trials > 0 and t.p_confirm <= 0.5 ** t.trials * (1 + 1e-9):
        need = int(np.ceil(np.log2(1.0 / alpha)))
        return (f"{t.text()}: every trial is {t.wants}, but an exact sign test over {t.trials} "
                f"trials cannot reach p ≤ {alpha:g} (its smallest p-value is 2^−{t.trials} = "
                f"{t.p_confirm:.2g}); it needs at least {need} trials, more under Holm's "
                "correction")
    return f"{t.text()} is not {t.wants} (p = {t.p_confirm:.2g})"


def t_test(values, label: str, confirm=None, refute=None, level: float = rules.LEVEL) -> Test:
    """confirm / refute: ("below", c), ("above", c) or ("inside", lo, hi), or None."""
    est, lo, hi, se, m = stats.t_interval(values, level)

    def p(cond):
        if cond is None:
            return None
        if cond[0] == "below":
            return stats.p_below(est, se, m, cond[1])
        if cond[0] == "above":
            return stats.p_above(est, se, m, cond[1])
        return stats.p_inside(est, se, m, cond[1], cond[2])

    return Test(label, est, lo, hi, m, p(confirm), p(refute), _cond_text(confirm),
                _cond_text(refute), "t", per_trial=values)


def sign_test(values, label: str, confirm=None, refute=None, level: float = rules.LEVEL) -> Test:
    """Median of iid values: order-statistic interval, exact sign-test p-values."""
    med, lo, hi, cov, m = stats.median_interval(values, level)

    def p(cond):
        if cond is None:
            return None
        if m == 0:
            return np.nan
        return stats.sign_test_p(values, cond[1], above=cond[0] == "above")

    return Test(label, med, lo, hi, m, p(confirm), p(refute), _cond_text(confirm),
                _cond_text(refute), "sign", cov, per_trial=values)


def missing_test(label: str, reason: str, can_confirm: bool = True) -> Test:
    t = Test(label, np.nan, np.nan, np.nan, 0, np.nan if can_confirm else None, None)
    t.wants = reason
    return t


def _cond_text(cond) -> str:
    if cond is None:
        return ""
    if cond[0] == "below":
        return f"below {cond[1]:g}"
    if cond[0] == "above":
        return f"above {cond[1]:g}"
    return f"inside [{cond[1]:g}, {cond[2]:g}]"


def combined_p(tests: list) -> tuple:
    """(p_confirm, p_refute) of a row from its tests (intersection-union / Bonferroni)."""
    conf = [t.p_confirm for t in tests if t.p_confirm is not None]
    p_c = max(conf) if conf and all(np.isfinite(conf)) else np.nan
    ref = [t.p_refute for t in tests if t.p_refute is not None and np.isfinite(t.p_refute)]
    p_r = min(1.0, len(ref) * min(ref)) if ref else np.nan
    return p_c, p_r


@dataclass
class Row:
    kind: str
    claim: str
    name: str
    theorem: str
    model: str
    d: str
    tests: list = field(default_factory=list)
    positive: str = rules.CONFIRMED  # the verdict when the confirming tests pass
    regime: str = ""
    n_used: str = ""
    outside: str = ""
    note: str = ""          # qualifies a positive verdict (e.g. "no upper bound in this file")
    unavailable: str = ""   # why no test could run (→ inconclusive with this reason)
    hint: str = ""          # extra words for an inconclusive verdict
    verdict: str = ""
    reason: str = ""
    p_confirm: float = np.nan
    p_refute: float = np.nan
    p_confirm_holm: float = np.nan
    p_refute_holm: float = np.nan

    def decide(self, p_confirm: float, p_refute: float, family: int = 0) -> None:
        """Set verdict and reason from (possibly Holm-adjusted) p-values."""
        alpha = rules.ALPHA
        if self.unavailable:
            self.verdict, self.reason = rules.INCONCLUSIVE, self.unavailable
            return
        if np.isfinite(p_refute) and p_refute <= alpha:
            self.verdict = rules.CONTRADICTED
            self.reason = "; ".join(f"{t.text()} is {t.refutes}" for t in self.tests
                                    if t.p_refute is not None and np.isfinite(t.p_refute)
                                    and t.p_refute <= alpha)
            return
        if np.isfinite(p_confirm) and p_confirm <= alpha:
            self.verdict, self.reason = self.positive, self.note
            return
        self.verdict = rules.INCONCLUSIVE
        failing = []
        for t in self.tests:
            if t.p_confirm is None:
                continue
            if not np.isfinite(t.p_confirm):
                failing.append(f"{t.label}: {t.wants or 'no estimate'}")
            elif t.p_confirm > alpha:
                failing.append(_short_of(t, alpha))
        if not failing and np.isfinite(p_confirm):
            failing.append(f"p = {self.p_confirm:.2g} passes alone but not after Holm's "
                           f"correction over {family} primary claims (adjusted p = "
                           f"{p_confirm:.2g} > {alpha})")
        parts = [*failing, self.hint, self.note]
        self.reason = "; ".join(p for p in parts if p)

    def record(self) -> dict:
        main = self.tests[0] if self.tests else None
        stat = " & ".join(t.label for t in self.tests)
        return {
            "kind": self.kind, "claim": self.claim, "theorem": self.theorem, "name": self.name,
            "model": self.model, "d": self.d, "statistic": stat,
            "estimate": main.estimate if main else np.nan,
            "ci_low": main.ci_low if main else np.nan,
            "ci_high": main.ci_high if main else np.nan,
            "trials": main.trials if main else 0,
            "p_confirm": self.p_confirm, "p_refute": self.p_refute,
            "p_confirm_holm": self.p_confirm_holm, "p_refute_holm": self.p_refute_holm,
            "verdict": self.verdict, "reason": self.reason, "regime": self.regime,
            "n_used": self.n_used, "outside_regime": self.outside,
            "tests": "; ".join(t.text() for t in self.tests),
        }


def finish(rows: list) -> None:
    """p-values of every row; Holm across the primary rows; verdicts."""
    for r in rows:
        if r.kind == rules.INTEGRITY or r.verdict:
            continue
        r.p_confirm, r.p_refute = combined_p(r.tests) if not r.unavailable else (np.nan, np.nan)
    primary = [r for r in rows if r.kind == rules.PRIMARY and not r.verdict]
    adj_c = stats.holm([r.p_confirm for r in primary])
    adj_r = stats.holm([r.p_refute for r in primary])
    family = int(np.isfinite([r.p_confirm for r in primary]).sum())
    for r, pc, pr in zip(primary, adj_c, adj_r):
        r.p_confirm_holm, r.p_refute_holm = pc, pr
        r.decide(pc, pr, family)
    for r in rows:
        if r.kind == rules.SECONDARY and not r.verdict:
            r.decide(r.p_confirm, r.p_refute)
