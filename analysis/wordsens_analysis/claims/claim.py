"""What a claim is: its statement (kinds, quantifiers, the evidence it reads), where it speaks, how
its tests read the statement, the function that builds its rows, and the paper's side of it.

A claim's rule is derived, not written beside it: `Claim.rule` is its statement, how it is judged,
and for every kind of evidence it reads what the evidence table (evidence.py) lets that evidence
say; its rows builder makes every test through `Claim.judge()`, which refuses a test that asks
its evidence for a direction the table does not give. The claims themselves are in
claim_list.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import rules
from ..rules import Judge, evidence


@dataclass(frozen=True)
class Paper:
    """The paper's side of a claim: its statement, the trend its experiments report, and what
    this suite measures for it (not numbers read off the paper's figures)."""

    statement: str
    trend: str
    measured: str


@dataclass(frozen=True)
class Statement:
    """A claim as the theorem states it: its kind (or kinds, for a Θ(·) claim: an upper and a
    lower part, each judged by its own evidence) from evidence.py, its words with the quantifiers
    (with probability ≥ 1 − η over the weights, for every text, for every n of the regime or
    past some n0), and the evidence this suite brings to it, whose directions come from the
    evidence table."""

    kinds: tuple
    text: str
    evidence: tuple  # evidence kinds (evidence.py) the rows builder may use


@dataclass(frozen=True)
class Claim:
    id: str
    theorem: str   # the paper's numbering
    name: str      # what a reader should understand
    model: str
    table: str     # the records it reads: "ws", "gen" or "multi_word" (several changed words)
    regime: str    # where the claim speaks; other grid points are listed, never used
    statement: Statement
    judged: str    # how its tests read the statement: statistics, windows, thresholds
    rows: Callable  # rows(claim, study) -> [Row]: its primary row(s) and their breakdown
    paper: Paper | None = None  # None: a claim beyond the paper
    # A claim about a model beyond the paper: its rows are of kind 'extension' (their own Holm
    # family, never in the first line; docs/VERDICT_RULES.md "Beyond the paper").
    extension: bool = False
    # The columns its verdict rests on, (model, column) with "" for the claim's own model: an
    # integrity check failing for one of them leaves the claim open (integrity.gate).
    reads: tuple = (("", "S"),)
    # The model its paired contrasts read on the same texts ("" for none): from the study, or
    # from the report's other studies when the study lacks it.
    partner: str = ""
    # What a figure of its model draws as judged (figure_series.py): the column the claim is
    # judged on, and whether the figure shows the slope of it the claim judges over the end of
    # the design (the O(1/√n) claims, and the Ω(1) claims judged as Thm 3 is).
    judged_column: str = "S"
    judges_slope: bool = False

    @property
    def rule(self) -> str:
        """The rule, derived from the statement and the evidence table: what is judged, and what
        each kind of evidence the claim reads can say about it."""
        kinds = self.statement.kinds
        can = []
        for e in self.statement.evidence:
            d = next((evidence.TABLE[(k, e)] for k in kinds if (k, e) in evidence.TABLE), None)
            if d is not None:
                can.append(f"{e}: {d.how}")
        return (f"statement: {self.statement.text}. Judged: {self.judged}. Evidence: "
                f"{'; '.join(can)}. {_STATS}")

    def judge(self, part: str | None = None) -> Judge:
        """The Judge of this claim's tests (of one part of a Θ(·) claim)."""
        kind = part or self.statement.kinds[0]
        if kind not in self.statement.kinds:
            raise evidence.RuleError(f"{self.id} has no part of kind {kind}")
        return Judge(kind)


_ETA = f"{1 - rules.TOLERATED:.0%}"
_STATS = (f"Statistics are per trial (the texts of a trial are shared by all models and all n, "
          f"so a trial gives a whole curve), each trial an independent draw of weights and "
          f"texts. 'With probability ≥ 1 − η over the weights' (η = {rules.TOLERATED:g}) is "
          f"judged as such: a test confirms when the median is on the confirming side (exact "
          f"one-sided sign test, p ≤ α) and at most ⌊η·m⌋ of its m trials fail the claim (a "
          f"trial fails a slope when it misses the window by more than {rules.SLOPE_MARGIN:g}, "
          f"a level, an order or a head's E when it is not on the confirming side); it refutes "
          f"when the trials on the refuting side are significantly more than η·m (exact binomial "
          f"test). Slopes of asymptotic claims are read over the end of the design (the last "
          f"{rules.END_DOUBLINGS} doublings of n in the regime, at least {rules.MIN_POINTS} "
          f"values), levels and contrasts at every n of the regime (per trial its worst n). "
          f"Every group of the claim's axes in its regime must pass (intersection-union), any "
          f"refuted group contradicts it (Bonferroni over the refuting tests), then Holm over "
          f"the report's rows of the family; a planned in-regime point with fewer done trials "
          f"than planned, a group with fewer than {rules.MIN_POINTS} values of n in the regime, "
          f"a partner model's point short of trials, a NaN, infinite or non-positive value "
          f"where a bound or S is due, and a failed integrity check of a column the claim reads "
          f"each keep the claim open, named")
