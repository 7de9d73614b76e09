"""Reading results files: header checks, joins, partial and still-open files, witnesses."""
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest
from conftest import ROOT, synthetic_tables, write_results

from wordsens_analysis import ResultsFileError, read_results
from wordsens_analysis.reader import DamagedFileError
from wordsens_analysis.reading import schema


def test_reads_tables_joined_with_their_tasks(synthetic_file):
    res = read_results(synthetic_file)
    assert res.format_version == (1, 2) and res.complete
    assert res.attrs["filetype"] == "wordsens-results"
    assert set(res.tasks["model"]) == {"rf", "drf", "raf", "raf_relu"}  # fixed strings decoded
    assert set(res.tasks["experiment"]) == {"ws", "gen"}
    assert len(res.ws) == 4 * 5 * 12 and len(res.gen) == 2 * 5 * 12 * 4
    for col in ("model", "n", "d", "k", "N", "layers", "trial", "S", "S_upper"):
        assert col in res.ws, col
    assert set(res.gen["training"]) == {"finetune", "retrain"}
    assert set(res.gen["objective"]) == {"loss", "align"}
    # The join is right: the S of a task equals the one written for it.
    with h5py.File(synthetic_file, "r") as f:
        tid, S = f["ws/task_id"][7], f["ws/S"][7]
        model = f["tasks/model"][tid].decode()
    row = res.ws[res.ws.task_id == tid].iloc[0]
    assert row["S"] == S and row["model"] == model


def test_newer_major_version_is_refused(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=1)
    path = write_results(tmp_path / "v2.h5", tasks, ws, gen, version=(2, 0))
    with pytest.raises(ResultsFileError, match=r"format_version 2\.0 is newer than this reader"):
        read_results(path)


def test_older_minor_version_is_read_with_a_note(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=1)
    res = read_results(write_results(tmp_path / "v1_4.h5", tasks, ws, gen, version=(1, 4)))
    assert res.format_version == (1, 4) and len(res.ws) == 4
    assert [n for n in res.notes if "predates the checksums" in n]


def test_a_newer_minor_version_without_checksums_is_damaged(tmp_path):
    """From 1.5 on every dataset has its checksum: a file claiming 1.7 without them is not one
    a wordsens wrote (test_reader_integrity.py reads a real file of a newer minor version)."""
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=1)
    path = write_results(tmp_path / "v1_7.h5", tasks, ws, gen, version=(1, 7))
    with pytest.raises(DamagedFileError, match="no checksum|is missing"):
        read_results(path)


def test_other_files_are_refused(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=1)
    other = write_results(tmp_path / "other.h5", tasks, ws, gen, filetype="something-else")
    with pytest.raises(ResultsFileError, match="not a wordsens results file"):
        read_results(other)
    text = tmp_path / "text.h5"
    text.write_text("hello\n")
    with pytest.raises(ResultsFileError, match="not an HDF5 file"):
        read_results(text)
    with pytest.raises(ResultsFileError, match="no such file"):
        read_results(tmp_path / "missing.h5")


def test_partial_file(tmp_path):
    """A run killed mid-way: some tasks not done, orphan rows, a column one row longer."""
    tasks, ws, gen = synthetic_tables(trials=4)
    # Tasks after the first 30 are not done; their ws rows beyond 35 were never written, rows
    # 30..34 are orphans (written, done flag not flushed).
    tasks["done"][30:] = 0
    ws = {k: v[:35] for k, v in ws.items()}
    ws["S"] = np.append(ws["S"], 0.5)  # a row being appended when the file was read
    path = write_results(tmp_path / "partial.h5", tasks, ws, gen={k: v[:0] for k, v in gen.items()})
    with pytest.warns(UserWarning):
        res = read_results(path)
    assert not res.complete and res.done == 30 and res.planned == len(tasks["task_id"])
    assert len(res.ws) == 30 and res.ws["task_id"].max() == 29
    assert res.gen.empty
    assert any("unequal length" in n for n in res.notes)
    assert any("not marked done" in n for n in res.notes)


WRITER = textwrap.dedent("""
    import sys, h5py, numpy as np
    sys.path.insert(0, {tests!r}); sys.path.insert(0, {analysis!r})
    from conftest import synthetic_tables, write_table
    tasks, ws, gen = synthetic_tables(ns=(10, 20, 40), trials=3)
    f = h5py.File({path!r}, "w", libver="latest")
    f.attrs["filetype"] = "wordsens-results"
    f.attrs["format_version"] = np.array([1, 2], dtype=np.int32)
    write_table(f, "tasks", tasks)
    write_table(f, "ws", {{k: v[:5] for k, v in ws.items()}})
    f.swmr_mode = True
    f["ws/S"].resize((6,)); f["ws/S"][5] = 1.0; f.flush()
    print("ready", flush=True)
    if sys.stdin.readline().strip() == "kill":
        import os, signal
        os.kill(os.getpid(), signal.SIGKILL)  # leaves the "open for write" flag set
    f.close()
""")


def test_reads_a_file_the_writer_still_holds_open(tmp_path):
    path = str(tmp_path / "open.h5")
    code = WRITER.format(tests=str(ROOT + "/tests/python"), analysis=ROOT + "/analysis", path=path)
    writer = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "ready"
        with pytest.warns(UserWarning):
            res = read_results(path)
        assert len(res.ws) == 5  # the half-appended sixth row is cut
        assert res.complete  # fixture marks every task done; the rows say otherwise
    finally:
        writer.stdin.write("\n")
        writer.stdin.flush()
        writer.wait(timeout=30)
    assert writer.returncode == 0


def test_reads_a_file_left_by_a_killed_writer(tmp_path):
    path = str(tmp_path / "killed.h5")
    code = WRITER.format(tests=str(ROOT + "/tests/python"), analysis=ROOT + "/analysis", path=path)
    writer = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "ready"
    writer.stdin.write("kill\n")
    writer.stdin.flush()
    assert writer.wait(timeout=30) == -9
    with pytest.raises(OSError):  # what a plain reader meets
        h5py.File(path, "r")
    with pytest.warns(UserWarning):
        res = read_results(path)
    assert len(res.ws) == 5 and res.planned == 4 * 3 * 3 + 2 * 3 * 3  # ws: 4 models, gen: 2


COMMIT_ONE_TASK = textwrap.dedent("""
    import h5py
    from math import nan
    with h5py.File({path!r}, "r+", locking=False) as f:
        for name, value in {row!r}.items():
            ds = f["ws"][name]
            ds.resize((ds.shape[0] + 1,))
            ds[-1] = value
        f.flush()  # rows first, then the done flag, as the writer commits a task
        f["tasks/done"][{task_row}] = 1
""")


def test_a_task_committed_while_the_file_is_read_counts_with_its_row(tmp_path, monkeypatch):
    """A task finished between the reader's first look at the file and its read of /tasks.

    The writer puts a task's rows on disk before its done flag. The reader must see every row of
    a task it counts as done: it reads the done flags before it loads any record table, whose
    row count HDF5 would otherwise keep from the earlier look.
    """
    from wordsens_analysis.reading import reader
    tasks, ws, gen = synthetic_tables(ns=(10, 20), trials=3, gen_models=())
    last = len(ws["task_id"]) - 1
    task_row = int(np.flatnonzero(tasks["task_id"] == ws["task_id"][last])[0])
    tasks["done"][task_row] = 0  # the last ws task is still running when the reader opens
    row = {k: v[last].item() for k, v in ws.items()}
    path = write_results(tmp_path / "live.h5", tasks, {k: v[:last] for k, v in ws.items()},
                         {k: v[:0] for k, v in gen.items()})
    read_table = reader._read_table

    def commit_before_tasks_are_read(f, group, notes):
        if group == schema.GROUP_TASKS:
            code = COMMIT_ONE_TASK.format(path=str(path), row=row, task_row=task_row)
            subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
        return read_table(f, group, notes)

    monkeypatch.setattr(reader, "_read_table", commit_before_tasks_are_read)
    res = read_results(path)
    assert res.done == len(ws["task_id"]) and len(res.ws) == res.done
    assert res.complete


def test_a_file_with_no_record_yet(tmp_path):
    """Just created by `wordsens run`: every column exists, empty; no task done."""
    tasks, ws, gen = synthetic_tables(ns=(10, 20, 40), trials=3)
    tasks["done"][:] = 0
    path = write_results(tmp_path / "empty.h5", tasks, {k: v[:0] for k, v in ws.items()},
                         {k: v[:0] for k, v in gen.items()})
    res = read_results(path)
    assert res.ws.empty and res.gen.empty and res.done == 0 and not res.complete
    from wordsens_analysis.claims import verdicts
    v = verdicts.judge_frames(res.ws, res.gen)
    assert (v["verdict"] == "inconclusive").all() and v["reason"].str.startswith("no ").all()
    from wordsens_analysis.report import main
    assert main([str(path), "-o", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "verdicts.csv").exists()


def test_reads_an_older_hdf5_layout(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=1)
    res = read_results(write_results(tmp_path / "old.h5", tasks, ws, gen, libver=None))
    assert len(res.ws) == 4


def test_witness_arrays(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=3, models=("raf",), gen_models=())
    rng = np.random.default_rng(0)
    X, W, delta = rng.normal(size=(10, 8)), rng.normal(size=(8, 8)), rng.normal(size=8)
    wit = [dict(task_id=1, position=4, delta=delta, X=X, W=W)]
    res = read_results(write_results(tmp_path / "w.h5", tasks, ws, gen, witnesses=wit))
    (w,) = res.witnesses
    assert w.task_id == 1 and w.position == 4 and w.model == "raf"
    np.testing.assert_array_equal(w.X, X)
    np.testing.assert_array_equal(w.W, W)
    np.testing.assert_array_equal(w.delta, delta)
    assert w.S == res.ws.loc[res.ws.task_id == 1, "S"].iloc[0]


def test_witness_memory_budget(tmp_path, monkeypatch):
    from wordsens_analysis.reading import reader as reader_module

    tasks, ws, gen = synthetic_tables(ns=(10,), trials=3, models=("raf",), gen_models=())
    rng = np.random.default_rng(0)
    wit = [dict(task_id=t, position=0, delta=rng.normal(size=8), X=rng.normal(size=(10, 8)),
                W=rng.normal(size=(8, 8))) for t in range(3)]
    path = write_results(tmp_path / "w.h5", tasks, ws, gen, witnesses=wit)
    monkeypatch.setattr(reader_module, "WITNESS_BUDGET", 2 * (8 + 80 + 64))  # two tasks' arrays
    with pytest.warns(UserWarning, match="not loaded"):
        res = read_results(path)
    assert [w.task_id for w in res.witnesses] == [0, 1]


def test_witness_memory_budget_loads_a_task_whole_or_not_at_all(tmp_path, monkeypatch):
    """A task's arrays are loaded together: room for the second task's Δ and X but not its W
    leaves that witness out, never a witness without part of its weights (which its twin would
    recompute with the wrong map: drf's V2 without V1 crashed the report)."""
    from wordsens_analysis.reading import reader as reader_module

    tasks, ws, gen = synthetic_tables(ns=(10,), trials=2, models=("raf",), gen_models=())
    rng = np.random.default_rng(1)
    wit = [dict(task_id=t, position=0, delta=rng.normal(size=8), X=rng.normal(size=(10, 8)),
                W=rng.normal(size=(8, 8))) for t in range(2)]
    path = write_results(tmp_path / "w.h5", tasks, ws, gen, witnesses=wit)
    monkeypatch.setattr(reader_module, "WITNESS_BUDGET", (8 + 80 + 64) + (8 + 80))
    with pytest.warns(UserWarning, match="3 arrays not loaded"):
        res = read_results(path)
    assert [w.task_id for w in res.witnesses] == [0]
    assert res.witnesses[0].W is not None


def test_names_mirror_the_cpp_schema():
    """Every name the reader uses is defined by the writer: groups and attributes in
    src/io/format/schema.hpp, record columns in src/study/record_fields.cpp (a ragged column <x> there
    gives the datasets <x>_offset, <x>_length and <x>_values)."""
    header = open(f"{ROOT}/src/io/format/schema.hpp", encoding="utf-8").read()
    fields = open(f"{ROOT}/src/study/record_fields.cpp", encoding="utf-8").read()
    used = {schema.FILETYPE, schema.ATTR_FILETYPE, schema.ATTR_FORMAT_VERSION, schema.DONE,
            *schema.TASK_COLUMNS, *schema.WS_COLUMNS, *schema.GEN_COLUMNS, *schema.WITNESS_COLUMNS,
            *schema.WS_EVIDENCE_COLUMNS, schema.WITNESS_VALUES, schema.RECORD_WITNESS_VALUES}
    used |= {"/" + g for g in (schema.GROUP_TASKS, schema.GROUP_WS, schema.GROUP_GEN,
                               schema.GROUP_WITNESS, schema.GROUP_SUMMARY_WS,
                               schema.GROUP_SUMMARY_GEN)}

    def defined(n):
        if f'"{n}"' in header or f'{{"{n}",' in fields:
            return True
        base, _, suffix = n.rpartition("_")
        return suffix in ("offset", "length", "values") and f'{{"{base}",' in fields

    missing = sorted(n for n in used if not defined(n))
    assert not missing, f"names not defined by the writer: {missing}"
    assert f"kFormatMajor = {schema.SUPPORTED_MAJOR};" in header


def test_valid_values_mirror_the_cpp_record_fields():
    """schema.VALID states for each record column the rule study/record_fields.cpp gives it
    (`Valid::<rule>` in the field's line), and the root attribute of the task table's CRC is
    the writer's."""
    import re
    fields = open(f"{ROOT}/src/study/record_fields.cpp", encoding="utf-8").read()
    ws, gen = fields.split("kGenScalars", 1)
    for group, text in ((schema.GROUP_WS, ws), (schema.GROUP_GEN, gen)):
        cpp = dict(re.findall(r'\{"(\w+)", "[^"]*", .*?Valid::(\w+)', text, flags=re.S))
        cpp.pop("task_id")
        assert schema.VALID[group] == cpp, group
        assert set(cpp.values()) <= set(schema.VALID_TEXT)
    header = open(f"{ROOT}/src/io/format/schema.hpp", encoding="utf-8").read()
    assert f'kTaskTableCrc32 = "{schema.ATTR_TASK_TABLE_CRC32}"' in header
    assert f"kChecksumMinor = {schema.CHECKED_MINOR};" in header
