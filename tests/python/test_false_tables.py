"""A referee that draws tables where a claim is false (false_tables.py): no drawn false table may
give its claim a verdict its family forbids, and the true twins keep their verdict at a rate
printed here (the rules keep their power).

Each family runs DRAWS draws at a fixed seed and DRAWS more at a random seed, printed (rerun a
failure with WORDSENS_REFEREE_SEED=<seed>); a failing draw prints the table that broke the rules.
WORDSENS_REFEREE_DRAWS raises the number of draws (a slow, thorough run). `-s` prints the counts.
"""
import os

import numpy as np
import pytest
from false_tables import FAMILIES

FIXED_SEED = 20261205
DRAWS = int(os.environ.get("WORDSENS_REFEREE_DRAWS", "4"))
RANDOM_SEED = int(os.environ.get("WORDSENS_REFEREE_SEED",
                                 str(np.random.SeedSequence().entropy % (1 << 31))))
# The share of true twins a family must keep: the rules' power at these sizes (printed).
MIN_KEPT = 0.6
COUNTS: dict = {}


def _draws(family: str):
    for seed in (FIXED_SEED, RANDOM_SEED):
        base = np.random.SeedSequence([seed, sum(map(ord, family))])
        for i, child in enumerate(base.spawn(DRAWS)):
            yield seed, i, np.random.default_rng(child)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_no_false_table_passes_and_the_true_twins_keep_their_verdict(family):
    print(f"\nreferee seeds: fixed {FIXED_SEED}, random {RANDOM_SEED}")
    tried = passed = kept = twins = 0
    lost = []
    for seed, i, rng in _draws(family):
        false, true = FAMILIES[family](rng)
        table = false.table()
        verdict, reason = false.verdict(table)
        tried += 1
        if verdict in false.forbidden or verdict == "<missing row>":
            passed += 1
            pytest.fail(f"family '{family}', seed {seed}, draw {i}: the false table gives "
                        f"{false.claim} '{verdict}' ({reason})\n{false.describe(table)}")
        twin_table = true.table()
        twin_verdict, twin_reason = true.verdict(twin_table)
        twins += 1
        if twin_verdict in true.keeps:
            kept += 1
        else:
            lost.append(f"seed {seed} draw {i}: {twin_verdict} ({twin_reason[:300]})")
    COUNTS[family] = (tried, passed, kept, twins)
    print(f"{family}: {tried} false tables tried, {passed} passed; true twins kept "
          f"{kept} of {twins}")
    assert kept >= MIN_KEPT * twins, (f"family '{family}': the true twins kept their verdict "
                                      f"in {kept} of {twins} draws only:\n" + "\n".join(lost))


def test_the_counts_add_up():
    """Printed once all families ran (-s): the totals a CI log shows."""
    if not COUNTS:
        pytest.skip("run with the families")
    tried = sum(c[0] for c in COUNTS.values())
    kept = sum(c[2] for c in COUNTS.values())
    twins = sum(c[3] for c in COUNTS.values())
    print(f"\nreferee: {tried} false tables in {len(COUNTS)} families, none passing; true twins "
          f"kept {kept} of {twins} ({kept / max(1, twins):.0%}); seeds {FIXED_SEED} and "
          f"{RANDOM_SEED}")
    assert all(c[1] == 0 for c in COUNTS.values())


# --- the sequential rules on files: their order, and replicates -------------------------------

def _study_files(tmp_path, rng, name: str, seed: int, trials: range, first_batch: int,
                 extension: bool = False):
    """One results file of a study (raf and rf at d = 64, both claims true, max-trials = 20)
    holding `trials` of texts seed `seed`: a first batch (first-trial 0, trials = first_batch) or
    an extension (first-trial = trials' start)."""
    from conftest import write_results
    from referee import Study, file_tables

    ns = (8, 16, 32, 64)
    s = Study(trials=max(trials) + 1, seed=int(rng.integers(1 << 30)), noise=0.01)
    s.ws_group("raf", 64, ns, S=(2.5, 0.0))
    s.ws_group("rf", 64, ns, S=lambda n, t: 0.6 * 1.6 * n ** -0.5 * (1 + n ** -0.5),
               upper=lambda n, t: 1.6 * n ** -0.5 * (1 + n ** -0.5))
    ws, _, tasks = s.frames()
    ws = ws[ws["trial"].isin(trials)].reset_index(drop=True)
    tasks = tasks[tasks["trial"].isin(trials)].reset_index(drop=True)
    text = ("experiments = ws\nmodels = rf,raf\nn = 8,16,32,64\nd = 64\nk = 1D\n"
            f"max-trials = 20\nseed = {seed}\ntrials = {first_batch if not extension else len(trials)}\n"
            + (f"first-trial = {min(trials)}\n" if extension else ""))
    return write_results(tmp_path / f"{name}.h5", *file_tables(ws, tasks)[:2],
                         config_text=text, master_seed=seed)


def _judged(paths):
    import itertools

    from wordsens_analysis import read_results
    from wordsens_analysis.claims import verdicts
    from wordsens_analysis.reading import build_studies
    from wordsens_analysis import rules as r

    out = []
    for order in itertools.permutations(paths):
        studies, _, _ = build_studies([read_results(p) for p in order])
        t = verdicts.judge_studies(studies)
        t = t[t["kind"] == r.PRIMARY].set_index("claim")
        out.append({c: (v["verdict"], f"{v['p_confirm_holm']:.6g}", v["trials"])
                    for c, v in t[["verdict", "p_confirm_holm", "trials"]].to_dict("index").items()})
    return out


def test_file_order_and_replicates(tmp_path):
    """The plan of looks is the study's, not the first file's: every order of the same files
    gives the same verdicts; files planning different first batches decide nothing; replicates
    pooled off the schedule (30 trials of looks at 10 and 20) give no positive verdict, pooled
    onto it (a replicate making 20) they do."""
    from wordsens_analysis import rules as r

    rng = np.random.default_rng(RANDOM_SEED)
    first = _study_files(tmp_path, rng, "first", 1, range(0, 10), 10)
    more = _study_files(tmp_path, rng, "more", 1, range(10, 20), 10, extension=True)
    replicate = _study_files(tmp_path, rng, "replicate", 2, range(0, 10), 10)
    other_plan = _study_files(tmp_path, rng, "other_plan", 3, range(0, 20), 20)
    extended = _judged([first, more])
    assert all(e == extended[0] for e in extended)
    assert extended[0]["thm3_raf"][0] == r.CONFIRMED, extended[0]
    mixed = _judged([first, more, other_plan])
    assert all(e == mixed[0] for e in mixed)
    assert all(v[0] == r.INCONCLUSIVE for v in mixed[0].values()), mixed[0]
    onto = _judged([first, replicate])
    assert all(e == onto[0] for e in onto) and onto[0]["thm3_raf"][0] == r.CONFIRMED
    off = _judged([first, more, replicate])
    assert all(e == off[0] for e in off)
    assert all(v[0] not in r.POSITIVE for v in off[0].values()), off[0]
