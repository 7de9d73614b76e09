#!/usr/bin/python3
"""Checks of `wordsens ws` as scripts use it: the csv format, --help, usage errors.

usage: ws_cli_test.py WORDSENS_BINARY CASE
"""
import math
import re
import sys

import cli_common  # beside this script

CSV_HEADER = ("trial,S,S_upper,argmax_position,evaluations,seconds,S_upper_scope,cert_rel_err,"
              "starts,starts_at_budget,stationarity,S_budget_check")
EXIT_USAGE = cli_common.EXIT_USAGE
check = cli_common.check


def run(binary, *args):
    return cli_common.run(binary, "ws", *args)


def csv_rows(binary, *args):
    return cli_common.csv_rows(binary, "ws", CSV_HEADER, *args)


def case_ws_csv(binary):
    # rf has an upper bound, raf does not: S_upper filled resp. empty.
    rows = csv_rows(binary, "--model", "rf", "--n", "6", "--d", "4", "--k", "1.0D",
                    "--trials", "3", "--seed", "5")
    check(len(rows) == 3, f"expected 3 rows, got {len(rows)}")
    for t, row in enumerate(rows):
        check(int(row["trial"]) == t, f"trial column {row['trial']} != {t}")
        S, S_upper = float(row["S"]), float(row["S_upper"])
        check(0 < S <= S_upper and math.isfinite(S_upper), f"bad bracket {S} {S_upper}")
        check(0 <= int(row["argmax_position"]) < 6, "argmax_position out of range")
        check(int(row["evaluations"]) > 0, "no evaluations")
        check(float(row["seconds"]) >= 0, "negative seconds")
        # Full precision: the printed S parses back to a double with ~17 significant digits.
        check(len(row["S"].replace(".", "").lstrip("0")) >= 15, f"S printed short: {row['S']}")
        # The record's evidence: certified, bound over all positions, how the search ended.
        check(row["S_upper_scope"] == "1", f"rf's bound covers all positions: {row}")
        check(0 <= float(row["cert_rel_err"]) <= 1e-9, f"not certified: {row['cert_rel_err']}")
        starts, at_budget = int(row["starts"]), int(row["starts_at_budget"])
        check(starts >= 1 and 0 <= at_budget <= starts, f"bad start counts {starts} {at_budget}")
        check(float(row["stationarity"]) >= 0, f"bad stationarity {row['stationarity']}")
        check(row["S_budget_check"] == "", "S_budget_check without --budget-check")
    rows = csv_rows(binary, "--model", "raf", "--n", "5", "--d", "4", "--trials", "2",
                    "--positions", "random:2")
    check(len(rows) == 2, f"expected 2 rows, got {len(rows)}")
    check(all(row["S_upper"] == "" for row in rows), "raf must leave S_upper empty")
    check(all(float(row["S"]) > 0 for row in rows), "raf S must be positive")
    check(all(row["S_upper_scope"] == "0" for row in rows), "raf has no bound")
    # The budget check reruns trial 0 only, as a superset of its search: never below S.
    rows = csv_rows(binary, "--model", "raf", "--n", "6", "--d", "4", "--trials", "2",
                    "--budget-check", "3")
    check(float(rows[0]["S_budget_check"]) >= float(rows[0]["S"]), f"check below S: {rows[0]}")
    check(rows[1]["S_budget_check"] == "", "the budget check ran on trial 1")


def case_ws_text(binary):
    p = run(binary, "--model", "rf", "--n", "5", "--d", "3", "--k", "20", "--trials", "2")
    check(p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    check(len(lines) == 2, f"expected one line per trial, got {lines}")
    for t, line in enumerate(lines):
        for word in (f"trial {t}", "S =", "S_upper =", "i* =", "evaluations =", " s)"):
            check(word in line, f"'{word}' missing in: {line}")


def case_ws_help(binary):
    p = run(binary, "--help")
    check(p.returncode == 0, f"--help exit {p.returncode}")
    for option in ("--model", "--n", "--d", "--k", "--layers", "--activation", "--trials",
                   "--seed", "--positions", "--max-evals", "--sphere-starts", "--screen-points",
                   "--near-origin-starts", "--guided-start", "--upper-bound", "--rel-tol",
                   "--min-total-sphere-starts", "--budget-check", "--format", "--words",
                   "--word-sets", "--data"):
        check(re.search(rf"^\s+(-\w \[ )?{option}\b", p.stdout, re.M),
              f"--help has no option {option}")
    for model in ("rf", "drf", "raf", "raf_relu"):
        check(model in p.stdout, f"--help does not name model {model}")
    check(CSV_HEADER in p.stdout, "--help does not show the csv header")


def case_ws_bad_inputs(binary):
    base = ["--n", "4", "--d", "3"]
    # Each bad command line and what its one-line error must start with (after "wordsens ws:
    # error: "): the key as run spells it, so that the refusal is the one meant.
    bad = [
        (["--model", "nope", *base], "model = 'nope'"),
        (["--model", "rf", *base, "--k", "abc"], "k = 'abc'"),
        (["--model", "rf", *base, "--k", "-3"], "k = '-3'"),
        (["--model", "rf", "--n", "0", "--d", "3"], "n = '0'"),
        (["--model", "rf", "--n", "4", "--d", "0"], "d = '0'"),
        (["--model", "rf", *base, "--positions", "random:0"], "positions = 'random:0'"),
        (["--model", "rf", *base, "--positions", "middle"], "positions = 'middle'"),
        (["--model", "rf", *base, "--seed", "4294967296"], "seed = '4294967296'"),
        (["--model", "rf", *base, "--seed=-1"], "seed = '-1'"),
        (["--model", "rf", *base, "--trials", "0"], "trials = '0'"),
        (["--model", "rf", *base, "--format", "json"], "format = 'json'"),
        (["--model", "rf", *base, "--activation", "sigmoid"], "activation = 'sigmoid'"),
        (["--model", "rf", *base, "--max-evals", "0"], "max-evals = '0'"),
        (["--model", "rf", *base, "--bogus"], "--bogus: unknown option"),
        (["--n", "4", "--d", "3"], "missing required option --model"),
        (["--model", "rf", "--d", "3"], "missing required option --n"),
        (["--model", "rf", "--n", "four", "--d", "3"], "n = 'four'"),
        (["--model", "rf", *base, "--budget-check", "1"], "budget-check = '1'"),
        (["--model", "rf", *base, "--budget-check", "17"], "budget-check = '17'"),
        (["--model", "rf", *base, "--words", "0"], "words = '0'"),
        (["--model", "rf", *base, "--words", "5"], "words = 5 exceeds n = 4"),
        # With several words the sets are word-sets', as in a study.
        (["--model", "rf", *base, "--words", "2", "--positions", "all"], "positions = 'all'"),
        (["--model", "rf", *base, "--words", "2", "--word-sets", "random:0"],
         "word-sets = 'random:0'"),
        (["--model", "rf", *base, "--word-sets", "greedy"], "word-sets = 'greedy'"),
        (["--model", "rf", *base, "--words", "2", "--budget-check", "2"], "budget-check = '2'"),
        (["--model", "rf", *base, "--words", "2", "--rf-sampling", "marginal"],
         "rf-sampling = marginal cannot take words >= 2"),
        (["--model", "raf", *base, "--rf-sampling", "marginal"], "rf-sampling = 'marginal'"),
        # run's rules: no prefix of an option, one value per grid key, one model, no stray
        # argument, run's data sources.
        (["--mod", "rf", *base], "--mod: unknown option"),
        (["--model", "rf", "--n", "4,8", "--d", "3"], "n = '4,8': wordsens ws takes one value"),
        (["--model", "mhraf", "--n", "4", "--d", "8", "--heads", "1,2"],
         "heads = '1,2': wordsens ws takes one value"),
        (["--model", "mhraf", "--n", "4", "--d", "8", "--heads", "3"],
         "mhraf: heads = 3 must divide d = 8"),
        (["--model", "rf", *base, "--k", "1D,2D"], "k = '1D,2D'"),
        # A relative width that rounds below 1 is refused (it was clamped to 1 without a word).
        (["--model", "rf", *base, "--k", "0.00001D"], "k = '1e-05D': round(1e-05·n·d) = 0"),
        (["--model", "block", "--n", "4", "--d", "8", "--heads", "2", "--mlp-width", "0.0001d"],
         "mlp-width = '0.0001d': round(0.0001·d) = 0 at n=4, d=8"),
        (["--model", "rf,raf", *base], "model = 'rf,raf'"),
        (["--model", "rf", *base, "extra"], "an argument too many"),
        (["--model", "rf", *base, "--data", "embeddings:/nonexistent/embeddings.h5"],
         "embeddings file /nonexistent/embeddings.h5"),
        (["--model", "rf", *base, "--data", "nothing"], "data = 'nothing'"),
        (["--model", "rf", *base, "--experiments", "ws"], "--experiments: unknown option"),
    ]
    for args, start in bad:
        p = run(binary, *args)
        check(p.returncode == EXIT_USAGE, f"{args}: exit {p.returncode}, expected {EXIT_USAGE}")
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1, f"{args}: expected a one-line error, got {p.stderr!r}")
        check(lines[0].startswith("wordsens ws: error: " + start),
              f"{args}: expected an error starting with {start!r}: {lines[0]}")
        check(lines[0].count("--help") == 1, f"{args}: one pointer to --help: {lines[0]}")
        check(p.stdout == "", f"{args}: printed to stdout: {p.stdout!r}")
    # Old spellings name the new one (one spelling per option across run, ws and gen).
    for old, new in (("--no-guided-start", "--guided-start=false"),
                     ("--no-upper-bound", "--upper-bound=false"),
                     ("--origin-starts=1", "--near-origin-starts")):
        p = run(binary, "--model", "rf", *base, old)
        check(p.returncode == EXIT_USAGE and new in p.stderr and len(p.stderr.splitlines()) == 1,
              f"{old}: exit {p.returncode}, {p.stderr!r}")
    # The largest seed is accepted.
    p = run(binary, "--model", "rf", *base, "--seed", "4294967295")
    check(p.returncode == 0, f"seed 2^32-1 rejected: {p.stderr}")


WORDS_CSV_HEADER = ("trial,words,S,S_upper,argmax_set,evaluations,seconds,S_upper_scope,"
                    "cert_rel_err,starts,starts_at_budget")


def case_ws_words(binary):
    # S_m for m = 2 changed words: certified, bracketed by rf's bound over the examined sets,
    # greedy never below the single-word S over all positions.
    rows = cli_common.csv_rows(binary, "ws", WORDS_CSV_HEADER, "--model", "rf", "--n", "6",
                               "--d", "4", "--k", "1.0D", "--trials", "2", "--words", "2",
                               "--word-sets", "random:3")
    check(len(rows) == 2, f"expected 2 rows, got {len(rows)}")
    for row in rows:
        S, S_upper = float(row["S"]), float(row["S_upper"])
        check(row["words"] == "2", f"words column: {row}")
        check(0 < S <= S_upper, f"bad bracket {S} {S_upper}")
        check(row["S_upper_scope"] == "2", f"the word-set bound covers the examined sets: {row}")
        words = [int(i) for i in row["argmax_set"].split(";")]
        check(len(set(words)) == 2 and all(0 <= i < 6 for i in words), f"bad set {row}")
        check(0 <= float(row["cert_rel_err"]) <= 1e-9, f"not certified: {row}")
    one = csv_rows(binary, "--model", "raf", "--n", "5", "--d", "4", "--trials", "1")
    two = cli_common.csv_rows(binary, "ws", WORDS_CSV_HEADER, "--model", "raf", "--n", "5",
                              "--d", "4", "--trials", "1", "--words", "2", "--word-sets", "greedy")
    check(float(two[0]["S"]) >= float(one[0]["S"]) * (1 - 1e-12), f"greedy S_2 < S: {two} {one}")
    check(two[0]["S_upper"] == "", "raf has no bound")


def case_ws_reproducible(binary):
    args = ["--model", "raf", "--n", "5", "--d", "4", "--trials", "2", "--seed", "9"]
    a = [row["S"] for row in csv_rows(binary, *args)]
    b = [row["S"] for row in csv_rows(binary, *args)]
    check(a == b, f"same seed, different S: {a} vs {b}")
    check(a[0] != a[1], "different trials gave the same S")
    c = [row["S"] for row in csv_rows(binary, *args[:-1], "10")]
    check(a != c, "different seeds gave the same S")


def main():
    binary, case = sys.argv[1], sys.argv[2]
    globals()["case_" + case](binary)
    print(f"{case}: ok")


if __name__ == "__main__":
    main()
