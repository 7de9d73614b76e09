"""A generator of tables where a claim is false, each with its true twin.

Every family draws its parameters (grid, trials, noise, levels, where and how the claim breaks)
from a numpy Generator and builds, in the reader's own layout (referee.py), one table where the
claim is false or its evidence defective, and its twin with the defect removed. The property
(test_false_tables.py): no false table gives the claim a verdict its family forbids (every
positive one; for two lower bounds also "contradicted"), and the true twins keep their verdict
at a reported rate (the rules' power).

A family is a function (rng) -> (false Case, true Case). Cases carry their parameters, so a
failing draw prints the table that broke the rules.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from referee import TRAINED, Study, catalogue

from wordsens_analysis import rules
from wordsens_analysis.claims import verdicts
from wordsens_analysis.rules import tolerances

POSITIVE = frozenset(rules.POSITIVE)
LB_PAIR_FORBIDDEN = POSITIVE | {rules.CONTRADICTED}


@dataclass
class Case:
    claim: str                      # the row whose verdict is judged
    study: Study | None = None
    params: dict = field(default_factory=dict)
    frames: tuple | None = None     # (ws, gen, tasks, multi_word) instead of a Study
    forbidden: frozenset = POSITIVE  # for a false case
    keeps: frozenset = frozenset()   # for a true case: the verdicts it should keep
    mask: str = "none"
    config_text: str | None = None
    fractions: tuple = ()
    mutate: object = None           # fn(ws, gen, tasks) -> (ws, gen, tasks): a defect

    def table(self) -> pd.DataFrame:
        if self.frames is not None:
            ws, gen, tasks, several = self.frames
        else:
            ws, gen, tasks = self.study.frames()
            several = None
        if self.mutate is not None:
            ws, gen, tasks = self.mutate(ws.copy(), gen.copy(), tasks.copy())
        return verdicts.judge_frames(ws, gen, None, several, self.fractions, tasks=tasks,
                                     mask=self.mask, config_text=self.config_text,
                                     catalogue=catalogue())

    def verdict(self, table: pd.DataFrame) -> tuple:
        rows = table[table["claim"] == self.claim]
        if len(rows) != 1:
            return "<missing row>", f"rows named {self.claim}: {len(rows)}"
        r = rows.iloc[0]
        return r["verdict"], r["reason"]

    def describe(self, table: pd.DataFrame | None = None) -> str:
        """The table that broke the rules: its parameters and the records of every model."""
        lines = [f"claim {self.claim}", f"params {self.params}"]
        ws, gen, tasks = (self.frames[:3] if self.frames is not None else self.study.frames())
        if self.mutate is not None:
            ws, gen, tasks = self.mutate(ws.copy(), gen.copy(), tasks.copy())
        with pd.option_context("display.width", 200, "display.max_rows", 400):
            for name, frame, value in (("ws", ws, "S"), ("gen", gen, "E")):
                if frame is not None and not frame.empty:
                    keys = [c for c in ("model", "d", "k", "heads", "n") if c in frame]
                    lines.append(f"{name} medians per point (of {frame['trial'].nunique()} "
                                 f"trials):\n" + frame.groupby(keys)[[value] + (
                                     ["S_upper"] if "S_upper" in frame else [])].median()
                                 .to_string())
            if table is not None:
                rows = table[table["claim"].str.startswith(self.claim.split("[")[0])]
                lines.append(rows[["claim", "verdict", "reason"]].to_string())
        return "\n".join(lines)


# --- drawing --------------------------------------------------------------------------------

def design(rng, lo=(4, 8, 16), doublings=(3, 4), points=(4, 5, 6)) -> list:
    """Values of n spanning at least three doublings, geometric, rounded, distinct."""
    while True:
        n0 = int(rng.choice(lo))
        top = n0 * 2 ** int(rng.choice(doublings))
        ns = sorted({int(round(v)) for v in np.geomspace(n0, top, int(rng.choice(points)))})
        if len(ns) >= 4:
            return ns


def trials(rng) -> int:
    return int(rng.choice([10, 12, 16, 20]))


def fraction_count(rng, m: int) -> int:
    """How many of m trials fail in a 'failing fraction' table: 20–50 % of them, always more
    than the fraction the quantifier tolerates."""
    frac = rng.uniform(0.2, 0.5)
    return max(int(np.floor(rules.TOLERATED * m)) + 1, int(round(frac * m)))


def failing_trials(rng, m: int) -> set:
    return set(rng.choice(m, size=fraction_count(rng, m), replace=False).tolist())


def end_start(ns) -> int:
    from wordsens_analysis.rules import shape
    return shape.end_of_design(ns)[0]


def rf_bound(level: float = 1.6):
    """A certified bound obeying Thm 1 at k = D: ∝ (1 + 1/√n)/√n."""
    return lambda n, t: level * n ** -0.5 * (1 + 1 / np.sqrt(n))


def _broken(law_good, law_bad, bad_trials):
    return lambda n, t: (law_bad if t in bad_trials else law_good)(n, t)


def _bent(ns, slope_before: float, slope_after: float, level: float, at: int):
    """level·n^slope_before up to `at`, then continued with slope_after."""
    def law(n, t):
        if n <= at:
            return level * n ** slope_before
        return level * at ** slope_before * (n / at) ** slope_after
    return law


# --- O(1/√n): Thms 1–2 ------------------------------------------------------------------------

def _o_study(rng, model, upper_law, lower_law=None, layers=1, extra=None, **kw):
    m = kw.pop("trials", None) or trials(rng)
    s = Study(trials=m, seed=int(rng.integers(1 << 30)), noise=float(rng.uniform(0.005, 0.03)))
    d, ns = kw.pop("d"), kw.pop("ns")
    lower = lower_law or (lambda n, t: 0.6 * upper_law(n, t))
    s.ws_group(model, d, ns, S=lower, upper=upper_law, layers=layers, **kw)
    if extra:
        extra(s)
    return s


def _o_params(rng):
    model = str(rng.choice(["rf", "drf"]))
    layers = 1 if model == "rf" else int(rng.choice([2, 4]))
    claim = "thm1_rf" if model == "rf" else "thm2_drf"
    return model, layers, claim, int(rng.choice([16, 32, 64])), design(rng)


def o_end_flat(rng):
    """The certified bound falls like n^−1/2, then stops falling over the end of the design."""
    model, L, claim, d, ns = _o_params(rng)
    at, s_end = end_start(ns), float(rng.uniform(-0.3, 0.1))
    bad = _bent(ns, -0.5, s_end, 1.6, at)
    p = dict(model=model, L=L, d=d, ns=ns, bend_at=at, slope_after=s_end)
    return (Case(claim, _o_study(rng, model, bad, layers=L, d=d, ns=ns), p),
            Case(claim, _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns), p,
                 keeps=frozenset({rules.CONFIRMED})))


def o_shallow(rng):
    """The certified bound falls, but slower than n^−1/2 (n^−0.42 … n^−0.2) everywhere."""
    model, L, claim, d, ns = _o_params(rng)
    s = float(rng.uniform(-0.42, -0.2))
    p = dict(model=model, L=L, d=d, ns=ns, slope=s)
    return (Case(claim, _o_study(rng, model, lambda n, t: 1.6 * n ** s, layers=L, d=d, ns=ns),
                 p),
            Case(claim, _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns), p,
                 keeps=frozenset({rules.CONFIRMED})))


def o_failing_fraction(rng):
    """20–50 % of the trials (weight draws) have a bound that does not fall like n^−1/2."""
    model, L, claim, d, ns = _o_params(rng)
    m = trials(rng)
    bad = failing_trials(rng, m)
    s_bad = float(rng.uniform(-0.3, 0.0))
    law = _broken(rf_bound(), lambda n, t: 1.6 * n ** s_bad, bad)
    p = dict(model=model, L=L, d=d, ns=ns, trials=m, failing=sorted(bad), slope_failing=s_bad)
    return (Case(claim, _o_study(rng, model, law, layers=L, d=d, ns=ns, trials=m), p),
            Case(claim, _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns, trials=m), p,
                 keeps=frozenset({rules.CONFIRMED})))


def o_lower_above_ceiling(rng):
    """A lower bound whose S·√n at the largest n lies above every constant the theorem admits
    (with or without a certified bound in the file)."""
    model, L, claim, d, ns = _o_params(rng)
    top = max(ns)
    ceiling = float(tolerances.level_ceiling(top, d, top * d, L))
    factor = float(rng.uniform(1.3, 3.0))
    with_upper = bool(rng.integers(2))
    high = lambda n, t: factor * ceiling / np.sqrt(n) * (n / top) ** 0.2  # noqa: E731
    p = dict(model=model, L=L, d=d, ns=ns, factor=factor, with_upper=with_upper)
    upper = (lambda n, t: 1.1 * high(n, t)) if with_upper else None
    m = trials(rng)
    s = Study(trials=m, seed=int(rng.integers(1 << 30)), noise=0.01)
    s.ws_group(model, d, ns, S=high, upper=upper, layers=L)
    twin = Study(trials=m, seed=int(rng.integers(1 << 30)), noise=0.01)
    twin.ws_group(model, d, ns, S=lambda n, t: 0.6 * rf_bound()(n, t),
                  upper=rf_bound() if with_upper else None, layers=L)
    keep = {rules.CONFIRMED} if with_upper else {rules.NOT_REFUTED_LB}
    return Case(claim, s, p), Case(claim, twin, p, keeps=frozenset(keep))


def _nan_bounds(rng, model):
    how = str(rng.choice(["nan", "inf", "zero"]))
    count = int(rng.integers(1, 4))

    def mutate(ws, gen, tasks):
        idx = ws.index[ws["model"] == model]
        pick = rng.choice(idx, size=min(count, len(idx)), replace=False)
        ws.loc[pick, "S_upper"] = {"nan": np.nan, "inf": np.inf, "zero": 0.0}[how]
        return ws, gen, tasks
    return mutate, dict(bad_bounds=how, count=count)


def o_defective_bounds(rng):
    """A table where the claim holds, but some records' certified bounds are NaN, infinite or
    zero: a shortfall, never 'no upper bound in this file'."""
    model, L, claim, d, ns = _o_params(rng)
    mutate, extra = _nan_bounds(np.random.default_rng(int(rng.integers(1 << 30))), model)
    p = dict(model=model, L=L, d=d, ns=ns, **extra)
    s = _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns)
    return (Case(claim, s, p, mutate=mutate),
            Case(claim, s, p, keeps=frozenset({rules.CONFIRMED})))


def _bracket(model, count=2):
    def mutate(ws, gen, tasks):
        idx = ws.index[ws["model"] == model][:count]
        ws.loc[idx, "S_upper"] = 0.9 * ws.loc[idx, "S"]
        return ws, gen, tasks
    return mutate


def o_bracket(rng):
    """A certified bound below S in a few records (the bracket fails): its integrity check fails,
    and the claim it would confirm stays open."""
    model, L, claim, d, ns = _o_params(rng)
    p = dict(model=model, L=L, d=d, ns=ns)
    s = _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns)
    return (Case(claim, s, p, mutate=_bracket(model)),
            Case(claim, s, p, keeps=frozenset({rules.CONFIRMED})))


def o_partial(rng):
    """A planned point (the largest n, or one trial anywhere) not done."""
    model, L, claim, d, ns = _o_params(rng)
    m = trials(rng)
    at_top = bool(rng.integers(2))
    kw = dict(shortfall=int(rng.integers(1, m))) if at_top else dict(
        missing=[(int(rng.choice(ns)), int(rng.integers(m)))])
    p = dict(model=model, L=L, d=d, ns=ns, trials=m, **kw)
    return (Case(claim, _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns, trials=m, **kw),
                 p),
            Case(claim, _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns, trials=m), p,
                 keeps=frozenset({rules.CONFIRMED})))


def o_two_point_group(rng):
    """A second group of the claim (another d) with two values of n only: it cannot be
    judged, so the claim stays open."""
    model, L, claim, d, ns = _o_params(rng)
    d2 = d * 2
    extra = lambda s: s.ws_group(model, d2, ns[-2:], S=lambda n, t: 0.6 * rf_bound()(n, t),  # noqa
                                 upper=rf_bound(), layers=L)
    p = dict(model=model, L=L, d=d, ns=ns, second_d=d2, second_ns=ns[-2:])
    return (Case(claim, _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns, extra=extra), p),
            Case(claim, _o_study(rng, model, rf_bound(), layers=L, d=d, ns=ns), p,
                 keeps=frozenset({rules.CONFIRMED})))


def o_lower_bound_only(rng):
    """Evidence of the wrong kind: a lower bound falling like n^−1/2, no certified bound: never
    confirmed (at most 'not refuted')."""
    model, L, claim, d, ns = _o_params(rng)
    m = trials(rng)
    s = Study(trials=m, seed=int(rng.integers(1 << 30)), noise=0.01)
    s.ws_group(model, d, ns, S=lambda n, t: 0.6 * rf_bound()(n, t), upper=None, layers=L)
    p = dict(model=model, L=L, d=d, ns=ns)
    return (Case(claim, s, p, forbidden=frozenset({rules.CONFIRMED, rules.SUPPORTED_RESTRICTED,
                                                   rules.SUPPORTED_SEARCH})),
            Case(claim, s, p, keeps=frozenset({rules.NOT_REFUTED_LB})))


def o_mixed_grid(rng):
    """A grid `k = K, 1D`: the fixed-width curve is false (its bound flat over the end), the
    k = D curve true, and the point where K = n·d is one task that belongs to both curves."""
    d = int(rng.choice([16, 32]))
    ns = design(rng, lo=(4, 8))
    shared = int(rng.choice(ns[1:-1]))
    K = shared * d
    m = trials(rng)
    s = Study(trials=m, seed=int(rng.integers(1 << 30)), noise=0.01)
    s.ws_group("rf", d, ns, S=lambda n, t: 0.6 * rf_bound()(n, t), upper=rf_bound())
    # The fixed-width curve passes through the shared task's value (one task, one value).
    s_false = float(rng.uniform(-0.3, 0.1))
    flat = lambda n, t: rf_bound()(shared, t) * (n / shared) ** s_false  # noqa: E731
    s.ws_group("rf", d, ns, S=lambda n, t: 0.6 * flat(n, t), upper=flat,
               k_of=lambda n, d: K, skip=(shared,))
    twin = Study(trials=m, seed=int(rng.integers(1 << 30)), noise=0.01)
    twin.ws_group("rf", d, ns, S=lambda n, t: 0.6 * rf_bound()(n, t), upper=rf_bound())
    decays = lambda n, t: rf_bound()(shared, t) * (n / shared) ** -0.6  # noqa: E731
    twin.ws_group("rf", d, ns, S=lambda n, t: 0.6 * decays(n, t), upper=decays,
                  k_of=lambda n, d: K, skip=(shared,))
    # With the configuration the grid is read from it; without (tables by hand), inferred.
    text = f"k = {K},1D\n" if rng.integers(2) else None
    p = dict(d=d, ns=ns, K=K, shared_n=shared, slope_fixed_width=s_false, config=text)
    return (Case("thm1_rf", s, p, config_text=text),
            Case("thm1_rf", twin, p, config_text=text, keeps=frozenset({rules.CONFIRMED})))


# --- Ω(1): Thm 3 and the models beyond the paper ----------------------------------------------

def _omega_params(rng, models=("raf", "raf", "mhraf")):
    """A model with an Ω(1) claim, drawn from `models`: raf and mhraf are judged against rf's
    bound too, a trained layer or its twin (TRAINED) by the lower bound's shape alone."""
    model = str(rng.choice(models))
    claim = "thm3_raf" if model == "raf" else f"ext_{model}"
    d = int(rng.choice([64, 128]))
    ns = [n for n in design(rng, lo=(4, 8)) if n <= d]
    return model, claim, d, ns, float(rng.uniform(2.0, 3.0))


def _omega_study(rng, model, d, ns, law, m=None, rf=True, rf_kw=None, extra=None):
    m = m or trials(rng)
    s = Study(trials=m, seed=int(rng.integers(1 << 30)), noise=float(rng.uniform(0.005, 0.03)))
    s.ws_group(model, d, ns, S=law)
    if rf:
        s.ws_group("rf", d, ns, S=lambda n, t: 0.6 * rf_bound()(n, t),
                   **(rf_kw if rf_kw is not None else dict(upper=rf_bound())))
    if extra:
        extra(s)
    return s


def _flat(level):
    return lambda n, t: level * n ** 0.0


def w_end_decay(rng, models=("raf", "raf", "mhraf")):
    """Flat, then decaying over the end of the design (or its last doubling only)."""
    model, claim, d, ns, level = _omega_params(rng, models)
    last_only = bool(rng.integers(2))
    at = max(n for n in ns if n <= max(ns) / 2) if last_only else end_start(ns)
    s_end = float(rng.uniform(-0.6, -0.3) if last_only else rng.uniform(-0.6, -0.2))
    p = dict(model=model, d=d, ns=ns, decay_from=at, slope=s_end)
    return (Case(claim, _omega_study(rng, model, d, ns, _bent(ns, 0.0, s_end, level, at)), p),
            Case(claim, _omega_study(rng, model, d, ns, _flat(level)), p,
                 keeps=frozenset({rules.CONFIRMED})))


def w_global_decay(rng, models=("raf", "raf", "mhraf")):
    model, claim, d, ns, level = _omega_params(rng, models)
    s = float(rng.uniform(-0.3, -0.13))
    p = dict(model=model, d=d, ns=ns, slope=s)
    return (Case(claim, _omega_study(rng, model, d, ns, lambda n, t: level * n ** s), p),
            Case(claim, _omega_study(rng, model, d, ns, _flat(level)), p,
                 keeps=frozenset({rules.CONFIRMED})))


def w_failing_fraction(rng, models=("raf", "raf", "mhraf")):
    """20–50 % of the trials decay like n^−0.3 (their weights keep no word)."""
    model, claim, d, ns, level = _omega_params(rng, models)
    m = trials(rng)
    bad = failing_trials(rng, m)
    law = _broken(_flat(level), lambda n, t: level * (n / ns[0]) ** -0.3, bad)
    p = dict(model=model, d=d, ns=ns, trials=m, failing=sorted(bad))
    return (Case(claim, _omega_study(rng, model, d, ns, law, m=m), p),
            Case(claim, _omega_study(rng, model, d, ns, _flat(level), m=m), p,
                 keeps=frozenset({rules.CONFIRMED})))


def w_crossing(rng):
    """Flat, but below rf's certified bound at the regime's smallest n (in every trial, or in a
    failing fraction of them)."""
    model, claim, d, ns, level = _omega_params(rng)
    m = trials(rng)
    low = float(rng.uniform(0.6, 0.9)) * rf_bound()(ns[0], 0)
    every = bool(rng.integers(2))
    bad = set(range(m)) if every else failing_trials(rng, m)
    law = _broken(_flat(level), _flat(low), bad)
    p = dict(model=model, d=d, ns=ns, trials=m, level_failing=low, failing=sorted(bad))
    return (Case(claim, _omega_study(rng, model, d, ns, law, m=m), p),
            Case(claim, _omega_study(rng, model, d, ns, _flat(level), m=m), p,
                 keeps=frozenset({rules.CONFIRMED})))


def w_partner_defects(rng):
    """rf's certified bound on the same texts is short of trials at a point, NaN in some
    records, absent (a lower bound only), or fails its bracket."""
    model, claim, d, ns, level = _omega_params(rng)
    m = trials(rng)
    kind = str(rng.choice(["short", "nan", "lower only", "bracket"]))
    rf_kw, mutate = dict(upper=rf_bound()), None
    if kind == "short":
        rf_kw["missing"] = [(int(rng.choice(ns)), t) for t in range(int(rng.integers(1, 4)))]
    elif kind == "lower only":
        rf_kw = dict(upper=None)
    elif kind == "nan":
        mutate, _ = _nan_bounds(np.random.default_rng(int(rng.integers(1 << 30))), "rf")
    else:
        mutate = _bracket("rf")
    p = dict(model=model, d=d, ns=ns, trials=m, partner_defect=kind)
    return (Case(claim, _omega_study(rng, model, d, ns, _flat(level), m=m, rf_kw=rf_kw), p,
                 mutate=mutate),
            Case(claim, _omega_study(rng, model, d, ns, _flat(level), m=m), p,
                 keeps=frozenset({rules.CONFIRMED})))


def w_own_defects(rng, models=("raf", "raf", "mhraf")):
    """The model's own records: a planned point not done, a second d with two values of n in
    the regime, or certificates that fail."""
    model, claim, d, ns, level = _omega_params(rng, models)
    m = trials(rng)
    kind = str(rng.choice(["partial", "two points", "certificate"]))
    mutate, extra, kw = None, None, {}
    if kind == "partial":
        short = [(int(rng.choice(ns)), int(rng.integers(m)))]

        def extra(s):  # the model's point at that (n, trial) planned, not done
            s.ws_group(model, d * 4, ns, S=_flat(level), missing=[(n, t) for n in ns
                                                                  for t in range(m)])
        kw = dict(short=short)
    elif kind == "two points":
        d2 = int(ns[1])  # n ≤ d2 for the two smallest values of n only

        def extra(s):
            s.ws_group(model, d2, ns, S=_flat(level))
            s.ws_group("rf", d2, ns, S=lambda n, t: 0.6 * rf_bound()(n, t), upper=rf_bound())
        kw = dict(second_d=d2)
    else:
        def mutate(ws, gen, tasks):
            ws["cert_rel_err"] = 1e-13
            idx = ws.index[ws["model"] == model][:2]
            ws.loc[idx, "cert_rel_err"] = 1e-3
            return ws, gen, tasks
    p = dict(model=model, d=d, ns=ns, trials=m, defect=kind, **kw)
    return (Case(claim, _omega_study(rng, model, d, ns, _flat(level), m=m, extra=extra), p,
                 mutate=mutate),
            Case(claim, _omega_study(rng, model, d, ns, _flat(level), m=m), p,
                 keeps=frozenset({rules.CONFIRMED})))


def w_trained(rng):
    """A trained layer or its twin (no certified bound reaches them): a decay at the end or over
    the design, a failing fraction of trials, or its own defects."""
    family = (w_end_decay, w_global_decay, w_failing_fraction, w_own_defects)[rng.integers(4)]
    return family(rng, TRAINED)


# --- orders between two lower bounds ----------------------------------------------------------

# Claim, the model claimed higher, the model claimed lower.
TRAINED_PAIRS = (("ext_trained_attn_over_twin_attn", "trained_attn", "twin_attn"),
                 ("ext_trained_attn_over_raf", "trained_attn", "raf"),
                 ("ext_trained_layer_over_twin_layer", "trained_layer", "twin_layer"),
                 ("ext_trained_layer_under_trained_attn", "trained_attn", "trained_layer"))


def _pair_models(rng, kinds=("softmax", "softmax", "residual")):
    kind = str(rng.choice(kinds))
    if kind == "softmax":
        return "softmax_raf_relu", "raf", "raf_relu"  # claim, higher, lower
    if kind == "trained":
        return TRAINED_PAIRS[int(rng.integers(len(TRAINED_PAIRS)))]
    return "ext_residual", "mhraf", "block"


def _pair_study(rng, hi_model, lo_model, d, ns, hi_law, lo_law, m):
    s = Study(trials=m, seed=int(rng.integers(1 << 30)), noise=float(rng.uniform(0.005, 0.03)))
    s.ws_group(hi_model, d, ns, S=hi_law).ws_group(lo_model, d, ns, S=lo_law)
    return s


def p_crossing(rng, kinds=("softmax", "softmax", "residual")):
    """The lower model keeps less of a word on average over n, but more at one end of the
    regime (its largest or smallest n) in every trial, or at every n in a failing fraction of
    the trials."""
    claim, hi, lo = _pair_models(rng, kinds)
    d = int(rng.choice([32, 64, 128]))
    ns = [n for n in design(rng, lo=(4, 8)) if n <= d]
    m = trials(rng)
    top = float(rng.uniform(1.8, 3.0))
    way = str(rng.choice(["largest n", "smallest n", "fraction"]))
    over = float(rng.uniform(1.3, 1.5))
    below = float(rng.uniform(0.3, 0.6))
    if way == "fraction":
        bad = failing_trials(rng, m)
        lo_law = _broken(_flat(below * top), _flat(over * top), bad)
    else:
        at = max(ns) if way == "largest n" else min(ns)
        lo_law = lambda n, t: (over if n == at else below) * top  # noqa: E731
    p = dict(claim=claim, d=d, ns=ns, trials=m, crossing=way, over=over, below=below)
    false = _pair_study(rng, hi, lo, d, ns, _flat(top), lo_law, m)
    twin = _pair_study(rng, hi, lo, d, ns, _flat(top), _flat(below * top), m)
    return (Case(claim, false, p, forbidden=LB_PAIR_FORBIDDEN),
            Case(claim, twin, p, keeps=frozenset({rules.NOT_REFUTED_LB})))


def p_trained(rng):
    """A trained layer against its twin, raf or its attention alone: crossing at one end of the
    regime, or in a failing fraction of the trials."""
    return p_crossing(rng, ("trained",))


def p_causal(rng):
    """Under the causal mask: the last word counts as much as the first at the largest n."""
    model = str(rng.choice(["raf", "block"]))
    d = 64
    ns = [n for n in design(rng, lo=(4, 8)) if n <= d]
    m = trials(rng)
    over = float(rng.uniform(1.2, 1.5))
    s = Study(trials=m, seed=int(rng.integers(1 << 30)))
    s.ws_positions(model, d, ns, first=(2.0, 0.0),
                   last=lambda n, t: (over * 2.0 if n == max(ns) else 0.8))
    twin = Study(trials=m, seed=int(rng.integers(1 << 30)))
    twin.ws_positions(model, d, ns, first=(2.0, 0.0), last=(0.8, 0.0))
    claim = f"ext_causal_{model}"
    p = dict(model=model, ns=ns, trials=m, last_over_first_at_largest_n=over)
    return (Case(claim, s, p, forbidden=LB_PAIR_FORBIDDEN, mask="causal"),
            Case(claim, twin, p, mask="causal", keeps=frozenset({rules.NOT_REFUTED_LB})))


def p_heads(rng):
    """More heads keep less of a word at every n but the largest, where they keep more."""
    model = str(rng.choice(["mhraf", "block"]))
    d = 64
    ns = [n for n in design(rng, lo=(4, 8)) if n <= d]
    m = trials(rng)
    levels = {1: 3.6, 2: 3.0, 4: 2.5}
    s = Study(trials=m, seed=int(rng.integers(1 << 30)))
    twin = Study(trials=m, seed=int(rng.integers(1 << 30)))
    for H, level in levels.items():
        rises = 6.0 - level  # at the largest n: 2.4, 3.0, 3.5
        s.ws_group(model, d, ns, S=lambda n, t, a=level, b=rises: b if n == max(ns) else a,
                   heads=H)
        twin.ws_group(model, d, ns, S=_flat(level), heads=H)
    claim = f"ext_heads_{model}"
    p = dict(model=model, ns=ns, trials=m)
    return (Case(claim, s, p, forbidden=LB_PAIR_FORBIDDEN),
            Case(claim, twin, p, keeps=frozenset({rules.NOT_REFUTED_LB})))


# --- the trained heads ------------------------------------------------------------------------

def _gen_study(rng, model, d, ns, E, m, N=20, missing=()):
    s = Study(trials=m, seed=int(rng.integers(1 << 30)))
    s.gen_group(model, d, ns, E, N=N, k_of=lambda n, d: n * d, missing=missing)
    return s


def h_rf(rng):
    """rf's head made right by a Δ found (E below 0.25) at some n of the end, in every trial or
    in a failing fraction of them; or E below 1 at the smallest n of the end."""
    d = int(rng.choice([32, 64]))
    ns = design(rng, lo=(8, 16), doublings=(1, 2, 3), points=(3, 4, 5))
    m = trials(rng)
    way = str(rng.choice(["fooled at one n", "fooled fraction", "below 1 at the start"]))
    good = lambda n: 4 - 2.5 * np.sqrt(min(ns) / n)  # noqa: E731  (1.5 at the smallest n)
    end = sorted(ns)[-1]
    if way == "fooled at one n":
        at = int(rng.choice(ns[ns.index(end_start(ns)):]))
        E = lambda n, t: 0.05 if n == at else good(n)  # noqa: E731
    elif way == "fooled fraction":
        bad = failing_trials(rng, m)
        E = lambda n, t: 0.05 if t in bad and n == end else good(n)  # noqa: E731
    else:
        E = lambda n, t: float(rng.uniform(0.4, 0.9)) if n == end_start(ns) else good(n)  # noqa
    p = dict(d=d, ns=ns, trials=m, way=way)
    return (Case("thm45_rf[finetune]", _gen_study(rng, "rf", d, ns, E, m), p),
            Case("thm45_rf[finetune]", _gen_study(rng, "rf", d, ns, lambda n: good(n), m), p,
                 keeps=frozenset({rules.SUPPORTED_SEARCH})))


def h_raf(rng):
    """raf's head not made right (E far from 0) at one n of the regime, in every trial or in a
    failing fraction."""
    d = int(rng.choice([64, 128]))
    ns = [n for n in design(rng, lo=(4, 8), doublings=(2, 3), points=(3, 4)) if n <= d]
    m = trials(rng)
    at = int(rng.choice(ns))
    every = bool(rng.integers(2))
    bad = set(range(m)) if every else failing_trials(rng, m)
    high = float(rng.uniform(0.5, 2.0))
    E = lambda n, t: high if (n == at and t in bad) else 0.01  # noqa: E731
    p = dict(d=d, ns=ns, trials=m, at=at, E_there=high, failing=sorted(bad))
    return (Case("raf_gen[finetune]", _gen_study(rng, "raf", d, ns, E, m), p),
            Case("raf_gen[finetune]", _gen_study(rng, "raf", d, ns, lambda n: 0.01, m), p,
                 keeps=frozenset({rules.CONFIRMED})))


def h_defects(rng):
    """A head that does not fit its sample (t1 ≠ y) or was fitted to the wrong label, or a
    planned point not done."""
    model = str(rng.choice(["rf", "raf"]))
    d = 64
    ns = [16, 32, 64] if model == "rf" else [8, 16, 32]
    m = trials(rng)
    kind = str(rng.choice(["t1", "label", "partial"]))
    E = (lambda n: 4 - 2.5 * np.sqrt(16 / n)) if model == "rf" else (lambda n: 0.01)
    missing, mutate = (), None
    if kind == "partial":
        missing = [(max(ns), int(rng.integers(m)))]
    else:
        def mutate(ws, gen, tasks):
            idx = gen.index[::3]
            gen.loc[idx, "t1"] = 0.5 if kind == "t1" else -1.0
            return ws, gen, tasks
    claim = "thm45_rf[finetune]" if model == "rf" else "raf_gen[finetune]"
    keep = rules.SUPPORTED_SEARCH if model == "rf" else rules.CONFIRMED
    p = dict(model=model, ns=ns, trials=m, defect=kind)
    return (Case(claim, _gen_study(rng, model, d, ns, E, m, missing=missing), p, mutate=mutate),
            Case(claim, _gen_study(rng, model, d, ns, E, m), p, keeps=frozenset({keep})))


def h_limit(rng):
    """'E tends to 4' where E levels off at L ≠ 4 (2–3 or 5–6): the limit row must not claim it."""
    d = 64
    ns = [8, 16, 32, 64, 128]
    m = trials(rng)
    L = float(rng.choice([rng.uniform(2.0, 3.0), rng.uniform(5.0, 6.0)]))
    E = lambda n: L - (L - 1.3) * np.sqrt(8 / n)  # noqa: E731
    p = dict(limit=L, trials=m)
    claim = "limit[rf,finetune,d=64,N=20,k=1D]"
    return (Case(claim, _gen_study(rng, "rf", d, ns, E, m), p),
            Case(claim, _gen_study(rng, "rf", d, ns, lambda n: 4 - 2.7 * np.sqrt(8 / n), m), p,
                 keeps=frozenset({rules.SUPPORTED_SEARCH})))


# --- several words ----------------------------------------------------------------------------

def _mw_frames(rng, m_trials, law, upper_law, ns, d=8, words=(1, 2, 4, 8), fraction=None):
    """(ws, gen, tasks, multi_word) of rf with S_m = law(n, m, t)·noise and its bound."""
    rows, tasks = [], []
    for t in range(m_trials):
        effect = rng.normal(0, 0.02)
        for n in ns:
            ms = sorted(set(words) | ({_ceil_fraction(fraction, n)} if fraction else set()))
            for m in ms:
                tid = len(tasks)
                s = law(n, m, t) * np.exp(effect + rng.normal(0, 0.02))
                u = upper_law(n, m, t) * np.exp(effect) if upper_law else np.nan
                row = dict(task_id=tid, model="rf", n=n, d=d, k=n * d, layers=1, heads=1, N=0,
                           words=m, trial=t, S=s, S_upper=max(u, 1.01 * s) if upper_law
                           else np.nan)
                rows.append(row)
                tasks.append(dict(task_id=tid, experiment="ws", model="rf", n=n, d=d, k=n * d,
                                  N=0, layers=1, heads=1, words=m, trial=t, done=True))
    df = pd.DataFrame(rows)
    return (df[df["words"] == 1].reset_index(drop=True), pd.DataFrame(), pd.DataFrame(tasks),
            df[df["words"] > 1].reset_index(drop=True))


def _ceil_fraction(f, n):
    from wordsens_analysis.claims import multi_word_claims as multi_word
    return multi_word.words_at_fraction(f, n)


def _law(n, m, d=8):
    r = m / n
    return np.sqrt(r) * (1 + np.sqrt(m * d / (n * d)))


def mw_sqrt(rng):
    """S_m against m at fixed n grows like m^0.15 or m^0.9 instead of √m (over the end of the
    m design), or does so in a failing fraction of the trials."""
    m = trials(rng)
    ns = [64, 128]
    slope = float(rng.choice([rng.uniform(0.0, 0.2), rng.uniform(0.85, 1.0)]))
    fraction = bool(rng.integers(2))
    bad = failing_trials(rng, m) if fraction else set(range(m))

    def law(n, mm, t):
        if t in bad:
            return 0.7 * _law(n, 1) * mm ** slope
        return 0.7 * _law(n, mm)
    good = lambda n, mm, t: 0.7 * _law(n, mm)  # noqa: E731
    p = dict(trials=m, slope_in_m=slope, failing=sorted(bad))
    return (Case("mw_rf_sqrt_m", frames=_mw_frames(rng, m, law, lambda *a: 1.4 * law(*a), ns),
                 params=p),
            Case("mw_rf_sqrt_m", frames=_mw_frames(rng, m, good, lambda *a: 1.4 * good(*a), ns),
                 params=p, keeps=frozenset({rules.SUPPORTED_RESTRICTED})))


def mw_fraction(rng):
    """At m = ⌈f·n⌉ (m/n moved by the rounding), S_m divided by the law decays or grows in n;
    the twin follows the law exactly, rounding included, and must keep its verdict."""
    m = trials(rng)
    f = float(rng.choice([0.125, 0.2, 0.3]))
    ns = sorted({int(v) for v in rng.choice([12, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96],
                                            size=5, replace=False)})
    slope = float(rng.choice([rng.uniform(-0.5, -0.2), rng.uniform(0.2, 0.5)]))
    bad = lambda n, mm, t: 0.7 * _law(n, mm) * (n / ns[0]) ** slope  # noqa: E731
    good = lambda n, mm, t: 0.7 * _law(n, mm)  # noqa: E731
    p = dict(trials=m, f=f, ns=ns, slope_over_law=slope)
    kw = dict(ns=ns, words=(1,), fraction=f)
    return (Case("mw_rf_fraction", frames=_mw_frames(rng, m, bad, lambda *a: 1.4 * bad(*a),
                                                     **kw), params=p, fractions=(f,)),
            Case("mw_rf_fraction", frames=_mw_frames(rng, m, good, lambda *a: 1.4 * good(*a),
                                                     **kw), params=p, fractions=(f,),
                 keeps=frozenset({rules.SUPPORTED_RESTRICTED})))


FAMILIES = {
    "O(1/√n): bound flat at the end": o_end_flat,
    "O(1/√n): bound shallower than n^−1/2": o_shallow,
    "O(1/√n): failing fraction of trials": o_failing_fraction,
    "O(1/√n): lower bound above the ceiling": o_lower_above_ceiling,
    "O(1/√n): NaN/inf/zero bounds": o_defective_bounds,
    "O(1/√n): bracket fails": o_bracket,
    "O(1/√n): partial grid": o_partial,
    "O(1/√n): a group with two n": o_two_point_group,
    "O(1/√n): lower bound only": o_lower_bound_only,
    "O(1/√n): mixed k grid": o_mixed_grid,
    "Ω(1): decay at the end": w_end_decay,
    "Ω(1): decay over the design": w_global_decay,
    "Ω(1): failing fraction of trials": w_failing_fraction,
    "Ω(1): below rf's bound at the regime's edge": w_crossing,
    "Ω(1): partner defects": w_partner_defects,
    "Ω(1): own defects": w_own_defects,
    "Ω(1) of a trained layer: decay, failing trials, defects": w_trained,
    "order of lower bounds: crossing": p_crossing,
    "order of lower bounds: trained layers": p_trained,
    "order of lower bounds: causal": p_causal,
    "order of lower bounds: heads": p_heads,
    "rf head: made right": h_rf,
    "raf head: not made right": h_raf,
    "heads: defects": h_defects,
    "E tends to 4: another limit": h_limit,
    "several words: not √m": mw_sqrt,
    "several words: fraction not flat": mw_fraction,
}
