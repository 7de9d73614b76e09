"""One decoder per older format minor (reading/format_minors.py), each with its round trip: a
file as a writer of that minor left it, made here from a file of the current format by taking
away what the later minors added (with the task table's checksum taken again where the writer
of that minor would have computed it without them), reads back as the same tasks, records,
models, catalogue and configuration as the current file. The C++ readers decode the same
files (io/format/layout.cpp's read_tasks): `wordsens info --check` finds each consistent, its
task table decoded to the plan of its configuration.

The files of format 1.5 on come from the binary (they carry the checksums the reader checks);
the older ones, which carry none, from the synthetic fixture writer."""
import os
import shutil
import subprocess
import warnings

import h5py
import numpy as np
import pandas as pd
import pytest
from conftest import synthetic_tables, write_results

from wordsens_analysis import read_results
from wordsens_analysis.reading import damage, format_minors, schema

BIN = os.environ.get("WORDSENS_BIN")
needs_binary = pytest.mark.skipif(not BIN, reason="WORDSENS_BIN is unset (ctest sets it)")
CURRENT = schema.CONFIG_MINOR


def study_file(tmp, name: str, models: str) -> str:
    ini = tmp / f"{name}.ini"
    ini.write_text(f"experiments = ws\nmodels = {models}\nn = 4\nd = 4\nheads = 2\nk = 1.0D\n"
                   "trials = 1\nseed = 3\n")
    out = tmp / f"{name}.h5"
    p = subprocess.run([BIN, "run", str(ini), "-o", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return str(out)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A study of every model whose traits older minors lacked (mhraf and block: heads, the
    MLP's width), and one of the models every format had (rf and raf), for the minors before
    /models."""
    if not BIN:
        return None
    tmp = tmp_path_factory.mktemp("minors")
    return {"all": study_file(tmp, "all", "rf,raf,mhraf,block"),
            "first": study_file(tmp, "first", "rf,raf")}


def retake_task_crc(f: h5py.File) -> None:
    """task_table_crc32 as the writer computes it over the table as it now is."""
    tasks = f[schema.GROUP_TASKS]
    crc = damage.task_table_crc(f.attrs["config_text"], {c: tasks[c][()] for c in tasks})
    old = f.attrs[schema.ATTR_TASK_TABLE_CRC32]
    f.attrs[schema.ATTR_TASK_TABLE_CRC32] = np.asarray(crc, dtype=np.asarray(old).dtype)


# What each minor added, taken away from a file of that minor (the file then is one of the
# minor before).
def drop_config(f):  # 1.11
    del f[schema.GROUP_CONFIG]


def drop_traits_of_1_10(f):  # 1.10
    for column in schema.MODEL_COLUMNS_1_10:
        del f[schema.GROUP_MODELS][column]


def block_width_as_before_1_9(f):  # 1.9: block's k was 0
    tasks = f[schema.GROUP_TASKS]
    models = tasks["model"][()].astype(str)
    k = tasks["k"][()]
    k[models == "block"] = 0
    tasks["k"][...] = k
    retake_task_crc(f)


def drop_heads(f):  # 1.8
    for group in (schema.GROUP_TASKS, schema.GROUP_SUMMARY_WS, schema.GROUP_SUMMARY_GEN):
        if group in f and "heads" in f[group]:
            del f[group]["heads"]
    retake_task_crc(f)


def drop_models(f):  # 1.7
    del f[schema.GROUP_MODELS]


def drop_row_checksums(f):  # 1.6
    for group in (schema.GROUP_WS, schema.GROUP_GEN, schema.GROUP_WITNESS):
        if group in f and schema.ROW_CRC32 in f[group]:
            del f[group][schema.ROW_CRC32]


TAKE_AWAY = {11: drop_config, 10: drop_traits_of_1_10, 9: block_width_as_before_1_9,
             8: drop_heads, 7: drop_models, 6: drop_row_checksums}


def as_minor(src: str, dst, minor: int) -> str:
    """A copy of the current file as a writer of format 1.`minor` left it."""
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        for m in range(CURRENT, minor, -1):
            TAKE_AWAY[m](f)
        f.attrs[schema.ATTR_FORMAT_VERSION] = np.array([1, minor], dtype=np.int32)
    return str(dst)


def read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # older formats are read with a note
        return read_results(path)


def assert_same_results(old, new):
    """Equal results; a row's checksum (1.6) is a guarantee of the file, not a result."""
    for table in ("tasks", "ws", "gen", "models"):
        a, b = (getattr(r, table).drop(columns=[schema.ROW_CRC32], errors="ignore")
                for r in (old, new))
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True),
                                      check_like=True, obj=table)
    assert old.config == new.config
    assert old.catalogue == new.catalogue


def info_check(path) -> subprocess.CompletedProcess:
    return subprocess.run([BIN, "info", "--check", str(path)], capture_output=True, text=True,
                          timeout=120)


# Files of 1.10 down to 1.7 from the study of every model; before /models (1.7) the reader takes
# the traits every build then gave rf and raf, so 1.6 and 1.5 come from the study of those.
@needs_binary
@pytest.mark.parametrize("study, minor", [("all", 10), ("all", 9), ("all", 8), ("all", 7),
                                          ("first", 6), ("first", 5)])
def test_a_file_of_an_older_minor_reads_as_the_current_one(files, tmp_path, study, minor):
    path = as_minor(files[study], tmp_path / f"v1_{minor}.h5", minor)
    old = read(path)
    assert old.format_version == (1, minor)
    assert_same_results(old, read(files[study]))
    p = info_check(path)
    assert p.returncode == 0 and "verdict:  consistent" in p.stdout, p.stdout + p.stderr


@needs_binary
def test_the_cpp_round_trip_fails_where_a_file_is_not_decoded(files, tmp_path):
    """block's k of 0 in a file labelled 1.9, which no decoder widens: the C++ reader takes it
    as it is and the task table is not the plan of its configuration."""
    path = as_minor(files["all"], tmp_path / "v1_9.h5", 9)
    with h5py.File(path, "r+") as f:
        block_width_as_before_1_9(f)
    p = info_check(path)
    assert p.returncode == 1 and "differs from the plan of config_text" in p.stdout, p.stdout


@needs_binary
def test_each_decoder_is_what_makes_its_minor_read_alike(files, tmp_path):
    """Each round trip fails without its minor's decoder: the decoders are not idle."""
    new = read(files["all"])
    for minor in (8, 7):  # the files before 1.9's and 1.8's decoders, which fill /tasks
        entry = next(m for m in format_minors.MINORS if m.minor == minor + 1)
        path = as_minor(files["all"], tmp_path / f"idle_{minor}.h5", minor)
        saved = entry.decoder
        try:
            object.__setattr__(entry, "decoder", lambda d: None)
            with pytest.raises(AssertionError):
                assert_same_results(read(path), new)
        finally:
            object.__setattr__(entry, "decoder", saved)


def test_minors_before_the_checksums_read_as_the_current_one(tmp_path):
    """1.2 (S_upper_scope: before, only rf's full sampler had a bound, over every position) and
    1.4 (several changed words: before, every task changed one)."""
    tasks, ws, gen = synthetic_tables(ns=(8, 16), trials=2, models=("rf", "raf"))
    assert list(ws["S_upper_scope"]) == \
        list(np.where(np.isfinite(np.asarray(ws["S_upper"], dtype=float)), 1, 0))
    one_word = dict(tasks, words=np.ones(len(tasks["task_id"]), dtype=np.int64))
    current = read(write_results(tmp_path / "v1_4.h5", one_word, ws, gen, version=(1, 4)))
    since_1_2 = {c for c in ws if schema.SINCE_MINOR.get(f"ws/{c}") == 2}
    assert "S_upper_scope" in since_1_2
    gen_1_1 = {c: v for c, v in gen.items() if schema.SINCE_MINOR.get(f"gen/{c}") != 2}
    for minor, w, g in ((3, ws, gen),
                        (1, {c: v for c, v in ws.items() if c not in since_1_2}, gen_1_1)):
        old = read(write_results(tmp_path / f"v1_{minor}.h5", tasks, w, g, version=(1, minor)))
        assert old.format_version == (1, minor) and "words" not in tasks
        # A file of 1.1 has none of the search's evidence but the scope of its bound, decoded.
        assert "S_upper_scope" in old.ws
        pd.testing.assert_frame_equal(old.tasks, current.tasks, check_like=True)
        pd.testing.assert_frame_equal(old.ws, current.ws[list(old.ws.columns)])
        pd.testing.assert_frame_equal(old.gen, current.gen[list(old.gen.columns)])
        if minor == 3:
            assert list(old.ws.columns) == list(current.ws.columns)


def test_every_minor_is_listed_once_with_what_it_added():
    assert [m.minor for m in format_minors.MINORS] == list(range(1, CURRENT + 1))
    for m in format_minors.MINORS:
        assert m.added and (m.decoder is None) == (m.table == ""), m
