"""More trials, said to a person: the command that runs a study's next look (one per extension
that `--next-batch` prints), or why the open claims cannot take more trials.

`--next-batch` prints its extensions for scripts (jobs/reproduce_paper.sh reads them); these
lines go beside them to stderr and into the report, so a user who sees an inconclusive row knows
what to run next, or that nothing they can run keeps the verdict rules' level."""
from __future__ import annotations

import os
import shlex

from .. import rules
from ..reading import stored_config
from . import sequential

# Options of the first batch's command line that an extension replaces or must not repeat.
_REPLACED = ("--output", "-o", "--overwrite", "--first-trial", "--trials", "--max-trials",
             "--select", "--dry-run", "--shard")


def _first_batch(study):
    """The study's file that holds its first batch (first-trial 0), else its first file."""
    for res in study.files:
        if int(stored_config.value(stored_config.of(res), "first-trial")) == 0:
            return res
    return study.files[0]


def _run_command_line(study, first) -> str:
    """A `wordsens run` command line of the study: the first batch's, or, when that file was
    merged from shards (its command is `wordsens merge …`), a shard's of the study; "" when no
    file of the study holds one."""
    for res in [first, *study.files]:
        words = str(res.attrs.get("command_line") or "").split(" ")
        if len(words) > 1 and os.path.basename(words[0]) == "wordsens" and words[1] == "run":
            return " ".join(words)
    return ""


def _base_command(line: str) -> list:
    """A `wordsens run` command line without the options an extension sets (and the shard: the
    next look runs every selected point)."""
    words = line.split(" ")
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in _REPLACED:
            # "--output X" and "-o X" carry their value in the next word; a switch does not.
            skip = "=" not in word and name not in ("--overwrite", "--dry-run")
            continue
        out.append(word)
    if out and os.path.basename(out[0]) != "wordsens":
        out[0] = "wordsens"
    return out or ["wordsens", "run"]


def command(ext, study) -> str:
    """The `wordsens run` of extension `ext` (sequential.Extension) of `study`, into the file
    name jobs/reproduce_paper.sh gives a look."""
    plan = sequential.study_plan(study)
    res = _first_batch(study)
    stem = str(getattr(res, "path", study.label))
    stem = stem[:-3] if stem.endswith(".h5") else stem
    last = ext.first + ext.trials
    look = plan.look_of(last) or 2
    line = _run_command_line(study, res)
    if not line:
        # No file says how the study was run (a merged file's command is the merge): the user's
        # configuration file stands for it.
        line = "wordsens run CONFIG.ini"
    words = _base_command(line) + [
        f"--first-trial={ext.first}", f"--trials={ext.trials}", f"--max-trials={ext.cap}",
        f"--select={ext.select()}", f"--output={stem}.look-{look}-trials-{ext.first}-{last}.h5"]
    return " ".join(shlex.quote(w) for w in words)


def commands(extensions: list, studies: list) -> list:
    """One line per extension: its study, the trials it adds, the claims asking, the command."""
    by_label = {s.label: s for s in studies}
    out = []
    for ext in extensions:
        study = by_label.get(ext.study)
        if study is None:
            continue
        out.append(f"{ext.study}: trials {ext.first}–{ext.first + ext.trials - 1} at the points "
                   f"of {', '.join(sorted(set(ext.claims)))}: {command(ext, study)}")
    return out


def _trials_held(study) -> int:
    """The most trials any planned point of the study holds."""
    tasks = study.tasks
    if tasks is None or tasks.empty or "point_id" not in tasks:
        return 0
    return int(tasks.groupby("point_id")["trial"].nunique().max())


def why_none(rows: list, labels: list, studies: list) -> list:
    """Why no extension is asked for, one line per study with an open claim (an open claim is a
    primary inconclusive row that no other primary row decides and that has data: a claim about
    a model no study here ran is not open, it is not in these files); empty when nothing is
    open."""
    decided = sequential.decided_claims(rows)
    by_label = {s.label: s for s in studies}
    open_claims: dict = {}
    for r, label in zip(rows, labels):
        if (r.kind == rules.PRIMARY and r.verdict == rules.INCONCLUSIVE and r.groups
                and label and r.claim not in decided):
            open_claims.setdefault(label, []).append(r.claim)
    out = []
    for label, names in sorted(open_claims.items()):
        what = f"{label}: {', '.join(sorted(set(names)))} open"
        study = by_label.get(label)
        if study is None:
            continue
        out.append(what + _why_not(study) + _design_notes(rows, labels, label))
    return out


def _why_not(study) -> str:
    """Why the study's plan adds no trials."""
    plan = sequential.study_plan(study)
    held = _trials_held(study)
    if plan.mixed:
        return f": {plan.mixed}"
    if plan.looks <= 1:
        first = plan.first or held
        return (f"; the study planned one look (no max-trials above its {first} trials), so "
                f"trials added after its verdicts would not hold the rules' level: plan the "
                f"looks of a new study (trials = {first}, max-trials = {2 * first} or more)")
    if held >= plan.cap:
        return (f" at the study's max-trials ({plan.cap}): more trials would need a new study "
                f"that plans them")
    return ("; more trials of this study cannot decide them (a point not finished: resume the "
            "run first; or a test that lacks its partner model's data: report the partner's "
            "file with it)")


def _design_notes(rows: list, labels: list, label: str) -> str:
    """What keeps an open claim of the study open whatever the trials: its groups' own reasons
    when none of them has a test to run (too few n in the regime, …)."""
    notes = []
    for r, lab in zip(rows, labels):
        if (lab == label and r.kind == rules.PRIMARY and r.verdict == rules.INCONCLUSIVE
                and r.groups and all(g.unavailable and not g.tests for g in r.groups)):
            notes.append(f"{r.claim}: {r.groups[0].unavailable}")
    return f" (and as designed, {'; '.join(notes)})" if notes else ""
