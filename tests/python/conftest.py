"""Synthetic results files following analysis/FORMAT.md, written with h5py, with known truths."""
import os
import sys

import h5py
import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "analysis"))

from wordsens_analysis import names  # noqa: E402

REPORT = os.path.join(ROOT, "analysis", "wordsens-report")


def write_table(f, group, columns: dict):
    g = f.require_group(group)
    for name, values in columns.items():
        values = np.asarray(values)
        if values.dtype.kind in "O":
            dt = h5py.string_dtype("utf-8")
            g.create_dataset(name, data=values.astype(object), dtype=dt, maxshape=(None,),
                             chunks=True)
        else:
            g.create_dataset(name, data=values, maxshape=(None,), chunks=True)


def write_results(path, tasks, ws=None, gen=None, version=(1, 0), filetype=names.FILETYPE,
                  witnesses=(), libver="latest"):
    """witnesses: dicts with task_id, position, delta (d), X (n × d), W (d × d).

    libver="latest" (superblock v3) as the writer uses; libver=None gives an older layout.
    """
    with h5py.File(path, "w", libver=libver) as f:
        f.attrs[names.ATTR_FILETYPE] = filetype
        f.attrs[names.ATTR_FORMAT_VERSION] = np.array(version, dtype=np.int32)
        f.attrs["software_version"] = "test"
        f.attrs["git_sha"] = "0000000"
        f.attrs["master_seed"] = np.uint64(1)
        f.attrs["config_text"] = "# synthetic fixture\n"
        write_table(f, names.GROUP_TASKS, tasks)
        if ws is not None:
            write_table(f, names.GROUP_WS, ws)
        if gen is not None:
            write_table(f, names.GROUP_GEN, gen)
        if witnesses:
            table = {c: [] for c in names.WITNESS_COLUMNS}
            values = []
            offset = 0
            for w in witnesses:
                for name in (names.WITNESS_DELTA, names.WITNESS_X, names.WITNESS_W):
                    a = np.atleast_2d(np.asarray(w[name], dtype=float))
                    pos = w["position"] if name == names.WITNESS_DELTA else -1
                    for c, v in zip(names.WITNESS_COLUMNS,
                                    (w["task_id"], name, pos, a.shape[0], a.shape[1], offset)):
                        table[c].append(v)
                    values.append(a.ravel())
                    offset += a.size
            table["name"] = np.array(table["name"], dtype="S32")
            write_table(f, names.GROUP_WITNESS, {k: np.asarray(v) for k, v in table.items()})
            f[names.GROUP_WITNESS].create_dataset(names.WITNESS_VALUES,
                                                  data=np.concatenate(values), maxshape=(None,))
    return path


# Known truth of the synthetic study: S = c · n^slope · lognormal trial noise.
TRUE_SLOPES = {"rf": -0.5, "drf": -0.5, "raf": 0.0, "raf_relu": -0.4}
LEVELS = {"rf": 1.2, "drf": 1.0, "raf": 0.8, "raf_relu": 0.9}


def synthetic_tables(ns=(10, 20, 40, 80, 160), d=8, trials=12, slopes=None, seed=0,
                     noise=0.05, models=("rf", "drf", "raf", "raf_relu"), gen_models=("rf", "raf"),
                     N=20):
    """Task table plus ws and gen rows; the trial noise is shared across n (common texts)."""
    slopes = dict(TRUE_SLOPES, **(slopes or {}))
    rng = np.random.default_rng(seed)
    tasks = {c: [] for c in names.TASK_COLUMNS}
    ws = {c: [] for c in names.WS_COLUMNS}
    gen = {c: [] for c in names.GEN_COLUMNS}
    trial_effect = rng.normal(0, noise, size=trials)
    tid = 0

    points = {}

    def add_task(exp, model, n, k, N_, t):
        nonlocal tid
        point = points.setdefault((exp, model, n, k, N_), len(points))
        for c, v in zip(names.TASK_COLUMNS, (tid, point, exp, model, n, d, k, N_, 1, t, 1)):
            tasks[c].append(v)
        tid += 1
        return tid - 1

    for model in models:
        for n in ns:
            for t in range(trials):
                task = add_task("ws", model, n, n * d, 0, t)
                S = LEVELS[model] * n ** slopes[model] * np.exp(trial_effect[t]
                                                                 + rng.normal(0, noise))
                upper = 1.6 / np.sqrt(n) * (1 + 1 / np.sqrt(n)) if model == "rf" else np.nan
                for c, v in zip(names.WS_COLUMNS,
                                (task, S, max(upper, S) if model == "rf" else np.nan, t % n,
                                 np.sqrt(n * d / 2), 100, 0.01, 0, 0)):
                    ws[c].append(v)
    for model in gen_models:
        for n in ns:
            for t in range(trials):
                task = add_task("gen", model, n, n * d, N, t)
                for training in (0, 1):
                    for objective in (0, 1):
                        if model == "rf":
                            E = 4 - 3 / np.sqrt(n) + rng.normal(0, 0.05)
                        else:
                            E = abs(rng.normal(0, 0.02)) + (0.5 if objective == 1 else 0.0)
                        row = (task, training, objective, 0.3, 1.0, 0.2, 1 - np.sqrt(E), E, 1e3,
                               t % n, 50, 0.01, 0, 0)
                        for c, v in zip(names.GEN_COLUMNS, row):
                            gen[c].append(v)
    as_np = lambda tb: {k: np.asarray(v) for k, v in tb.items()}  # noqa: E731
    tasks = as_np(tasks)
    tasks["experiment"] = np.where(tasks["experiment"] == "ws", 0, 1).astype(np.uint8)
    tasks["model"] = tasks["model"].astype("S16")  # fixed strings, NUL padded, as the writer
    gen = as_np(gen)
    gen["training"] = gen["training"].astype(np.uint8)
    gen["objective"] = gen["objective"].astype(np.uint8)
    return tasks, as_np(ws), gen


@pytest.fixture
def synthetic_file(tmp_path):
    tasks, ws, gen = synthetic_tables()
    return write_results(tmp_path / "synthetic.h5", tasks, ws, gen)
