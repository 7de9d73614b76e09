#!/usr/bin/python3
"""Checks the evidence every record of a study carries (results format 1.2).

usage: check_evidence.py FILE

- every /ws and /gen row of every model is certified: cert_rel_err ≤ 1e-9;
- the search diagnostics are consistent: starts ≥ 1 and 0 ≤ starts_at_budget ≤ starts,
  stationarity ≥ 0, the examined positions ascending and inside [0, n), one best S per examined
  position, S their maximum, attained at argmax_position;
- S_budget_check is ≥ S on the budget-check tasks (trial 0) and NaN elsewhere;
- S_upper ≥ S where it exists, and every model that admits a bound has one.
Exits 1 and prints each violation.
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/analysis")
from wordsens_analysis import read_results  # noqa: E402

BOUNDED = {"rf", "drf"}  # models that admit a certified upper bound


def main():
    res = read_results(sys.argv[1])
    errors = []
    ws, gen = res.ws, res.gen
    budget = "budget-check = 0" not in res.attrs.get("config_text", "")
    for row in ws.itertuples():
        where = f"ws task {row.task_id} ({row.model})"
        if not row.cert_rel_err <= 1e-9:
            errors.append(f"{where}: cert_rel_err = {row.cert_rel_err}")
        if not (row.starts >= 1 and 0 <= row.starts_at_budget <= row.starts):
            errors.append(f"{where}: starts {row.starts}, at budget {row.starts_at_budget}")
        if not row.stationarity >= 0:
            errors.append(f"{where}: stationarity {row.stationarity}")
        examined, best = np.asarray(row.examined), np.asarray(row.position_S)
        if not (len(examined) == len(best) >= 1 and np.all(np.diff(examined) > 0)
                and examined[0] >= 0 and examined[-1] < row.n):
            errors.append(f"{where}: examined positions {examined} / best S {best}")
        elif not (best.max() == row.S and examined[int(np.argmax(best))] == row.argmax_position):
            errors.append(f"{where}: S {row.S} is not the best of {best}")
        if budget and row.trial == 0:
            if not row.S_budget_check >= row.S:
                errors.append(f"{where}: S_budget_check {row.S_budget_check} < S {row.S}")
        elif not np.isnan(row.S_budget_check):
            errors.append(f"{where}: S_budget_check {row.S_budget_check} outside the check")
        if row.model in BOUNDED:
            if not (row.S_upper_scope in ("all", "examined") and row.S_upper >= row.S):
                errors.append(f"{where}: bound {row.S_upper} ({row.S_upper_scope}) vs S {row.S}")
    for row in gen.itertuples():
        if not row.cert_rel_err <= 1e-9:
            errors.append(f"gen task {row.task_id} ({row.model}): cert_rel_err {row.cert_rel_err}")
    models = sorted(set(ws.model)) + sorted(set(gen.model))
    if not len(ws) or not len(gen):
        errors.append("the study has no ws or no gen rows")
    for e in errors:
        print("error:", e, file=sys.stderr)
    print(f"{len(ws)} ws and {len(gen)} gen rows checked ({', '.join(models)}): "
          f"{len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
