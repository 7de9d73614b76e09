"""The invariants of a record (FORMAT.md "Invariants of a record"), as the C++ readers check them
(src/study/record_invariants.cpp, src/io/integrity/record_checks.cpp): the fields of one record of a done
task against each other, its task and its file, and the rows of one gen task together.

damage.py calls check_invariants once the tables fit together and every value is one a run
writes; a record that breaks an invariant makes the file damaged, the message naming the
invariant and the first task (by task id) that breaks it, in the C++ readers' words.
"""
from __future__ import annotations

import h5py
import numpy as np

from . import schema

WHAT = '{table} records break the invariant {id} (FORMAT.md, "Invariants of a record")'


def _number(value) -> str:
    value = float(value)
    return "nan" if np.isnan(value) else f"{value:.17g}"


def _list(values) -> str:
    values = [int(v) for v in values]
    text = ", ".join(str(v) for v in values[:8])
    return "{" + text + (", …}" if len(values) > 8 else "}")


def config_value(config_text: str, key: str) -> str:
    """A key's value in a configuration text (also under an INI section), "" when absent."""
    found = ""
    for line in (config_text or "").splitlines():
        name, sep, value = line.partition("=")
        name = name.strip()
        if sep and (name == key or name.endswith("." + key)):
            found = value.strip()
    return found


def gen_keys(config_text: str) -> set:
    """The (training, objective) codes of every gen task's rows (schema.TRAININGS, OBJECTIVES),
    from config_text's `training` and `objective`; empty when either is absent or names what no
    run writes."""
    lists = []
    for key, table in (("training", schema.TRAININGS), ("objective", schema.OBJECTIVES)):
        code = {name: value for value, name in table.items()}
        items = [item.strip() for item in config_value(config_text, key).split(",")]
        if not all(item in code for item in items):
            return set()
        lists.append([code[item] for item in items])
    return {(t, o) for t in lists[0] for o in lists[1]}


class _Ragged:
    """A ragged column of the chosen rows: lengths, and their values gathered in row order."""

    def __init__(self, sets: dict, name: str, rows: np.ndarray):
        self.present = all(name + s in sets for s in (schema.RAGGED_OFFSET, schema.RAGGED_LENGTH,
                                                       schema.RAGGED_VALUES))
        if not self.present:
            self.length = np.zeros(rows.shape[0], dtype=np.int64)
            self.values = np.zeros(0)
            self.start = np.zeros(rows.shape[0], dtype=np.int64)
            return
        offset = sets[name + schema.RAGGED_OFFSET][:].astype(np.int64)[rows]
        self.length = sets[name + schema.RAGGED_LENGTH][:].astype(np.int64)[rows]
        flat = sets[name + schema.RAGGED_VALUES][:]
        # Element j of row i sits at offset[i] + j: one index array for every row's elements.
        self.start = np.concatenate(([0], np.cumsum(self.length)[:-1])).astype(np.int64)
        total = int(self.length.sum())
        within = np.arange(total, dtype=np.int64) - np.repeat(self.start, self.length)
        self.values = flat[np.repeat(offset, self.length) + within] if total else flat[:0]

    def row(self, i: int) -> np.ndarray:
        return self.values[self.start[i]:self.start[i] + self.length[i]]

    def row_of_element(self) -> np.ndarray:
        return np.repeat(np.arange(self.length.shape[0]), self.length)


class _Broken:
    """Per (table, invariant): how many records break it and the first (lowest task id: the
    records are checked in that order), reported in the list's order."""

    def __init__(self):
        self.found: dict = {}

    def add(self, table: str, rule: str, task: int, detail: str) -> None:
        entry = self.found.setdefault((table, rule), [0, f"task {task}: {detail}"])
        entry[0] += 1

    def add_rows(self, table: str, rule: str, bad: np.ndarray, tasks: np.ndarray, detail) -> None:
        """The records `bad` marks (tasks ascending); detail(i) describes the first."""
        hits = np.flatnonzero(bad)
        if hits.size:
            first = int(hits[0])
            entry = self.found.setdefault((table, rule),
                                          [0, f"task {int(tasks[first])}: {detail(first)}"])
            entry[0] += int(hits.size)

    def report(self, problems) -> None:
        for rule, _, _ in schema.RECORD_INVARIANTS:
            for table in ("/ws", "/gen"):
                if (table, rule) in self.found:
                    count, first = self.found[(table, rule)]
                    problems.tally(WHAT.format(table=table, id=rule), [first] + [""] * (count - 1))


def _first_reason(reasons, i: int) -> str:
    return next(text(i) for mask, text in reasons if mask[i])


def _ws(sets: dict, state: dict, context: dict, broken: _Broken) -> None:
    ids = sets["task_id"][:]
    rows = np.array([r for r, t in enumerate(ids.tolist()) if state.get(t, (False,))[0]],
                    dtype=np.int64)
    if rows.shape[0] == 0:
        return
    tasks = ids[rows].astype(np.int64)
    order = np.argsort(tasks, kind="stable")  # the first example is the lowest task id
    rows, tasks = rows[order], tasks[order]
    n = np.array([state[t][2] for t in tasks.tolist()], dtype=np.int64)
    d = np.array([state[t][3] for t in tasks.tolist()], dtype=np.int64)
    m = np.array([state[t][4] for t in tasks.tolist()], dtype=np.int64)

    def column(name, default=np.nan):
        return sets[name][:][rows] if name in sets else np.full(rows.shape[0], default)

    S, S_upper, argmax = column("S"), column("S_upper").astype(float), column("argmax_position")
    add = lambda rule, bad, detail: broken.add_rows("/ws", rule, bad, tasks, detail)  # noqa: E731
    evidence = "S_upper_scope" in sets
    examined = _Ragged(sets, "examined", rows)
    position_S = _Ragged(sets, "position_S", rows)
    argmax_set = _Ragged(sets, "argmax_set", rows)
    examined_sets = _Ragged(sets, "examined_sets", rows)
    set_S = _Ragged(sets, "set_S", rows)
    word_sets = argmax_set.present and examined_sets.present and set_S.present
    one = m == 1
    if evidence:
        scope = column("S_upper_scope").astype(np.int64)
        nan = np.isnan(S_upper)
        add("upper_bound_and_scope", ((scope == 0) != nan) | ((scope != 0) & ~np.isfinite(S_upper)),
            lambda i: f"S_upper {_number(S_upper[i])}, S_upper_scope {scope[i]}")
        reasons = [
            ((scope == 1) & (m >= 2), lambda i: f"scope 1 with m = {m[i]} changed words"),
            ((scope == 2) & one & (not context["marginal"]),
             lambda i: "scope 2 with one changed word, without rf-sampling = marginal"),
            ((scope == 2) & one & (examined.length >= n),
             lambda i: f"scope 2 with every one of the n = {n[i]} positions examined"),
            ((scope != 0) & (not context["upper_bound"]),
             lambda i: f"scope {scope[i]} under upper-bound = false"),
        ]
        bad = np.zeros(rows.shape[0], dtype=bool)
        for mask, _ in reasons:
            bad |= mask
        add("scope_of_the_search", bad, lambda i: _first_reason(reasons, i))
    if "starts" in sets and "starts_at_budget" in sets:
        starts, at_budget = column("starts"), column("starts_at_budget")
        add("starts", ~((starts >= 1) & (at_budget <= starts)),
            lambda i: f"starts {int(starts[i])}, starts_at_budget {int(at_budget[i])}")
    if examined.present and position_S.present:
        _one_word(S, argmax, one, examined, position_S, argmax_set, examined_sets, set_S,
                  word_sets, add)
    if word_sets:
        stationarity, budget = column("stationarity"), column("S_budget_check")
        for i in np.flatnonzero(m >= 2):
            rule, detail = _several_words(i, int(m[i]), int(n[i]), S[i], int(argmax[i]),
                                          examined, position_S, argmax_set, examined_sets, set_S,
                                          stationarity[i], budget[i], evidence)
            if rule:
                broken.add("/ws", rule, int(tasks[i]), detail)
    length = column("witness" + schema.RAGGED_LENGTH, 0).astype(np.int64)
    wanted = m * d if context["save_witness"] else np.zeros_like(m)
    add("witness_length", length != wanted,
        lambda i: f"witness_length {length[i]}, {wanted[i]} with save_witness "
                  f"{int(context['save_witness'])}")


def _one_word(S, argmax, one, examined, position_S, argmax_set, examined_sets, set_S, word_sets,
              add) -> None:
    """one_word_positions, then one_word_best on the rows that keep it (m = 1)."""
    values = examined.values
    element_row = examined.row_of_element()
    same = element_row[1:] == element_row[:-1]
    unordered = np.zeros(one.shape[0], dtype=bool)
    unordered[element_row[1:][same & (values[1:] <= values[:-1])]] = True
    reasons = [
        (examined.length == 0, lambda i: "no examined position"),
        (position_S.length != examined.length,
         lambda i: f"{examined.length[i]} examined positions, {position_S.length[i]} values of "
                   "position_S"),
        (unordered, lambda i: f"examined {_list(examined.row(i))} is not strictly ascending"),
    ]
    if word_sets:
        first = np.full(one.shape[0], -2, dtype=np.int64)
        has = argmax_set.length >= 1
        first[has] = argmax_set.values[argmax_set.start[has]]
        reasons += [
            ((argmax_set.length != 1) | (first != argmax),
             lambda i: f"argmax_set {_list(argmax_set.row(i))}, argmax_position {argmax[i]}"),
            ((examined_sets.length != 0) | (set_S.length != 0),
             lambda i: f"{examined_sets.length[i]} values of examined_sets, {set_S.length[i]} "
                       "of set_S"),
        ]
    bad = np.zeros(one.shape[0], dtype=bool)
    for mask, _ in reasons:
        bad |= mask
    bad &= one
    add("one_word_positions", bad, lambda i: _first_reason(reasons, i))
    good = one & ~bad
    if not good.any():
        return
    # Among the rows that keep the rule above, position_S and examined have one value each per
    # position: their values of those rows, gathered in row order, line up.
    keep = good[element_row]
    rows_of = element_row[keep]
    positions = values[keep]
    best = position_S.values[good[position_S.row_of_element()]]
    hit = positions == argmax[rows_of]
    found = np.zeros(one.shape[0], dtype=bool)
    found[rows_of[hit]] = True
    there = np.full(one.shape[0], np.nan)
    there[rows_of[hit]] = best[hit]
    top = np.full(one.shape[0], -np.inf)
    np.maximum.at(top, rows_of, best)
    with np.errstate(invalid="ignore"):
        reasons = [
            (~found, lambda i: f"argmax_position {argmax[i]} is not examined"),
            (found & ~(there == S),
             lambda i: f"S {_number(S[i])}, position_S {_number(there[i])} at argmax_position "
                       f"{argmax[i]}"),
            (~(top <= S * (1 + schema.POSITION_TOLERANCE)),
             lambda i: f"S {_number(S[i])}, largest position_S {_number(top[i])}"),
        ]
    bad = np.zeros(one.shape[0], dtype=bool)
    for mask, _ in reasons:
        bad |= mask
    add("one_word_best", bad & good, lambda i: _first_reason(reasons, i))


def _distinct(values, n: int) -> bool:
    values = [int(v) for v in values]
    return len(set(values)) == len(values) and all(0 <= v < n for v in values)


def _several_words(i, m, n, S, argmax, examined, position_S, argmax_set, examined_sets, set_S,
                   stationarity, budget, evidence):
    """The invariant a record of m ≥ 2 changed words breaks first, with its detail ("" if none)."""
    best, sets, chosen = set_S.row(i), examined_sets.row(i), argmax_set.row(i)
    if argmax != -1:
        return "several_words_sets", f"argmax_position {argmax}"
    if examined.length[i] or position_S.length[i]:
        return "several_words_sets", (f"{examined.length[i]} examined positions, "
                                      f"{position_S.length[i]} values of position_S")
    if evidence and not (np.isnan(stationarity) and np.isnan(budget)):
        return "several_words_sets", (f"stationarity {_number(stationarity)}, S_budget_check "
                                      f"{_number(budget)}")
    if len(chosen) != m or not _distinct(chosen, n):
        return "several_words_sets", f"argmax_set {_list(chosen)} for m = {m}"
    if len(best) == 0 or len(sets) != m * len(best):
        return "several_words_sets", (f"{len(sets)} values of examined_sets for {len(best)} "
                                      f"values of set_S, m = {m}")
    for s in range(len(best)):
        if not _distinct(sets[s * m:(s + 1) * m], n):
            return "several_words_sets", f"examined set {s} does not hold m distinct positions"
    top = float(np.max(best))
    if not top == S:
        return "several_words_best", f"S {_number(S)}, largest set_S {_number(top)}"
    if not any(best[s] == S and list(sets[s * m:(s + 1) * m]) == list(chosen)
               for s in range(len(best))):
        return "several_words_best", (f"argmax_set {_list(chosen)} is no examined set whose "
                                      "set_S is S")
    return "", ""


def _gen(sets: dict, state: dict, context: dict, broken: _Broken) -> None:
    ids = sets["task_id"][:].astype(np.int64)
    rows = np.array([r for r, t in enumerate(ids.tolist()) if state.get(t, (False,))[0]],
                    dtype=np.int64)
    if rows.shape[0] == 0:
        return
    order = np.argsort(ids[rows], kind="stable")
    rows = rows[order]
    tasks = ids[rows]
    first = np.flatnonzero(np.concatenate(([True], tasks[1:] != tasks[:-1])))
    counts = np.diff(np.concatenate((first, [tasks.shape[0]])))
    task_of = tasks[first]
    keys = context["gen_keys"]
    if keys and "training" in sets and "objective" in sets:
        pairs = list(zip(sets["training"][:][rows].tolist(), sets["objective"][:][rows].tolist()))
        outside = np.array([p not in keys for p in pairs], dtype=bool)
        bad = (counts != len(keys)) | np.logical_or.reduceat(outside, first)
        broken.add_rows("/gen", "gen_rows", bad, task_of,
                        lambda i: f"{counts[i]} rows, {len(keys)} pairs of training and objective "
                                  "configured")
    def first_in_task(wrong, i):
        """The first row of task group i that `wrong` marks."""
        return int(first[i] + np.flatnonzero(wrong[first[i]:first[i] + counts[i]])[0])

    if "seconds" in sets:
        seconds = sets["seconds"][:][rows].astype(float)
        other = seconds != np.repeat(seconds[first], counts)
        broken.add_rows("/gen", "gen_seconds", np.logical_or.reduceat(other, first), task_of,
                        lambda i: f"seconds {_number(seconds[first[i]])} and "
                                  f"{_number(seconds[first_in_task(other, i)])}")
    length_name = "witness" + schema.RAGGED_LENGTH
    if length_name in sets:
        length = sets[length_name][:][rows].astype(np.int64)
        d = np.array([state[t][3] for t in tasks.tolist()], dtype=np.int64)
        wanted = d if context["save_witness"] else np.zeros_like(d)
        wrong = length != wanted
        broken.add_rows("/gen", "witness_length", np.logical_or.reduceat(wrong, first), task_of,
                        lambda i: (f"witness_length {length[first_in_task(wrong, i)]}, "
                                   f"{wanted[first_in_task(wrong, i)]} with save_witness "
                                   f"{int(context['save_witness'])}"))


def check_invariants(f: h5py.File, state: dict, problems, datasets) -> None:
    """Every record of a done task keeps the invariants of a record (schema.RECORD_INVARIANTS);
    `state`: damage.check_tasks's, `datasets(f, group)`: damage._datasets."""
    text = f.attrs.get("config_text", "")
    text = bytes(text).decode("utf-8", "replace") if isinstance(text, (bytes, np.bytes_)) else \
        str(text)
    try:
        save_witness = int(np.asarray(f.attrs.get("save_witness", 0)).ravel()[0]) != 0
    except (TypeError, ValueError, IndexError):
        save_witness = False
    context = {"save_witness": save_witness,
               "marginal": config_value(text, "rf-sampling") == "marginal",
               "upper_bound": config_value(text, "upper-bound") != "false",
               "gen_keys": gen_keys(text)}
    broken = _Broken()
    # A table without a column every format has is refused naming it (reader._require_record_columns).
    ws = datasets(f, schema.GROUP_WS)
    if all(c in ws for c in schema.WS_COLUMNS):
        _ws(ws, state, context, broken)
    gen = datasets(f, schema.GROUP_GEN)
    if all(c in gen for c in schema.GEN_COLUMNS):
        _gen(gen, state, context, broken)
    broken.report(problems)
