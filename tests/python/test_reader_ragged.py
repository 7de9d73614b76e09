"""Format 1.2 in the reader: ragged columns come back as arrays per row, S_upper_scope as names,
and a file without the new columns (format 1.1) gets the scope its S_upper had."""
import h5py
import numpy as np
import pytest
from conftest import synthetic_tables, write_results

from wordsens_analysis import read_results


def _with_ragged(path, lengths, cut_last=False):
    """Adds a ragged column position_S to /ws: row r holds r-dependent values of length
    lengths[r]; with cut_last the flat array is one element short."""
    values, offsets = [], []
    for r, n in enumerate(lengths):
        offsets.append(sum(len(v) for v in values))
        values.append(np.arange(n, dtype=float) + 100 * r)
    flat = np.concatenate(values) if values else np.zeros(0)
    if cut_last:
        flat = flat[:-1]
    with h5py.File(path, "r+", libver="latest") as f:
        g = f["ws"]
        g.create_dataset("position_S_offset", data=np.array(offsets, dtype=np.int64))
        g.create_dataset("position_S_length", data=np.array(lengths, dtype=np.int64))
        g.create_dataset("position_S_values", data=flat)


def test_ragged_columns_are_arrays_per_row(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=4, models=("rf",), gen_models=())
    path = write_results(tmp_path / "r.h5", tasks, ws, gen)
    _with_ragged(path, [3, 0, 2, 5])
    res = read_results(path)
    cells = dict(zip(res.ws["task_id"], res.ws["position_S"]))
    assert [len(cells[t]) for t in range(4)] == [3, 0, 2, 5]
    np.testing.assert_array_equal(cells[3], np.arange(5) + 300.0)
    assert "position_S_values" not in res.ws  # flat arrays are not row columns


def test_a_ragged_row_past_its_values_is_left_empty_with_a_note(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=3, models=("rf",), gen_models=())
    path = write_results(tmp_path / "r.h5", tasks, ws, gen)
    _with_ragged(path, [1, 1, 2], cut_last=True)
    with pytest.warns(UserWarning, match="point past"):
        res = read_results(path)
    assert len(dict(zip(res.ws["task_id"], res.ws["position_S"]))[2]) == 0
    assert any("point past position_S_values" in n for n in res.notes)


def test_scope_names_and_the_scope_of_older_files(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=3, models=("rf", "raf"), gen_models=())
    old = read_results(write_results(tmp_path / "old.h5", tasks, ws, gen))
    scope = dict(zip(old.ws["model"], old.ws["S_upper_scope"]))
    assert scope == {"rf": "all", "raf": "none"}
    ws = dict(ws, S_upper_scope=np.where(np.isfinite(ws["S_upper"]), 2, 0).astype(np.uint8))
    new = read_results(write_results(tmp_path / "new.h5", tasks, ws, gen))
    assert dict(zip(new.ws["model"], new.ws["S_upper_scope"])) == {"rf": "examined",
                                                                   "raf": "none"}
