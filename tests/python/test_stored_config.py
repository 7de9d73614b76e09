"""A results file's configuration typed (/config, format 1.11; stored_config.py): every shipped
study reads back as typed values equal to its config_text's, an older file gives the same values
from its text, and a /config that says otherwise than config_text is damage for every reader."""
import glob
import json
import os
import re
import shutil
import subprocess

import h5py
import numpy as np
import pytest
from conftest import ROOT

from wordsens_analysis import read_results
from wordsens_analysis.reading import schema, stored_config
from wordsens_analysis.reader import DamagedFileError

BIN = os.environ.get("WORDSENS_BIN")
needs_binary = pytest.mark.skipif(
    not BIN, reason="WORDSENS_BIN is unset (ctest sets it to the built wordsens binary)")
PYTHON_TYPES = {"boolean": bool, "integer": int, "count or auto": int, "real": float,
                "text": str, "integers": int, "reals": float, "texts": str}
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def test_the_kinds_are_format_md_s_table_of_config():
    """The upgrade path types a text by FORMAT.md's table, which the C++ test keeps equal to
    the writer's (study/study_settings.cpp)."""
    doc = open(os.path.join(ROOT, "analysis", "FORMAT.md"), encoding="utf-8").read()
    block = doc.split("<!-- keys of /config: generated")[1].split("<!-- end of the keys")[0]
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]+) \|", block, re.M)
    assert len(rows) >= 40
    assert dict((key, kind.strip()) for key, kind in rows) == stored_config.KINDS


def created(tmp_path, config, *args):
    """A results file of the study, created and left with no task run (the wall time is spent
    before the first task: exit 3, the file holds the configuration and the task table)."""
    out = tmp_path / (os.path.basename(config) + ".h5")
    p = subprocess.run([BIN, "run", str(config), "--walltime=0.000001", "--output", str(out),
                        *args], capture_output=True, text=True, timeout=300, env=ENV, cwd=ROOT)
    assert p.returncode == 3, p.stderr
    return out


def config_of(config, fmt, *args):
    """`wordsens config`'s output (no encoder given: it reads no input)."""
    p = subprocess.run([BIN, "config", str(config), f"--format={fmt}", *args],
                       capture_output=True, text=True, timeout=60, env=ENV, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return p.stdout


@needs_binary
def test_config_prints_the_keys_without_reading_any_input(tmp_path):
    """Its tsv rows have FORMAT.md's kinds; it needs neither the embeddings file nor the encoder a
    study names; a bad key or format is refused with one line."""
    ini = tmp_path / "trained.ini"
    ini.write_text("models = trained_attn,raf\nencoder = no/such/folder\nn = 8\nd = 384\n"
                   "data = embeddings:no/such/file.h5\nwords = 1,2\n")
    rows = [line.split("\t") for line in config_of(ini, "tsv").splitlines()]
    assert rows[0] == ["key", "kind", "value"]
    assert {key: kind for key, kind, _ in rows[1:]} == {
        key: stored_config.KINDS[key] for key, _, _ in rows[1:]}
    values = {key: value for key, _, value in rows[1:]}
    assert values["encoder"] == "no/such/folder" and values["data"] == "embeddings:no/such/file.h5"
    typed = json.loads(config_of(ini, "json"))
    assert typed["words"] == [1, 2] and typed["encoder-layer"] == 1 and typed["upper-bound"] is True
    for args, words in ((["--n=0"], "n"), (["--format=xml"], "format"), (["--bogus=1"], "bogus")):
        p = subprocess.run([BIN, "config", str(ini), *args], capture_output=True, text=True,
                           timeout=60, env=ENV)
        assert p.returncode == 2 and p.stdout == "", (args, p.stdout)
        assert len(p.stderr.strip().splitlines()) == 1 and words in p.stderr, (args, p.stderr)


def encoder_args(config):
    """The installed encoder's folder for a study of its layers (a clean clone has no link to
    it in the data cache)."""
    if "\nencoder = " not in "\n" + open(config).read():
        return []
    p = subprocess.run(["bash", os.path.join(ROOT, "jobs", "install_encoder.sh"), "--model-dir"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return [f"--encoder={p.stdout.strip()}"]


def assert_typed_like_its_kind(config: dict):
    for key, v in config.items():
        kind = stored_config.KINDS.get(key, "text")
        expected = PYTHON_TYPES[kind]
        items = v if kind in ("integers", "reals", "texts") else [v]
        assert isinstance(v, list) == (kind in ("integers", "reals", "texts")), (key, v)
        assert all(type(x) is expected for x in items), (key, v, kind)


@needs_binary
def test_every_shipped_study_reads_back_typed(tmp_path):
    """Each shipped configuration (on synthetic texts where it reads real ones) stores /config,
    and the reader gives it typed, the same as its config_text read by the kinds, and as the
    task table planned it."""
    configs = sorted(glob.glob(os.path.join(ROOT, "jobs", "configs", "*.ini")))
    assert len(configs) >= 15
    for config in configs:
        args = ("--data=synthetic", *encoder_args(config))
        path = created(tmp_path, config, *args)
        res = read_results(path)
        assert res.format_version[1] >= schema.CONFIG_MINOR and not res.notes, (config, res.notes)
        assert res.config == stored_config.config_of_text(res.attrs["config_text"]), config
        lines = [line for line in res.attrs["config_text"].splitlines() if line]
        assert sorted(res.config) == sorted(line.split(" = ")[0] for line in lines), config
        assert_typed_like_its_kind(res.config)
        ws = res.tasks[res.tasks["experiment"] == "ws"]
        assert set(ws["n"]) <= set(res.config["n"]) and set(ws["d"]) <= set(res.config["d"])
        assert set(res.tasks["model"]) <= set(res.config["models"]) | set(
            res.config["gen-models"])
        assert res.config["seed"] == res.attrs["master_seed"]
        # `wordsens config` prints what the file stores, and the same values typed
        assert config_of(config, "table", *args) == res.attrs["config_text"]
        assert json.loads(config_of(config, "json", *args)) == res.config


@pytest.fixture(scope="module")
def words_file(tmp_path_factory):
    """A study naming optional keys of every kind: words (integers), words-fraction (reals, one
    of them empty in another file), word-sets (text), a switch, a count left on auto."""
    tmp = tmp_path_factory.mktemp("stored_config")
    ini = tmp / "words.ini"
    ini.write_text("models = rf,raf\nn = 8,16\nd = 4\ntrials = 1\nwords = 1,2\n"
                   "words-fraction = 0.25,0.5\nword-sets = random:2\nrel-tol = 1e-9\n"
                   "upper-bound = false\nmax-trials = 4\n")
    return created(tmp, ini) if BIN else None


@needs_binary
def test_the_values_have_their_kinds_types(words_file):
    config = read_results(words_file).config
    assert config["n"] == [8, 16] and config["words"] == [1, 2]
    assert config["words-fraction"] == [0.25, 0.5] and config["rel-tol"] == 1e-9
    assert config["upper-bound"] is False and config["min-total-sphere-starts"] == -1
    assert config["models"] == ["rf", "raf"] and config["k"] == ["1D"]
    assert config["word-sets"] == "random:2" and config["max-trials"] == 4
    assert "mask" not in config and stored_config.value(config, "mask") == "none"


@needs_binary
def test_an_empty_list_is_stored_as_no_values(tmp_path):
    ini = tmp_path / "fraction.ini"
    ini.write_text("models = raf\nn = 8\nd = 4\ntrials = 1\nwords = 1,2\nwords-fraction =\n")
    path = created(tmp_path, ini)
    with h5py.File(path, "r") as f:
        assert f["config"].attrs["words-fraction"].shape == (0,)
    assert read_results(path).config["words-fraction"] == []


@needs_binary
def test_an_older_file_gives_the_same_values_from_its_text(words_file, tmp_path):
    path = tmp_path / "old.h5"
    shutil.copyfile(words_file, path)
    with h5py.File(path, "r+") as f:
        del f["config"]
        f.attrs["format_version"] = np.array([1, 10], dtype=np.int32)
    old, new = read_results(path), read_results(words_file)
    assert old.format_version == (1, 10) and old.config == new.config
    assert_typed_like_its_kind(old.config)


def _edit(words_file, tmp_path, edit):
    path = tmp_path / "edited.h5"
    shutil.copyfile(words_file, path)
    with h5py.File(path, "r+") as f:
        edit(f["config"].attrs)
    return path


@needs_binary
@pytest.mark.parametrize("what, edit", [
    ("another value", lambda a: a.__setitem__("trials", np.int64(2))),
    ("another kind", lambda a: a.__setitem__("n", np.bytes_(b"8,16"))),
    ("a switch as a number", lambda a: a.__setitem__("upper-bound", np.int64(0))),
    ("a list as one value", lambda a: a.__setitem__("words", np.int64(1))),
    ("a key missing", lambda a: a.__delitem__("seed")),
    ("a key config_text lacks", lambda a: a.__setitem__("mask", np.bytes_(b"causal"))),
])
def test_a_config_that_differs_from_its_text_is_damage(words_file, tmp_path, what, edit):
    """Every reader refuses it: the analysis reader and `wordsens info` (exit 1)."""
    path = _edit(words_file, tmp_path, edit)
    with pytest.raises(DamagedFileError, match="/config differs from config_text"):
        read_results(path)
    p = subprocess.run([BIN, "info", str(path)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "/config differs from config_text" in p.stderr, (what, p.stderr)


@needs_binary
def test_a_missing_config_and_one_in_an_older_version_are_damage(words_file, tmp_path):
    path = tmp_path / "no_config.h5"
    shutil.copyfile(words_file, path)
    with h5py.File(path, "r+") as f:
        del f["config"]
    with pytest.raises(DamagedFileError, match="the group /config is missing"):
        read_results(path)
    shutil.copyfile(words_file, path)
    with h5py.File(path, "r+") as f:
        f.attrs["format_version"] = np.array([1, 10], dtype=np.int32)
    with pytest.raises(DamagedFileError, match="holds the group /config, which format 1.11"):
        read_results(path)
    p = subprocess.run([BIN, "info", str(path)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "which format 1.11 added" in p.stderr, p.stderr


def test_the_upgrade_path_reads_a_text_as_the_writer_types_it():
    """config_of_text is study_settings.cpp's settings_of_text: canonical values typed, other
    spellings and keys that are not study keys kept as text, INI sections and repeats as the
    INI reader reads them."""
    text = ("n = 8,16\nd = 08\nrel-tol = 1e-07\nupper-bound = true\nshard = 1/4\n"
            "min-total-sphere-starts = auto\n# a comment\nseed = 1\nseed = 2\n"
            "words-fraction = \n[run]\ntrials = 3\n")
    assert stored_config.config_of_text(text) == {
        "n": [8, 16], "d": "08", "rel-tol": 1e-07, "upper-bound": True, "shard": "1/4",
        "min-total-sphere-starts": -1, "seed": 2, "words-fraction": [], "run.trials": "3"}
    assert stored_config.config_of_text(None) == {}
    assert stored_config.config_of_text("= 3\n n = 8 \n") == {"n": [8]}
    config = stored_config.config_of_text("experiments = ws,gen\nrel-tol = 1e-07\nwords-fraction"
                                          " = 0.25,0.1\nupper-bound = false\nmodels = rf, raf\n")
    assert [stored_config.text(config, k) for k in ("experiments", "rel-tol", "words-fraction",
                                                   "upper-bound", "models", "mask")] == [
        "ws,gen", "1e-07", "0.25,0.1", "false", "rf, raf", ""]
    for kind, text in (("real", "0.1"), ("real", "1e-07"), ("real", "123456789012"),
                       ("reals", "0.25,0.1"), ("integer", "-3"), ("texts", "1D,80")):
        assert stored_config.setting_text(kind, stored_config.parse_setting(kind, text)) == text
    for kind, text in (("integer", "+3"), ("integer", "1e2"), ("real", "0.10"),
                       ("boolean", "yes"), ("count or auto", "-2"), ("integers", "8, 16")):
        assert stored_config.parse_setting(kind, text) is None, (kind, text)
