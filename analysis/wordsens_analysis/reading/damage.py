"""The damage rules of a results file, as `wordsens info --check` applies them.

A file of format 1.5 or later (schema.CHECKED_MINOR) is checked like the C++ readers check it
(src/io/integrity/: consistency.cpp, content_checks.cpp, record_checks.cpp), so that the
report refuses what `wordsens info` refuses: the file holds nothing a format newer than its
version added, every dataset reads back through its Fletcher-32 checksums, the tables fit
together (the rows of done tasks form a prefix, each names a known task of its experiment, no
key repeats, every done task has its rows, offsets stay inside their value arrays), the task
table matches its CRC-32 (the C++ readers also re-plan it from config_text, which Python
cannot), every record value is one a run can write (schema.VALID), and the fields of each record
keep the invariants of a record (schema.RECORD_INVARIANTS).

Older files are read as before, without these guarantees (one note says so), once
check_older_file has found in them nothing a newer format added: a newer file relabelled as an
older one is damaged rather than read without its checks.
"""
from __future__ import annotations

import mmap
import zlib

import h5py
import numpy as np

from . import catalogue, record_invariants, schema, stored_config


class Problems:
    """The problems found so far, with counts per kind (the first example kept)."""

    def __init__(self):
        self.items: list = []

    def add(self, text: str) -> None:
        self.items.append(text)

    def tally(self, what: str, examples: list) -> None:
        if examples:
            more = f"{len(examples)} times; first: " if len(examples) > 1 else ""
            self.items.append(f"{what} ({more}{examples[0]})")


GCOL = b"GCOL\x01\x00\x00\x00"  # a global heap collection: signature, version 1, reserved


def _collection_problem(data, at: int) -> str:
    """The problem of the global heap collection at `at` ("" when well formed)."""
    where = f"global heap collection at {at}"
    size = int.from_bytes(data[at + 8:at + 16], "little")
    if size < 4096 or size > len(data) - at:
        return f"{where}: its size {size} is impossible"
    seen, p = set(), 16
    while p + 16 <= size:
        index = int.from_bytes(data[at + p:at + p + 2], "little")
        length = int.from_bytes(data[at + p + 8:at + p + 16], "little")
        if index == 0:  # free space, its header included: it must end with the collection
            if length < 16 or length != size - p:
                return f"{where}: its free space ({length} bytes at {p}) does not end the collection"
            return ""
        if index in seen:
            return f"{where}: object {index} appears twice"
        seen.add(index)
        padded = (length + 7) // 8 * 8
        if padded > size - p - 16:
            return f"{where}: object {index} ({length} bytes) runs past the collection's end"
        p += 16 + padded
    return ""


def global_heap_problem(path: str) -> str:
    """"" when every global heap collection of the file is well formed (src/io/h5/global_heap.cpp):
    HDF5 reads variable-length strings from it without a checksum and trusts its sizes, so a
    damaged one crashes h5py (SIGSEGV) or makes it loop. Only files before format 1.5 (and files
    edited by other tools) have one."""
    with open(path, "rb") as f:
        try:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file
            return ""
        with data:
            at = data.find(GCOL)
            while at >= 0:
                problem = _collection_problem(data, at)
                if problem:
                    return problem
                at = data.find(GCOL, at + 1)
    return ""


def has_variable_strings(f: h5py.File) -> bool:
    """Whether a root attribute is a variable-length string (its type only is read)."""
    for name in (n for n in schema.ROOT_ATTRS if n in f.attrs):
        string = h5py.check_string_dtype(f.attrs.get_id(name).dtype)
        if string is not None and string.length is None:
            return True
    return False


def fnv1a64(data: bytes) -> str:
    """FNV-1a 64 of `data` as 16 hex digits (config_hash)."""
    h = 14695981039346656037
    for byte in data:
        h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def _text(value) -> str:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _rows_that_fail(ds: h5py.Dataset, start: int, stop: int) -> str:
    """The rows of the first chunk in [start, stop) that does not read back."""
    chunk = ds.chunks[0] if ds.chunks else stop - start
    first = start - start % chunk
    while first < stop:
        begin, end = max(first, start), min(first + chunk, stop)
        try:
            ds[begin:end]
        except (OSError, ValueError, RuntimeError):
            return f"rows {begin}-{end - 1}"
        first += chunk
    return f"rows {start}-{stop - 1}"


DATA_CHECKSUM = "Fletcher32 checksum"  # HDF5's message when a chunk's checksum fails


def read_back(ds: h5py.Dataset, where: str, problems: Problems) -> bool:
    """Reads every row of `ds` (in blocks of chunks); a chunk whose checksum fails is a problem
    naming the dataset and its rows, and so is metadata HDF5 cannot read. False: the latter
    (each further read would wait through HDF5's metadata retries again: stop reading)."""
    rows = ds.shape[0] if ds.shape else 0
    block = (ds.chunks[0] if ds.chunks else max(rows, 1)) * 64
    for start in range(0, rows, block):
        stop = min(rows, start + block)
        for attempt in range(2):
            try:
                ds[start:stop]
                break
            except (OSError, ValueError, RuntimeError) as e:
                text = str(e).strip()
                checksum = DATA_CHECKSUM in text
                if checksum and attempt == 0:
                    continue  # a live writer may have been rewriting the chunk: read it again
                first = text.splitlines()[0] if text else type(e).__name__
                rows_text = f"{_rows_that_fail(ds, start, stop)}: " if checksum else ""
                problems.add(f"{where} cannot be read back ({rows_text}{first})")
                return checksum
    return True


def _datasets(f: h5py.File, group: str) -> dict:
    """The datasets of a table that the file has, opened by name (schema.DATASETS)."""
    if group not in f:
        return {}
    g = f[group]
    found = {}
    for name in schema.DATASETS[group]:
        if name in g:
            ds = g[name]
            if isinstance(ds, h5py.Dataset):
                found[name] = ds
    return found


def open_everything(f: h5py.File, groups=None) -> None:
    """Opens every group, dataset and root attribute a writer of format 1.5 creates by its
    name: damaged link or attribute storage then raises (KeyError, OSError) before anything
    lists a group's links or the file's attributes, which could crash HDF5 (schema.DATASETS).

    groups limits the tables opened (default: all). A reader opens /tasks alone, reads the done
    flags, and only then the record tables: HDF5 keeps a dataset's row count from the first time
    it opens it, so a record table opened before the flags are read could miss the rows of a
    task a live writer finishes in between."""
    for name in schema.ROOT_ATTRS:
        if name in f.attrs:
            f.attrs.get_id(name)
    for group in schema.DATASETS if groups is None else groups:
        _datasets(f, group)


def check_datasets(f: h5py.File, problems: Problems) -> None:
    """Every dataset of every table has its checksum and reads back."""
    for group in schema.DATASETS:
        for name, ds in _datasets(f, group).items():
            where = f"/{group}/{name}"
            if not ds.fletcher32:
                problems.add(f"{where} has no checksum (rewritten by another tool?)")
            if not read_back(ds, where, problems):
                return


def check_attributes(f: h5py.File, problems: Problems) -> None:
    for name in schema.REQUIRED_ROOT_ATTRS:
        if name not in f.attrs:
            problems.add(f"the root attribute {name} is missing")
    if "config_text" in f.attrs and "config_hash" in f.attrs:
        text = _text(f.attrs["config_text"]).encode("utf-8")
        if fnv1a64(text) != _text(f.attrs["config_hash"]):
            problems.add("config_hash does not match config_text (the stored configuration was "
                         "altered)")
    if schema.ATTR_TASK_TABLE_CRC32 not in f.attrs:
        problems.add(f"the root attribute {schema.ATTR_TASK_TABLE_CRC32} is missing")
    if has_variable_strings(f):
        problems.add("a root attribute is a variable-length string, which a writer of this "
                     "format never stores (rewritten by another tool?)")


def check_version(f: h5py.File, problems: Problems) -> None:
    """The file holds no dataset, table or root attribute that a format newer than its
    format_version added (schema.SINCE_MINOR; consistency.cpp's check_version_against_contents):
    a newer file relabelled as an older one would be read by the older version's rules."""
    minor = _minor(f)
    version = f"format_version 1.{minor}"

    def newer(what: str, since: int) -> None:
        problems.add(f"{version}, but it holds {what}, which format 1.{since} added (relabelled "
                     "as an older version?)")

    try:
        for group in schema.DATASETS:
            if group not in f:
                continue
            since = schema.SINCE_MINOR_TABLES.get(group, 0)
            if since > minor:
                newer(f"the table /{group}", since)
                continue
            for name in schema.DATASETS[group]:
                since = schema.SINCE_MINOR.get(f"{group}/{name}", 0)
                if since > minor and name in f[group]:
                    newer(f"/{group}/{name}", since)
        for group, since in schema.SINCE_MINOR_TABLES.items():  # groups of attributes
            if group not in schema.DATASETS and since > minor and group in f:
                newer(f"the group /{group}", since)
        for name, since in schema.SINCE_MINOR_ATTRS.items():
            if since > minor and name in f.attrs:
                newer(f"the root attribute {name}", since)
    except (OSError, ValueError, RuntimeError, KeyError):
        pass  # metadata HDF5 cannot read: the checks that follow name it


def _task_columns(f: h5py.File, problems: Problems):
    """The /tasks columns as arrays of their common length, or None when unusable."""
    sets = _datasets(f, schema.GROUP_TASKS)
    expected = schema.TASK_COLUMNS + ("words",)
    if _minor(f) >= schema.HEADS_MINOR:
        expected += ("heads",)
    for column in expected:
        if column not in sets:
            problems.add(f"/{schema.GROUP_TASKS}/{column} is missing")
    if any(c not in sets for c in ("task_id", "done", "experiment")):
        return None
    rows = sets["task_id"].shape[0]
    usable = True
    for name, ds in sets.items():
        if ds.shape[0] != rows:
            problems.add(f"/tasks/{name} has {ds.shape[0]} rows, /tasks/task_id has {rows}")
            usable = usable and ds.shape[0] > rows
    if not usable:
        return None
    return {name: ds[:rows] for name, ds in sets.items()}


def task_table_crc(config_text, tasks: dict):
    """task_table_crc32 as the writer computes it (FORMAT.md) over a configuration text and the
    columns of a task table (name -> array); None when a column it covers is missing. heads is
    covered when the table has it (every writer from 1.8 on): a heads column removed from such a
    file still changes the bytes."""
    columns = {c: t for c, t in schema.TASK_CRC_COLUMNS.items() if c != "heads" or c in tasks}
    if any(c not in tasks for c in columns):
        return None
    crc = zlib.crc32(_text(config_text).encode("utf-8"))
    for column, dtype in columns.items():
        values = np.asarray(tasks[column])
        if dtype.startswith("S"):
            values = values.astype(dtype)
        else:
            values = values.astype(dtype, casting="unsafe")
        crc = zlib.crc32(values.tobytes(), crc)
    return crc


def check_task_crc(f: h5py.File, tasks: dict, problems: Problems) -> None:
    """The task table and config_text match the CRC-32 the writer stored (FORMAT.md)."""
    if schema.ATTR_TASK_TABLE_CRC32 not in f.attrs or "config_text" not in f.attrs:
        return
    crc = task_table_crc(f.attrs["config_text"], tasks)
    if crc is None:
        return
    if crc != int(f.attrs[schema.ATTR_TASK_TABLE_CRC32]) & 0xFFFFFFFF:
        problems.add("the task table or config_text does not match its checksum "
                     f"{schema.ATTR_TASK_TABLE_CRC32} (edited after the run planned it)")


def check_tasks(tasks: dict, problems: Problems) -> dict:
    """Task ids unique, flags and codes in range; returns task id → (done, experiment, n, d, m)
    (m: words, 1 where the table has no such column: format 1.3 and before)."""
    state = {}
    repeated, flags, codes = [], [], []
    rows = len(tasks["task_id"])
    n_of = tasks.get("n", np.zeros(rows, dtype=np.int64))
    d_of = tasks.get("d", np.zeros(rows, dtype=np.int64))
    m_of = tasks.get("words", np.ones(rows, dtype=np.int64))
    for row, (tid, done, exp, n, d, m) in enumerate(zip(
            tasks["task_id"].tolist(), tasks["done"].tolist(), tasks["experiment"].tolist(),
            n_of.tolist(), d_of.tolist(), m_of.tolist())):
        if tid in state:
            repeated.append(f"row {row}, task {tid}")
        else:
            state[tid] = (done == 1, exp, n, d, m)
        if done not in (0, 1):
            flags.append(f"row {row}: {done}")
        if exp not in (0, 1):
            codes.append(f"row {row}: {exp}")
    problems.tally("task ids repeat in /tasks", repeated)
    problems.tally("done flags other than 0 and 1 in /tasks", flags)
    problems.tally("experiment codes other than 0 (ws) and 1 (gen) in /tasks", codes)
    return state


def _minor(f: h5py.File) -> int:
    """The file's minor format version (0 when its format_version does not read)."""
    try:
        return int(np.asarray(f.attrs[schema.ATTR_FORMAT_VERSION]).ravel()[1])
    except (KeyError, IndexError, TypeError, ValueError):
        return 0


def check_models(f: h5py.File, tasks: dict, problems: Problems) -> None:
    """/models (format 1.7 on) lists each model of the task table once and no other, in the
    catalogue's order, with flags 0 or 1 and a width code 0 to 2 (1.10 on); the models every
    build had (catalogue.BEFORE_1_7) with their kind's traits (content_checks.cpp's
    check_models; the C++ readers know the writing catalogue, this reader the four models it can
    judge without one)."""
    sets = _datasets(f, schema.GROUP_MODELS)
    all_traits = _minor(f) >= schema.ALL_TRAITS_MINOR
    required = schema.MODEL_COLUMNS + (schema.MODEL_COLUMNS_1_10 if all_traits else ())
    missing = [c for c in required if c not in sets]
    if missing:
        problems.add(f"/{schema.GROUP_MODELS}/{missing[0]} is missing")
        return
    lengths = {ds.shape[0] for ds in sets.values()}
    if len(lengths) != 1:
        problems.add(f"/{schema.GROUP_MODELS} has columns of unequal length")
        return
    listed = [_text(v) for v in sets["model"][:]]
    run = {_text(v) for v in tasks.get("model", [])}
    order = {t.name: i for i, t in enumerate(catalogue.BEFORE_1_7)}
    known = [m for m in listed if m in order]
    if (sorted(listed) != sorted(run) or len(set(listed)) != len(listed)
            or known != sorted(known, key=order.get)):
        problems.add(f"/{schema.GROUP_MODELS} lists {', '.join(listed) or 'no model'}, but the "
                     f"task table runs {', '.join(sorted(run, key=lambda m: order.get(m, 99)))}")
        return
    columns = ("attention", "deep", "marginal_sampler") + (
        ("multi_head", "encoder") if all_traits else ())
    flags = {c: np.asarray(sets[c][:]) for c in columns}
    widths = np.asarray(sets["width"][:]) if all_traits else None
    before = {t.name: t for t in catalogue.BEFORE_1_7}
    for i, model in enumerate(listed):
        values = {c: int(v[i]) for c, v in flags.items()}
        width = None if widths is None else int(widths[i])
        bad = any(v not in (0, 1) for v in values.values()) or (
            width is not None and width not in range(len(catalogue.WIDTHS)))
        t = before.get(model)  # a model every build had: its kind's traits
        if not bad and t is not None:
            bad = values != {c: int(getattr(t, c)) for c in columns} or (
                width is not None and catalogue.WIDTHS[width] != t.width)
        if bad:
            problems.add(f"/{schema.GROUP_MODELS} gives {model} other traits than its kind has")


def check_records(f: h5py.File, group: str, state: dict, problems: Problems) -> None:
    """A record table against the task table (consistency.cpp's check_records)."""
    rule = schema.RECORD_TABLES[group]
    sets = _datasets(f, group)
    if "task_id" not in sets:
        problems.add(f"/{group}/task_id is missing")
        return
    ids = sets["task_id"][:].tolist()
    unknown, committed = [], 0
    for row, tid in enumerate(ids):
        task = state.get(tid)
        if task is None:
            unknown.append(f"row {row}, task {tid}")
        elif task[0]:
            committed = row + 1
    problems.tally(f"/{group}: rows name task ids not in /tasks", unknown)
    columns = {k: v for k, v in sets.items() if not k.endswith(schema.VALUES_SUFFIX)}
    for name, ds in columns.items():
        if ds.shape[0] < committed:
            problems.add(f"/{group}/{name} has {ds.shape[0]} rows, but the rows of done tasks "
                         f"reach row {committed}")
    interleaved, foreign, rows_of = [], [], {}
    for row in range(committed):
        task = state.get(ids[row])
        if task is None:
            continue
        if not task[0]:
            interleaved.append(f"row {row}, task {ids[row]}")
            continue
        if rule["experiment"] >= 0 and task[1] != rule["experiment"]:
            foreign.append(f"row {row}, task {ids[row]}")
        rows_of[ids[row]] = rows_of.get(ids[row], 0) + 1
    problems.tally(f"/{group}: a row of an unfinished task lies before rows of done tasks",
                   interleaved)
    problems.tally(f"/{group}: rows belong to tasks of the other experiment", foreign)
    key = rule["key"]
    if all(k in columns and columns[k].shape[0] >= committed for k in key):
        keys = list(zip(*(columns[k][:committed].tolist() for k in key)))
        first, repeated = {}, []
        for row in range(committed):
            task = state.get(ids[row])
            if task is None or not task[0]:
                continue
            if keys[row] in first:
                text = "(" + ", ".join(_text(v) for v in keys[row]) + ")"
                repeated.append(f"rows {first[keys[row]]} and {row}: {text}")
            else:
                first[keys[row]] = row
        problems.tally(f"/{group}: rows of done tasks repeat their key ({', '.join(key)})",
                       repeated)
    if rule["rows"] != "any":
        missing, extra = [], []
        for tid, (done, exp, *_) in sorted(state.items()):
            if not done or exp != rule["experiment"]:
                continue
            count = rows_of.get(tid, 0)
            if count == 0:
                missing.append(f"task {tid}")
            if count > 1 and rule["rows"] == "one":
                extra.append(f"task {tid}: {count} rows")
        problems.tally(f"/{group}: done tasks without their rows", missing)
        problems.tally(f"/{group}: done tasks with more than one row", extra)
    _check_flats(group, sets, committed, problems)


def _flat_rows(group: str, sets: dict):
    """(values dataset, offset column, length columns) of each flat array of a table."""
    for name in sets:
        if not name.endswith(schema.VALUES_SUFFIX):
            continue
        if name == schema.WITNESS_VALUES and group == schema.GROUP_WITNESS:
            yield name, "offset", ("rows", "cols")
        else:
            base = name[: -len(schema.RAGGED_VALUES)]
            yield name, base + schema.RAGGED_OFFSET, (base + schema.RAGGED_LENGTH,)


def _check_flats(group: str, sets: dict, committed: int, problems: Problems) -> None:
    for values, offset, length in _flat_rows(group, sets):
        needed = (offset, *length)
        if any(c not in sets or sets[c].shape[0] < committed for c in needed):
            continue
        total = sets[values].shape[0]
        off = sets[offset][:committed].astype(np.int64)
        size = sets[length[0]][:committed].astype(np.int64)
        if len(length) == 2:
            cols = sets[length[1]][:committed].astype(np.int64)
            bad_shape = (size < 0) | (cols < 0)
            size = np.where(bad_shape, -1, size * np.where(bad_shape, 0, cols))
        outside = [f"row {r}: offset {o}, length {n}"
                   for r, (o, n) in enumerate(zip(off.tolist(), size.tolist()))
                   if o < 0 or n < 0 or o > total - n]
        problems.tally(f"/{group}: rows of done tasks point outside /{group}/{values} "
                       f"({total} values)", outside)


def _valid(rule: str, values: np.ndarray, n: np.ndarray) -> np.ndarray:
    v = values.astype(float)
    with np.errstate(invalid="ignore"):
        return {
            "finite": np.isfinite(v),
            "nonnegative": np.isfinite(v) & (v >= 0),
            "positive": np.isfinite(v) & (v > 0),
            "certified": (v >= 0) & (v <= schema.CERTIFICATION_TOLERANCE),
            "nonnegative_or_nan": np.isnan(v) | (v >= 0),
            "code_0_1": (v == 0) | (v == 1),
            "code_0_2": (v == 0) | (v == 1) | (v == 2),
            "count": v >= 0,
            "position": (v >= 0) & (v < n),
            "position_or_none": (v >= -1) & (v < n),
        }[rule]


def check_values(f: h5py.File, group: str, state: dict, problems: Problems) -> None:
    """Every value of the rows of done tasks is one a run can write (schema.VALID)."""
    sets = _datasets(f, group)
    if "task_id" not in sets:
        return
    ids = sets["task_id"][:]
    done_rows = np.array([i for i, t in enumerate(ids.tolist()) if state.get(t, (False,))[0]],
                         dtype=np.int64)
    n = np.array([state[t][2] for t in ids[done_rows].tolist()], dtype=float)
    for column, rule in schema.VALID[group].items():
        if column in sets:
            values = sets[column][:]
            rows = done_rows[done_rows < values.shape[0]]
            ok = _valid(rule, values[rows], n[: rows.shape[0]])
            bad = [f"row {r}: {values[r]}" for r in rows[~ok].tolist()]
            problems.tally(f"/{group}/{column} holds values outside what a run writes "
                           f"({schema.VALID_TEXT[rule]})", bad)
        flat = column + schema.RAGGED_VALUES
        off, length = column + schema.RAGGED_OFFSET, column + schema.RAGGED_LENGTH
        if flat in sets and off in sets and length in sets:
            values = sets[flat][:]
            offsets, lengths = sets[off][:], sets[length][:]
            bad = []
            for r, task_n in zip(done_rows.tolist(), n.tolist()):
                if r >= offsets.shape[0] or r >= lengths.shape[0]:
                    continue
                o, size = int(offsets[r]), int(lengths[r])
                if o < 0 or size < 0 or o > values.shape[0] - size:
                    continue
                ok = _valid(rule, values[o:o + size], np.full(size, task_n))
                if not ok.all():
                    i = int(np.argmin(ok))
                    bad.append(f"row {r}, element {i}: {values[o + i]}")
            problems.tally(f"/{group}/{flat} holds values outside what a run writes "
                           f"({schema.VALID_TEXT[rule]})", bad)


def row_crcs(sets: dict, group: str, rows: np.ndarray) -> np.ndarray:
    """zlib's CRC-32 of each of `rows` (FORMAT.md, "Row checksums"): the stored bytes of the row
    columns sorted by name (not row_crc32, not the offsets into flat arrays), then the row's
    values of each flat array, the arrays sorted by name. -1 for a row that is cut short or
    points outside a flat array (check_records reports those)."""
    flats = sorted(_flat_rows(group, sets))
    offsets = {offset for _, offset, _ in flats}
    columns = sorted(n for n in sets if not n.endswith(schema.VALUES_SUFFIX)
                     and n not in offsets and n != schema.ROW_CRC32)
    data = [np.ascontiguousarray(sets[c][:]) for c in columns]
    length = min(d.shape[0] for d in data)
    # One matrix of the rows' column bytes: row r's bytes are its columns', in order.
    matrix = np.concatenate([d[:length].view(np.uint8).reshape(length, -1) for d in data], axis=1)
    spans = []
    for values, offset, size in flats:  # check_row_crcs saw every dataset of the table
        count = sets[size[0]][:].astype(np.int64)
        if len(size) == 2:
            count = count[:length] * sets[size[1]][:length].astype(np.int64)
        spans.append((np.ascontiguousarray(sets[values][:]), sets[offset][:].astype(np.int64),
                      count))
    out = np.full(rows.shape[0], -1, dtype=np.int64)
    for i, r in enumerate(rows.tolist()):
        if r >= length or any(r >= o.shape[0] or r >= n.shape[0] for _, o, n in spans):
            continue
        crc = zlib.crc32(matrix[r].tobytes())
        for values, o, n in spans:
            first, size = int(o[r]), int(n[r])
            if first < 0 or size < 0 or first > values.shape[0] - size:
                break
            crc = zlib.crc32(values[first:first + size].tobytes(), crc)
        else:
            out[i] = crc
    return out


def check_row_crcs(f: h5py.File, group: str, state: dict, problems: Problems) -> None:
    """The rows of done tasks match their row checksums (format 1.6 on)."""
    sets = _datasets(f, group)
    if any(name not in sets for name in schema.DATASETS[group]):
        return  # a file without row checksums (1.5), or a column missing: reported as such
    ids, stored = sets["task_id"][:], sets[schema.ROW_CRC32][:].astype(np.int64)
    rows = np.array([r for r, t in enumerate(ids.tolist())
                     if r < stored.shape[0] and state.get(t, (False,))[0]], dtype=np.int64)
    if rows.shape[0] == 0:
        return
    crcs = row_crcs(sets, group, rows)
    bad = [f"row {r}" for r, c in zip(rows.tolist(), crcs.tolist()) if c >= 0 and c != stored[r]]
    problems.tally(f"/{group} has rows that do not match their checksum {schema.ROW_CRC32}", bad)


def _cannot_open(e: Exception) -> str:
    text = str(e.args[0] if isinstance(e, KeyError) and e.args else e).strip()
    return f"cannot open its groups, datasets or attributes ({text or type(e).__name__})"


def check_file(f: h5py.File) -> list:
    """Every problem of a file of format schema.CHECKED_MINOR or later (empty: not damaged)."""
    problems = Problems()
    unreadable = (OSError, ValueError, RuntimeError, KeyError)
    try:
        open_everything(f, groups=(schema.GROUP_TASKS,))
    except unreadable as e:
        return [_cannot_open(e)]
    check_attributes(f, problems)
    check_version(f, problems)
    try:
        # The done flags before any record table is opened: a live writer flushes a task's rows
        # before its flag, so the rows of every task seen done here are there when read below.
        tasks = _task_columns(f, problems)
    except unreadable:
        tasks = None  # check_datasets names the dataset and rows that do not read back
    try:
        open_everything(f)
    except unreadable as e:
        return [_cannot_open(e)]
    read_problems = len(problems.items)
    check_datasets(f, problems)
    if tasks is None or len(problems.items) > read_problems:
        return problems.items  # the checks below would read what does not read back
    try:
        state = check_tasks(tasks, problems)
        check_task_crc(f, tasks, problems)
        if _minor(f) >= schema.MODELS_MINOR:
            check_models(f, tasks, problems)
        check_config(f, problems)
        for group in schema.RECORD_TABLES:
            check_records(f, group, state, problems)
        if not problems.items:
            for group in schema.VALID:
                check_values(f, group, state, problems)
            for group in schema.RECORD_TABLES:
                check_row_crcs(f, group, state, problems)
        if not problems.items:
            record_invariants.check_invariants(f, state, problems, _datasets)
    except unreadable as e:
        problems.add(f"cannot check the tables ({str(e).strip() or type(e).__name__})")
    return problems.items


def check_config(f: h5py.File, problems: Problems) -> None:
    """/config (format 1.11 on) holds config_text's keys, each typed by its kind and equal to the
    text's value (stored_config.cpp's check_stored_config)."""
    if _minor(f) < schema.CONFIG_MINOR or schema.ATTR_CONFIG_TEXT not in f.attrs:
        return
    if schema.GROUP_CONFIG not in f:
        problems.add(f"the group /{schema.GROUP_CONFIG} is missing")
        return
    text = f.attrs[schema.ATTR_CONFIG_TEXT]
    text = text.decode("utf-8") if isinstance(text, bytes) else str(text)
    problems.tally(f"/{schema.GROUP_CONFIG} differs from config_text",
                   stored_config.differences(f, text))


def check_older_file(f: h5py.File) -> list:
    """The problems of a file before format schema.CHECKED_MINOR: it holds nothing a newer format
    added (a newer file relabelled as an older one would be read without the checks of its real
    version). Its values are read without the other guarantees (read_results notes it), as
    older readers read them."""
    problems = Problems()
    try:
        open_everything(f)
    except (OSError, ValueError, RuntimeError, KeyError) as e:
        return [_cannot_open(e)]
    check_version(f, problems)
    return problems.items
