"""One verdict from statistical tests on groups: the building blocks of every rule.

A claim speaks of every value of some axes in its regime (every d, depth L, width k, training
set size N, fraction f …): each combination with data is a **group**, judged by one or more tests
on per-trial statistics. Each test has a confirming direction (its p-value `p_confirm`, or None
when the test has no confirming role) and a refuting direction (`p_refute`, or None).

- A group is confirmed when all its confirming tests are (intersection-union test: its p is the
  largest of theirs, valid at level α without any correction).
- A claim is confirmed only when every group is (intersection-union again: the largest group p),
  so a steep group can never hide a flat one, and contradicted when any group is refuted: the
  smallest refuting p over all the claim's tests times their number (Bonferroni).
- Primary rows then get Holm's correction across the report.

Each test judges its per-trial values as the quantified statement "with probability ≥ 1 − η
over the weights" (sign_test), and names its evidence: the evidence table (evidence.py) decides
whether it may confirm or refute at all, and the word of a positive verdict (thresholds.POSITIVE,
strongest first); a claim whose groups carry different kinds takes the weakest.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from . import evidence as ev
from . import stats, thresholds


@dataclass
class Test:
    label: str            # what was measured, e.g. "slope of log S_upper vs log n"
    estimate: float
    ci_low: float
    ci_high: float
    trials: int
    p_confirm: float | None  # None: this test cannot confirm; NaN: it could, but no estimate
    p_refute: float | None
    wants: str = ""       # the confirming condition, for reasons ("below −0.4")
    refutes: str = ""     # the refuting condition
    kind: str = "sign"    # "sign" (median, order statistics) or "t" (mean, Student-t)
    coverage: float = np.nan  # exact coverage of a median interval
    per_trial: object = None
    looks: float = 1.0  # 1 / its look's share of α, the factor its p-values carry (sequential.py)
    # The quantifier (thresholds.TOLERATED): trials not on the confirming side, how many may be, and
    # trials on the refuting side; `blocked` says why a median that passes does not confirm.
    failures: int = 0
    tolerated: int = 0
    refuting: int = 0
    blocked: str = ""
    evidence: str = ""    # the kind of evidence (evidence.py), empty for a test built by hand
    positive: str = ""    # the verdict its confirmation can give (evidence.py), "" = confirmed
    # The conditions as numbers, ("below", c) …: what a user recomputes its p-values against.
    confirm_cond: tuple | None = None
    refute_cond: tuple | None = None

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
    if t.blocked:
        return f"{t.text()}: {t.blocked}"
    if t.kind == "sign" and t.trials > 0 and t.p_confirm <= 0.5 ** t.trials * (1 + 1e-9):
        need = int(np.ceil(np.log2(1.0 / alpha)))
        return (f"{t.text()}: every trial is {t.wants}, but an exact sign test over {t.trials} "
                f"trials cannot reach p ≤ {alpha:g} (its smallest p-value is 2^−{t.trials} = "
                f"{t.p_confirm:.2g}); it needs at least {need} trials, more under Holm's "
                "correction")
    return f"{t.text()} is not {t.wants} (p = {t.p_confirm:.2g})"


def t_test(values, label: str, confirm=None, refute=None, level: float = thresholds.LEVEL) -> Test:
    """Mean of iid values, Student-t interval and p-values. Kept for comparison (the coverage
    test shows its one-sided errors with skewed per-trial statistics); the rules use sign_test.
    confirm / refute: ("below", c), ("above", c) or ("inside", lo, hi), or None."""
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


def sign_test(values, label: str, confirm=None, refute=None, level: float = thresholds.LEVEL,
              fails=None) -> Test:
    """Per-trial values judged as the statement "with probability ≥ 1 − η over the weights"
    (η = thresholds.TOLERATED): the median by an exact sign test with its order-statistic interval
    (no assumption on the values' law: skewed, heavy-tailed, a mixture with trials where a search
    fell short), and every trial by a count. It confirms when the median is on the confirming
    side with p ≤ α and at most ⌊η·m⌋ of the m trials fail the claim (`fails`: the condition of a
    trial that contradicts it; by default the refuting condition, else any trial not on the
    confirming side; more: p_confirm = 1 and `blocked` says how many); it refutes when the trials
    on the refuting side are significantly more than η·m (exact binomial test, p_refute =
    P(Bin(m, η) ≥ their count)). confirm / refute / fails: ("below", c), ("above", c) or
    ("inside", lo, hi), or None; "inside" is two one-sided sign tests, its p the larger. A
    non-finite value counts as a failing trial."""
    raw = np.asarray(values, dtype=float)
    med, lo, hi, cov, m = stats.median_interval(raw, level)
    finite = raw[np.isfinite(raw)]
    t = Test(label, med, lo, hi, m, None, None, _cond_text(confirm), _cond_text(refute), "sign",
             cov, per_trial=values, confirm_cond=confirm, refute_cond=refute)
    if confirm is not None:
        if m == 0:
            t.p_confirm = np.nan
        else:
            if confirm[0] == "inside":
                p = max(stats.sign_test_p(finite, confirm[1], above=True),
                        stats.sign_test_p(finite, confirm[2], above=False))
            else:
                p = stats.sign_test_p(finite, confirm[1], above=confirm[0] == "above")
            failing = fails or refute
            t.failures = int(raw.size - finite.size) + int(
                _on_side(finite, failing).sum() if failing is not None
                else finite.size - _on_side(finite, confirm).sum())
            t.tolerated = int(np.floor(thresholds.TOLERATED * m + 1e-9))
            if t.failures > t.tolerated:
                p = 1.0
                what = _cond_text(failing) if failing is not None else f"not {t.wants}"
                t.blocked = (f"{t.failures} of {raw.size} trials are {what}; at most "
                             f"{t.tolerated} may be (the claim holds with probability ≥ "
                             f"{1 - thresholds.TOLERATED:.0%} over the weights, not only at the "
                             f"median)")
            t.p_confirm = p
    if refute is not None:
        t.refuting = int(_on_side(finite, refute).sum()) if m else 0
        t.p_refute = (float(sps.binom.sf(t.refuting - 1, m, thresholds.TOLERATED)) if m else np.nan)
    return t


def _on_side(values: np.ndarray, cond) -> np.ndarray:
    if cond[0] == "below":
        return values < cond[1]
    if cond[0] == "above":
        return values > cond[1]
    return (values > cond[1]) & (values < cond[2])


def missing_test(label: str, reason: str, can_confirm: bool = True) -> Test:
    t = Test(label, np.nan, np.nan, np.nan, 0, np.nan if can_confirm else None, None)
    t.wants = reason
    return t


def _cond_text(cond) -> str:
    if cond is None:
        return ""
    if cond[0] == "below":
        return f"below {cond[1]:.3g}"
    if cond[0] == "above":
        return f"above {cond[1]:.3g}"
    return f"inside [{cond[1]:.3g}, {cond[2]:.3g}]"


def combined_p(tests: list) -> tuple:
    """(p_confirm, p_refute) of tests that must all confirm (intersection-union) and of which
    any one refutes (Bonferroni over the refuting ones)."""
    conf = [t.p_confirm for t in tests if t.p_confirm is not None]
    p_c = max(conf) if conf and all(np.isfinite(conf)) else np.nan
    ref = [t.p_refute for t in tests if t.p_refute is not None and np.isfinite(t.p_refute)]
    p_r = min(1.0, len(ref) * min(ref)) if ref else np.nan
    return p_c, p_r


def weakest(kinds) -> str:
    """The weakest positive verdict among `kinds` (thresholds.POSITIVE is strongest first)."""
    kinds = [k for k in kinds if k in thresholds.POSITIVE]
    return max(kinds, key=thresholds.POSITIVE.index) if kinds else thresholds.CONFIRMED


def positive_of(tests: list) -> str:
    """The weakest positive verdict the confirming tests can give (their evidence's, evidence.py):
    a claim confirmed by a certified bound and a lower bound together is at most what the weaker
    of the two can say."""
    return weakest([t.positive or thresholds.CONFIRMED for t in tests if t.p_confirm is not None])


class Judge:
    """Builds the tests of a claim whose statement is of kind `statement` (evidence.py), each
    checked against the evidence table when it is built: a test that asks its evidence for a
    direction it cannot give raises evidence.RuleError."""

    def __init__(self, statement: str):
        self.statement = statement

    def test(self, values, label: str, evidence: str, confirm=None, refute=None,
             by_level: bool = False, fails=None) -> Test:
        d = ev.allowed(self.statement, evidence, confirm is not None, refute is not None,
                       by_level)
        t = sign_test(values, label, confirm, refute, fails=fails)
        t.evidence, t.positive = evidence, d.positive or ""
        return t

    def missing(self, label: str, reason: str, evidence: str) -> Test:
        """A test that could not run (its data are missing): it keeps the claim open."""
        d = ev.direction(self.statement, evidence)
        t = missing_test(label, reason, d.positive is not None)
        t.evidence, t.positive = evidence, d.positive or ""
        return t


@dataclass
class Group:
    """One combination of a claim's axes (e.g. d = 64, L = 2, k = 512) with its tests."""

    label: str
    tests: list = field(default_factory=list)
    positive: str = ""  # the verdict its confirming tests give; "": their evidence's (positive_of)
    note: str = ""
    unavailable: str = ""  # why the group cannot be judged (the claim is then inconclusive)
    n_used: str = ""
    d: str = ""
    partner: tuple = ()  # (model, study) a paired contrast reads on the same texts
    # The grid points the group reads: {"d": 384, "L": 2, "N": 1100, "n": [10, 20, 50]}
    # (sequential.py extends exactly these when its claim is open).
    axes: dict = field(default_factory=dict)

    def p_values(self) -> tuple:
        if self.unavailable:
            return np.nan, np.nan
        return combined_p(self.tests)

    def status(self, alpha: float = thresholds.ALPHA) -> tuple:
        """(verdict at its own level, why) of the group alone."""
        if self.unavailable:
            return thresholds.INCONCLUSIVE, self.unavailable
        p_c, p_r = self.p_values()
        if np.isfinite(p_r) and p_r <= alpha:
            return thresholds.CONTRADICTED, "; ".join(
                f"{t.text()} is {t.refutes}" for t in self.tests
                if t.p_refute is not None and np.isfinite(t.p_refute) and t.p_refute <= alpha)
        if np.isfinite(p_c) and p_c <= alpha:
            return self.positive_word(), self.note
        return thresholds.INCONCLUSIVE, "; ".join(_failing(self.tests, alpha))

    def positive_word(self) -> str:
        return self.positive or positive_of(self.tests)


def _failing(tests: list, alpha: float) -> list:
    out = []
    for t in tests:
        if t.p_confirm is None:
            continue
        if not np.isfinite(t.p_confirm):
            out.append(f"{t.label}: {t.wants or 'no estimate'}")
        elif t.p_confirm > alpha:
            out.append(_short_of(t, alpha))
    return out


@dataclass
class Row:
    kind: str
    claim: str
    name: str
    theorem: str
    model: str
    d: str
    tests: list = field(default_factory=list)
    positive: str = ""  # the verdict when the confirming tests pass; "": their evidence's
    regime: str = ""
    n_used: str = ""
    outside: str = ""
    note: str = ""          # qualifies a positive verdict (e.g. "no upper bound in this file")
    unavailable: str = ""   # why no test could run (→ inconclusive with this reason)
    hint: str = ""          # extra words for an inconclusive verdict
    groups: list = field(default_factory=list)  # a claim's groups (then `tests` is unused)
    verdict: str = ""
    reason: str = ""
    p_confirm: float = np.nan
    p_refute: float = np.nan
    p_confirm_holm: float = np.nan
    p_refute_holm: float = np.nan

    def p_values(self) -> tuple:
        """(p_confirm, p_refute) before any multiplicity correction across rows."""
        if self.unavailable:
            return np.nan, np.nan
        if not self.groups:
            return combined_p(self.tests)
        ps = [g.p_values() for g in self.groups]
        conf = [p for p, _ in ps]
        p_c = max(conf) if all(np.isfinite(conf)) else np.nan
        ref = [t.p_refute for g in self.groups if not g.unavailable for t in g.tests
               if t.p_refute is not None and np.isfinite(t.p_refute)]
        p_r = min(1.0, len(ref) * min(ref)) if ref else np.nan
        return p_c, p_r

    def shown_tests(self) -> list:
        """The tests a reader sees: the row's, or every group's (named by the group)."""
        if not self.groups:
            return self.tests
        out = []
        for g in self.groups:
            for t in g.tests:
                shown = Test(**{**t.__dict__, "label": f"{g.label}: {t.label}"})
                out.append(shown)
        return out

    def deciding_test(self):
        """The test whose numbers the row shows: the first test of the group that decides the
        claim (the one with the largest confirming p), or the row's first test."""
        if not self.groups:
            return self.tests[0] if self.tests else None
        judged = [g for g in self.groups if not g.unavailable and g.tests]
        if not judged:
            return None
        worst = max(judged, key=lambda g: _nan_high(g.p_values()[0]))
        return worst.tests[0]

    def decide(self, p_confirm: float, p_refute: float, family: int = 0) -> None:
        """Set verdict and reason from (possibly Holm-adjusted) p-values."""
        alpha = thresholds.ALPHA
        if self.groups:
            self.positive = weakest(g.positive_word() for g in self.groups)
        elif self.tests and self.positive == "":
            self.positive = positive_of(self.tests)
        if self.unavailable:
            self.verdict, self.reason = thresholds.INCONCLUSIVE, self.unavailable
            return
        if np.isfinite(p_refute) and p_refute <= alpha:
            self.verdict = thresholds.CONTRADICTED
            self.reason = self._refuted_text(alpha, p_refute)
            return
        if np.isfinite(p_confirm) and p_confirm <= alpha:
            self.verdict = self.positive or thresholds.CONFIRMED
            notes = dict.fromkeys([self._group_text(alpha), *(g.note for g in self.groups),
                                   self.note])
            self.reason = "; ".join(p for p in notes if p)
            return
        self.verdict = thresholds.INCONCLUSIVE
        if self.groups:
            failing = [self._group_text(alpha)]
        else:
            failing = _failing(self.tests, alpha)
        alone = self.p_values()[0]
        if np.isfinite(alone) and alone <= alpha and np.isfinite(p_confirm):
            failing.append(f"p = {alone:.2g} passes alone but not after Holm's correction over "
                           f"{family} primary claims (adjusted p = {p_confirm:.2g} > {alpha})")
        parts = [*failing, self.hint, self.note]
        self.reason = "; ".join(p for p in parts if p)

    def _refuted_text(self, alpha: float, p_refute: float) -> str:
        """The refuting tests that reach α under the Bonferroni factor (their number)."""
        labelled = ([(g.label, t) for g in self.groups if not g.unavailable for t in g.tests]
                    if self.groups else [("", t) for t in self.tests])
        refuting = [(lab, t) for lab, t in labelled
                    if t.p_refute is not None and np.isfinite(t.p_refute)]
        count = len(refuting)
        parts = [f"{'for ' + lab + ': ' if lab else ''}{t.text()} is {t.refutes}"
                 for lab, t in refuting if min(1.0, count * t.p_refute) <= alpha]
        return "; ".join(parts)

    def _group_text(self, alpha: float) -> str:
        """'confirmed for d=192, d=384; inconclusive for d=768: …' (each group at its own
        level α, before the correction across claims)."""
        if not self.groups:
            return ""
        by_verdict: dict = {}
        reasons = []
        for g in self.groups:
            verdict, why = g.status(alpha)
            by_verdict.setdefault(verdict, []).append(g.label)
            if verdict not in thresholds.POSITIVE and why:
                reasons.append(f"{verdict} for {g.label}: {why}")
        parts = [f"{v} for {', '.join(labels)}" for v, labels in by_verdict.items()
                 if v in thresholds.POSITIVE]
        return "; ".join(parts + reasons)

    def record(self) -> dict:
        main = self.deciding_test()
        shown = self.shown_tests()
        stat = " & ".join(dict.fromkeys(t.label for t in (
            self.tests if not self.groups else [t for g in self.groups for t in g.tests])))
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
            "tests": "; ".join(t.text() for t in shown),
        }


def _nan_high(p: float) -> float:
    return p if np.isfinite(p) else np.inf


def group_rows(row: Row) -> list:
    """One secondary row per group of a primary row, named '<claim>/<group>', each decided at
    its own level: which group decided what, for every claim."""
    out = []
    for g in row.groups:
        r = Row(thresholds.SECONDARY, f"{row.claim}/{g.label}", row.name, row.theorem, row.model,
                g.d, tests=g.tests, positive=g.positive_word(), regime=row.regime, n_used=g.n_used,
                note=g.note, unavailable=g.unavailable)
        out.append(r)
    return out


def finish(rows: list) -> None:
    """p-values of every row; Holm across the primary rows; verdicts (in place)."""
    for r in rows:
        if r.kind == thresholds.INTEGRITY or r.verdict:
            continue
        r.p_confirm, r.p_refute = r.p_values()
    # Two Holm families: the paper's claims, and the rest.
    for kind in (thresholds.PRIMARY, thresholds.EXTENSION):
        primary = [r for r in rows if r.kind == kind and not r.verdict]
        adj_c = stats.holm([r.p_confirm for r in primary])
        adj_r = stats.holm([r.p_refute for r in primary])
        family = int(np.isfinite([r.p_confirm for r in primary]).sum())
        for r, pc, pr in zip(primary, adj_c, adj_r):
            r.p_confirm_holm, r.p_refute_holm = pc, pr
            r.decide(pc, pr, family)
    for r in rows:
        if r.kind == thresholds.SECONDARY and not r.verdict:
            r.decide(r.p_confirm, r.p_refute)
