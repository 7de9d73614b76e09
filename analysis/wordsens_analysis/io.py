"""Read a wordsens results file (analysis/FORMAT.md) into pandas DataFrames.

    from wordsens_analysis import read_results
    res = read_results("results/quick.h5")
    res.ws.groupby(["model", "d", "n"]).S.mean()

Works on merged files and on partial ones (a run still going or killed): the file is opened
without HDF5 file locking so that it can be read while the writer holds it, and columns of
unequal length (a row half-appended at the moment of a crash) are cut to the common length.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field

import h5py
import numpy as np
import pandas as pd

from . import names


WITNESS_BUDGET = 50_000_000  # float64 values of /witness loaded at most (400 MB)


class ResultsFileError(Exception):
    """The file is missing, not a wordsens results file, or of an unsupported version."""


@dataclass
class Witness:
    """A saved WS witness: the sample X (n×d), the weights W (d×d), word i* and Δ*."""

    task_id: int
    model: str
    position: int
    delta: np.ndarray
    X: np.ndarray | None = None
    W: np.ndarray | None = None
    S: float = float("nan")
    S_upper: float = float("nan")
    arrays: dict = field(default_factory=dict)  # every array of the task by name (V, V1, …)


@dataclass
class Results:
    path: str
    attrs: dict
    format_version: tuple
    tasks: pd.DataFrame
    ws: pd.DataFrame
    gen: pd.DataFrame
    summary_ws: pd.DataFrame
    summary_gen: pd.DataFrame
    witnesses: list = field(default_factory=list)
    notes: list = field(default_factory=list)  # what the reader had to repair (partial files)

    @property
    def planned(self) -> int:
        return len(self.tasks)

    @property
    def done(self) -> int:
        if "done" in self.tasks:
            return int(self.tasks["done"].astype(bool).sum())
        return 0

    @property
    def complete(self) -> bool:
        return self.planned > 0 and self.done == self.planned


def _decode(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.dtype.kind in "SO":
        return [_decode(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _column(ds: h5py.Dataset, rows: int) -> np.ndarray:
    data = ds[:rows]
    enum = h5py.check_enum_dtype(ds.dtype)
    if enum is not None:
        inverse = {v: k for k, v in enum.items()}
        return np.array([inverse.get(int(v), str(v)) for v in data], dtype=object)
    if h5py.check_string_dtype(ds.dtype) is not None or data.dtype.kind in "SO":
        return np.array([_decode(v) for v in data], dtype=object)
    return data


def _read_table(f: h5py.File, group: str, notes: list) -> pd.DataFrame:
    """All 1-D datasets of a group as the columns of one table."""
    if group not in f:
        return pd.DataFrame()
    g = f[group]
    cols = {k: v for k, v in g.items()
            if isinstance(v, h5py.Dataset) and v.ndim == 1 and not k.endswith(names.VALUES_SUFFIX)}
    if not cols:
        return pd.DataFrame()
    lengths = {k: v.shape[0] for k, v in cols.items()}
    rows = min(lengths.values())
    if max(lengths.values()) != rows:
        notes.append(
            f"/{group}: columns of unequal length {sorted(set(lengths.values()))} "
            f"(row being appended when the file was read); using the first {rows} rows"
        )
    df = pd.DataFrame({k: _column(v, rows) for k, v in cols.items()})
    _add_ragged(g, df, group, notes)
    return df


def _add_ragged(g: h5py.Group, df: pd.DataFrame, group: str, notes: list) -> None:
    """Adds each ragged column <x> (row r: <x>_values[<x>_offset[r] : + <x>_length[r]]) as a
    column of numpy arrays; rows whose values run past the flat array get an empty array."""
    for off in [c for c in df.columns if c.endswith(names.RAGGED_OFFSET)]:
        base = off[: -len(names.RAGGED_OFFSET)]
        length, values = base + names.RAGGED_LENGTH, base + names.RAGGED_VALUES
        if length not in df or values not in g or base in df:
            continue
        flat = g[values][()]
        cells, cut = [], 0
        for o, n in zip(df[off].to_numpy(dtype=np.int64), df[length].to_numpy(dtype=np.int64)):
            if o < 0 or n < 0 or o + n > flat.shape[0]:
                cells.append(flat[:0])
                cut += 1
            else:
                cells.append(flat[o:o + n])
        df[base] = pd.Series(cells, index=df.index, dtype=object)
        if cut:
            notes.append(f"/{group}: {cut} rows of {base} point past {values}; left empty")


def _map_codes(df: pd.DataFrame, column: str, mapping: dict) -> None:
    if column in df and df[column].dtype.kind in "iu":
        df[column] = df[column].map(lambda v: mapping.get(int(v), str(v)))


def _join_tasks(records: pd.DataFrame, tasks: pd.DataFrame, table: str, notes: list):
    if records.empty:
        return records
    if "task_id" not in records:
        raise ResultsFileError(f"/{table} has no task_id column")
    join = [c for c in names.JOIN_COLUMNS if c in tasks and c not in records]
    merged = records.merge(tasks[["task_id", *join]], on="task_id", how="left", validate="m:1")
    orphans = merged[join[0]].isna().sum() if join else 0
    if orphans:
        notes.append(f"/{table}: {orphans} rows name a task_id missing from /tasks; dropped")
        merged = merged[merged[join[0]].notna()].copy()
        for c in join:  # the left join made integer columns float; restore them
            if tasks[c].dtype.kind in "iu":
                merged[c] = merged[c].astype(tasks[c].dtype)
    return merged.reset_index(drop=True)


def _drop_duplicates(df: pd.DataFrame, keys: list, table: str, notes: list) -> pd.DataFrame:
    keys = [k for k in keys if k in df]
    if df.empty or not keys:
        return df
    dup = df.duplicated(keys, keep="first")
    if dup.any():
        notes.append(f"/{table}: {int(dup.sum())} duplicated rows (same {keys}); kept the first")
        df = df[~dup].reset_index(drop=True)
    return df


def _read_witnesses(f: h5py.File, tasks: pd.DataFrame, ws: pd.DataFrame, notes: list) -> list:
    """Witnesses saved with --save-witness: the /witness table of named arrays, grouped by task.

    Only tasks whose ws record is present (done) are returned; arrays of a task killed before
    its done flag was flushed are ignored like its record.
    """
    table = _read_table(f, names.GROUP_WITNESS, notes)
    if table.empty or names.WITNESS_VALUES not in f[names.GROUP_WITNESS]:
        return []
    values = f[names.GROUP_WITNESS][names.WITNESS_VALUES]
    total = values.shape[0]
    budget = WITNESS_BUDGET  # weights can be large (V up to 10⁷ values per task)
    model_of = dict(zip(tasks.get("task_id", []), tasks.get("model", [])))
    s_of = dict(zip(ws.get("task_id", []), ws.get("S", [])))
    su_of = dict(zip(ws.get("task_id", []), ws.get("S_upper", [])))
    out = []
    left_out = 0
    for tid, g in table.groupby("task_id", sort=True):
        if int(tid) not in s_of:
            continue
        arrays, position = {}, -1
        for r in g.itertuples(index=False):
            size = int(r.rows) * int(r.cols)
            if int(r.offset) + size > total:
                notes.append(f"/witness: array {r.name} of task {tid} is cut short; skipped")
                continue
            if size > budget:
                left_out += 1
                continue
            budget -= size
            arrays[str(r.name)] = values[int(r.offset):int(r.offset) + size].reshape(
                int(r.rows), int(r.cols))
            if str(r.name) == names.WITNESS_DELTA:
                position = int(r.position)
        if names.WITNESS_DELTA not in arrays:
            continue
        out.append(Witness(task_id=int(tid), model=str(model_of.get(tid, "")), position=position,
                           delta=arrays[names.WITNESS_DELTA].ravel(),
                           X=arrays.get(names.WITNESS_X), W=arrays.get(names.WITNESS_W),
                           S=float(s_of.get(tid, float("nan"))),
                           S_upper=float(su_of.get(tid, float("nan"))), arrays=arrays))
    if left_out:
        notes.append(f"/witness: {left_out} arrays not loaded (over the memory budget of "
                     f"{WITNESS_BUDGET} values)")
    return out


def _only_done(records: pd.DataFrame, tasks: pd.DataFrame, table: str, notes: list):
    """Rows of tasks whose done flag is set; the others are orphans of an interrupted append."""
    if records.empty or tasks.empty or names.DONE not in tasks:
        return records
    done_ids = set(tasks.loc[tasks[names.DONE].astype(bool), "task_id"].tolist())
    keep = records["task_id"].isin(done_ids)
    if not keep.all():
        notes.append(f"/{table}: ignored {int((~keep).sum())} rows of tasks not marked done "
                     "(an append interrupted by a kill)")
    return records[keep].reset_index(drop=True)


def check_header(f: h5py.File, path: str) -> tuple:
    """Check filetype and the major format version; return (major, minor)."""
    filetype = _decode(f.attrs.get(names.ATTR_FILETYPE, None))
    if filetype != names.FILETYPE:
        raise ResultsFileError(
            f"{path}: not a wordsens results file (filetype attribute is {filetype!r}, "
            f"expected {names.FILETYPE!r})"
        )
    version = f.attrs.get(names.ATTR_FORMAT_VERSION, None)
    try:
        major, minor = (int(v) for v in np.asarray(version).ravel()[:2])
    except (TypeError, ValueError):
        raise ResultsFileError(f"{path}: malformed format_version attribute {version!r}") from None
    if major > names.SUPPORTED_MAJOR:
        raise ResultsFileError(
            f"{path}: format_version {major}.{minor} is newer than this reader "
            f"(understands {names.SUPPORTED_MAJOR}.x); update wordsens_analysis"
        )
    if major < names.SUPPORTED_MAJOR:
        raise ResultsFileError(f"{path}: format_version {major}.{minor} is too old for this reader")
    return major, minor


def _open(path: str) -> h5py.File:
    """Open read-only while `wordsens run` may still be writing (or was killed while writing).

    The writer uses HDF5's SWMR mode: a SWMR reader sees a consistent file and is not refused by
    the "open for write" flags a running or killed writer leaves; locking=False keeps the
    reader from taking or tripping over the writer's file lock. Files not written in SWMR format
    (older HDF5 layout) fall back to a plain read-only open.
    """
    errors = []
    for kwargs in (dict(libver="latest", swmr=True, locking=False), dict(locking=False)):
        try:
            return h5py.File(path, "r", **kwargs)
        except (OSError, ValueError) as e:
            errors.append(str(e).splitlines()[0] if str(e) else type(e).__name__)
    raise ResultsFileError(f"{path}: cannot open as HDF5 ({errors[-1]})")


def read_results(path) -> Results:
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ResultsFileError(f"{path}: no such file")
    if not h5py.is_hdf5(path):
        raise ResultsFileError(f"{path}: not an HDF5 file, so not a wordsens results file")
    f = _open(path)
    notes: list = []
    with f:
        version = check_header(f, path)
        attrs = {k: _decode(v) for k, v in f.attrs.items()}
        tasks = _read_table(f, names.GROUP_TASKS, notes)
        ws = _read_table(f, names.GROUP_WS, notes)
        gen = _read_table(f, names.GROUP_GEN, notes)
        summary_ws = _read_table(f, names.GROUP_SUMMARY_WS, notes)
        summary_gen = _read_table(f, names.GROUP_SUMMARY_GEN, notes)
        for df in (tasks, summary_ws, summary_gen):
            _map_codes(df, "experiment", names.EXPERIMENTS)
        for df in (gen, summary_gen):
            _map_codes(df, "training", names.TRAININGS)
            _map_codes(df, "objective", names.OBJECTIVES)
        if not ws.empty and "S_upper" in ws and "S_upper_scope" not in ws:
            # Before format 1.2 only rf's full sampler had a bound, over every position.
            ws["S_upper_scope"] = np.where(np.isfinite(ws["S_upper"].astype(float)), 1, 0)
        _map_codes(ws, "S_upper_scope", names.SCOPES)
        if tasks.empty:
            notes.append("/tasks is empty: no planned tasks")
        elif "task_id" not in tasks:
            raise ResultsFileError(f"{path}: /tasks has no task_id column")
        else:
            tasks = _drop_duplicates(tasks, ["task_id"], "tasks", notes)
            if "layers" not in tasks:
                tasks["layers"] = 1
        ws = _drop_duplicates(ws, ["task_id"], "ws", notes)
        gen = _drop_duplicates(gen, ["task_id", "training", "objective"], "gen", notes)
        if not tasks.empty:
            ws = _join_tasks(_only_done(ws, tasks, "ws", notes), tasks, "ws", notes)
            gen = _join_tasks(_only_done(gen, tasks, "gen", notes), tasks, "gen", notes)
        witnesses = _read_witnesses(f, tasks, ws, notes)
    for note in notes:
        warnings.warn(note, stacklevel=2)
    return Results(path, attrs, version, tasks, ws, gen, summary_ws, summary_gen, witnesses, notes)
