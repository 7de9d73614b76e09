#!/usr/bin/python3
"""Checks that a results file holds exactly the records of a reference file, bit for bit.

Usage: compare_results.py REFERENCE.h5 CANDIDATE.h5

Records of /ws and /gen are keyed by (task_id[, training, objective]) and compared column by
column, floats by their bit patterns (so NaN == NaN and -0.0 != 0.0), leaving out what may
legitimately differ between runs: `seconds` (wall time), `row_crc32` (which covers it) and the
`<x>_offset` columns of ragged columns (where a row's values start in the flat array
`<x>_values`, which depends on the order records arrived). Ragged values (witnesses, examined positions, per-position S) are compared row
by row instead. Also checks that the candidate has no duplicated record, that
its task table equals the reference's and that every task is done.
Exit 0 when identical, 1 with one line per difference otherwise.
"""
import sys

import h5py
import numpy as np

IGNORED = {"seconds", "row_crc32"}


def ragged_bases(columns):
    """The ragged columns <x> of a table: <x>_offset and <x>_length into <x>_values."""
    return sorted(c[:-len("_offset")] for c in columns if c.endswith("_offset")
                  and c[:-len("_offset")] + "_length" in columns
                  and c[:-len("_offset")] + "_values" in columns)


def key_columns(group):
    return [c for c in ("task_id", "training", "objective") if c in group]


def bits(values):
    """Float columns as unsigned integers of the same width: an exact, NaN-safe comparison."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return values.view(np.dtype(f"u{values.dtype.itemsize}"))
    return values


def read_records(f, name, problems, label):
    if name not in f:
        return None
    group = f[name]
    keys = key_columns(group)
    if "task_id" not in keys:
        problems.append(f"{label}: {name} has no task_id column")
        return None
    columns = {c: group[c][()] for c in group if isinstance(group[c], h5py.Dataset)}
    key_tuples = list(zip(*(columns[k].tolist() for k in keys)))
    order = sorted(range(len(key_tuples)), key=lambda i: key_tuples[i])
    if len(set(key_tuples)) != len(key_tuples):
        problems.append(f"{label}: {name} has {len(key_tuples) - len(set(key_tuples))} "
                        "duplicated records")
    bases = ragged_bases(columns)
    offsets = {b + "_offset" for b in bases}
    records = {c: v[order] for c, v in columns.items()
               if c not in IGNORED and c not in offsets and v.shape == (len(key_tuples),)}
    ragged = {b: [bits(columns[b + "_values"][o:o + n]) for o, n in
                  zip(columns[b + "_offset"][order], columns[b + "_length"][order])]
              for b in bases}
    return [key_tuples[i] for i in order], records, ragged


def compare(reference, candidate):
    problems = []
    with h5py.File(reference, "r") as ref, h5py.File(candidate, "r") as got:
        ref_tasks = {c: ref["tasks"][c][()] for c in ref["tasks"]}
        got_tasks = {c: got["tasks"][c][()] for c in got["tasks"]}
        if set(ref_tasks) != set(got_tasks):
            problems.append(f"task table columns differ: {sorted(ref_tasks)} vs {sorted(got_tasks)}")
        for c in sorted(set(ref_tasks) & set(got_tasks)):
            if not np.array_equal(bits(ref_tasks[c]), bits(got_tasks[c])):
                problems.append(f"task table column {c} differs")
        if "done" in got_tasks and not np.all(got_tasks["done"] == 1):
            problems.append(f"{candidate}: {int(np.sum(got_tasks['done'] != 1))} tasks not done")
        total = 0
        for name in ("ws", "gen"):
            a = read_records(ref, name, problems, reference)
            b = read_records(got, name, problems, candidate)
            if a is None and b is None:
                continue
            if a is None or b is None:
                problems.append(f"/{name} exists in only one file")
                continue
            if a[0] != b[0]:
                missing = sorted(set(a[0]) - set(b[0]))[:5]
                extra = sorted(set(b[0]) - set(a[0]))[:5]
                problems.append(f"/{name} record keys differ ({len(a[0])} vs {len(b[0])} rows; "
                                f"missing e.g. {missing}, extra e.g. {extra})")
                continue
            total += len(a[0])
            if set(a[1]) != set(b[1]):
                problems.append(f"/{name} columns differ: {sorted(a[1])} vs {sorted(b[1])}")
            for c in sorted(set(a[1]) & set(b[1])):
                if a[1][c].dtype != b[1][c].dtype or not np.array_equal(bits(a[1][c]),
                                                                        bits(b[1][c])):
                    problems.append(f"/{name}/{c} differs")
            if set(a[2]) != set(b[2]):
                problems.append(f"/{name} ragged columns differ: {sorted(a[2])} vs {sorted(b[2])}")
            for base in sorted(set(a[2]) & set(b[2])):
                for k, (wa, wb) in enumerate(zip(a[2][base], b[2][base])):
                    if not np.array_equal(wa, wb):
                        problems.append(f"/{name}/{base} of record {a[0][k]} differs")
                        break
        if total == 0:
            problems.append("no records at all: nothing was compared")
    return problems, total


def main():
    if len(sys.argv) != 3:
        print("usage: compare_results.py REFERENCE.h5 CANDIDATE.h5", file=sys.stderr)
        return 2
    problems, total = compare(sys.argv[1], sys.argv[2])
    for p in problems:
        print(f"compare_results: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"compare_results: {sys.argv[2]} holds the {total} records of {sys.argv[1]}, bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
