"""Trials until decided: a study looks at its data after each batch of trials and adds trials
only where a claim is still open, without inflating the error rates of its verdicts.

The design (docs/VERDICT_RULES.md, "Trials until decided"):

- **A fixed schedule of looks, the study's own.** A study planned with `max-trials = M` and a
  first batch of `trials = T` may be looked at after T, 2T, 4T, … trials per point, capped at M:
  the schedule `looks(T, M)`, K looks at most, fixed before any data is seen, and read from the
  study's configuration (every file starting at trial 0 must plan the same T; files that do not
  decide nothing), never from whichever file comes first. Every extension runs the trials from
  one look to the next at the points it extends (`first-trial`, `select`), so a point's trial
  count is one of the schedule's; a count that is not (replicates pooled off the schedule, a
  point extended by hand) gets no share of α, so no pooling of files can spend a share twice.
- **α split over the looks, most of it at the first that can decide.** The first look whose
  trial count t can decide at all (2^−t ≤ α: an exact sign test over fewer trials never reaches
  α) spends `rules.FIRST_LOOK_SHARE` (0.9) of α, each later look an equal part of the rest, a
  look before it nothing: a test read at look j has its p-value divided by that look's share w_j
  (weighted Bonferroni over the looks, Σ w_j = 1, the w_j fixed by the schedule and α alone).
  Whatever rule decides when to stop (here: a claim stops when it is decided), the chance that
  some look gives p ≤ w_j·α under the null is at most Σ w_j·α = α, so the corrected
  p-value is a valid p-value at every level, and the rules built on it (intersection-union over
  groups, Bonferroni over refuting groups, Holm over claims) keep their guarantees. The paper's
  claims are expected to be decided at the first look, which therefore gets nearly all of α: a
  first batch of 10 trials then decides a row under Holm's correction over about 20 rows, where
  an equal split would need 12. tests/python/test_sequential.py shows by simulation that the
  adaptive procedure's rate of a wrong "confirmed" stays at or below α with the claim false at
  the boundary, also with replicates added after the schedule ends open, and that testing again
  at every look without the correction exceeds it (with the median test alone).
- **Where to add trials.** After a look, the groups of every primary claim that is still
  inconclusive, whose every point holds the trials of the current look (so the schedule is
  kept) and is complete, are extended to the next look: the claim's model and its paired partner
  (Thm 3's rf, the softmax contrast's raf) at the group's d, in the studies that hold them. A
  claim already decided, a group whose design cannot be judged (too few n in the regime) or a
  study at its cap gets no more trials.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from .. import rules
from ..reading import stored_config
from .claim_list import CLAIMS


def looks(first: int, cap: int) -> list:
    """The trial counts after which a study may be looked at: first, 2·first, 4·first, …, cap
    (only `first` when cap ≤ first)."""
    first, cap = int(first), int(cap)
    if first < 1:
        raise ValueError(f"a first batch of {first} trials")
    out = [first]
    while out[-1] < cap:
        out.append(min(cap, 2 * out[-1]))
    return out


@dataclass
class Plan:
    """A study's schedule of looks (from its configuration: every file of the study agrees)."""

    first: int          # trials of the first batch
    cap: int            # max-trials (0: none planned)
    schedule: list = field(default_factory=list)
    mixed: str = ""     # why the files of the study give no one plan (then nothing is decided)

    @property
    def looks(self) -> int:
        return len(self.schedule)

    def look_of(self, trials: int) -> int:
        """1-based look whose trial count is `trials` (0 when it is none of the schedule's)."""
        return self.schedule.index(trials) + 1 if trials in self.schedule else 0

    def next_trials(self, trials: int) -> int:
        """The trial count of the look after `trials` (0 at the cap or off the schedule)."""
        k = self.look_of(trials)
        return self.schedule[k] if 0 < k < len(self.schedule) else 0


def study_plan(study) -> Plan:
    """The schedule of a reading.Study, from its configuration: the first batch T is the trials
    of the files that start at trial 0 (every such file, replicates with another seed included,
    must plan the same T), the cap its max-trials (part of the study's configuration, the same
    in every file); without max-trials it has one look. The order of the files changes nothing;
    files that plan different first batches, or a study none of whose files starts at trial 0,
    give a plan with `mixed` set: its claims are not decided."""
    firsts, cap, extended = {}, 0, False
    for res in study.files:
        config = stored_config.of(res)
        cap = max(cap, int(stored_config.value(config, "max-trials")))
        trials = int(stored_config.value(config, "trials", 0))
        if int(stored_config.value(config, "first-trial")) > 0:
            extended = True
        elif trials > 0:
            firsts.setdefault(trials, []).append(os.path.basename(str(getattr(res, "path", "?"))))
    if len(firsts) > 1:
        plans = "; ".join(f"{', '.join(files)}: {t} trials" for t, files in sorted(firsts.items()))
        return Plan(0, cap, [], mixed=f"the files of this study plan different first batches "
                                      f"({plans}): no schedule of looks, nothing decided")
    if not firsts:
        if extended:
            return Plan(0, cap, [], mixed="no file of this study holds its first batch "
                                          "(first-trial 0): its schedule of looks is unknown, "
                                          "nothing decided")
        return Plan(0, cap, [])  # no configuration states its trials: one look, uncorrected
    first = next(iter(firsts))
    return Plan(first, cap, looks(first, cap) if cap > first else [first])


def deciding_looks(plan: Plan) -> list:
    """0-based indices of the looks at which a test can decide anything: those whose trial count
    t lets an exact sign test (every rule's test) reach α at all, 2^−t ≤ α. A look before that
    (5 trials at α = 0.025: 2^−5 = 0.031) cannot confirm or refute whatever share it gets, so it
    gets none. All looks when none can (the shares must still sum to 1)."""
    can = [j for j, t in enumerate(plan.schedule) if 0.5 ** t <= rules.ALPHA]
    return can or list(range(plan.looks))


def look_shares(plan: Plan) -> list:
    """The part of α each planned look may spend, fixed by the schedule and α alone (before any
    data): 1 with one planned look; otherwise rules.FIRST_LOOK_SHARE at the first look that can
    decide (deciding_looks), (1 − that)/(J − 1) at each of the J − 1 later deciding looks, 0 at a
    look that cannot decide. They sum to 1."""
    if plan is None or plan.looks <= 1:
        return [1.0]
    can = deciding_looks(plan)
    shares = [0.0] * plan.looks
    if len(can) == 1:
        shares[can[0]] = 1.0
        return shares
    shares[can[0]] = rules.FIRST_LOOK_SHARE
    for j in can[1:]:
        shares[j] = (1.0 - rules.FIRST_LOOK_SHARE) / (len(can) - 1)
    return shares


def look_share(plan: Plan, trials: int) -> float:
    """The part of α that a test read at `trials` trials per point may spend (look_shares); a
    trial count that is none of the schedule's (replicates pooled off it, a study extended by
    hand, a partial look) gets none: no way of pooling files can spend a share twice."""
    if plan is None:
        return 1.0
    k = plan.look_of(trials)
    return look_shares(plan)[k - 1] if k else 0.0


def _no_share_text(plan: Plan, trials: int) -> str:
    """Why a test read at `trials` trials spends no α: its look cannot decide (deciding_looks),
    or its trial count is none of the schedule's."""
    k = plan.look_of(trials)
    if k:
        return (f"look {k} of {plan.looks} ({trials} trials) cannot decide: an exact sign test "
                f"of {trials} trials cannot reach α = {rules.ALPHA:g}, so the schedule gives "
                f"this look no share of α")
    return f"{trials} trials is none of the study's looks {plan.schedule}: no share of α"


def correct_for_looks(rows: list, plan: Plan) -> None:
    """Divides every test p-value of `rows` (their own tests and their groups') by the share of α
    of the look its trials were read at (look_share), once per test object; a look without a
    share leaves every p-value at 1. A study whose files give no one plan decides nothing: its
    claims' rows are unavailable with the reason."""
    if plan is None or (not plan.schedule and not plan.mixed):
        return  # a study whose configuration states no trials (tables by hand): one look
    seen: set = set()
    for r in rows:
        if plan.mixed and r.kind in (rules.PRIMARY, rules.EXTENSION):
            r.unavailable = plan.mixed
        tests = list(r.tests) + [t for g in r.groups for t in g.tests]
        for t in tests:
            if id(t) in seen:
                continue
            seen.add(id(t))
            share = look_share(plan, t.trials) if not plan.mixed else 0.0
            factor = 1.0 / share if share > 0 else np.inf
            for attr in ("p_confirm", "p_refute"):
                p = getattr(t, attr)
                if p is not None and np.isfinite(p):
                    setattr(t, attr, min(1.0, factor * p) if share > 0 else 1.0)
            t.looks = factor
            if share == 0 and t.trials and not plan.mixed:
                t.blocked = t.blocked or _no_share_text(plan, t.trials)


@dataclass
class Extension:
    """The next batch of one study: trials [first, first + trials) at the selected points."""

    study: str
    first: int
    trials: int
    cap: int
    selectors: list   # "model:raf,d:384" …
    claims: list      # the open claims that ask for it

    def select(self) -> str:
        return ";".join(sorted(set(self.selectors)))

    def line(self) -> str:
        return (f"{self.study}\t{self.first}\t{self.trials}\t{self.cap}\t{self.select()}\t"
                f"{','.join(sorted(set(self.claims)))}")


def _selectors(experiment: str, model: str, axes: dict, partner: bool) -> list:
    """The `select` selectors of a group's points: one per n of its design (a partner model is
    read at the group's d and n only)."""
    base = f"experiment:{experiment},model:{model},d:{int(axes['d'])}"
    if not partner:
        for axis in ("k", "N", "L", "H"):
            if axis in axes:
                base += f",{axis}:{int(axes[axis])}"
    return [f"{base},n:{int(n)}" for n in axes.get("n", [])] or [base]


def _matching(tasks, selector: str):
    """The rows of a task table a selector matches (one changed word)."""
    if tasks is None or tasks.empty:
        return tasks
    column = {"experiment": "experiment", "model": "model", "d": "d", "n": "n", "k": "k",
              "N": "N", "L": "layers", "H": "heads"}
    mask = np.ones(len(tasks), dtype=bool)
    for part in selector.split(","):
        axis, value = part.split(":", 1)
        col = tasks[column[axis]]
        mask &= (col.astype(str) == value) if axis in ("experiment", "model") else \
            (col.astype(np.int64) == int(value))
    if "words" in tasks:
        mask &= tasks["words"].astype(np.int64) == 1
    return tasks[mask]


def _state(study, selectors: list):
    """(trial count, all done, the selectors that match points) of a study's points the
    selectors match (a partner's grid may lack some of the group's n): None when they match
    nothing or points with different trial counts (extended unevenly by hand)."""
    counts, done, used = set(), True, []
    for sel in selectors:
        sub = _matching(study.tasks, sel)
        if sub is None or sub.empty:
            continue
        used.append(sel)
        keys = [c for c in ("experiment", "model", "n", "d", "k", "layers", "heads", "N")
                if c in sub]
        counts |= set(int(v) for v in sub.groupby(keys)["trial"].size().unique())
        if "done" in sub:
            done = done and bool(sub["done"].astype(bool).all())
    if len(counts) != 1:
        return None
    return counts.pop(), done, used


def next_batch(rows: list, labels: list, studies: list) -> list:
    """The extensions that the verdicts `rows` (decided, with their study `labels`) ask for: one
    per study holding points of a group of an open claim, at the study's next look. A claim is
    open when no primary row decides it (claim_state); its groups that already confirm at the
    level Holm gives the first claim, whose tests lack data of a partner model, or whose points
    are not finished get no trials. Empty when every claim is decided or every open group is at
    its study's cap."""
    by_label = {s.label: s for s in studies}
    plans = {s.label: study_plan(s) for s in studies}
    decided = decided_claims(rows)
    wanted: dict = {}
    for r, label in zip(rows, labels):
        if r.kind != rules.PRIMARY or r.verdict != rules.INCONCLUSIVE or not r.groups:
            continue
        if r.claim in decided:
            continue
        claim = CLAIMS.get(r.claim.split("[")[0])
        if claim is None or claim.table not in ("ws", "gen") or label not in by_label:
            continue
        for g in r.groups:
            # A group without usable trials enough is what more trials fix (an unfinished point
            # is finished first); a test without data (its partner model absent) is not.
            if not g.axes or (not g.unavailable and any(t.trials == 0 for t in g.tests)):
                continue
            if _decided_alone(g, rows):
                continue
            targets = [(label, claim.model, False)]
            if g.partner:
                targets.append((g.partner[1], g.partner[0], True))
            for slabel, model, partner in targets:
                s = by_label.get(slabel)
                if s is None:
                    continue
                sels = _selectors(claim.table, model, g.axes, partner)
                state = _state(s, sels)
                if state is None or not state[1]:
                    continue
                have = state[0]
                nxt = plans[slabel].next_trials(have)
                if nxt <= have:
                    continue
                ext = wanted.setdefault((slabel, have), Extension(
                    slabel, have, nxt - have, plans[slabel].cap, [], []))
                ext.selectors += state[2]
                ext.claims.append(r.claim)
    return sorted(wanted.values(), key=lambda e: (e.study, e.first))


def decided_claims(rows: list) -> set:
    """Claims (as their primary rows name them, e.g. thm45_rf[finetune]) that some primary row
    decides: contradicted, or a positive verdict (the report's claim verdict, verdicts.py)."""
    out = set()
    for r in rows:
        if r.kind == rules.PRIMARY and (r.verdict in rules.POSITIVE
                                        or r.verdict == rules.CONTRADICTED):
            out.add(r.claim)
    return out


def _decided_alone(g, rows: list) -> bool:
    """Whether a group confirms at the level Holm gives the first of the report's primary claims
    (α divided by their number): more trials cannot be what its claim lacks there."""
    family = sum(1 for r in rows if r.kind == rules.PRIMARY and np.isfinite(r.p_confirm))
    p_c, _ = g.p_values()
    return bool(np.isfinite(p_c) and p_c <= rules.ALPHA / max(1, family))


def looks_text(plan: Plan, trials: int) -> str:
    """'look 2 of 3 (20 trials)' for a row read at `trials` trials."""
    if not plan.schedule or trials <= 0:
        return ""
    k = plan.look_of(trials)
    if k == 0:
        return f"{trials} trials (off the schedule {plan.schedule})"
    return f"look {k} of {plan.looks} ({trials} trials)"
