"""Read a wordsens results file (analysis/FORMAT.md) into pandas DataFrames.

    from wordsens_analysis import read_results
    res = read_results("results/quick.h5")
    res.ws.groupby(["model", "d", "n"]).S.mean()

Works on merged files and on partial ones (a run still going or killed): the file is opened
without HDF5 file locking so that it can be read while the writer holds it, and columns of
unequal length (a row half-appended at the moment of a crash) are cut to the common length.
A damaged file (HDF5 cannot read its metadata, or the tables a report needs are missing) raises
DamagedFileError within about a second, never hangs.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import stat
import warnings
from dataclasses import dataclass, field

import h5py
import numpy as np
import pandas as pd

from . import catalogue, damage, format_minors, schema, stored_config
from .catalogue import Catalogue


WITNESS_BUDGET = 50_000_000  # float64 values of /witness loaded at most (400 MB)
# The reader's notes that are no repair of the file (its records are all there and read as
# written): the report's first line names a file as damaged for the other notes only.
UNCHECKED = "predates the checksums and damage checks"
OVER_BUDGET = "arrays not loaded (over the memory budget"
NOT_REPAIRS = (UNCHECKED, OVER_BUDGET)


class ResultsFileError(Exception):
    """The file is missing, not a wordsens results file, or of an unsupported version."""


class DamagedFileError(ResultsFileError):
    """A wordsens results file HDF5 cannot read, or without the tables every such file has.

    `wordsens info` and `wordsens run` exit with 1 on such a file (2 on the other errors).
    """


DAMAGED = "damaged or not a wordsens results file"

# Metadata read attempts of the SWMR open (as kSwmrReadAttempts in src/io/h5/h5.hpp): HDF5
# retries a metadata block whose checksum fails, sleeping twice as long each time, so its default
# of 100 never ends on a damaged file; 28 give up after about 0.3 s.
SWMR_READ_ATTEMPTS = 28


@dataclass
class Witness:
    """A saved WS witness: the sample X (n×d), the weights W (d×d), word i* and Δ*; for several
    changed words, the set M* (`words`, m positions), Δ* as m × d rows (`delta`, in the set's
    order, position −1) and the examined sets (`sets`)."""

    task_id: int
    model: str
    position: int
    delta: np.ndarray
    X: np.ndarray | None = None
    W: np.ndarray | None = None
    S: float = float("nan")
    S_upper: float = float("nan")
    arrays: dict = field(default_factory=dict)  # every array of the task by name (V, V1, …)
    words: tuple = ()  # M*, for several changed words (empty for one)
    sets: list = field(default_factory=list)  # the examined word sets, for several words
    # The configuration's keys that shape a model beyond its weights (heads, mask), as the
    # file's configuration text gives them; a key it does not name has its default.
    model_keys: dict = field(default_factory=dict)


@dataclass
class Results:
    """Everything in one results file, as pandas tables (columns: analysis/FORMAT.md).

    tasks       one row per planned task (its grid point, m = words, trial and done flag);
    ws, gen     one row per finished word-sensitivity / generalization record, joined with the
                task's grid point (point_id, model, n, d, k, N, layers, words, trial), so
                `res.ws.groupby(["model", "d", "n"]).S.mean()` works directly; ragged columns
                (per-position S, examined positions) are object columns holding one numpy array
                per row;
                `ws` holds the tasks with one changed word (S; words == 1);
    multi_word  the ws records of tasks with m = words ≥ 2 changed words (S is then S_m,
                argmax_set / examined_sets / set_S describe the sets; docs/METHOD.md §4);
    summary_ws, summary_gen
                the per-grid-point statistics the writer stored when the run ended (derived
                data: recompute from ws/gen when in doubt);
    attrs       the root attributes (configuration text, seed, software and build versions,
                input fingerprints), decoded to str/int/float;
    format_version
                (major, minor) of the file;
    witnesses   the saved WS witnesses (only with save-witness), as Witness objects (of one
                and of several changed words);
    notes       what the reader had to repair in a partial file (empty for a finished one).
    models      one row per model the task table runs: its traits (attention, deep,
                marginal_sampler, min_total_sphere_starts, multi_head, width as its code,
                encoder) as /models records them (format 1.10 on; 1.7 on for the first four;
                what a file does not store, the traits the builds that wrote it gave them);
    catalogue   the same traits as a value the analysis looks a model up in (a
                catalogue.Catalogue: the pre-1.7 catalogue's models and the file's); a report
                merges those of its files.
    config      the configuration typed, one entry per key the file names (/config, format 1.11
                on; config_text read by the same kinds for older files: stored_config.py), e.g.
                `res.config["n"] == [8, 16]`; stored_config.value gives an absent optional key's
                meaning.

    Every table's `DataFrame.attrs` holds "units" and "meanings": for each column, the `unit`
    and `meaning` attributes of its dataset (a ragged column: of its values; a joined task
    column: of its /tasks dataset), e.g. `res.ws.attrs["units"]["seconds"] == "s"`.
    """

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
    multi_word: pd.DataFrame = field(default_factory=pd.DataFrame)
    models: pd.DataFrame = field(default_factory=pd.DataFrame)
    config: dict = field(default_factory=dict)
    catalogue: Catalogue = field(default_factory=Catalogue.before_1_7)

    @property
    def planned(self) -> int:
        """Tasks the study plans (rows of /tasks)."""
        return len(self.tasks)

    @property
    def done(self) -> int:
        """Tasks whose records are all in the file."""
        if "done" in self.tasks:
            return int(self.tasks["done"].astype(bool).sum())
        return 0

    @property
    def complete(self) -> bool:
        """True when every planned task is done (a finished or fully merged study)."""
        return self.planned > 0 and self.done == self.planned


def _decode(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, str):
        # h5py decodes a variable-length string with surrogate escapes for invalid bytes (a
        # damaged string), which no output can encode: replace them, like invalid bytes above.
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
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
    # g[k], not g.items(): items() silently leaves out an object HDF5 cannot read (damage).
    members = {k: g[k] for k in g.keys()}
    cols = {k: v for k, v in members.items()
            if isinstance(v, h5py.Dataset) and v.ndim == 1 and not k.endswith(schema.VALUES_SUFFIX)}
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
    units, meanings = {}, {}
    for column in df.columns:
        # A ragged column is described by its values; attributes are read by name (listing
        # them can crash HDF5 on damaged attribute storage).
        ds = members.get(column)
        if ds is None and column + schema.RAGGED_VALUES in g:
            ds = g[column + schema.RAGGED_VALUES]
        if isinstance(ds, h5py.Dataset):
            for store, attr in ((units, schema.ATTR_UNIT), (meanings, schema.ATTR_MEANING)):
                if attr in ds.attrs:
                    store[column] = _decode(ds.attrs[attr])
    df.attrs = {"units": units, "meanings": meanings}
    return df


def _described_as(df: pd.DataFrame, *sources: dict) -> pd.DataFrame:
    """df with the units and meanings its columns have in the tables' attrs `sources` (the
    first that has them): pandas does not carry attrs through every join and filter."""
    units, meanings = {}, {}
    for source in reversed(sources):
        units.update(source.get("units", {}))
        meanings.update(source.get("meanings", {}))
    df.attrs = {"units": {c: u for c, u in units.items() if c in df},
                "meanings": {c: m for c, m in meanings.items() if c in df}}
    return df


def _read_models(f: h5py.File, version: tuple, tasks: pd.DataFrame, path: str,
                 notes: list) -> tuple:
    """The /models table (format 1.7 on), or the traits the older builds gave the task table's
    models, and the catalogue of the file (the pre-1.7 catalogue's models and these)."""
    run = list(dict.fromkeys(tasks["model"])) if "model" in tasks else []
    if version[1] >= schema.MODELS_MINOR:
        older = format_minors.Decoded(tasks, pd.DataFrame(), {},
                                      _read_table(f, schema.GROUP_MODELS, notes))
        format_minors.decode(older, version[1], "models")
        stored = older.models
        if older.unknown_models:
            notes.append(f"/{schema.GROUP_MODELS}: {', '.join(older.unknown_models)} unknown to "
                         "the builds that wrote format 1.7 to 1.9: taken as without heads or "
                         "encoder, random features exactly when not attention")
        traits = catalogue.from_table(stored)
        models = _described_as(catalogue.as_table(traits), stored.attrs)
    else:
        traits = [t for t in catalogue.BEFORE_1_7 if t.name in run]
        unknown = sorted(set(run) - {t.name for t in traits})
        if unknown:
            raise DamagedFileError(f"{path}: {DAMAGED} (/tasks names models no build before "
                                   f"format 1.7 had: {', '.join(unknown)})")
        models = catalogue.as_table(traits)
    return models, Catalogue.before_1_7().with_models(traits, path)


def _add_ragged(g: h5py.Group, df: pd.DataFrame, group: str, notes: list) -> None:
    """Adds each ragged column <x> (row r: <x>_values[<x>_offset[r] : + <x>_length[r]]) as a
    column of numpy arrays; rows whose values run past the flat array get an empty array."""
    for off in [c for c in df.columns if c.endswith(schema.RAGGED_OFFSET)]:
        base = off[: -len(schema.RAGGED_OFFSET)]
        length, values = base + schema.RAGGED_LENGTH, base + schema.RAGGED_VALUES
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
    join = [c for c in schema.JOIN_COLUMNS if c in tasks and c not in records]
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


def _read_witnesses(f: h5py.File, tasks: pd.DataFrame, ws: pd.DataFrame, notes: list,
                    config=None) -> list:
    """Witnesses saved with --save-witness: the /witness table of named arrays, grouped by task.

    Only tasks whose ws record is present (done) are returned; arrays of a task killed before
    its done flag was flushed are ignored like its record.
    """
    table = _read_table(f, schema.GROUP_WITNESS, notes)
    if table.empty or schema.WITNESS_VALUES not in f[schema.GROUP_WITNESS]:
        return []
    values = f[schema.GROUP_WITNESS][schema.WITNESS_VALUES]
    total = values.shape[0]
    budget = WITNESS_BUDGET  # weights can be large (V up to 10⁷ values per task)
    model_of = dict(zip(tasks.get("task_id", []), tasks.get("model", [])))
    heads_of = dict(zip(tasks.get("task_id", []), tasks.get("heads", [])))
    s_of = dict(zip(ws.get("task_id", []), ws.get("S", [])))
    su_of = dict(zip(ws.get("task_id", []), ws.get("S_upper", [])))
    m_of = dict(zip(ws.get("task_id", []), ws.get("words", [1] * len(ws))))
    set_of = dict(zip(ws.get("task_id", []), ws.get("argmax_set", [()] * len(ws))))
    sets_of = dict(zip(ws.get("task_id", []), ws.get("examined_sets", [()] * len(ws))))
    # The keys that shape a model beyond its weights, as text (model_pieces.py's twins read them).
    keys = {"mask": str(stored_config.value(config or {}, "mask"))}
    out = []
    left_out = 0
    for tid, g in table.groupby("task_id", sort=True):
        if int(tid) not in s_of:
            continue
        arrays, position = {}, -1
        whole = []
        for r in g.itertuples(index=False):
            size = int(r.rows) * int(r.cols)
            if int(r.offset) + size > total:
                notes.append(f"/witness: array {r.name} of task {tid} is cut short; skipped")
                continue
            whole.append((r, size))
        # A task's arrays all or none: a witness with some of its weights (drf's V2 without its
        # V1) would be recomputed with the wrong map.
        if sum(size for _, size in whole) > budget:
            left_out += len(whole)
            continue
        for r, size in whole:
            budget -= size
            arrays[str(r.name)] = values[int(r.offset):int(r.offset) + size].reshape(
                int(r.rows), int(r.cols))
            if str(r.name) == schema.WITNESS_DELTA:
                position = int(r.position)
        words, sets = (), []
        m = int(m_of.get(tid, 1))
        if m > 1 and schema.WITNESS_DELTA_WORDS in arrays:
            delta = arrays[schema.WITNESS_DELTA_WORDS]
            words = tuple(int(i) for i in set_of.get(tid, ()))
            flat = np.asarray(sets_of.get(tid, ()), dtype=np.int64)
            sets = [tuple(row) for row in flat.reshape(-1, m)] if flat.size % m == 0 else []
        elif schema.WITNESS_DELTA in arrays:
            delta = arrays[schema.WITNESS_DELTA].ravel()
        else:
            continue
        out.append(Witness(task_id=int(tid), model=str(model_of.get(tid, "")), position=position,
                           delta=delta, X=arrays.get(schema.WITNESS_X),
                           W=arrays.get(schema.WITNESS_W), S=float(s_of.get(tid, float("nan"))),
                           S_upper=float(su_of.get(tid, float("nan"))), arrays=arrays,
                           words=words, sets=sets,
                           model_keys=dict(keys, heads=str(int(heads_of.get(tid, 1))))))
    if left_out:
        notes.append(f"/witness: {left_out} {OVER_BUDGET} of {WITNESS_BUDGET} values)")
    return out


def _only_done(records: pd.DataFrame, tasks: pd.DataFrame, table: str, notes: list):
    """Rows of tasks whose done flag is set; the others are orphans of an interrupted append."""
    if records.empty or tasks.empty or schema.DONE not in tasks:
        return records
    done_ids = set(tasks.loc[tasks[schema.DONE].astype(bool), "task_id"].tolist())
    keep = records["task_id"].isin(done_ids)
    if not keep.all():
        notes.append(f"/{table}: ignored {int((~keep).sum())} rows of tasks not marked done "
                     "(an append interrupted by a kill)")
    return records[keep].reset_index(drop=True)


def check_header(f: h5py.File, path: str) -> tuple:
    """Check filetype and the major format version; return (major, minor)."""
    filetype = _decode(f.attrs.get(schema.ATTR_FILETYPE, None))
    if filetype != schema.FILETYPE:
        raise ResultsFileError(
            f"{path}: not a wordsens results file (filetype attribute is {filetype!r}, "
            f"expected {schema.FILETYPE!r})"
        )
    version = f.attrs.get(schema.ATTR_FORMAT_VERSION, None)
    try:
        major, minor = (int(v) for v in np.asarray(version).ravel()[:2])
    except (TypeError, ValueError):
        raise ResultsFileError(f"{path}: malformed format_version attribute {version!r}") from None
    if major > schema.SUPPORTED_MAJOR:
        raise ResultsFileError(
            f"{path}: format_version {major}.{minor} is newer than this reader "
            f"(understands {schema.SUPPORTED_MAJOR}.x); update wordsens_analysis"
        )
    if major < schema.SUPPORTED_MAJOR:
        raise ResultsFileError(f"{path}: format_version {major}.{minor} is too old for this reader")
    return major, minor


def _hdf5_library():
    """The HDF5 library h5py uses (already loaded), for the one call h5py does not wrap."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                name = os.path.basename(path)
                if name.startswith("libhdf5") and "_hl" not in name and "hl." not in name:
                    return ctypes.CDLL(path)
    except OSError:
        pass
    for name in ("hdf5_serial", "hdf5"):
        found = ctypes.util.find_library(name)
        if found:
            return ctypes.CDLL(found)
    return None


def _swmr_open(path: str) -> h5py.File:
    """Read-only SWMR open with bounded metadata retries (see SWMR_READ_ATTEMPTS)."""
    lib = _hdf5_library()
    if lib is None or not hasattr(lib, "H5Pset_metadata_read_attempts"):
        raise OSError("cannot bound HDF5's metadata read attempts (HDF5 library not found)")
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_libver_bounds(h5py.h5f.LIBVER_LATEST, h5py.h5f.LIBVER_LATEST)
    fapl.set_file_locking(False, True)
    lib.H5Pset_metadata_read_attempts.argtypes = [ctypes.c_int64, ctypes.c_uint]
    lib.H5Pset_metadata_read_attempts.restype = ctypes.c_int
    if lib.H5Pset_metadata_read_attempts(fapl.id, SWMR_READ_ATTEMPTS) < 0:
        raise OSError("H5Pset_metadata_read_attempts failed")
    fid = h5py.h5f.open(os.fsencode(path), h5py.h5f.ACC_RDONLY | h5py.h5f.ACC_SWMR_READ,
                        fapl=fapl)
    return h5py.File(fid)


def _first_line(error: Exception) -> str:
    # str() of a KeyError quotes its message; h5py raises KeyError for unreadable objects.
    text = str(error.args[0] if isinstance(error, KeyError) and error.args else error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _open(path: str) -> h5py.File:
    """Open read-only while `wordsens run` may still be writing (or was killed while writing).

    The writer uses HDF5's SWMR mode: a SWMR reader sees a consistent file and is not refused by
    the "open for write" flags a running or killed writer leaves; file locking is off so that the
    reader neither takes nor trips over the writer's lock. Files not written in SWMR format
    (older HDF5 layout) fall back to a plain read-only open, which reads metadata once.
    """
    errors = []
    for opener in (_swmr_open, lambda p: h5py.File(p, "r", locking=False)):
        try:
            return opener(path)
        except (OSError, ValueError) as e:
            errors.append(_first_line(e))
    raise DamagedFileError(f"{path}: {DAMAGED} (HDF5 cannot open it: {errors[-1]})")


def _check_file(path: str) -> None:
    if not os.path.exists(path):
        raise ResultsFileError(f"{path}: no such file")
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise ResultsFileError(f"{path}: is a directory, not a wordsens results file")
    if not stat.S_ISREG(mode):
        raise ResultsFileError(f"{path}: not a regular file (a FIFO, socket or device), "
                               "not a wordsens results file")
    if not h5py.is_hdf5(path):
        raise ResultsFileError(f"{path}: not an HDF5 file, so not a wordsens results file")


def _require_task_columns(f: h5py.File, path: str) -> None:
    """Every wordsens file has /tasks with its columns (`layers` since 1.0's successors)."""
    tasks = f.get(schema.GROUP_TASKS)
    for column in schema.TASK_COLUMNS:
        if column != "layers" and (not isinstance(tasks, h5py.Group) or column not in tasks):
            raise DamagedFileError(f"{path}: {DAMAGED} (/{schema.GROUP_TASKS}/{column} is missing)")


def _require_record_columns(f: h5py.File, path: str) -> None:
    """A record table with rows has the columns every format version wrote (a report needs them).

    Called only after /tasks is read: HDF5 keeps a dataset's row count from the first time the
    dataset is opened, so a record table looked at before the done flags could miss the rows of a
    task the writer committed in between (it writes a task's rows before its done flag).
    """
    for group, columns in ((schema.GROUP_WS, schema.WS_COLUMNS),
                           (schema.GROUP_GEN, schema.GEN_COLUMNS)):
        g = f.get(group)
        if not isinstance(g, h5py.Group) or "task_id" not in g or g["task_id"].shape[0] == 0:
            continue
        missing = [c for c in columns if c not in g]
        if missing:
            raise DamagedFileError(f"{path}: {DAMAGED} (/{group}/{missing[0]} is missing)")


def read_results(path: str | os.PathLike) -> Results:
    """Read a wordsens results file (finished, merged, or still being written) into Results.

    Raises ResultsFileError when the file is missing, is not a wordsens results file, or has an
    unsupported format version, and DamagedFileError (a subclass) when HDF5 cannot read it or its
    tables are missing. A partial file is read up to its last complete row; what had to be cut is
    listed in Results.notes.
    """
    path = os.fspath(path)
    _check_file(path)
    f = _open(path)
    try:
        with f:
            return _read_open_file(f, path)
    except ResultsFileError:
        raise
    except catalogue.CatalogueConflict as e:
        raise ResultsFileError(str(e)) from None
    except (OSError, KeyError, ValueError, RuntimeError) as e:
        # h5py's errors on metadata HDF5 cannot read (a checksum, a broken link, a cut dataset).
        raise DamagedFileError(f"{path}: {DAMAGED} ({_first_line(e)})") from None


def _read_open_file(f: h5py.File, path: str) -> Results:
    notes: list = []
    # Every object by its name before anything lists a group or the attributes (a damaged
    # listing can crash HDF5): raises when HDF5 cannot read them (attrs.get would say "None").
    # /tasks alone first: its done flags are read before any record table is opened
    # (damage.open_everything says why).
    damage.open_everything(f, groups=(schema.GROUP_TASKS,))
    if damage.has_variable_strings(f):
        problem = damage.global_heap_problem(path)  # before h5py reads a string from the heap
        if problem:
            raise DamagedFileError(f"{path}: {DAMAGED} ({problem})")
    version = check_header(f, path)
    checked = version[1] >= schema.CHECKED_MINOR
    try:
        _require_task_columns(f, path)
        tasks = _read_table(f, schema.GROUP_TASKS, notes)  # the done flags first
        unread = None
    except (ResultsFileError, OSError, KeyError, ValueError, RuntimeError) as e:
        tasks, unread = None, e  # the damage checks below name what does not read back
    if checked:
        problems = damage.check_file(f)
    else:
        # A newer file relabelled as an older one is refused, not read without its checks.
        problems = damage.check_older_file(f)
        notes.append(f"format {version[0]}.{version[1]} {UNCHECKED} of format "
                     f"1.{schema.CHECKED_MINOR}: a damaged value in it cannot be told from a good "
                     "one")
    if problems:
        more = len(problems) - 1
        also = (f"; and {more} more problem{'s' if more > 1 else ''}: wordsens info --check "
                f"{path} lists them") if more else ""
        raise DamagedFileError(f"{path}: {DAMAGED} ({problems[0]}{also})")
    if unread is not None:
        raise unread
    attrs = {k: _decode(v) for k, v in f.attrs.items()}
    config = stored_config.config_of_file(f, version[1], attrs.get(schema.ATTR_CONFIG_TEXT))
    _require_record_columns(f, path)
    ws = _read_table(f, schema.GROUP_WS, notes)
    gen = _read_table(f, schema.GROUP_GEN, notes)
    tasks_attrs, ws_attrs, gen_attrs = dict(tasks.attrs), dict(ws.attrs), dict(gen.attrs)
    summary_ws = _read_table(f, schema.GROUP_SUMMARY_WS, notes)
    summary_gen = _read_table(f, schema.GROUP_SUMMARY_GEN, notes)
    for df in (tasks, summary_ws, summary_gen):
        _map_codes(df, "experiment", schema.EXPERIMENTS)
    for df in (gen, summary_gen):
        _map_codes(df, "training", schema.TRAININGS)
        _map_codes(df, "objective", schema.OBJECTIVES)
    older = format_minors.Decoded(tasks, ws, config)
    format_minors.decode(older, version[1], "ws")
    _map_codes(ws, "S_upper_scope", schema.SCOPES)
    if tasks.empty:
        notes.append("/tasks is empty: no planned tasks")
    else:
        older.tasks = _drop_duplicates(tasks, ["task_id"], "tasks", notes)
        format_minors.decode(older, version[1], "tasks")
        tasks = older.tasks
    ws = _drop_duplicates(ws, ["task_id"], "ws", notes)
    gen = _drop_duplicates(gen, ["task_id", "training", "objective"], "gen", notes)
    if not tasks.empty:
        ws = _join_tasks(_only_done(ws, tasks, "ws", notes), tasks, "ws", notes)
        gen = _join_tasks(_only_done(gen, tasks, "gen", notes), tasks, "gen", notes)
    # of one and of several changed words
    witnesses = _read_witnesses(f, tasks, ws, notes, config)
    models, models_catalogue = _read_models(f, version, tasks, path, notes)
    multi_word = ws.iloc[0:0]
    if "words" in ws:
        several = ws["words"] > 1
        multi_word = ws[several].reset_index(drop=True)
        ws = ws[~several].reset_index(drop=True)
    ws = _described_as(ws, ws_attrs, tasks_attrs)
    multi_word = _described_as(multi_word, ws_attrs, tasks_attrs)
    gen = _described_as(gen, gen_attrs, tasks_attrs)
    tasks = _described_as(tasks, tasks_attrs)
    for note in notes:
        warnings.warn(note, stacklevel=3)  # the caller of read_results
    return Results(path, attrs, version, tasks, ws, gen, summary_ws, summary_gen, witnesses, notes,
                   multi_word, models, config, models_catalogue)
