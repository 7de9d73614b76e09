"""The public face of the analysis for notebooks and scripts: load results files, judge them as
`wordsens-report` does, and take any verdict apart into the per-trial values it was decided on.

    import wordsens_analysis as wa
    results = wa.load("results/quick.h5")
    judged = wa.judge(results)
    judged.table                         # the report's verdicts.csv, row for row
    stat = judged.statistic("thm1_rf")   # the test behind that row's estimate
    stat.per_trial, stat.estimate, stat.confirm, stat.p_confirm

The package exports these names (its __all__) and docs/python-api.md documents them: they keep
their meaning from one release to the next, the modules behind them need not.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import claims as claim_defs
from . import rules
from .claims import verdicts
from .reading import Results, build_studies, read_results

# The judged kinds of row a statistic can be asked of (integrity rows hold no per-trial test).
_WITH_TESTS = (rules.PRIMARY, rules.EXTENSION, rules.SECONDARY)


def load(paths):
    """Read one results file (a path: returns its Results) or several (a list or tuple of
    paths: returns a list of Results, in the order given).

    The reader's repairs of a partial file are warned about and kept in `Results.notes`; a file
    that is not a wordsens results file raises ResultsFileError (DamagedFileError when HDF5
    cannot read it)."""
    if isinstance(paths, (list, tuple)):
        return [read_results(p) for p in paths]
    return read_results(paths)


def _as_list(results) -> list:
    if isinstance(results, Results):
        return [results]
    if isinstance(results, (str, os.PathLike)):
        return [read_results(results)]
    out = list(results)
    return [r if isinstance(r, Results) else read_results(r) for r in out]


def _where(results: list) -> str:
    # The words the report gives an absent claim's reason (report/writer.write_report), so that
    # the table here is verdicts.csv to the letter.
    return "in this file" if len(results) == 1 else "in any of the files"


@dataclass
class Statistic:
    """One test of a verdict: the per-trial values it judged and what it made of them.

    claim, study   the verdict table's row (`row`, a pandas Series) this test belongs to;
    group          the group of the claim's axes it judged ("d=64,k=1D"; "" for a row without
                   groups), with `axes` (d, L, H, k … and the design's values of n);
    label          what was measured (the `statistic` column names it), `evidence` its kind;
    per_trial      one value per trial (a Series indexed by the trial as the study numbers it:
                   the file's trial for one file; reading.TRIAL_STRIDE blocks per seed);
    estimate, ci_low, ci_high, trials
                   the median of per_trial, its distribution-free 95 % interval, their count;
    confirm, refute
                   the conditions as numbers, ("below", c), ("above", c), ("inside", lo, hi)
                   or None: the sign test counts the trials strictly on the confirming side;
    p_confirm, p_refute
                   the test's p-values as judged (the sign test's, times `looks`, the factor of
                   its look's share of α, capped at 1; 1 when `blocked`: more than `tolerated`
                   trials fail the claim); before the combination over groups and Holm;
    n_used         the values of n the group used (the end of the design for a slope).
    """

    claim: str
    study: str
    group: str
    label: str
    evidence: str
    per_trial: pd.Series
    estimate: float
    ci_low: float
    ci_high: float
    trials: int
    confirm: tuple | None
    refute: tuple | None
    p_confirm: float | None
    p_refute: float | None
    looks: float
    failures: int
    tolerated: int
    blocked: str
    n_used: str
    axes: dict = field(default_factory=dict)
    row: pd.Series | None = None


class Judgement:
    """The verdicts over some results files, with the tests behind every row.

    table     the verdict table, as the report writes verdicts.csv (columns: verdicts.COLUMNS);
    studies   the files grouped into studies (reading.build_studies: one file is one study),
              each with its records (`ws`, `gen`, `multi_word`) as the rules read them;
    notes     what the reader repaired and which repeated rows the grouping dropped.
    """

    def __init__(self, results):
        results = _as_list(results)
        self.studies, self.notes, _ = build_studies(results)
        for s in self.studies:
            self.notes += s.notes
        self.table, self._rows, self._labels = verdicts.judge_studies_with_rows(
            self.studies, _where(results))

    def headline(self) -> str:
        """The report's first line without its partial-input part: the claims' counts and the
        integrity checks."""
        return verdicts.headline(self.table)

    def claim_verdicts(self) -> pd.DataFrame:
        """One verdict per claim over the studies (the report's claims.csv)."""
        return verdicts.claim_verdicts(self.table)

    def records(self, table: str = "ws", study: str | None = None) -> pd.DataFrame:
        """A study's records as the rules read them (`table`: ws, gen or multi_word; trials and
        task ids numbered as reading/studies.py says, the study named in column `series`)."""
        s = self._study(study)
        return getattr(s, table)

    def statistic(self, claim: str, study: str | None = None) -> Statistic:
        """The test whose numbers the verdict table's row of `claim` shows (its estimate,
        interval and trials): the first test of the group that decides the claim, the one with
        the largest confirming p-value. `claim` is the row's claim ("thm1_rf",
        "thm45_rf[finetune]", a group's "thm1_rf/d=64,k=1D"); `study` is needed when several
        studies judge it."""
        row, label = self._row(claim, study)
        test = row.deciding_test()
        if test is None:
            raise LookupError(f"{claim}: no test decided this row ({row.reason})")
        return next(s for s in self._statistics(row, label) if s._test is test).public()

    def statistics(self, claim: str, study: str | None = None) -> list:
        """Every test of the row of `claim`: each group's tests in order (a Θ(·) claim's level
        and growth tests beside its slope), as Statistic objects."""
        row, label = self._row(claim, study)
        return [s.public() for s in self._statistics(row, label)]

    # --- finding rows ---------------------------------------------------------------------

    def _study(self, study: str | None):
        labels = [s.label for s in self.studies]
        if study is None and len(labels) == 1:
            return self.studies[0]
        found = [s for s in self.studies if s.label == study]
        if not found:
            raise LookupError(f"study {study!r} is none of {', '.join(labels)}")
        return found[0]

    def _row(self, claim: str, study: str | None):
        found = [(r, lab) for r, lab in zip(self._rows, self._labels)
                 if r.claim == claim and r.kind in _WITH_TESTS
                 and (study is None or lab == study)]
        if not found:
            known = sorted({r.claim for r in self._rows if r.kind in (rules.PRIMARY,
                                                                     rules.EXTENSION)})
            raise LookupError(f"no judged row of claim {claim!r}"
                              f"{f' in study {study!r}' if study else ''}; the primary and "
                              f"extension rows are: {', '.join(known)}")
        if len(found) > 1:
            raise LookupError(f"{claim} is judged in several studies "
                              f"({', '.join(lab for _, lab in found)}): name one with study=")
        return found[0]

    def _table_row(self, row, label: str) -> pd.Series:
        t = self.table
        hit = t[(t["claim"] == row.claim) & (t["kind"] == row.kind)
                & (t[verdicts.STUDY] == label)]
        return hit.iloc[0] if len(hit) else None

    def _statistics(self, row, label: str) -> list:
        line = self._table_row(row, label)
        groups = row.groups or [None]
        out = []
        for g in groups:
            for t in (g.tests if g is not None else row.tests):
                out.append(_Found(t, row.claim, label, g, line, row.n_used))
        return out


class _Found:
    """A test with where it was found, before it is made a Statistic."""

    def __init__(self, test, claim, study, group, line, n_used):
        self._test, self._claim, self._study = test, claim, study
        self._group, self._line, self._n_used = group, line, n_used

    def public(self) -> Statistic:
        t, g = self._test, self._group
        values = t.per_trial
        if values is None:
            values = pd.Series(dtype=float)
        elif not isinstance(values, pd.Series):
            values = pd.Series(np.asarray(values, dtype=float))
        return Statistic(
            claim=self._claim, study=self._study, group=g.label if g is not None else "",
            label=t.label, evidence=t.evidence, per_trial=values.astype(float),
            estimate=float(t.estimate), ci_low=float(t.ci_low), ci_high=float(t.ci_high),
            trials=int(t.trials), confirm=t.confirm_cond, refute=t.refute_cond,
            p_confirm=t.p_confirm, p_refute=t.p_refute, looks=float(t.looks),
            failures=int(t.failures), tolerated=int(t.tolerated), blocked=t.blocked,
            n_used=(g.n_used if g is not None else self._n_used),
            axes=dict(g.axes) if g is not None else {}, row=self._line)


def judge(results) -> Judgement:
    """Judge results as `wordsens-report` does: `results` is a Results, a path, or a list of
    either (files of one study are pooled, different studies judged apart, reading/studies.py)."""
    return Judgement(results)


def verdicts_table(results) -> pd.DataFrame:
    """The verdict table of `results` (a Results, a path, or a list of either): the report's
    verdicts.csv, one row per decision (docs/VERDICT_RULES.md, "Reading a report")."""
    return judge(results).table


def claim_statistic(results, claim: str, study: str | None = None) -> Statistic:
    """The test behind the verdict table's row of `claim` (Judgement.statistic) for `results`
    (a Results, a path, or a list of either). To ask about several claims, judge once with
    judge() and call its statistic()."""
    return judge(results).statistic(claim, study)


def claim_table() -> pd.DataFrame:
    """Every claim the rules judge, in the report's order: id, theorem, name, model, table (the
    records it reads: ws, gen, multi_word), regime, judged (how), extension (beyond the paper)
    and reads (the columns its verdict rests on, "rf:S_upper" for another model's)."""
    rows = []
    for c in claim_defs.CLAIMS.values():
        reads = ", ".join(f"{m}:{col}" if m else col for m, col in c.reads)
        rows.append({"id": c.id, "theorem": c.theorem, "name": c.name, "model": c.model,
                     "table": c.table, "regime": c.regime, "judged": c.judged,
                     "extension": c.extension, "reads": reads})
    return pd.DataFrame(rows)
