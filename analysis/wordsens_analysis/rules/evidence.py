"""What each kind of evidence can say about each kind of statement: the direction table every
rule is derived from.

A claim of the paper is a statement with a direction: an upper bound on a quantity (S = O(1/√n)),
a lower bound (S = Ω(1)), an order between two models (S_raf > S_relu), or a statement about the
trained head's error (E stays far from 0 for every Δ; E is near 0 for some Δ). The suite measures
each quantity by one of a few kinds of evidence, and each kind can speak in one direction only:

- a certified upper bound (S_upper) bounds the true S from above: it can confirm an upper-bound
  claim and refute a lower-bound one; restricted to the examined positions or word sets, it
  bounds only the supremum over those, so it confirms at most "supported (restricted bound)" and
  refutes nothing (the true S may sit at a position not examined);
- a lower bound found by a search (S, attained by a stored witness) bounds the true S from below:
  it can confirm a lower-bound claim, and it refutes an upper-bound claim only by a level (S·√n
  at the largest n above every constant the claim admits), never by its slope (a search that finds
  more of the maximum at large n makes a slope rise); without an upper bound an upper-bound claim
  is at most "not refuted";
- an attained lower bound over another model's certified upper bound orders the two models: it
  confirms "A above B";
- two lower bounds never order two models: in the claimed order they leave the claim "not
  refuted", in the other order they refute nothing;
- the trained head's E at the best Δ found is attained by that Δ: a small E certifies that the
  head can be made right (confirms "can", refutes "cannot"); a large E only says that a search
  minimising E found nothing better (supports "cannot", search only; refutes nothing).

Every test a rule builds names its evidence and what it asks of it (`Judge.test`), and the table
below decides whether that is allowed: a rule that tried to confirm an O(·) claim with a lower
bound, or to refute with two lower bounds, fails when it is built, not when a referee finds it.
docs/VERDICT_RULES.md prints this table and each claim's row of it.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import thresholds

# Statement kinds.
UPPER_RATE = "upper bound on S (O(·))"
LOWER_RATE = "lower bound on S (Ω(·))"
ORDER = "order of two models (A above B)"
HEAD_CANNOT = "the head cannot be made right (E far from 0 for every Δ)"
HEAD_CAN = "the head can be made right (E near 0 for some Δ)"
LIMIT = "a limit (E tends to a value)"

# Evidence kinds.
UPPER = "certified upper bound"
UPPER_EXAMINED = "certified upper bound over the examined positions or word sets"
LOWER = "lower bound found by a search"
LOWER_OVER_UPPER = "attained lower bound over the other model's certified upper bound"
LOWER_OVER_EXAMINED = ("attained lower bound over the other model's certified upper bound over "
                       "its examined positions")
LOWER_PAIR = "two lower bounds found by searches"
E_SMALL = "attained E (a Δ the search found)"
E_SEARCH = "E no better than the search found"

# What a test may do with its evidence.
CONFIRM, REFUTE_LEVEL, REFUTE = "confirm", "refute by a level", "refute"


@dataclass(frozen=True)
class Direction:
    """What one kind of evidence can do for one kind of statement: the positive verdict it can
    give (None: none), whether it may refute, and how (words for the rules' tables)."""

    positive: str | None
    refutes: str | None  # None, REFUTE (any test) or REFUTE_LEVEL (a level only, never a slope)
    how: str


TABLE = {
    (UPPER_RATE, UPPER): Direction(
        thresholds.CONFIRMED, None, "confirms: its slope at the end of the design at most the rate "
        "plus the bound's own drift δ"),
    (UPPER_RATE, UPPER_EXAMINED): Direction(
        thresholds.SUPPORTED_RESTRICTED, None, "supports (restricted bound): as a certified bound, "
        "over the examined positions or word sets only"),
    (UPPER_RATE, LOWER): Direction(
        thresholds.NOT_REFUTED_LB, REFUTE_LEVEL, "refutes by a level only (S·n^½ at the largest n "
        "above every constant C the claim admits); below that level: not refuted; its slope "
        "never decides"),
    (LOWER_RATE, LOWER): Direction(
        thresholds.CONFIRMED, None, "confirms: not decaying at the end of the design (slope above "
        "−window)"),
    (LOWER_RATE, UPPER): Direction(
        None, REFUTE, "refutes: decaying at the end of the design"),
    (LOWER_RATE, UPPER_EXAMINED): Direction(
        None, None, "neither: the true S may sit at a position or word set not examined"),
    (LOWER_RATE, LOWER_OVER_UPPER): Direction(
        thresholds.CONFIRMED, None, "confirms a level: above the other model's certified bound at "
        "every n"),
    (LOWER_RATE, LOWER_OVER_EXAMINED): Direction(
        thresholds.SUPPORTED_RESTRICTED, None, "supports (restricted bound): above the other "
        "model's bound over its examined positions at every n (not a certified order)"),
    (ORDER, LOWER_OVER_UPPER): Direction(
        thresholds.CONFIRMED, None, "confirms: A's attained S above B's certified bound at every "
        "n"),
    (ORDER, LOWER_PAIR): Direction(
        thresholds.NOT_REFUTED_LB, None, "not refuted at most, in the claimed order at every n; "
        "the other order refutes nothing (two lower bounds never order two models)"),
    (HEAD_CANNOT, E_SEARCH): Direction(
        thresholds.SUPPORTED_SEARCH, None, "supports (search only): a search minimising E found no "
        "Δ making the head right"),
    (HEAD_CANNOT, E_SMALL): Direction(
        None, REFUTE, "refutes: a Δ found makes the head right (E attained)"),
    (HEAD_CAN, E_SMALL): Direction(
        thresholds.CONFIRMED, None, "confirms: a Δ found makes the head right (E attained)"),
    (HEAD_CAN, E_SEARCH): Direction(
        None, None, "neither: no Δ found is not no Δ"),
    (LIMIT, E_SEARCH): Direction(
        thresholds.SUPPORTED_SEARCH, None, "supports (search only) when the limit's interval "
        "contains the value"),
}


class RuleError(AssertionError):
    """A rule asked evidence for something it cannot give (a bug in the rules, never in data)."""


def direction(statement: str, evidence: str) -> Direction:
    found = TABLE.get((statement, evidence))
    if found is None:
        raise RuleError(f"no entry for {evidence!r} on a statement of kind {statement!r}")
    return found


def allowed(statement: str, evidence: str, confirm: bool, refute: bool,
            by_level: bool = False) -> Direction:
    """The direction of (statement, evidence), after checking that a test which confirms and/or
    refutes with it is allowed; `by_level`: the refuting condition is a level, not a slope."""
    d = direction(statement, evidence)
    if confirm and d.positive is None:
        raise RuleError(f"{evidence} cannot confirm a statement of kind {statement}")
    if refute and d.refutes is None:
        raise RuleError(f"{evidence} cannot refute a statement of kind {statement}")
    if refute and d.refutes == REFUTE_LEVEL and not by_level:
        raise RuleError(f"{evidence} refutes a statement of kind {statement} by a level only")
    return d


def table_rows() -> list:
    """(statement kind, evidence, can give, can refute, how) for the rules' page and report."""
    out = []
    for (statement, evidence), d in TABLE.items():
        refutes = {None: "no", REFUTE: "yes", REFUTE_LEVEL: "by a level only"}[d.refutes]
        out.append((statement, evidence, d.positive or "nothing positive", refutes, d.how))
    return out
