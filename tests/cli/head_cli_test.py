#!/usr/bin/python3
"""Checks of `wordsens gen` as scripts use it: the csv format, --help, usage errors.

usage: head_cli_test.py WORDSENS_BINARY CASE
"""
import math
import re
import sys

import cli_common  # beside this script

CSV_HEADER = "trial,t0,t1,D0,D1,E,cond_K,seconds,cert_rel_err"
EXIT_USAGE = cli_common.EXIT_USAGE
check = cli_common.check
SMALL = ["--n", "5", "--d", "4", "--N", "12"]


def run(binary, *args):
    return cli_common.run(binary, "gen", *args)


def csv_rows(binary, *args):
    return cli_common.csv_rows(binary, "gen", CSV_HEADER, *args)


def case_gen_csv(binary):
    for model, training, objective in [("rf", "finetune", "loss"), ("raf", "retrain", "loss"),
                                       ("drf", "retrain", "align"), ("raf_relu", "finetune", "align")]:
        rows = csv_rows(binary, "--model", model, *SMALL, "--k", "2D", "--layers", "2",
                        "--training", training, "--objective", objective, "--trials", "3",
                        "--seed", "7")
        check(len(rows) == 3, f"{model}: expected 3 rows, got {len(rows)}")
        for t, row in enumerate(rows):
            check(int(row["trial"]) == t, f"trial column {row['trial']} != {t}")
            t1, D1, E = float(row["t1"]), float(row["D1"]), float(row["E"])
            # t1 = y = ±1 (the trained head fits X) and E = (D1 - y_Δ)² with y_Δ = -y.
            check(abs(abs(t1) - 1) < 1e-8, f"{model}: t1 = {t1} is not ±1")
            y = round(t1)
            check(math.isclose(E, (D1 + y) ** 2, rel_tol=1e-12, abs_tol=1e-15),
                  f"{model}: E = {E} but (D1 + y)^2 = {(D1 + y) ** 2}")
            check(float(row["cond_K"]) >= 1, "cond_K < 1")
            check(float(row["seconds"]) >= 0, "negative seconds")
            check(0 <= float(row["cert_rel_err"]) <= 1e-9, f"not certified: {row}")
            check(all(math.isfinite(float(row[c])) for c in ("t0", "D0")), "non-finite t0/D0")
            check(len(row["D1"].replace("-", "").replace(".", "").lstrip("0")) >= 15,
                  f"D1 printed short: {row['D1']}")
        if objective == "loss":
            # Δ = 0 already gives E = 4; the search must do better than doing nothing.
            check(min(float(r["E"]) for r in rows) < 4, f"{model}: search never moved")


def case_gen_text(binary):
    p = run(binary, "--model", "raf", *SMALL, "--training", "retrain", "--objective", "loss",
            "--trials", "2", "--positions", "random:2")
    check(p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    check(len(lines) == 2, f"expected one line per trial, got {lines}")
    for t, line in enumerate(lines):
        for word in (f"trial {t}:", "t0 =", "t1 =", "D0 =", "D1 =", "E =", "cond_K =", "i* =",
                     "evaluations =", " s)"):
            check(word in line, f"'{word}' missing from: {line}")


def case_gen_help(binary):
    p = run(binary, "--help")
    check(p.returncode == 0, f"--help exit {p.returncode}")
    for option in ("--model", "--n", "--d", "--k", "--N", "--training", "--objective", "--trials",
                   "--seed", "--positions", "--layers", "--format", "--data"):
        check(re.search(rf"^\s+{option}\b", p.stdout, re.M), f"--help has no option {option}")
    for word in ("finetune", "retrain", "rf|drf|raf|raf_relu"):
        check(word in p.stdout, f"--help does not mention {word}")


def case_gen_bad_inputs(binary):
    good = ["--model", "rf", *SMALL, "--training", "finetune", "--objective", "loss"]
    # Each bad command line and what its one-line error starts with after "wordsens gen: error: ".
    bad = [
        (["--model", "nope", *SMALL, "--training", "finetune", "--objective", "loss"],
         "model = 'nope'"),
        (["--model", "rf", "--n", "5", "--d", "4", "--training", "finetune", "--objective",
          "loss"], "missing required option --N"),
        (good[:-2] + ["--objective", "l2"], "objective = 'l2'"),
        (good[:-4] + ["--training", "fine-tune", "--objective", "loss"],
         "training = 'fine-tune'"),
        (good + ["--k", "0D"], "k = '0D'"),
        (good + ["--k", "1D,2D"], "k = '1D,2D'"),
        (good + ["--trials", "0"], "trials = '0'"),
        (good + ["--seed", "-1"], "seed = '-1'"),
        (good + ["--format", "json"], "format = 'json'"),
        (good + ["--positions", "random:0"], "positions = 'random:0'"),
        (good + ["--unknown"], "--unknown: unknown option"),
        (good + ["--rf-sampling", "half"], "rf-sampling = 'half'"),
        (["--model", "raf", *SMALL, "--training", "finetune", "--objective", "loss",
          "--rf-sampling", "marginal"], "rf-sampling = 'marginal'"),   # rf's only
        (good[:-1] + ["loss,align"], "objective = 'loss,align': wordsens gen takes one value"),
        (["--model", "rf", *SMALL, "--train", "finetune", "--objective", "loss"],
         "--train: unknown option"),                                 # a prefix
        (good + ["--screen-points", "8"], "--screen-points: unknown option"),  # a ws option
        (good + ["extra"], "an argument too many"),
        (["--model", "raf", "--n", "2", "--d", "3", "--N", "6", "--training", "retrain",
          "--objective", "loss"], "gen needs N < p"),                # N ≥ p = D = 6
    ]
    for args, start in bad:
        p = run(binary, *args)
        check(p.returncode == EXIT_USAGE, f"{args}: exit {p.returncode}, expected {EXIT_USAGE}")
        check(p.stdout == "", f"{args}: wrote to stdout: {p.stdout!r}")
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and lines[0].startswith("wordsens gen: error: " + start),
              f"{args}: expected one line starting with {start!r}: {p.stderr!r}")


def case_gen_reproducible(binary):
    args = ["--model", "rf", *SMALL, "--training", "retrain", "--objective", "loss", "--trials",
            "2", "--seed", "3"]
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
    a, b = strip(csv_rows(binary, *args)), strip(csv_rows(binary, *args))
    check(a == b, "two identical runs differ")
    c = strip(csv_rows(binary, *args[:-1], "4"))
    check(a != c, "a different seed gives the same rows")


def case_gen_marginal(binary):
    # rf's marginal sampler: same output format, reproducible, other weights than the full
    # sampler's (another law realisation), t1 = y and E = (D1 + y)^2 as always.
    args = ["--model", "rf", *SMALL, "--training", "finetune", "--objective", "loss", "--trials",
            "3", "--seed", "5", "--positions", "first"]
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
    marginal = strip(csv_rows(binary, *args, "--rf-sampling", "marginal"))
    check(marginal == strip(csv_rows(binary, *args, "--rf-sampling", "marginal")),
          "two identical marginal runs differ")
    check(marginal != strip(csv_rows(binary, *args)), "marginal rows equal the full sampler's")
    for row in marginal:
        t1, D1, E = float(row["t1"]), float(row["D1"]), float(row["E"])
        check(abs(abs(t1) - 1) < 1e-8, f"t1 = {t1} is not ±1")
        check(math.isclose(E, (D1 + round(t1)) ** 2, rel_tol=1e-12, abs_tol=1e-15), "E != (D1+y)^2")
    p = run(binary, "--help")
    check("--rf-sampling" in p.stdout, "--help does not mention --rf-sampling")


if __name__ == "__main__":
    binary, case = sys.argv[1], sys.argv[2]
    globals()[f"case_{case}"](binary)
