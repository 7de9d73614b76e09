"""Synthetic results files following analysis/FORMAT.md, written with h5py, with known truths."""
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "analysis"))

from wordsens_analysis.reading import schema  # noqa: E402

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


def write_results(path, tasks, ws=None, gen=None, version=None, filetype=schema.FILETYPE,
                  witnesses=(), libver="latest", config_text="# synthetic fixture\n",
                  master_seed=1):
    """witnesses: dicts with task_id, position, delta (d), X (n × d), W (d × d).

    version: unless given, the oldest format that has every column written
    (schema.SINCE_MINOR): a reader refuses a file holding columns newer than its version.
    libver="latest" (superblock v3) as the writer uses; libver=None gives an older layout.
    """
    if version is None:
        written = [f"{group}/{c}" for group, table in ((schema.GROUP_TASKS, tasks),
                                                       (schema.GROUP_WS, ws),
                                                       (schema.GROUP_GEN, gen))
                   for c in (table or {})]
        version = (1, max([schema.SINCE_MINOR.get(name, 0) for name in written] + [0]))
    with h5py.File(path, "w", libver=libver) as f:
        f.attrs[schema.ATTR_FILETYPE] = filetype
        f.attrs[schema.ATTR_FORMAT_VERSION] = np.array(version, dtype=np.int32)
        f.attrs["software_version"] = "test"
        f.attrs["git_sha"] = "0000000"
        f.attrs["master_seed"] = np.uint64(master_seed)
        f.attrs["config_text"] = config_text
        write_table(f, schema.GROUP_TASKS, tasks)
        if ws is not None:
            write_table(f, schema.GROUP_WS, ws)
        if gen is not None:
            write_table(f, schema.GROUP_GEN, gen)
        if witnesses:
            table = {c: [] for c in schema.WITNESS_COLUMNS}
            values = []
            offset = 0
            for w in witnesses:
                for name in (schema.WITNESS_DELTA, schema.WITNESS_X, schema.WITNESS_W):
                    a = np.atleast_2d(np.asarray(w[name], dtype=float))
                    pos = w["position"] if name == schema.WITNESS_DELTA else -1
                    for c, v in zip(schema.WITNESS_COLUMNS,
                                    (w["task_id"], name, pos, a.shape[0], a.shape[1], offset)):
                        table[c].append(v)
                    values.append(a.ravel())
                    offset += a.size
            table["name"] = np.array(table["name"], dtype="S32")
            write_table(f, schema.GROUP_WITNESS, {k: np.asarray(v) for k, v in table.items()})
            f[schema.GROUP_WITNESS].create_dataset(schema.WITNESS_VALUES,
                                                  data=np.concatenate(values), maxshape=(None,))
    return path


# Known truth of the synthetic study: S = c · n^slope · lognormal trial noise, inside the claims'
# regimes (d = 64: n ≤ d for the attention models up to n = 64; n = 128 lies outside, where raf
# falls like √(d/n) as a tilted mean does); rf and drf at k = D carry the factor 1 + 1/√n of
# their width (S ≈ √2·(1 + √(d/k))/√n), as their certified upper bounds ∝ (1 + 1/√n)/√n do.
TRUE_SLOPES = {"rf": -0.5, "drf": -0.5, "raf": 0.0, "raf_relu": -0.4}
LEVELS = {"rf": 1.2, "drf": 1.0, "raf": 2.5, "raf_relu": 1.4}
UPPER_LEVELS = {"rf": 1.6, "drf": 2.0}
NEW_WS_COLUMNS = ("S_upper_scope", "cert_rel_err", "starts", "starts_at_budget", "stationarity",
                  "S_budget_check")  # format 1.2


def E_rf_paper(n):
    """E_rf → 4 like 4 − 3·√(8/n) (the gap to 4 closes like n^−1/2)."""
    return 4 - 3 * np.sqrt(8 / n)


def synthetic_tables(ns=(8, 16, 32, 64, 128), d=64, trials=12, slopes=None, seed=0,
                     noise=0.05, models=("rf", "drf", "raf", "raf_relu"), gen_models=("rf", "raf"),
                     N=20, k_of=lambda n, d: n * d, new_columns=True, scope=1, E_rf=E_rf_paper,
                     upper=None):
    """Task table plus ws and gen rows; the trial noise is shared across n (common texts).

    slopes: the exponents of S (rf, drf, raf inside n ≤ d, raf_relu); k_of(n, d): the width;
    new_columns: write the format-1.2 columns (S_upper for drf, scope, certificates, budget
    check); scope: the S_upper_scope code of rf/drf (1 all positions, 2 examined only);
    E_rf(n): the truth of rf's test error; upper: {model: exponent} overrides the upper bounds'
    decay (e.g. a bound that grows like S_upper·√n ∝ n^0.3).
    """
    slopes = dict(TRUE_SLOPES, **(slopes or {}))
    upper = upper or {}
    rng = np.random.default_rng(seed)
    tasks = {c: [] for c in schema.TASK_COLUMNS}
    ws = {c: [] for c in (*schema.WS_COLUMNS, *(NEW_WS_COLUMNS if new_columns else ()))}
    gen = {c: [] for c in (*schema.GEN_COLUMNS, *(("cert_rel_err",) if new_columns else ()))}
    trial_effect = rng.normal(0, noise, size=trials)
    tid = 0

    points = {}

    def add_task(exp, model, n, k, N_, t, L=1):
        nonlocal tid
        point = points.setdefault((exp, model, n, k, N_), len(points))
        for c, v in zip(schema.TASK_COLUMNS, (tid, point, exp, model, n, d, k, N_, L, t, 1)):
            tasks[c].append(v)
        tid += 1
        return tid - 1

    for model in models:
        for n in ns:
            for t in range(trials):
                wide = model in ("rf", "drf")
                task = add_task("ws", model, n, k_of(n, d) if wide else 0, 0, t,
                                2 if model == "drf" else 1)
                S = LEVELS[model] * n ** slopes[model] * np.exp(trial_effect[t]
                                                                 + rng.normal(0, noise))
                if model == "raf":
                    S *= min(1.0, np.sqrt(d / n))  # beyond n = d: a tilted mean, O(√(d/n))
                if wide:
                    S *= 1 + 1 / np.sqrt(n)  # random features at k = D: √2·(1 + √(d/k))/√n
                has_upper = model == "rf" or (model == "drf" and new_columns)
                Su = np.nan
                if has_upper:
                    e = upper.get(model, -0.5)
                    Su = max(UPPER_LEVELS[model] * n ** e * (1 + 1 / np.sqrt(n)), 1.3 * S)
                row = dict(task_id=task, S=S, S_upper=Su, argmax_position=t % n,
                           phi_norm=np.sqrt(n * d / 2), evaluations=100, seconds=0.01,
                           witness_offset=0, witness_length=0)
                if new_columns:
                    row.update(S_upper_scope=scope if has_upper else 0,
                               cert_rel_err=1e-13 * rng.random(), starts=40,
                               starts_at_budget=1, stationarity=1e-6,
                               S_budget_check=S * 1.01 if t == 0 else np.nan)
                for c in ws:
                    ws[c].append(row[c])
    for model in gen_models:
        for n in ns:
            for t in range(trials):
                task = add_task("gen", model, n, k_of(n, d) if model in ("rf", "drf") else 0,
                                N, t)
                for training in (0, 1):
                    for objective in (0, 1):
                        if model == "rf":
                            E = abs(E_rf(n) + rng.normal(0, 0.05))  # E ≥ 0, as (D1 + y)²
                        else:
                            E = abs(rng.normal(0, 0.02)) + (0.5 if objective == 1 else 0.0)
                        row = (task, training, objective, 0.3, 1.0, 0.2, np.sqrt(abs(E)) - 1, E,
                               1e3, t % n, 50, 0.01, 0, 0)
                        for c, v in zip(schema.GEN_COLUMNS, row):
                            gen[c].append(v)
                        if new_columns:
                            gen["cert_rel_err"].append(1e-14)
    as_np = lambda tb: {k: np.asarray(v) for k, v in tb.items()}  # noqa: E731
    tasks = as_np(tasks)
    tasks["experiment"] = np.where(tasks["experiment"] == "ws", 0, 1).astype(np.uint8)
    tasks["model"] = tasks["model"].astype("S16")  # fixed strings, NUL padded, as the writer
    ws = as_np(ws)
    if new_columns:
        ws["S_upper_scope"] = ws["S_upper_scope"].astype(np.uint8)
    gen = as_np(gen)
    gen["training"] = gen["training"].astype(np.uint8)
    gen["objective"] = gen["objective"].astype(np.uint8)
    return tasks, ws, gen


def relabel(tasks, ws, gen, source: str, target: str):
    """The rows of `source` carry `target`'s name: `target`'s own rows are dropped, `source`'s
    rows are copied under the name `target` (new task ids), so both names hold the same data.

    The falsification tests feed the rules rf's numbers labelled raf (and the reverse): a rule
    that confirms its claim on them cannot tell the models apart.
    """
    model = np.char.strip(tasks["model"].astype(str))
    drop = set(tasks["task_id"][model == target].tolist())
    keep_t = ~np.isin(tasks["task_id"], list(drop))
    src_ids = tasks["task_id"][model == source]
    offset = int(tasks["task_id"].max()) + 1
    new_tasks = {}
    for c, v in tasks.items():
        copy = v[model == source].copy()
        if c == "task_id":
            copy = copy + offset
        if c == "model":
            copy = np.full(copy.shape, target.encode(), dtype="S16")
        if c == "point_id":
            copy = copy + int(tasks["point_id"].max()) + 1
        if c == "k" and target in ("rf", "drf"):  # a width where the source had none: k = D
            D = tasks["n"][model == source] * tasks["d"][model == source]
            copy = np.where(copy > 0, copy, D)
        if c == "k" and target in ("raf", "raf_relu"):  # no width where the source had one
            copy = np.zeros_like(copy)
        new_tasks[c] = np.concatenate([v[keep_t], copy])

    def table(rows):
        if not len(rows["task_id"]):
            return rows
        keep = ~np.isin(rows["task_id"], list(drop))
        src = np.isin(rows["task_id"], src_ids)
        out = {}
        for c, v in rows.items():
            copy = v[src].copy()
            if c == "task_id":
                copy = copy + offset
            out[c] = np.concatenate([v[keep], copy])
        return out

    return new_tasks, table(ws), table(gen)


@pytest.fixture
def synthetic_file(tmp_path):
    tasks, ws, gen = synthetic_tables()
    return write_results(tmp_path / "synthetic.h5", tasks, ws, gen)


def binary_file(directory, config_text: str, binary: str, name: str = "clean") -> str:
    """The file `wordsens run` (the built `binary`) writes for `config_text` in `directory`
    (NAME.ini and NAME.h5); the run must succeed."""
    (directory / f"{name}.ini").write_text(config_text)
    path = directory / f"{name}.h5"
    p = subprocess.run([binary, "run", str(directory / f"{name}.ini"), "--output", str(path),
                        "--progress", "60"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return path
