"""Results tables a referee would build to try the rules: record and task tables in the reader's
own layout (what read_results returns), with the truth of every group set by hand.

ws_study: per group a law S = level·n^slope (and S_upper likewise, or none), log-normal trial
noise shared by every n of a trial (the same texts) plus point noise; heads: E(n) per group.
"""
import inspect

import numpy as np
import pandas as pd


class Study:
    """Accumulates tasks and records; `done=False` tasks are planned but not run."""

    def __init__(self, trials=12, seed=0, noise=0.03):
        self.trials, self.noise = trials, noise
        self.rng = np.random.default_rng(seed)
        self.tasks, self.ws, self.gen = [], [], []
        self.trial_effect = self.rng.normal(0, noise, size=trials)

    def _task(self, experiment, model, n, d, k, N, layers, trial, done, words=1, heads=1):
        tid = len(self.tasks)
        self.tasks.append(dict(task_id=tid, experiment=experiment, model=model, n=n, d=d, k=k,
                               N=N, layers=layers, heads=heads, words=words, trial=trial,
                               done=done))
        return tid

    def ws_group(self, model, d, ns, S, upper=None, layers=1, k_of=None, scope="all",
                 missing=(), shortfall=None, heads=1, width=None, skip=()):
        """S, upper: (level, slope) or a function of (n, trial) -> value. missing: (n, trial)
        pairs planned but not done; shortfall: trials done only at the largest n; heads: H of a
        multi-head model's group; width: the k of a model with an MLP (block's width); skip: n
        whose task another group holds (two grid items giving the same width: one task)."""
        wide = model in ("rf", "drf") or width is not None
        k_of = (lambda n, d: width) if width is not None else k_of or (lambda n, d: n * d)
        for n in ns:
            if n in skip:
                continue
            for t in range(self.trials):
                done = (n, t) not in missing and not (
                    shortfall is not None and n == max(ns) and t >= shortfall)
                tid = self._task("ws", model, n, d, k_of(n, d) if wide else 0, 0, layers, t, done,
                                 heads=heads)
                if not done:
                    continue
                s = _value(S, n, t) * np.exp(self.trial_effect[t]
                                             + self.rng.normal(0, self.noise))
                su = np.nan
                if upper is not None:
                    su = max(_value(upper, n, t) * np.exp(self.trial_effect[t]), 1.01 * s)
                self.ws.append(dict(task_id=tid, model=model, n=n, d=d, k=k_of(n, d) if wide
                                    else 0, layers=layers, heads=heads, N=0, words=1, trial=t,
                                    S=s,
                                    S_upper=su, S_upper_scope=scope if upper is not None
                                    else "none"))
        return self

    def ws_positions(self, model, d, ns, first, last):
        """An attention model examined at every word (positions = all): the best S found at
        word 0 follows `first`, at word n − 1 `last` ((level, slope) or functions of (n, trial)),
        the words between half the smaller of the two (so only the ends decide a comparison of
        them); S is their maximum."""
        for n in ns:
            for t in range(self.trials):
                tid = self._task("ws", model, n, d, 0, 0, 1, t, True)
                shared = np.exp(self.trial_effect[t])
                a = _value(first, n, t) * shared * np.exp(self.rng.normal(0, self.noise))
                b = _value(last, n, t) * shared * np.exp(self.rng.normal(0, self.noise))
                per = np.full(n, 0.5 * min(a, b))
                per[0], per[-1] = a, b
                self.ws.append(dict(task_id=tid, model=model, n=n, d=d, k=0, layers=1, N=0,
                                    words=1, trial=t, S=float(per.max()), S_upper=np.nan,
                                    S_upper_scope="none", examined=np.arange(n),
                                    position_S=per))
        return self

    def gen_group(self, model, d, ns, E, N=20, k_of=None, trainings=("finetune",), noise=0.05,
                  missing=()):
        """E: a function of n (or of n and the trial) -> the true E (point noise added), for
        every training mode; missing: (n, trial) pairs planned but not done."""
        k_of = k_of or (lambda n, d: n * d)
        two = len(inspect.signature(E).parameters) >= 2
        for n in ns:
            for t in range(self.trials):
                k = k_of(n, d) if model in ("rf", "drf") else 0
                done = (n, t) not in missing
                tid = self._task("gen", model, n, d, k, N, 1, t, done)
                if not done:
                    continue
                for training in trainings:
                    e = max((E(n, t) if two else E(n)) + self.rng.normal(0, noise), 0.0)
                    D1 = np.sqrt(e) - 1.0  # y = 1: E = (D1 + 1)²
                    self.gen.append(dict(task_id=tid, model=model, n=n, d=d, k=k, N=N,
                                         layers=1, words=1, trial=t, training=training,
                                         objective="loss", E=(D1 + 1.0) ** 2, t1=1.0, D1=D1,
                                         cond_K=10.0))
        return self

    def frames(self):
        return (pd.DataFrame(self.ws), pd.DataFrame(self.gen), pd.DataFrame(self.tasks))


def _value(law, n, t):
    if callable(law):
        return law(n, t)
    level, slope = law
    return level * n ** slope


# The models beyond the paper that tables here use, beside the pre-1.7 catalogue's: known to the
# analysis as a file's /models would make them known (as attention, one head, no width k).
BEYOND = ("raf_v", "mhraf", "block")
TRAINED = ("trained_attn", "twin_attn", "trained_layer", "twin_layer")


def catalogue():
    """The catalogue the tables here are judged with."""
    from wordsens_analysis.reading import Catalogue, ModelTraits
    return Catalogue.before_1_7().with_models(
        [ModelTraits(m, True, False, False, 32) for m in BEYOND + TRAINED], "test")


def judge(study: Study, settings=None, mask="none", config_text=None):
    from wordsens_analysis.claims import verdicts
    from wordsens_analysis.rules import tolerances

    ws, gen, tasks = study.frames()
    return verdicts.judge_frames(ws, gen, tasks=tasks,
                                 settings=settings or tolerances.RULES, mask=mask,
                                 config_text=config_text, catalogue=catalogue())


def row(table, claim):
    rows = table[table["claim"] == claim]
    assert len(rows) == 1, (claim, list(table["claim"]))
    return rows.iloc[0]


def file_tables(ws: pd.DataFrame, tasks: pd.DataFrame):
    """Record and task tables as the writer stores them (codes, fixed strings)."""
    t = {c: tasks[c].to_numpy() for c in ("task_id", "n", "d", "k", "N", "layers", "trial")}
    t["point_id"] = tasks["task_id"].to_numpy()
    t["experiment"] = np.where(tasks["experiment"] == "ws", 0, 1).astype(np.uint8)
    t["model"] = tasks["model"].to_numpy().astype("S16")
    t["done"] = tasks["done"].to_numpy().astype(np.uint8)
    w = {"task_id": ws["task_id"].to_numpy(), "S": ws["S"].to_numpy(),
         "S_upper": ws["S_upper"].to_numpy(),
         "S_upper_scope": ws["S_upper_scope"].map({"none": 0, "all": 1, "examined": 2})
         .to_numpy().astype(np.uint8)}
    zeros = np.zeros(len(ws))
    for c in ("argmax_position", "evaluations", "witness_offset", "witness_length"):
        w[c] = zeros.astype(int)
    w["phi_norm"], w["seconds"] = zeros + 1, zeros
    return t, w, None
