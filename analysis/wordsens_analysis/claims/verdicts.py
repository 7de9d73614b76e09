"""The verdict table of a report: every claim (claim_list.py) judged on every study of the report.

One pipeline for one file and for many: the files are grouped into studies (reading/studies.py; one
file is one study), each claim builds its rows on each study that holds its model, Holm's
correction runs once over every primary row of the report (and once more over its extension
rows), and the integrity checks of each study are added. Four kinds of rows:
- primary: one per claim of the paper (per training mode for the heads) and study, the rows to
  read; a descriptive study (the regime map) gives none: its claims' rows are secondary;
- extension: the same for the claims beyond the paper (claims.EXTENSION_CLAIMS), only where a
  study runs their model, never counted in the first line;
- secondary: the breakdown (one row per group of every claim, diagnostics), each at its own
  level;
- integrity: checks that cannot fail for a correct program (bracket, certificates, heads'
  numerics and labels, search convergence). A failure is shown first and in red in the report,
  and leaves every claim that reads the failing column open (integrity.gate).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .. import rules
from ..reading import SERIES, Catalogue
from ..rules import Row, finish, group_rows, groups, integrity, regimes, tolerances
from . import more_trials, multi_word_claims, sequential
from .claim_list import CLAIMS, DIAGNOSTICS, RULES_HASH, TABLES, of_table
from .head_claims import prepare_gen
from .ws_claims import prepare_ws

VERDICT_COLUMNS = ["kind", "claim", "theorem", "name", "model", "d", "statistic", "estimate",
                   "ci_low", "ci_high", "trials", "looks", "p_confirm", "p_refute", "p_confirm_holm",
                   "p_refute_holm", "verdict", "reason", "regime", "n_used", "outside_regime",
                   "tests", "rules_version", "rules_hash"]
STUDY = "study"
COLUMNS = [STUDY, *VERDICT_COLUMNS]


@dataclass
class StudyData:
    """What the claims' rows builders read of one study.

    ws, gen: the records prepared for the rules (k labels, scopes; gen with objective 'best');
    gen_records: gen as stored (the integrity checks read it); words: every ws record, one
    changed word and several (multi_word_claims.all_words), or None without tasks of m ≥ 2;
    planned: the planned tasks with their k labels (None without a task table: the rules then
    judge the records that are there); partners: prepared ws rows of the report's other
    studies (paired contrasts on the same texts), or None; partner_tasks: those studies'
    planned tasks, each named by its study (a partner's grid is what it planned, not what it
    has done); settings: the rules' tolerances
    and regime cut (tolerances.Settings); catalogue: the models' kinds, the names the causal mask
    gives included (masked_names).
    """

    label: str
    ws: pd.DataFrame
    gen: pd.DataFrame
    gen_records: pd.DataFrame
    multi_word: pd.DataFrame | None
    words: pd.DataFrame | None
    fractions: list
    witness_checks: pd.DataFrame | None
    planned: pd.DataFrame | None = None
    partners: pd.DataFrame | None = None
    partner_tasks: pd.DataFrame | None = None  # the other studies' `planned` (SERIES named)
    descriptive: bool = False
    settings: tolerances.Settings = tolerances.RULES
    plan: sequential.Plan | None = None  # its schedule of looks (None: no correction)
    ws_records: pd.DataFrame | None = None  # ws as stored (one row per record), for integrity
    catalogue: Catalogue = field(default_factory=Catalogue.before_1_7)


def _labels_by_task(records: pd.DataFrame, planned: pd.DataFrame | None):
    """Each record's k label from its task's (so that a group is what the study planned, even
    where some of its points have no record yet); None when the tasks are not all listed."""
    if planned is None or records.empty or "task_id" not in records:
        return None
    by_task = planned.set_index("task_id")["k_label"]
    labels = records["task_id"].map(by_task)
    return None if labels.isna().any() else labels.to_numpy()


def under_mask(frame: pd.DataFrame | None, mask: str, catalogue) -> pd.DataFrame | None:
    """The frame as the rules see it: with mask = causal, the attention models' rows are named
    '<model>/causal' (with their traits: masked_names), so that the paper's claims never read a
    masked model and a paired contrast pairs masked with masked only."""
    if frame is None or frame.empty or mask != "causal" or "model" not in frame:
        return frame
    names = {model: f"{model}{CAUSAL_SUFFIX}" for model in frame["model"].unique()
             if catalogue.is_attention(model)}
    return frame.assign(model=frame["model"].replace(names)) if names else frame


def masked_names(catalogue):
    """The catalogue and, for each of its attention models, '<model>/causal' with the model's
    traits: the names under_mask gives them (known whether or not a study masks: a name no table
    holds is never looked up)."""
    return catalogue.with_models([replace(catalogue.traits(m), name=f"{m}{CAUSAL_SUFFIX}")
                                  for m in catalogue.attention_models()], "the causal mask")


CAUSAL_SUFFIX = "/causal"


def _prepared(ws, gen, tasks, grids: dict, settings, catalogue, **kw) -> StudyData:
    """The rules' view of one study's tables (already under its mask, `catalogue` knowing the
    masked names): each record's k label from its task's (grouped as the study's k grid gives the
    widths), a record whose width two grid items give entering both groups."""
    planned = groups.prepare_planned(tasks, SERIES, catalogue, grids)
    several = kw.pop("multi_word", None)
    return StudyData(
        ws=regimes.explode_k_labels(prepare_ws(ws, catalogue, _labels_by_task(ws, planned))),
        gen=regimes.explode_k_labels(prepare_gen(gen, catalogue, _labels_by_task(gen, planned))),
        gen_records=gen, multi_word=several,
        words=(multi_word_claims.all_words(ws, several, catalogue) if several is not None
               else None),
        planned=regimes.explode_k_labels(planned), settings=settings, ws_records=ws,
        catalogue=catalogue, **kw)


def study_data(study, partners: pd.DataFrame | None = None,
               settings: tolerances.Settings = tolerances.RULES,
               catalogue: Catalogue | None = None) -> StudyData:
    """The rules' view of a reading.Study (`catalogue`: masked_names of the study's catalogue
    unless given)."""
    catalogue = catalogue if catalogue is not None else masked_names(study.catalogue)
    mask = study.mask
    several = study.multi_word if study.multi_word is not None and not study.multi_word.empty \
        else None
    grids = {study.label: regimes.k_grid(study.files[0].attrs.get("config_text"))} \
        if study.files else {}
    return _prepared(under_mask(study.ws, mask, catalogue), under_mask(study.gen, mask, catalogue),
                     under_mask(study.tasks, mask, catalogue), grids, settings, catalogue,
                     label=study.label, multi_word=under_mask(several, mask, catalogue),
                     fractions=list(study.fractions), witness_checks=study.witness_checks,
                     partners=(regimes.explode_k_labels(prepare_ws(partners, catalogue))
                               if partners is not None else None),
                     descriptive=study.descriptive)


def _study_datas(studies: list, settings: tolerances.Settings) -> list:
    data = []
    # Every study of a report knows every file's models (reading.catalogue_of), so the first's
    # catalogue is the report's.
    catalogue = masked_names(studies[0].catalogue) if studies else Catalogue.before_1_7()
    for s in studies:
        others = [under_mask(o.ws, o.mask, catalogue) for o in studies
                  if o is not s and not o.ws.empty]
        sd = study_data(s, pd.concat(others, ignore_index=True) if others else None, settings,
                        catalogue)
        sd.plan = sequential.study_plan(s)
        data.append(sd)
    for sd in data:  # each study's planned tasks (named by their study) are its partners' too
        planned = [o.planned for o in data if o is not sd and o.planned is not None]
        sd.partner_tasks = pd.concat(planned, ignore_index=True) if planned else None
    return data


def judge_studies(studies: list, where: str = "in this file",
                  settings: tolerances.Settings = tolerances.RULES) -> pd.DataFrame:
    """The verdict table over reading.Study objects: each study's paired contrasts may take a
    partner model from the others (on the same texts only)."""
    return verdict_table(_study_datas(studies, settings), where)


def judge_studies_with_rows(studies: list, where: str = "in this file",
                            settings: tolerances.Settings = tolerances.RULES) -> tuple:
    """(judge_studies' table, its decided rows, their study labels) from one judgement: the
    rows hold the groups and tests behind each line of the table (api.py reads them)."""
    data = _study_datas(studies, settings)
    judged = judged_rows(data, where)
    return verdict_table(data, where, judged), judged[0], judged[1]


def next_batch(studies: list, where: str = "in this file") -> list:
    """The extensions by more trials that the verdicts over `studies` ask for (sequential.py)."""
    return next_batch_said(studies, where)[0]


def next_batch_said(studies: list, where: str = "in this file") -> tuple:
    """The extensions, and for people the command of each, or why there is none while claims
    are open (more_trials.py)."""
    rows, labels, _ = judged_rows(_study_datas(studies, tolerances.RULES), where)
    extensions = sequential.next_batch(rows, labels, studies)
    said = (more_trials.commands(extensions, studies) if extensions
            else more_trials.why_none(rows, labels, studies))
    return extensions, said


def judge_frames(ws: pd.DataFrame, gen: pd.DataFrame, witness_checks=None,
                 multi_word_records=None, fractions: tuple = (), label: str = "",
                 tasks: pd.DataFrame | None = None,
                 settings: tolerances.Settings = tolerances.RULES,
                 mask: str = "none", config_text: str | None = None,
                 catalogue: Catalogue | None = None) -> pd.DataFrame:
    """The verdict table of one study given as record tables (as read_results returns them,
    with its task table when there is one, its configuration's mask, its configuration text
    when there is one: its k grid groups the widths, and the catalogue of its models: its
    file's, Results.catalogue; the pre-1.7 catalogue's models without one): for notebooks and
    tests; a report over files uses reading.build_studies first."""
    catalogue = masked_names(catalogue if catalogue is not None else Catalogue.before_1_7())
    several = multi_word_records if multi_word_records is not None and \
        not multi_word_records.empty else None
    grid = regimes.k_grid(config_text)
    study = _prepared(under_mask(ws, mask, catalogue), under_mask(gen, mask, catalogue),
                      under_mask(tasks, mask, catalogue), {label: grid} if grid else {},
                      settings, catalogue, label=label,
                      multi_word=under_mask(several, mask, catalogue), fractions=list(fractions),
                      witness_checks=witness_checks)
    return verdict_table([study])


def claim_rows(study: StudyData) -> list:
    """The rows of every claim on one study, in the claims' order (diagnostics after the claims
    of their table) and the per-group rows of every primary row, not yet decided."""
    rows = []
    for table in TABLES:
        for c in of_table(table):
            built = c.rows(c, study)
            if c.extension:  # its claim rows form the extension family (rules.EXTENSION)
                for r in built:
                    if r.kind == rules.PRIMARY:
                        r.kind = rules.EXTENSION
            rows += built
        if table in DIAGNOSTICS:
            rows += DIAGNOSTICS[table](study)
    return rows + [g for r in rows if r.kind in JUDGED for g in group_rows(r)]


# The kinds of a claim's own rows (the paper's, and those beyond it).
JUDGED = (rules.PRIMARY, rules.EXTENSION)


def _holds(study: StudyData, c) -> bool:
    """Whether the study holds records of the claim's model in the claim's table."""
    frame = {"ws": study.ws, "gen": study.gen}.get(c.table)
    if frame is None:  # several words: judged in every study that has such tasks
        return True
    return not frame.empty and (frame["model"] == c.model).any()


def _own_claim(row: Row, study: StudyData) -> bool:
    """Whether a row speaks about a model the study holds (the primary rows of absent models are
    left out; a claim no study holds gets one row of its own, see _absent_rows)."""
    c = CLAIMS.get(row.claim.split("[")[0])
    return row.kind not in JUDGED or c is None or _holds(study, c)


DESCRIPTIVE_ONLY = " outside descriptive studies (which give secondary rows only)"


def _absent_reason(c) -> str:
    return f"no {c.model} {c.table} records "


def not_in_study(table: pd.DataFrame) -> pd.Series:
    """The primary rows of claims whose model (in the claim's table) no study of the report
    holds (_absent_rows): still inconclusive in verdicts.csv, but the first line leaves them out
    of its count and the report lists them once, so that a focused study is not told it left
    claims open that it never set out to judge. A claim held only by a descriptive study is
    held: it stays counted, with its reason."""
    if table.empty:
        return pd.Series(False, index=table.index)

    def absent(r) -> bool:
        c = CLAIMS.get(r.claim)
        return (r.kind == rules.PRIMARY and c is not None and not getattr(r, STUDY)
                and str(r.reason).startswith(_absent_reason(c))
                and not str(r.reason).endswith(DESCRIPTIVE_ONLY))
    return pd.Series([absent(r) for r in table.itertuples()], index=table.index, dtype=bool)


def _absent_rows(studies: list, where: str) -> list:
    rows = []
    judging = [s for s in studies if not s.descriptive]
    for c in CLAIMS.values():
        # A claim beyond the paper speaks only where a study runs its model.
        if c.extension or c.table == "multi_word" or any(_holds(s, c) for s in judging):
            continue
        why = _absent_reason(c) + where
        if any(_holds(s, c) for s in studies):
            why += DESCRIPTIVE_ONLY
        rows.append(Row(rules.PRIMARY, c.id, c.name, c.theorem, c.model, "", regime=c.regime,
                        unavailable=why))
    return rows


def _demote(row: Row) -> Row:
    """A descriptive study's primary row, shown as a secondary one (outside Holm's family)."""
    if row.kind in JUDGED:
        row.kind = rules.SECONDARY
        row.claim = f"{row.claim} (descriptive)"
    return row


def judged_rows(studies: list, where: str = "in this file") -> tuple:
    """(rows, their study labels, integrity checks) of every study, decided: each study's test
    p-values carry their look's share of α (sequential.py) before Holm's correction, and a
    claim that reads a column failing an integrity check is left open (integrity.gate)."""
    rows, labels, checks = [], [], []
    for s in studies:
        own = [(_demote(r) if s.descriptive else r) for r in claim_rows(s) if _own_claim(r, s)]
        sequential.correct_for_looks(own, s.plan)
        study_checks = integrity.rows(s.ws_records if s.ws_records is not None else s.ws,
                                      s.gen_records, s.witness_checks)
        failed = integrity.failures(study_checks)
        for r in own:
            _gate(r, failed)
        rows += own
        labels += [s.label] * len(own)
        for c in study_checks:
            checks.append({**c, STUDY: s.label})
    for r in _absent_rows(studies, where):
        rows.append(r)
        labels.append("")
    finish(rows)
    return rows, labels, checks


def _gate(row: Row, failed: dict) -> None:
    """integrity.gate for a claim's row (primary, extension or one of its groups')."""
    if not failed or row.kind == rules.INTEGRITY or row.verdict:
        return
    c = CLAIMS.get(row.claim.split("/")[0].split("[")[0].split(" ")[0])
    if c is None:
        return
    integrity.gate(row, [(model or c.model, column) for model, column in c.reads], failed)


def _looks_text(record: dict, study: StudyData | None) -> str:
    """The look a row's record was read at ("look 2 of 3 (10 trials)"), empty with one look."""
    plan = study.plan if study is not None else None
    if plan is None or not plan.schedule or plan.looks <= 1:
        return ""
    return sequential.looks_text(plan, int(record["trials"]))


def verdict_table(studies: list, where: str = "in this file", judged=None) -> pd.DataFrame:
    """The verdict table (COLUMNS) over every study: integrity failures first, then the primary
    rows grouped by claim (then study), the other integrity rows, the secondary rows (by study,
    in their order). `where`: how an absent claim's reason names the files ("in this file");
    `judged`: judged_rows(studies, where) when the caller keeps the rows too."""
    rows, labels, checks = judged if judged is not None else judged_rows(studies, where)
    by_label = {s.label: s for s in studies}
    records = []
    for r, lab in zip(rows, labels):
        rec = r.record()
        records.append({**rec, "looks": _looks_text(rec, by_label.get(lab)), STUDY: lab})
    table = pd.DataFrame(records + checks)
    if table.empty:
        return pd.DataFrame(columns=COLUMNS)
    table["rules_version"], table["rules_hash"] = rules.RULES_VERSION, RULES_HASH
    order = {s.label: i for i, s in enumerate(studies)}
    claim_order = list(CLAIMS)
    table["_claim"] = table["claim"].map(
        lambda c: claim_order.index(c.split("[")[0]) if c.split("[")[0] in claim_order
        else len(claim_order))
    table["_study"] = table[STUDY].map(lambda s: order.get(s, len(order)))
    table["_kind"] = np.select(
        [(table["kind"] == rules.INTEGRITY) & (table["verdict"] == rules.FAIL),
         table["kind"] == rules.PRIMARY, table["kind"] == rules.EXTENSION,
         table["kind"] == rules.INTEGRITY], [0, 1, 2, 3], 4)
    # Claim rows by claim, then study; the other kinds by study, keeping their own order.
    by_claim = table["_kind"].isin([1, 2])
    table["_a"] = np.where(by_claim, table["_claim"], table["_study"])
    table["_b"] = np.where(by_claim, table["_study"], 0)
    table = table.sort_values(["_kind", "_a", "_b"], kind="stable")
    return table.reindex(columns=COLUMNS).reset_index(drop=True)


# --- claims, not rows -------------------------------------------------------------------------

def claim_verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """One row per claim (a primary row's claim, whatever the study): contradicted when any
    study contradicts it; else the strongest positive verdict a study gives it (the studies are
    replications on other texts or sizes, each decided with every one of its groups agreeing);
    else inconclusive. Columns: claim, verdict, studies ('confirmed@quick; …')."""
    prim = table[table["kind"] == rules.PRIMARY]
    out = []
    for claim, g in prim.groupby("claim", sort=False):
        verdicts = list(g["verdict"])
        if rules.CONTRADICTED in verdicts:
            verdict = rules.CONTRADICTED
        else:
            positive = [v for v in verdicts if v in rules.POSITIVE]
            verdict = min(positive, key=rules.POSITIVE.index) if positive else rules.INCONCLUSIVE
        where = "; ".join(f"{v}@{s}" if s else v for v, s in zip(g["verdict"], g[STUDY]))
        out.append({"claim": claim, "verdict": verdict, "studies": where})
    return pd.DataFrame(out, columns=["claim", "verdict", "studies"])


def headline(table: pd.DataFrame) -> str:
    """'P of Q claims confirmed, W with weaker evidence only …, C contradicted, I inconclusive;
    not in this study: …; integrity checks: all pass' — the report's first line. It counts
    claims, not rows: a claim judged in two studies is one claim. Only claims whose model the
    report's studies hold are counted; the others are named once after the count (not_in_study).
    A failing check is named with its study when the report has several."""
    absent = not_in_study(table)
    per_claim = claim_verdicts(table[~absent])
    v = per_claim["verdict"]
    q = len(per_claim)
    conf = int((v == rules.CONFIRMED).sum())
    weak = int(v.isin(rules.POSITIVE[1:]).sum())
    contra = int((v == rules.CONTRADICTED).sum())
    inc = q - conf - weak - contra
    several = table[STUDY].replace("", np.nan).nunique() > 1 if STUDY in table else False
    integ = table[table["kind"] == rules.INTEGRITY]
    failed = integ[integ["verdict"] == rules.FAIL]
    if failed.empty:
        na = int((integ["verdict"] == rules.NOT_IN_FILE).sum())
        checks = "all pass" + (f" ({na} not in this file)" if na else "")
    else:
        named = [f"{r.claim}@{getattr(r, STUDY)}" if several and getattr(r, STUDY) else r.claim
                 for r in failed.itertuples()]
        checks = f"{len(failed)} of {len(integ)} FAIL: " + ", ".join(named)
    missing = list(dict.fromkeys(table.loc[absent, "claim"]))
    elsewhere = (f"; not in {'these studies' if several else 'this study'}: "
                 + ", ".join(missing)) if missing else ""
    return (f"{conf} of {q} claims confirmed, {weak} supported or not refuted by weaker "
            f"evidence, {contra} contradicted, {inc} inconclusive{elsewhere}; integrity "
            f"checks: {checks}")


def sensitivity(studies: list, where: str, table: pd.DataFrame) -> pd.DataFrame:
    """Each primary verdict under the other settings of tolerances.SENSITIVITY (every tolerance
    halved and doubled; the attention claims' regime cut at n ≤ d/2, n ≤ d, all n), beside the
    verdict as judged: whether a verdict hinges on a constant."""
    prim = table[table["kind"] == rules.PRIMARY][[STUDY, "claim", "verdict"]]
    out = prim.rename(columns={"verdict": "as judged"}).reset_index(drop=True)
    for name, settings in tolerances.SENSITIVITY.items():
        if name == "as judged":
            continue
        other = judge_studies(studies, where, settings)
        other = other[other["kind"] == rules.PRIMARY][[STUDY, "claim", "verdict"]]
        out = out.merge(other.rename(columns={"verdict": name}), on=[STUDY, "claim"], how="left")
    return out

