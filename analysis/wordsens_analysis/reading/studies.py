"""Results files into studies: how the files of a report are combined (one file is one study).

`wordsens merge` joins only shards of one configuration. A reproduction of the paper runs
several studies (attention over all positions, rf at the paper's sizes with the marginal
sampler, rf with the full sampler for its certified bound, deep rf, the trained heads, real
text, the regime map), and the report must read them together. The policy, printed in every
combined report (POLICY):

- A **study** is a configuration up to its seed and its number of trials: the stored
  `config_text` without the lines `seed`, `trials`, `shard`, `first-trial` and `select`. Files
  of one study are replicates or extensions (more trials at some of its points, `max-trials`
  being the study's own), and their trials are pooled.
- The texts of a trial are a function of (seed, data source, n, d, trial index) only, never of
  the model or the file, so two rows at the same (seed, data, n, d, trial) saw the same texts.
  Each (seed, data source) gets its own block of trial numbers here, so "same trial number"
  means "same texts" across all files: replicates with another seed add independent trials,
  and paired contrasts pair only rows on the same texts.
- A file that repeats rows of an earlier file of its study at the same texts (same seed, same
  grid point, same trial) adds nothing new: those rows are dropped (the earlier file wins) and
  the report says how many.
- Different studies are never pooled into one curve, even where they share a grid point: each
  claim is judged separately on each study that holds its model (one primary row per claim and
  study, `study` column), with Holm's correction over all primary rows of the report. The one
  exception is a paired contrast that needs a partner model the study lacks (Thm 3 needs rf on
  raf's texts): it takes the partner's rows from the other studies, per study, paired on the
  same texts (never pooled across studies either).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..twins import CHECK_COLUMNS, check_witnesses
from . import stored_config
from .catalogue import Catalogue, CatalogueConflict
from .reader import ResultsFileError

# Configuration keys that do not change what a study measures, only how much of it: files that
# differ only in these are replicates of one study.
REPLICATE_KEYS = ("seed", "trials", "shard", "output", "first-trial", "select")
TRIAL_STRIDE = 10**8   # > the driver's largest trial count (10^7): blocks of trial numbers
TASK_STRIDE = 2**32    # task ids are uint32 per file
SERIES = "series"      # the column naming the study of a row

POLICY = (
    "A study is a configuration up to its seed and number of trials "
    "(the stored config_text without seed, trials, shard, first-trial and select): files of one "
    "study are replicates or extensions by more trials, "
    "and their trials are pooled. The texts of a trial depend only on (seed, data source, n, d, "
    "trial), so rows of any two files at the same seed, data source, n, d and trial saw the same "
    "texts; each (seed, data source) gets its own block of trial numbers, so replicates with "
    "another seed add independent trials (which decide only at a trial count the study's plan "
    "of looks provides: max-trials) and paired contrasts pair only rows on the same texts. "
    "A file repeating rows of an earlier file of its study on the same texts adds nothing: those "
    "rows are dropped (the earlier file wins). Different studies are never pooled into one curve, "
    "even at a shared grid point: every claim is judged on each study that holds its model (one "
    "primary row per claim and study) and Holm's correction runs over all primary rows of the "
    "report; a paired contrast whose partner model the study lacks (Thm 3 needs rf on raf's "
    "texts) takes it from the other studies, one study at a time, paired on the same texts.")


@dataclass
class Study:
    label: str
    key: str                      # config_text without the replicate keys
    files: list = field(default_factory=list)   # Results, in the order given
    ws: pd.DataFrame = field(default_factory=pd.DataFrame)
    gen: pd.DataFrame = field(default_factory=pd.DataFrame)
    multi_word: pd.DataFrame = field(default_factory=pd.DataFrame)  # records of m ≥ 2 words
    tasks: pd.DataFrame = field(default_factory=pd.DataFrame)  # the planned tasks, done or not
    witness_checks: pd.DataFrame | None = None
    notes: list = field(default_factory=list)
    # The models of the report's files (catalogue_of): a paired contrast may read a partner
    # model from another study, so every study knows every file's.
    catalogue: Catalogue = field(default_factory=Catalogue.before_1_7)

    @property
    def data(self) -> str:
        return str(stored_config.value(stored_config.of(self.files[0]), "data", "synthetic"))

    @property
    def descriptive(self) -> bool:
        """A study that maps a quantity (`purpose = descriptive`, the regime map) rather than
        testing the paper's claims: its claims' rows are shown as secondary rows only."""
        return stored_config.value(stored_config.of(self.files[0]), "purpose") == "descriptive"

    @property
    def mask(self) -> str:
        """The attention models' mask (none, or causal: the rules name its attention models
        '<model>/causal', verdicts.under_mask)."""
        return str(stored_config.value(stored_config.of(self.files[0]), "mask"))

    @property
    def fractions(self) -> list:
        """The study's words-fraction values (the same in every file of a study)."""
        return list(stored_config.value(stored_config.of(self.files[0]), "words-fraction"))


def config_lines(text) -> list:
    """The `key = value` lines of a stored configuration (comments and blanks left out)."""
    out = []
    for line in str(text or "").splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";")) and "=" in line:
            k, v = line.split("=", 1)
            out.append((k.strip(), v.strip()))
    return out


def study_key(text) -> str:
    """The study a configuration belongs to; '' when the file stores no configuration (then it
    is a study of its own: nothing says it repeats another)."""
    lines = [f"{k} = {v}" for k, v in config_lines(text) if k not in REPLICATE_KEYS]
    return "\n".join(sorted(lines))


def texts_key(res) -> tuple:
    """What a trial's texts depend on besides (n, d, trial): the seed and the data source."""
    config = stored_config.of(res)
    seed = res.attrs.get("master_seed", stored_config.value(config, "seed", "?"))
    return (str(int(seed)) if isinstance(seed, (int, np.integer, float)) else str(seed),
            str(stored_config.value(config, "data", "synthetic")))


def _label(path: str, taken: set) -> str:
    base = os.path.splitext(os.path.basename(path))[0] or "file"
    label, i = base, 2
    while label in taken:
        label, i = f"{base}#{i}", i + 1
    taken.add(label)
    return label


WS_POINT = ["model", "n", "d", "k", "layers", "heads", "trial"]
GEN_POINT = ["model", "n", "d", "k", "layers", "heads", "N", "trial", "training", "objective"]
MW_POINT = ["model", "n", "d", "k", "layers", "heads", "words", "trial"]
TASK_POINT = ["experiment", "model", "n", "d", "k", "layers", "heads", "N", "words", "trial"]


def _renumber(df: pd.DataFrame, file_index: int, texts_index: int) -> pd.DataFrame:
    if df.empty:
        return df
    df = df.copy()
    df["trial"] = df["trial"].astype(np.int64) + texts_index * TRIAL_STRIDE
    df["task_id"] = df["task_id"].astype(np.int64) + file_index * TASK_STRIDE
    return df


def _drop_repeats(df: pd.DataFrame, keys: list, label: str, table: str, notes: list):
    """Rows of a later file at a (grid point, trial) an earlier file of the study holds."""
    if df.empty:
        return df
    keys = [k for k in keys if k in df]
    dup = df.duplicated(keys, keep="first")
    if dup.any():
        files = sorted(set(df.loc[dup, "_file"]))
        notes.append(f"study {label}: {int(dup.sum())} /{table} rows of {', '.join(files)} repeat "
                     "rows of an earlier file of the study on the same texts (same seed, grid "
                     "point and trial): dropped, the earlier file's are used")
    return df[~dup]


def catalogue_of(results: list, start: Catalogue | None = None) -> Catalogue:
    """The catalogue of some results files: `start` (the pre-1.7 catalogue) and each file's,
    merged in the order given. Files that give one model two kinds are refused as a
    ResultsFileError naming the later, as read_results refuses a file that disagrees with the
    pre-1.7 catalogue."""
    out = start if start is not None else Catalogue.before_1_7()
    for res in results:
        try:
            out = out.merged(res.catalogue, res.path)
        except CatalogueConflict as e:
            raise ResultsFileError(str(e)) from None
    return out


def build_studies(results: list) -> tuple:
    """Groups the files into studies; returns (studies, notes, texts blocks). Files that give
    one model two kinds are refused (catalogue_of)."""
    catalogue = catalogue_of(results)
    studies: dict = {}
    taken: set = set()
    texts_blocks: dict = {}
    notes: list = []
    for i, res in enumerate(results):
        key = study_key(res.attrs.get("config_text"))
        skey = key if key else f"\0file {i}"  # no stored configuration: a study of its own
        if skey not in studies:
            studies[skey] = Study(_label(res.path, taken), key, catalogue=catalogue)
        study = studies[skey]
        study.files.append(res)
        tk = texts_key(res)
        t = texts_blocks.setdefault(tk, len(texts_blocks))
        name = os.path.basename(res.path)
        frames = (("ws", res.ws), ("gen", res.gen), ("multi_word", res.multi_word),
                  ("tasks", res.tasks))
        for attr, frame in frames:
            frame = _renumber(frame, i, t)
            if not frame.empty:
                frame = frame.assign(_file=name, data=tk[1], **{SERIES: study.label})
            setattr(study, attr, pd.concat([getattr(study, attr), frame], ignore_index=True)
                    if not getattr(study, attr).empty else frame)
        notes += [f"{name}: {n}" for n in res.notes]
    out = list(studies.values())
    for s in out:
        s.ws = _drop_repeats(s.ws, WS_POINT, s.label, "ws", s.notes)
        s.gen = _drop_repeats(s.gen, GEN_POINT, s.label, "gen", s.notes)
        s.multi_word = _drop_repeats(s.multi_word, MW_POINT, s.label, "ws", s.notes)
        s.tasks = _drop_repeats(s.tasks, TASK_POINT, s.label, "tasks", [])
        checks = []
        for res in s.files:
            activation = stored_config.value(stored_config.of(res), "activation", "relu")
            rows = check_witnesses(res.witnesses, str(activation))
            checks += rows
        if any(res.witnesses for res in s.files):
            s.witness_checks = pd.DataFrame(checks, columns=CHECK_COLUMNS)
    return out, notes, texts_blocks


def shared_points(studies: list) -> pd.DataFrame:
    """Grid points (experiment, model, n, d, k, L, H, N) held by more than one study."""
    frames = []
    for s in studies:
        for exp, df in (("ws", s.ws), ("gen", s.gen)):
            if df.empty:
                continue
            cols = [c for c in ("model", "n", "d", "k", "layers", "heads", "N") if c in df]
            pts = df[cols].drop_duplicates().assign(experiment=exp, study=s.label)
            frames.append(pts)
    if not frames:
        return pd.DataFrame()
    allp = pd.concat(frames, ignore_index=True)
    keys = [c for c in ("experiment", "model", "n", "d", "k", "layers", "heads", "N")
            if c in allp]
    allp = allp.fillna({"N": 0})
    g = allp.groupby(keys, sort=True)["study"].agg(lambda v: ", ".join(sorted(set(v))))
    multi = g[g.str.contains(",")]
    return multi.reset_index().rename(columns={"study": "studies (kept apart)"})


def study_table(studies: list, texts_blocks: dict) -> pd.DataFrame:
    rows = []
    block_of = {k: v for k, v in texts_blocks.items()}
    for s in studies:
        for res in s.files:
            tk = texts_key(res)
            rows.append({
                "study": s.label, "file": res.path,
                "experiments": stored_config.text(stored_config.of(res), "experiments", "?"),
                "models": ", ".join(sorted(set(res.ws.get("model", pd.Series(dtype=object)))
                                           | set(res.gen.get("model", pd.Series(dtype=object))))),
                "seed": tk[0], "data": tk[1],
                "texts block": f"{block_of[tk]} (trials {block_of[tk] * TRIAL_STRIDE} + t)",
                "tasks done": f"{res.done} / {res.planned}",
                "ws rows": len(res.ws), "gen rows": len(res.gen),
            })
    return pd.DataFrame(rows)


PROVENANCE_KEYS = ("format_version", "software_version", "git_sha", "build", "created_utc",
                   "command_line", "mpi_ranks", "master_seed", "config_hash")


def provenance_table(studies: list) -> pd.DataFrame:
    rows = []
    for s in studies:
        for res in s.files:
            a = res.attrs
            row = {"study": s.label, "file": res.path,
                   "format_version": ".".join(map(str, res.format_version))}
            for key in PROVENANCE_KEYS[1:]:
                v = a.get(key, "")
                row[key] = str(v) if not isinstance(v, float) else f"{v:g}"
            row["state"] = ("complete" if res.complete
                            else f"PARTIAL ({res.done} / {res.planned} tasks)")
            rows.append(row)
    return pd.DataFrame(rows)


def combined_frames(studies: list) -> tuple:
    """All rows of all studies, each with its study in the SERIES column."""
    ws = [s.ws for s in studies if not s.ws.empty]
    gen = [s.gen for s in studies if not s.gen.empty]
    return (pd.concat(ws, ignore_index=True) if ws else pd.DataFrame(),
            pd.concat(gen, ignore_index=True) if gen else pd.DataFrame())
