#!/usr/bin/python3
"""`wordsens ws` and `gen` run a one-point study through the task runner of `wordsens run`.

Each case runs the command with some of run's keys, then `wordsens run` with the same keys (the
model as `models`, the experiment as `experiments`), and checks that every printed row holds the
record of the same trial in the results file (its doubles bit for bit, its counts, and the
fields printed with 3 digits to those digits): the same texts (synthetic or an embeddings file),
weights, positions and starts, whichever command ran them.

usage: one_point_test.py WORDSENS_BINARY CASE
"""
import math
import os
import subprocess
import sys
import tempfile

import h5py

import cli_common  # beside this script

check = cli_common.check
HERE = os.path.dirname(os.path.abspath(__file__))
# Sequences of 12, 12, 5, 12, 0 and 9 tokens; its NaN and infinity lie beyond n = 4 and d = 6.
EMBEDDINGS = os.path.join(HERE, "..", "fixtures", "embeddings", "good.h5")

WS_HEADER = ("trial,S,S_upper,argmax_position,evaluations,seconds,S_upper_scope,cert_rel_err,"
             "starts,starts_at_budget,stationarity,S_budget_check")
WORDS_HEADER = ("trial,words,S,S_upper,argmax_set,evaluations,seconds,S_upper_scope,"
                "cert_rel_err,starts,starts_at_budget")
GEN_HEADER = "trial,t0,t1,D0,D1,E,cond_K,seconds,cert_rel_err"


def records(binary, experiment, model, keys):
    """The /ws or /gen columns of `wordsens run` with these keys, ordered by task id."""
    with tempfile.TemporaryDirectory() as tmp:
        output = os.path.join(tmp, "one_point.h5")
        args = [binary, "run", f"--experiments={experiment}", f"--models={model}",
                f"--output={output}", *(f"--{k}={v}" for k, v in keys.items())]
        p = subprocess.run(args, capture_output=True, text=True, timeout=100,
                           env={**os.environ, "OMPI_MCA_rmaps_base_oversubscribe": "1"})
        check(p.returncode == 0, f"run exit {p.returncode}: {p.stderr}")
        with h5py.File(output, "r") as f:
            group = f[experiment]
            order = group["task_id"][:].argsort()
            # The columns of one value per record (not the ragged arrays' values).
            return {name: group[name][:][order] for name in group
                    if isinstance(group[name], h5py.Dataset) and group[name].shape == order.shape}


def same_double(printed, stored, what):
    # A csv double has 17 significant digits: it parses back to the stored bits.
    value = float(printed) if printed != "" else math.nan
    check(value == stored or (math.isnan(value) and math.isnan(stored)),
          f"{what}: printed {printed!r}, stored {stored!r}")


def rows_and_records(binary, command, header, model, keys):
    """The csv rows of `wordsens COMMAND` and the records of run with the same keys, one each
    per trial."""
    args = ["--model", model, *(f"--{k}={v}" for k, v in keys.items())]
    rows = cli_common.csv_rows(binary, command, header, *args)
    stored = records(binary, command, model, keys)
    check(len(rows) == len(stored["task_id"]) == int(keys["trials"]),
          f"{len(rows)} rows, {len(stored['task_id'])} records")
    return rows, stored


def same_digits(row, stored, name, t):
    # Printed with %.3g: the same digits as the stored value's (Python's format is C's).
    check(row[name] == f"{stored[name][t]:.3g}",
          f"trial {t} {name}: printed {row[name]}, stored {stored[name][t]!r}")


def compare_ws(binary, model, keys, header=WS_HEADER):
    rows, stored = rows_and_records(binary, "ws", header, model, keys)
    for t, row in enumerate(rows):
        for name in ("S", "S_upper") + (("S_budget_check",) if header == WS_HEADER else ()):
            same_double(row[name], stored[name][t], f"trial {t} {name}")
        for name in ("cert_rel_err",) + (("stationarity",) if header == WS_HEADER else ()):
            same_digits(row, stored, name, t)
        for name in ("evaluations", "starts", "starts_at_budget", "S_upper_scope"):
            check(int(row[name]) == int(stored[name][t]), f"trial {t} {name} differs")
        if header == WS_HEADER:
            check(int(row["argmax_position"]) == int(stored["argmax_position"][t]),
                  f"trial {t}: argmax_position differs")
    return rows


def compare_gen(binary, model, keys):
    rows, stored = rows_and_records(binary, "gen", GEN_HEADER, model, keys)
    for t, row in enumerate(rows):
        for name in ("t0", "t1", "D0", "D1", "E", "cond_K"):
            same_double(row[name], stored[name][t], f"trial {t} {name}")
        same_digits(row, stored, "cert_rel_err", t)


def case_ws_matches_run(binary):
    compare_ws(binary, "raf", {"n": 5, "d": 4, "trials": 2, "seed": 7,
                               "positions": "random:3", "budget-check": 2})
    compare_ws(binary, "rf", {"n": 5, "d": 3, "k": "0.5D", "trials": 2, "seed": 3,
                              "rf-sampling": "marginal", "positions": "first"})
    compare_ws(binary, "drf", {"n": 5, "d": 4, "k": 30, "layers": 3, "trials": 2,
                               "words": 2, "word-sets": "random:2"}, header=WORDS_HEADER)


def case_gen_matches_run(binary):
    compare_gen(binary, "rf", {"n": 5, "d": 4, "N": 6, "k": "2D", "trials": 2, "seed": 4,
                               "training": "retrain", "objective": "align"})
    compare_gen(binary, "raf_relu", {"n": 4, "d": 3, "N": 5, "trials": 2, "training": "finetune",
                                     "objective": "loss", "positions": "first"})


def case_embeddings(binary):
    # --data embeddings:FILE, as in run: the texts of the file, the same records as run's.
    data = f"embeddings:{EMBEDDINGS}"
    rows = compare_ws(binary, "raf", {"n": 4, "d": 6, "trials": 2, "data": data})
    synthetic = cli_common.csv_rows(binary, "ws", WS_HEADER, "--model", "raf", "--n", "4",
                                    "--d", "6", "--trials", "2")
    check([r["S"] for r in rows] != [r["S"] for r in synthetic],
          "the file's texts gave the synthetic texts' S")
    compare_gen(binary, "raf", {"n": 4, "d": 6, "N": 3, "trials": 2, "training": "finetune",
                                "objective": "loss", "data": data})
    # Texts longer than the file's, or wider tokens: refused before any row, as run refuses them.
    for n, d in ((13, 6), (4, 9)):
        p = cli_common.run(binary, "ws", "--model", "raf", "--n", str(n), "--d", str(d),
                           "--data", data, "--format", "csv")
        check(p.returncode == cli_common.EXIT_USAGE and p.stdout == "" and
              len(p.stderr.splitlines()) == 1 and "embeddings file" in p.stderr,
              f"n={n}, d={d}: exit {p.returncode}: {p.stderr!r} {p.stdout!r}")


def main():
    binary, case = sys.argv[1], sys.argv[2]
    globals()["case_" + case](binary)
    print(f"{case}: ok")


if __name__ == "__main__":
    main()
