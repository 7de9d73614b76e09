"""The analysis reader on real files of the built binary (WORDSENS_BIN): it reads what every
reader reads and refuses what `wordsens info` refuses (damage.py)."""
import os
import shutil
import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, binary_file

from wordsens_analysis import read_results
from wordsens_analysis.reader import DamagedFileError

BIN = os.environ.get("WORDSENS_BIN")
pytestmark = pytest.mark.skipif(
    not BIN, reason="WORDSENS_BIN is unset (ctest sets it to the built wordsens binary)")

SMALL = "experiments = ws,gen\nmodels = rf,raf\nn = 4,6\nd = 3\nk = 1.0D\nN = 5\ntrials = 2\n" \
        "seed = 5\nmax-evals = 100\n"


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return binary_file(tmp_path_factory.mktemp("integrity"), SMALL, BIN)


def copy(clean, tmp_path, name="f.h5"):
    path = tmp_path / name
    shutil.copyfile(clean, path)
    return path


def info(path):
    return subprocess.run([BIN, "info", str(path)], capture_output=True, text=True, timeout=60)


def test_a_real_file_reads_without_notes(clean):
    res = read_results(clean)
    assert res.format_version[1] >= 5 and not res.notes
    assert len(res.ws) == 8 and len(res.gen) == 32 and res.complete
    assert res.attrs["filetype"] == "wordsens-results"


def test_the_file_says_what_its_models_are_and_what_its_columns_mean(clean):
    res = read_results(clean)
    assert list(res.models["model"]) == ["rf", "raf"]
    assert list(res.models["attention"]) == [False, True]
    assert list(res.models["deep"]) == [False, False]
    assert res.models.attrs["units"]["min_total_sphere_starts"] == "starts"
    # every trait of the catalogue's rows (format 1.10): rf random features of width k, raf none
    assert list(res.models["width"]) == [1, 0]
    assert list(res.models["multi_head"]) == [False, False]
    assert list(res.models["encoder"]) == [False, False]
    assert res.models.attrs["units"]["width"] == "code"
    for name, table in (("tasks", res.tasks), ("ws", res.ws), ("gen", res.gen),
                        ("summary_ws", res.summary_ws), ("models", res.models)):
        for column in table.columns:
            assert table.attrs["units"].get(column), f"{name}.{column} has no unit"
            assert table.attrs["meanings"].get(column), f"{name}.{column} has no meaning"
    assert res.ws.attrs["units"]["seconds"] == "s"
    assert res.ws.attrs["units"]["n"] == "words"  # joined from /tasks, with its unit
    assert "examined" in res.ws.attrs["meanings"]  # a ragged column: its values' meaning


def test_a_newer_minor_version_of_a_real_file_is_read(clean, tmp_path):
    path = copy(clean, tmp_path)
    with h5py.File(path, "r+") as f:
        newer = int(f.attrs["format_version"][1]) + 1
        f.attrs["format_version"] = np.array([1, newer], dtype=np.int32)
    assert read_results(path).format_version == (1, newer)
    assert info(path).returncode == 0


def test_a_file_of_format_1_9_reads_the_traits_its_models_had(clean, tmp_path):
    """/models before 1.10 holds four traits: the reader gives its models the others as the
    writing builds had them, the same as a 1.10 file states them."""
    path = copy(clean, tmp_path)
    with h5py.File(path, "r+") as f:
        for column in ("multi_head", "width", "encoder"):
            del f["models"][column]
        del f["config"]  # format 1.11
        f.attrs["format_version"] = np.array([1, 9], dtype=np.int32)
    old, new = read_results(path), read_results(clean)
    assert old.format_version == (1, 9) and not old.notes
    pd.testing.assert_frame_equal(old.models, new.models, check_like=False)
    assert info(path).returncode == 0
    # and a 1.9 file holding a column of 1.10 was relabelled: damaged
    with h5py.File(path, "r+") as f:
        f["models"].create_dataset("width", data=np.array([1, 0], dtype=np.uint8))
    with pytest.raises(DamagedFileError, match="which format 1.10 added"):
        read_results(path)


@pytest.mark.parametrize("edit, words", [
    ("f['tasks/n'][0] = 6", "task_table_crc32"),
    ("f['ws/S'][0] = np.nan", "/ws/S holds values outside"),
    ("f['gen/E'][1] = -3", "/gen/E holds values outside"),
    ("f['gen/objective'][1] = f['gen/objective'][0]", "repeat their key"),
    ("f['tasks/done'][int(f['ws/task_id'][1])] = 0", "unfinished task lies before"),
    ("f['ws/task_id'][0] = 9999", "not in /tasks"),
    ("del f.attrs['created_utc']", "created_utc is missing"),
    # /models (format 1.7): raf said not to be attention; a model the tasks do not run.
    ("f['models/attention'][1] = 0", "other traits than its kind has"),
    ("f['models/model'][1] = b'drf'", "/models lists"),
    ("f['models/marginal_sampler'][0] = 0", "other traits than its kind has"),
    ("f['models/deep'][0] = 2", "other traits than its kind has"),
    ("for c in f['models']: f['models'][c][:] = f['models'][c][:][::-1]", "/models lists"),
    # format 1.10: the other traits of the catalogue's rows
    ("f['models/width'][0] = 2", "other traits than its kind has"),
    ("f['models/width'][1] = 3", "other traits than its kind has"),
    ("f['models/multi_head'][1] = 1", "other traits than its kind has"),
    ("f['models/encoder'][0] = 1", "other traits than its kind has"),
    ("del f['models/encoder']", "/models/encoder is missing"),
])
def test_edited_tables_are_refused_like_info_refuses_them(clean, tmp_path, edit, words):
    path = copy(clean, tmp_path)
    with h5py.File(path, "r+") as f:
        exec(edit, {"f": f, "np": np})  # noqa: S102 - the edit under test
    with pytest.raises(DamagedFileError, match="damaged or not a wordsens results file") as e:
        read_results(path)
    assert words in str(e.value)
    assert info(path).returncode == 1


def test_a_flipped_value_is_refused_naming_dataset_and_rows(clean, tmp_path):
    path = copy(clean, tmp_path)
    with h5py.File(path, "r") as f:
        at = f["gen/t1"].id.get_chunk_info(0).byte_offset + 9
    with open(path, "r+b") as f:
        f.seek(at)
        byte = f.read(1)[0]
        f.seek(at)
        f.write(bytes([byte ^ 0x01]))
    with pytest.raises(DamagedFileError, match=r"/gen/t1 cannot be read back \(rows 0-"):
        read_results(path)
    assert info(path).returncode == 1


@pytest.mark.parametrize("dataset", ["gen/t1", "ws/position_S_values", "ws/row_crc32"])
def test_a_page_of_zeros_over_a_chunk_is_refused_by_the_row_checksums(clean, tmp_path, dataset):
    """A chunk is one page (format 1.6): zeroed with its Fletcher-32 checksum, it reads back as
    zeros, which the rows' row_crc32 does not match, in a row column or a flat array."""
    path = copy(clean, tmp_path)
    with h5py.File(path, "r") as f:
        assert f.attrs["format_version"][1] >= 6
        at = f[dataset].id.get_chunk_info(0).byte_offset
    with open(path, "r+b") as f:
        f.seek(at - at % 4096)
        f.write(bytes(4096))
    with pytest.raises(DamagedFileError, match="do not match their checksum row_crc32"):
        read_results(path)
    assert info(path).returncode == 1


def test_a_damaged_global_heap_is_refused_before_h5py_reads_it(clean, tmp_path):
    """Strings of files before 1.5 live in the global heap: h5py died of SIGSEGV on a flipped
    size there. Run in a child process, so that a crash is seen as a crash."""
    path = copy(clean, tmp_path)
    with h5py.File(path, "r+") as f:
        for k in list(f.attrs):
            if isinstance(f.attrs[k], bytes):
                f.attrs[k] = f.attrs[k].decode()  # variable-length, in the global heap
        f.attrs["format_version"] = np.array([1, 4], dtype=np.int32)
    data = path.read_bytes()
    heap = data.find(b"GCOL")
    assert heap > 0
    with open(path, "r+b") as f:
        f.seek(heap + 25)
        f.write(b"\xff")
    code = (f"import sys; sys.path.insert(0, {os.path.join(ROOT, 'analysis')!r})\n"
            "from wordsens_analysis.reader import read_results, DamagedFileError\n"
            "try:\n"
            f"    read_results({str(path)!r})\n"
            "except DamagedFileError as e:\n"
            "    print(e)\n")
    p = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, f"the reader died: {p.returncode} {p.stderr[-500:]}"
    assert "global heap collection" in p.stdout and "runs past" in p.stdout


def test_the_names_opened_one_by_one_are_every_dataset_and_attribute_of_a_real_file(clean):
    """schema.DATASETS and schema.ROOT_ATTRS (the objects the reader opens by name, so that it
    never lists a damaged group) are what the writer creates."""
    from wordsens_analysis.reading import schema
    with h5py.File(clean, "r") as f:
        for group, expected in schema.DATASETS.items():
            assert set(f[group].keys()) == set(expected), group
        assert set(f.attrs) <= set(schema.ROOT_ATTRS)


def test_a_damaged_link_storage_is_refused_without_a_crash(clean, tmp_path):
    """A flipped byte in the heap that holds a group's links made h5py's listing of the group
    abort (HDF5 freed pointers it never set); the reader opens every object by name first."""
    data = clean.read_bytes()
    crashes = []
    for offset in range(0, min(len(data), 40000), 1024):
        path = tmp_path / "flip.h5"
        damaged = bytearray(data)
        damaged[offset] ^= 0xFF
        path.write_bytes(bytes(damaged))
        code = (f"import sys, warnings; sys.path.insert(0, {os.path.join(ROOT, 'analysis')!r})\n"
                "warnings.simplefilter('ignore')\n"
                "from wordsens_analysis.reader import read_results, ResultsFileError\n"
                "try:\n"
                f"    read_results({str(path)!r})\n"
                "except ResultsFileError:\n"
                "    pass\n")
        p = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 0:
            crashes.append((offset, p.returncode, p.stderr[-200:]))
    assert not crashes, crashes[:3]
