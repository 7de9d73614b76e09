"""Trials until decided stays valid under optional stopping (sequential.py).

A study looks at its data after each batch of trials (5, 10, 20, 40 per point) and adds trials
only while a claim is open. Looking again and again at data that keep growing inflates a test's
error: the chance that *some* look gives p ≤ α is larger than α. The rules correct for it by
dividing every p-value by its look's share of α (weighted Bonferroni over the looks: 0.9 of α at the
first look that can decide, the rest split equally over the later ones, none at a look too early to
decide). Checked
here through the rules' own code (sign_test, Row, finish, correct_for_looks) with each claim
false at its boundary (the per-trial statistic's median exactly at the threshold):

- the whole adaptive procedure (look, decide, add trials only while open, stop at the cap)
  confirms a false claim at a rate at or below α: computed exactly (the sign test sees only how
  many trials lie above the threshold, so the procedure is a walk over that count, whose law is
  binomial; every decision is the rules' own), and by a Monte Carlo simulation of the procedure
  on Gaussian and skewed per-trial values, which agrees with it;
- re-testing at every look without the correction exceeds α;
- the same with two claims judged together under Holm's correction.

`-s` prints the rates (docs/VERDICT_RULES.md quotes them).
"""
import contextlib
import functools

from scipy import stats as sps
import numpy as np
import pytest

from wordsens_analysis import rules
from wordsens_analysis.claims import sequential
from wordsens_analysis.rules import Group, Row, finish, sign_test

REPS = 1000
FIRST, CAP = 5, 40
REPLICATES = 3  # the most replicate batches a simulation adds (the data drawn for every run)
# The paper's studies: a first batch of 10 trials per point, at most 20.
PAPER = (10, 20)


def _plan(first: int = FIRST, cap: int = CAP) -> sequential.Plan:
    return sequential.Plan(first, cap, sequential.looks(first, cap))


def _row(claim: str, values: np.ndarray) -> Row:
    row = Row(rules.PRIMARY, claim, claim, "", "m", "")
    grp = Group("d=8", d="8")
    grp.tests = [sign_test(values, "statistic", confirm=("above", 0.0),
                           refute=("below", -10.0))]
    row.groups.append(grp)
    return row


def _adaptive(rng, law, claims: int, corrected: bool, replicates: int = 0) -> bool:
    """One run of the adaptive procedure over `claims` claims, each false at the boundary
    (median 0, confirmed when the median is above 0): whether any claim ends 'confirmed'. With
    `replicates`, a claim still open at the cap gets up to that many more batches of FIRST
    trials (replicate files with another seed, pooled: counts off the schedule)."""
    plan = _plan()
    schedule = plan.schedule
    data = [law(rng, CAP + REPLICATES * FIRST) for _ in range(claims)]
    trials = [FIRST] * claims
    added = 0
    while True:
        rows = [_row(f"c{i}", data[i][:trials[i]]) for i in range(claims)]
        if corrected:
            sequential.correct_for_looks(rows, plan)
        finish(rows)
        if any(r.verdict == rules.CONFIRMED for r in rows):
            return True
        open_ = [i for i, r in enumerate(rows) if r.verdict == rules.INCONCLUSIVE]
        grown = False
        for i in open_:
            k = schedule.index(trials[i]) if trials[i] in schedule else len(schedule)
            if k + 1 < len(schedule):
                trials[i] = schedule[k + 1]
                grown = True
        if not grown and added < replicates and open_:
            for i in open_:
                trials[i] += FIRST
            added += 1
            grown = True
        if not grown:
            return False


# The sign test sees only which side of the threshold each trial lies on, so any continuous law
# with its median there gives the same rates: a skewed one is simulated to show it.
LAWS = {
    "log-normal, median 0": lambda rng, m: np.exp(rng.normal(0, 1, m)) - 1.0,
}


def _rate(law, claims: int, corrected: bool, seed: int, replicates: int = 0) -> float:
    rng = np.random.default_rng(seed)
    return float(np.mean([_adaptive(rng, law, claims, corrected, replicates)
                          for _ in range(REPS)]))


def test_the_schedule_doubles_up_to_the_cap():
    assert sequential.looks(5, 40) == [5, 10, 20, 40]
    assert sequential.looks(6, 20) == [6, 12, 20]
    assert sequential.looks(10, 10) == [10]
    assert sequential.looks(10, 0) == [10]
    with pytest.raises(ValueError):
        sequential.looks(0, 10)
    plan = sequential.Plan(5, 40, sequential.looks(5, 40))
    assert plan.looks == 4 and plan.next_trials(10) == 20 and plan.next_trials(40) == 0
    assert plan.next_trials(7) == 0  # off the schedule: never extended automatically


def test_the_first_look_that_can_decide_gets_most_of_alpha_and_the_shares_sum_to_one():
    for first, cap in ((5, 40), PAPER, (6, 20), (2, 4)):
        plan = _plan(first, cap)
        shares = sequential.look_shares(plan)
        assert sum(shares) == pytest.approx(1.0)
        can = [j for j, n in enumerate(plan.schedule) if 0.5 ** n <= rules.ALPHA]
        if not can:  # (2, 4): no look can decide; the shares still sum to 1
            continue
        assert shares[can[0]] == rules.FIRST_LOOK_SHARE
        # a look whose smallest p-value is above α spends nothing; the later ones share the rest
        assert all(shares[j] == 0.0 for j in range(can[0]))
        assert all(shares[j] == pytest.approx(shares[can[1]]) for j in can[1:])
        assert [sequential.look_share(plan, n) for n in plan.schedule] == shares
    # 5 trials cannot decide at α = 0.025 (2^−5 = 0.031): the 5, 10, 20, 40 schedule spends
    # 0.9 of α at 10 trials and 0.05 at each of 20 and 40
    assert sequential.look_shares(_plan()) == pytest.approx(
        [0.0, rules.FIRST_LOOK_SHARE, (1 - rules.FIRST_LOOK_SHARE) / 2,
         (1 - rules.FIRST_LOOK_SHARE) / 2])
    assert sequential.look_shares(_plan(*PAPER)) == pytest.approx(
        [rules.FIRST_LOOK_SHARE, 1 - rules.FIRST_LOOK_SHARE])
    # one planned look: the whole of α; a count off the schedule (replicates pooled, a study
    # extended by hand): none, so no pooling of files can spend a share twice
    assert sequential.look_share(sequential.Plan(10, 10, [10]), 10) == 1.0
    assert sequential.look_share(sequential.Plan(10, 10, [10]), 20) == 0.0
    assert sequential.look_share(_plan(), 7) == 0.0
    assert sequential.look_share(_plan(), 30) == 0.0


def test_the_correction_divides_each_test_once_by_its_looks_share():
    plan = _plan()
    early, first, later = (_row("c", np.ones(n)) for n in (5, 10, 20))
    sec = Row(rules.SECONDARY, "c/d=8", "", "", "m", "", tests=first.groups[0].tests)
    p1, p2 = first.groups[0].tests[0].p_confirm, later.groups[0].tests[0].p_confirm
    sequential.correct_for_looks([early, first, sec, later], plan)
    assert first.groups[0].tests[0].p_confirm == pytest.approx(p1 / rules.FIRST_LOOK_SHARE)
    assert later.groups[0].tests[0].p_confirm == pytest.approx(
        min(1.0, p2 * 2 / (1 - rules.FIRST_LOOK_SHARE)))
    assert first.groups[0].tests[0].looks == pytest.approx(1 / rules.FIRST_LOOK_SHARE)
    # a look that cannot decide spends none of α: its tests can neither confirm nor refute
    assert early.groups[0].tests[0].p_confirm == 1.0
    assert early.groups[0].tests[0].p_refute == 1.0
    single = _row("c", np.ones(10))
    p = single.groups[0].tests[0].p_confirm
    sequential.correct_for_looks([single], sequential.Plan(10, 10, [10]))
    assert single.groups[0].tests[0].p_confirm == p


def test_the_paper_schedule_decides_at_its_first_look_under_holm():
    """10 trials all on the confirming side decide a row at the first look under Holm's
    correction over 20 primary rows (the full run has about that many)."""
    plan = _plan(*PAPER)
    rows = [_row(f"c{i}", np.ones(PAPER[0])) for i in range(20)]
    sequential.correct_for_looks(rows, plan)
    finish(rows)
    assert all(r.verdict == rules.CONFIRMED for r in rows)


@functools.lru_cache(maxsize=None)
def _confirms(counts: tuple, trials: int, corrected: bool, schedule: tuple = (FIRST, CAP),
              tolerated: float = rules.TOLERATED) -> bool:
    """The rules' decision when claim i has counts[i] of `trials` per-trial values above the
    threshold (the sign test sees nothing else): whether some claim is confirmed."""
    with _tolerating(tolerated):
        rows = [_row(f"c{i}", np.r_[np.ones(k), -np.ones(trials - k)])
                for i, k in enumerate(counts)]
        if corrected:
            sequential.correct_for_looks(rows, _plan(*schedule))
        finish(rows)
    return any(r.verdict == rules.CONFIRMED for r in rows)


@contextlib.contextmanager
def _tolerating(fraction: float):
    """The rules with another tolerated fraction of failing trials (0.5: the median test
    alone)."""
    kept = rules.TOLERATED
    rules.TOLERATED = fraction
    try:
        yield
    finally:
        rules.TOLERATED = kept


MEDIAN_ONLY = 0.5


def exact_rate(claims: int, corrected: bool, first: int = FIRST, cap: int = CAP,
               tolerated: float = rules.TOLERATED) -> float:
    """P(some claim ends confirmed) over the whole adaptive procedure, each claim false at the
    boundary: a walk over the counts above the threshold, ended by the first confirmation (a
    claim that is not confirmed at a look is open: its trials grow to the next look)."""
    schedule = sequential.looks(first, cap)
    alive = {(0,) * claims: 1.0}  # law of the counts, on runs not yet confirmed
    wrong, before = 0.0, 0
    for n in schedule:
        step = sps.binom(n - before, 0.5).pmf(np.arange(n - before + 1))
        grown: dict = {}
        for counts, p in alive.items():
            partial = {(): p}
            for k in counts:
                partial = {c + (k + j,): q * step[j] for c, q in partial.items()
                           for j in range(len(step))}
            for c, q in partial.items():
                grown[c] = grown.get(c, 0.0) + q
        alive = {}
        for counts, p in grown.items():
            if _confirms(tuple(counts), n, corrected, (first, cap), tolerated):
                wrong += p
            else:
                alive[counts] = p
        before = n
    return wrong


def test_adaptive_trials_keep_the_error_of_a_wrong_confirmed_at_alpha():
    corrected, naive = exact_rate(1, True), exact_rate(1, False)
    median, median_naive = (exact_rate(1, c, tolerated=MEDIAN_ONLY) for c in (True, False))
    print(f"\none claim false at the boundary, looks at {sequential.looks(FIRST, CAP)}, exact: "
          f"wrong 'confirmed' {corrected:.4f} with the correction over looks, {naive:.4f} "
          f"re-testing at every look without it; the median test alone: {median:.4f} "
          f"corrected, {median_naive:.4f} naive (α = {rules.ALPHA})")
    assert corrected <= rules.ALPHA and median <= rules.ALPHA
    assert median_naive > rules.ALPHA  # naive re-testing errs beyond the nominal level


def test_the_paper_schedule_keeps_the_error_at_alpha():
    corrected, naive = exact_rate(1, True, *PAPER), exact_rate(1, False, *PAPER)
    print(f"\none claim false at the boundary, looks at {sequential.looks(*PAPER)}, exact: "
          f"wrong 'confirmed' {corrected:.4f} corrected, {naive:.4f} naive")
    assert corrected <= rules.ALPHA


@pytest.mark.parametrize("law", list(LAWS))
def test_a_simulation_of_the_procedure_agrees_with_the_exact_rates(law):
    for corrected in (True, False):
        rate = _rate(LAWS[law], 1, corrected, 1)
        exact = exact_rate(1, corrected)
        se = np.sqrt(exact * (1 - exact) / REPS)
        print(f"\n{law}: simulated {rate:.4f} ({REPS} runs), exact {exact:.4f}, corrected "
              f"{corrected}")
        assert abs(rate - exact) <= 4 * se + 1e-12


def test_two_claims_under_holm_keep_the_familywise_error():
    corrected = exact_rate(2, True)
    median, median_naive = (exact_rate(2, c, tolerated=MEDIAN_ONLY) for c in (True, False))
    print(f"\ntwo claims, both false at the boundary, Holm over them, exact: any wrong "
          f"'confirmed' {corrected:.4f} corrected; the median test alone: {median:.4f} "
          f"corrected, {median_naive:.4f} naive")
    assert corrected <= rules.ALPHA and median <= rules.ALPHA
    assert median_naive > rules.ALPHA


def test_replicates_added_after_an_inconclusive_row_spend_no_more_alpha():
    """After the schedule ends open, replicate files (another seed, the same configuration)
    pooled into the study give trial counts that are none of the schedule's: they get no share
    of α, so adding them cannot raise the rate of a wrong 'confirmed', and the shares spent over
    any sequence of counts sum to 1 at most. The rules before 4.0 gave such a count the smallest
    share again, once per replicate: with R replicates the shares summed to 1 + R·0.05, and the
    weighted Bonferroni bound on the error (α times that sum) no longer held."""
    law = LAWS["log-normal, median 0"]
    with_replicates = _rate(law, 1, True, 3, replicates=REPLICATES)
    without = _rate(law, 1, True, 3)
    se = np.sqrt(rules.ALPHA * (1 - rules.ALPHA) / REPS)
    print(f"\nreplicates after the cap ({REPS} runs, looks {sequential.looks(FIRST, CAP)} then "
          f"{REPLICATES} replicate batches of {FIRST}): wrong 'confirmed' {with_replicates:.4f} "
          f"(without replicates {without:.4f})")
    assert with_replicates == without  # the same draws: off-schedule looks never decide
    assert with_replicates <= rules.ALPHA + 2 * se
    plan = _plan()
    counts = plan.schedule + [CAP + FIRST * r for r in range(1, 21)] + [7, 13]
    assert sum(sequential.look_share(plan, c) for c in counts) == pytest.approx(1.0)
