#!/usr/bin/python3
"""Prints the records of a wordsens results file in a canonical order, for bitwise comparison.

Rows are sorted by task id (gen: and training, objective); only rows of tasks whose done flag is
set count (rows of a task killed mid-append are orphans, see io/results_file.hpp). Floats are
printed as hex, so equal text means equal bits. Every column of /ws and /gen is printed (ragged
columns as their values per row) except wall-clock ones (their `meaning` attribute says "not
reproducible", e.g. `seconds`). Exits 1 when a done task has no row or more than its rows (lost
or duplicated records).

usage: dump_records.py FILE [--config]   (--config also prints config_text)
"""
import sys

import h5py
import numpy as np

TASK_COLUMNS = ["task_id", "point_id", "experiment", "model", "n", "d", "k", "N", "layers",
                "trial"]


def fmt(value):
    if isinstance(value, (float, np.floating)):
        return float(value).hex()
    if isinstance(value, bytes):
        return value.rstrip(b"\0").decode()
    return str(value)


def columns_of(g, keys):
    """Row columns (sorted) and ragged bases of a group, without keys and wall-clock columns."""
    def meaning(ds):
        m = ds.attrs.get("meaning", "")
        return m.decode() if isinstance(m, bytes) else str(m)

    row, ragged = [], []
    for name in sorted(g):
        if name.endswith("values") or name in keys:
            continue
        if "not reproducible" in meaning(g[name]) or name == "seconds":
            continue
        if name.endswith("_offset") and name[:-7] + "_values" in g:
            ragged.append(name[:-7])
        elif not (name.endswith("_length") and name[:-7] + "_values" in g):
            row.append(name)
    return row, ragged


def main():
    path = sys.argv[1]
    errors = []
    try:
        f = h5py.File(path, "r")
    except OSError:
        # A writer killed by SIGKILL leaves the "open for write" flag; SWMR readers ignore it.
        f = h5py.File(path, "r", swmr=True)
    with f:
        if "--config" in sys.argv:
            text = f.attrs["config_text"]
            print(text.decode() if isinstance(text, bytes) else text)
        tasks = {c: f["tasks"][c][()] for c in TASK_COLUMNS + ["done"]}
        done = {int(t) for t, d in zip(tasks["task_id"], tasks["done"]) if d}
        order = np.argsort(tasks["task_id"], kind="stable")
        for i in order:
            print("task", " ".join(fmt(tasks[c][i]) for c in TASK_COLUMNS + ["done"]))
        experiment = {int(t): int(e) for t, e in zip(tasks["task_id"], tasks["experiment"])}
        for group, keys in (("ws", ["task_id"]), ("gen", ["task_id", "training", "objective"])):
            g = f[group]
            columns, ragged = columns_of(g, keys)
            ids = g["task_id"][()]
            data = {c: g[c][()] for c in keys + columns}
            for base in ragged:
                flat = g[base + "_values"][()]
                offsets, lengths = g[base + "_offset"][()], g[base + "_length"][()]
                data[base] = [" ".join(fmt(v) for v in flat[o:o + n])
                              for o, n in zip(offsets, lengths)]
                columns.append(base)
            rows = [r for r in range(len(ids)) if int(ids[r]) in done]
            rows.sort(key=lambda r: tuple(int(data[k][r]) for k in keys))
            seen = {}
            for r in rows:
                key = tuple(int(data[k][r]) for k in keys)
                seen[key] = seen.get(key, 0) + 1
                print(group, " ".join(fmt(data[c][r]) for c in keys + columns))
            for key, count in seen.items():
                if count > 1:
                    errors.append(f"{group} row {key} appears {count} times")
            want = 0 if group == "ws" else 1
            have = {key[0] for key in seen}
            for t in done:
                if experiment[t] == want and t not in have:
                    errors.append(f"done task {t} has no {group} row")
        print("done", len(done), "of", len(tasks["task_id"]))
    for e in errors:
        print("error:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
