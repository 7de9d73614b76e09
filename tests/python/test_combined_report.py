"""`wordsens-report a.h5 b.h5 … -o DIR`: one report over files of different studies.

The files are synthetic (conftest.synthetic_tables: known slopes and levels), split by model
into "studies" with their own configuration text, as the paper's configs split the WS grid.
Each rule of the combination is fed a case where it must refuse: rows of other texts never pair,
studies never pool, a repeated file adds nothing.
"""
import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest
from conftest import REPORT, relabel, synthetic_tables, write_results

from wordsens_analysis import claims, read_results, rules
from wordsens_analysis.claims import verdicts
from wordsens_analysis.reading import POLICY, build_studies, shared_points
from wordsens_analysis.rules import stats

PY = "/usr/bin/python3"


def subset(tables, models=(), gen_models=()):
    """The rows of some models only (task ids kept, so trials keep their texts)."""
    tasks, ws, gen = tables
    model = np.char.strip(tasks["model"].astype(str))
    exp = tasks["experiment"]
    keep = (np.isin(model, models) & (exp == 0)) | (np.isin(model, gen_models) & (exp == 1))
    ids = set(tasks["task_id"][keep].tolist())
    pick = lambda t: {c: v[np.isin(t["task_id"], list(ids))] for c, v in t.items()}  # noqa
    return pick(tasks), pick(ws), pick(gen)


def write_study(path, tables, config, seed=1):
    """A results file whose stored configuration and seed name its study and texts."""
    write_results(path, *tables)
    with h5py.File(path, "r+") as f:
        f.attrs["config_text"] = config + f"seed = {seed}\n"
        f.attrs["master_seed"] = np.uint64(seed)
    return path


RF_CFG = "experiments = ws,gen\nmodels = rf\nrf-sampling = full\ndata = synthetic\n"
ATT_CFG = "experiments = ws,gen\nmodels = raf,raf_relu\ndata = synthetic\n"


def two_studies(tmp_path, trials=12, rf_seed=1, att_seed=1, **kw):
    tables = synthetic_tables(trials=trials, **kw)
    a = write_study(tmp_path / "rf_study.h5", subset(tables, ("rf",), ("rf",)), RF_CFG, rf_seed)
    b = write_study(tmp_path / "att_study.h5", subset(tables, ("raf", "raf_relu"), ("raf",)),
                    ATT_CFG, att_seed)
    return a, b


def verdicts_of(*paths):
    studies, _, _ = build_studies([read_results(p) for p in paths])
    return verdicts.judge_studies(studies, "in any of the files"), studies


def prim(v):
    p = v[v["kind"].isin([rules.PRIMARY, rules.EXTENSION])]
    return {(r.study, r.claim): r.verdict for r in p.itertuples()}


def run_report(out, *paths):
    return subprocess.run([PY, REPORT, *map(str, paths), "-o", str(out)], capture_output=True,
                          text=True, timeout=300)


def test_two_studies_give_one_verdict_table_with_both(tmp_path):
    a, b = two_studies(tmp_path)
    out = tmp_path / "report"
    p = run_report(out, a, b)
    assert p.returncode == 0, p.stderr
    v = pd.read_csv(out / "verdicts.csv", keep_default_na=False)
    assert list(v.columns) == ["study", *verdicts.VERDICT_COLUMNS]
    got = prim(v)
    assert got[("rf_study", "thm1_rf")] == rules.CONFIRMED
    assert got[("rf_study", "thm45_rf[finetune]")] == rules.SUPPORTED_SEARCH
    assert got[("att_study", "thm3_raf")] == rules.CONFIRMED
    assert got[("att_study", "softmax_raf_relu")] == rules.NOT_REFUTED_LB
    assert got[("att_study", "raf_gen[retrain]")] == rules.CONFIRMED
    # drf is in neither file: one row, no study; no row for a model a study lacks.
    assert got[("", "thm2_drf")] == rules.INCONCLUSIVE
    assert ("att_study", "thm1_rf") not in got and ("rf_study", "thm3_raf") not in got
    # Thm 3's level took rf's bound from the other study, on the same texts.
    assert (v["claim"] == "thm3_raf/d=64,k=1D,rf@rf_study").any()
    # Primary rows grouped by theorem (the rules' claim order), then by study.
    order = [c.split("[")[0] for c in v.loc[v["kind"] == rules.PRIMARY, "claim"]]
    assert order == sorted(order, key=list(claims.CLAIMS).index)
    # Holm ran once over every primary row of the report.
    pr = v[v["kind"] == rules.PRIMARY]
    pc = pd.to_numeric(pr["p_confirm"], errors="coerce")
    np.testing.assert_allclose(pd.to_numeric(pr["p_confirm_holm"], errors="coerce"),
                               stats.holm(pc.to_numpy()), equal_nan=True)
    md = (out / "report.md").read_text()
    first = md.splitlines()[0]
    assert first.startswith("# 4 of 7 claims confirmed, 3 supported or not refuted by weaker "), first
    assert "0 inconclusive; not in these studies: thm2_drf; integrity" in first  # in neither file
    assert p.stdout.splitlines()[0] == first[2:]
    for section in ("## How the files are combined", "## Paper vs here", "## Claims",
                    "## Sensitivity of the primary verdicts", "## Provenance of every file",
                    "## Primary claims (grouped by theorem"):
        assert section in md, section
    assert POLICY in md
    pvh = pd.read_csv(out / "paper_vs_here.csv", keep_default_na=False)
    assert len(pvh) == len(pr) and set(pvh["study"]) == {"rf_study", "att_study", "–"}
    row = pvh[pvh["claim"] == "thm1_rf"].iloc[0]
    assert row["verdict"] == rules.CONFIRMED and "n^−1/2" in row["paper: reported trend"]
    assert "d=64,k=1D: " in row["per group"] and "(confirmed)" in row["per group"]
    prov = pd.read_csv(out / "provenance.csv")
    assert list(prov["file"]) == [str(a), str(b)]
    for name in ("paper_ws_vs_n.png", "paper_gen_error.png", "report.html", "ws_summary.csv",
                 "gen_summary.csv", "studies.csv"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "report.html").read_text().count("data:image/png;base64,") == 2


def test_contrast_never_pairs_rows_of_other_texts(tmp_path):
    # rf run with another seed saw other texts: raf may not be paired with it.
    a, b = two_studies(tmp_path, rf_seed=2)
    v, _ = verdicts_of(a, b)
    thm3 = v[(v["claim"] == "thm3_raf")].iloc[0]
    assert thm3["verdict"] == rules.INCONCLUSIVE
    assert "no rf records with a certified bound (k ≥ d) on the same texts" in thm3["reason"]


def test_a_cross_file_contrast_with_rf_under_raf_name_is_not_confirmed(tmp_path):
    # The attention file holds rf's numbers labelled raf: raf is no higher than rf's bound on the
    # same texts, so Thm 3 must not be confirmed (raf's own slope is −1/2 here, too).
    tables = relabel(*synthetic_tables(trials=12), "rf", "raf")
    a = write_study(tmp_path / "rf_study.h5", subset(tables, ("rf",), ("rf",)), RF_CFG)
    b = write_study(tmp_path / "att_study.h5", subset(tables, ("raf", "raf_relu"), ("raf",)),
                    ATT_CFG)
    v, _ = verdicts_of(a, b)
    assert prim(v)[("att_study", "thm3_raf")] not in rules.POSITIVE
    group = v[v["claim"] == "thm3_raf/d=64,k=1D,rf@rf_study"]
    assert len(group) == 1 and "S_raf/S_upper,rf" in group.iloc[0]["reason"]


def test_studies_are_never_pooled_even_at_shared_grid_points(tmp_path):
    good = synthetic_tables(trials=12, models=("rf",), gen_models=())
    flat = synthetic_tables(trials=12, models=("rf",), gen_models=(), slopes={"rf": 0.0},
                            upper={"rf": 0.0})
    a = write_study(tmp_path / "good.h5", good, RF_CFG + "max-evals = 100\n")
    b = write_study(tmp_path / "flat.h5", flat, RF_CFG + "max-evals = 200\n")
    v, studies = verdicts_of(a, b)
    assert [s.label for s in studies] == ["good", "flat"]
    got = prim(v)
    assert got[("good", "thm1_rf")] == rules.CONFIRMED
    assert got[("flat", "thm1_rf")] == rules.CONTRADICTED
    shared = shared_points(studies)
    assert len(shared) == 5 and set(shared["studies (kept apart)"]) == {"flat, good"}


def test_replicates_with_another_seed_add_trials(tmp_path):
    # 3 trials per file is below MIN_TRIALS; two seeds of one study give 6 independent trials,
    # a look its plan (max-trials = 6) provides for: pooled, they decide. Without the look in the
    # plan, 6 trials is a count none of its looks has: no share of α (replicates pooled after
    # the fact could otherwise spend it again and again).
    t1 = synthetic_tables(trials=3, models=("rf",), gen_models=(), seed=1)
    t2 = synthetic_tables(trials=3, models=("rf",), gen_models=(), seed=2)
    planned = RF_CFG + "trials = 3\nmax-trials = 6\n"
    a = write_study(tmp_path / "rep1.h5", t1, planned, seed=11)
    b = write_study(tmp_path / "rep2.h5", t2, planned, seed=12)
    alone, _ = verdicts_of(a)
    assert prim(alone)[("rep1", "thm1_rf")] == rules.INCONCLUSIVE
    v, studies = verdicts_of(a, b)
    assert len(studies) == 1 and len(studies[0].files) == 2
    row = v[v["claim"] == "thm1_rf"].iloc[0]
    assert row["trials"] == 6 and row["verdict"] == rules.CONFIRMED, row["reason"]
    c = write_study(tmp_path / "rep3.h5", t1, RF_CFG + "trials = 3\n", seed=11)
    d = write_study(tmp_path / "rep4.h5", t2, RF_CFG + "trials = 3\n", seed=12)
    v, _ = verdicts_of(c, d)
    row = v[v["claim"] == "thm1_rf"].iloc[0]
    assert row["verdict"] == rules.INCONCLUSIVE and "none of the study's looks" in row["reason"]


def test_a_repeated_file_adds_nothing(tmp_path):
    t = synthetic_tables(trials=3, models=("rf",), gen_models=())
    a = write_study(tmp_path / "one.h5", t, RF_CFG)
    b = write_study(tmp_path / "copy.h5", t, RF_CFG)  # same study, same seed: same texts
    v, studies = verdicts_of(a, b)
    assert len(studies) == 1 and len(studies[0].ws) == 15
    assert any("repeat rows of an earlier file" in n for n in studies[0].notes)
    row = v[v["claim"] == "thm1_rf"].iloc[0]
    assert row["verdict"] == rules.INCONCLUSIVE  # still 3 trials, not 6


def test_the_same_file_twice_is_refused(tmp_path):
    a, _ = two_studies(tmp_path)
    p = run_report(tmp_path / "out", a, a)
    assert p.returncode == 2 and "the same file given twice" in p.stderr
    assert not (tmp_path / "out").exists()


def test_a_bad_file_among_several_is_a_one_line_error(tmp_path):
    a, _ = two_studies(tmp_path)
    p = run_report(tmp_path / "out", a, tmp_path / "missing.h5")
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        f"wordsens-report: error: {tmp_path / 'missing.h5'}: no such file"]


@pytest.mark.parametrize("ds,drawn", [((16, 32, 64), True), ((16, 64), False)])
def test_the_regime_map_needs_three_values_of_d(tmp_path, ds, drawn):
    frames = [synthetic_tables(d=d, ns=(8, 16, 32, 64, 128), trials=5,
                               models=("raf", "raf_relu"), gen_models=()) for d in ds]
    def stack(i, table, ids):  # one file: task and point ids shifted per d
        return {c: v + i * 10**4 if c in ids else v for c, v in table.items()}

    tasks = {c: np.concatenate([stack(i, f[0], ("task_id", "point_id"))[c]
                                for i, f in enumerate(frames)]) for c in frames[0][0]}
    ws = {c: np.concatenate([stack(i, f[1], ("task_id",))[c] for i, f in enumerate(frames)])
          for c in frames[0][1]}
    path = write_results(tmp_path / "map.h5", tasks, ws, frames[0][2])
    out = tmp_path / "rep"
    p = run_report(out, path)
    assert p.returncode == 0, p.stderr
    for model in ("raf", "raf_relu"):
        assert (out / f"regime_map_{model}.png").exists() == drawn


def test_regime_map_numbers_against_a_plain_computation():
    from wordsens_analysis.report import regime_map

    rng = np.random.default_rng(3)
    rows = []
    for d in (8, 16, 32):
        for t in range(4):
            u = rng.normal(0, 0.1)
            for n in (8, 16, 32, 64):
                # Ω(1) up to n = d, then falling like √(d/n), as a tilted mean makes it
                S = 2.0 * np.exp(u + rng.normal(0, 0.02)) * min(1.0, np.sqrt(d / n))
                rows.append(dict(model="raf", d=d, n=n, trial=t, S=S))
    g = pd.DataFrame(rows)
    lev = regime_map.level_table(g)
    assert lev.loc[16, 32] == pytest.approx(g[(g.d == 16) & (g.n == 32)]["S"].mean())
    slo = regime_map.local_slopes(g)
    for d in (8, 16, 32):
        for a, b in ((8, 16), (16, 32), (32, 64)):
            m = g[g.d == d].pivot(index="trial", columns="n", values="S")
            plain = float(np.mean(np.log(m[b] / m[a]) / np.log(b / a)))
            assert slo.loc[d, a] == pytest.approx(plain)
            # the truth: 0 while n ≤ d, −1/2 once n ≥ 2·a > d
            truth = 0.0 if b <= d else -0.5
            assert slo.loc[d, a] == pytest.approx(truth, abs=0.05)
    assert regime_map.mapped(g) == [(None, "raf")]
    assert regime_map.mapped(g[g.d < 32]) == []


def test_a_heads_grid_gets_one_regime_map_per_h(tmp_path):
    """A multi-head model run over several H is mapped once per H, never averaged over H: each
    map's mean S is that H's own."""
    from wordsens_analysis.reading import Catalogue, ModelTraits
    from wordsens_analysis.report import regime_map
    known = Catalogue.before_1_7().with_models([ModelTraits("mhraf", True, False, False, 32)],
                                               "test")
    rows = []
    for H, level in ((1, 4.0), (4, 2.0)):
        for d in (8, 16, 32):
            for t in range(3):
                for n in (8, 16, 32):
                    rows.append(dict(model="mhraf", heads=H, d=d, n=n, trial=t, S=level))
    ws = pd.DataFrame(rows)
    drawn = regime_map.figures(ws, str(tmp_path), known)
    assert [title.split(":")[0] for title, _ in drawn] == [
        "Regime map of mhraf (H=1)", "Regime map of mhraf (H=4)"]
    for H in (1, 4):
        assert (tmp_path / f"regime_map_mhraf_H{H}.png").exists()
    assert not (tmp_path / "regime_map_mhraf.png").exists()
    one = ws[ws.heads == 4]
    (tmp_path / "one").mkdir()
    assert [t.split(":")[0] for t, _ in regime_map.figures(one, str(tmp_path / "one"), known)] == [
        "Regime map of mhraf"]
    assert regime_map.level_table(one).loc[16, 16] == pytest.approx(2.0)


def write_multi_word_study(path, config, seed=1):
    """A study with tasks of several changed words (test_multi_word's frames: rf and raf), as
    the writer stores it: /tasks with a `words` column, S_m in /ws."""
    from test_multi_word import frames

    ws, several = frames()
    rows = pd.concat([ws, several], ignore_index=True)
    tasks = {"task_id": rows["task_id"].to_numpy(), "point_id": rows["task_id"].to_numpy(),
             "experiment": np.zeros(len(rows), np.uint8),
             "model": rows["model"].to_numpy().astype("S16"), "n": rows["n"].to_numpy(),
             "d": rows["d"].to_numpy(), "k": rows["k"].to_numpy(), "N": rows["N"].to_numpy(),
             "layers": rows["layers"].to_numpy(), "words": rows["words"].to_numpy(),
             "trial": rows["trial"].to_numpy(), "done": np.ones(len(rows), np.uint8)}
    zeros = np.zeros(len(rows))
    table = {"task_id": rows["task_id"].to_numpy(), "S": rows["S"].to_numpy(),
             "S_upper": rows["S_upper"].to_numpy(), "argmax_position": zeros.astype(int),
             "phi_norm": zeros + 1, "evaluations": zeros.astype(int) + 10, "seconds": zeros,
             "witness_offset": zeros.astype(int), "witness_length": zeros.astype(int)}
    return write_study(path, (tasks, table, None), config, seed)


def test_a_report_over_several_files_judges_the_multi_word_claims(tmp_path):
    # The multi-word claims are judged in every report: with several files too, per study.
    a, _ = two_studies(tmp_path)
    mw = write_multi_word_study(tmp_path / "multiword.h5",
                                "experiments = ws\nmodels = rf,raf\nwords = 1,2,4,8,16\n"
                                "words-fraction = 0.125\ndata = synthetic\n", seed=7)
    v, _ = verdicts_of(a, mw)
    got = prim(v)
    for claim in ("mw_rf_sqrt_m", "mw_rf_fraction"):
        assert ("multiword", claim) in got, sorted(got)
    assert got[("multiword", "mw_rf_sqrt_m")] == rules.SUPPORTED_RESTRICTED
    assert not any(c.startswith("mw_") for s, c in got if s == "rf_study")


def test_a_descriptive_study_gives_secondary_rows_only(tmp_path):
    # The regime map is a map: its rows are a breakdown, never a claim counted in the headline.
    tables = synthetic_tables(trials=12, models=("raf", "raf_relu"), gen_models=())
    mapped = write_study(tmp_path / "regime_map.h5", tables,
                         "experiments = ws\nmodels = raf,raf_relu\npurpose = descriptive\n"
                         "data = synthetic\n")
    v, studies = verdicts_of(mapped)
    assert studies[0].descriptive
    assert not (v["study"] == "regime_map").to_numpy()[v["kind"] == rules.PRIMARY].any()
    shown = v[v["claim"] == "thm3_raf (descriptive)"]
    assert len(shown) == 1 and shown.iloc[0]["kind"] == rules.SECONDARY
    assert "descriptive studies" in v[v["claim"] == "thm3_raf"].iloc[0]["reason"]


def test_the_headline_counts_claims_not_rows(tmp_path):
    # Thm 1 judged in two studies (other seeds) is one claim; a contradiction in either wins.
    good = write_study(tmp_path / "a.h5", synthetic_tables(trials=12, models=("rf",),
                                                           gen_models=()), RF_CFG, seed=1)
    other = write_study(tmp_path / "b.h5", synthetic_tables(trials=12, models=("rf",),
                                                            gen_models=(), seed=5),
                        RF_CFG + "max-evals = 50\n", seed=2)
    v, _ = verdicts_of(good, other)
    per_claim = verdicts.claim_verdicts(v).set_index("claim")
    assert (v[v["kind"] == rules.PRIMARY]["claim"] == "thm1_rf").sum() == 2
    assert per_claim.loc["thm1_rf", "verdict"] == rules.CONFIRMED
    assert verdicts.headline(v).startswith("1 of 1 claims confirmed")
    flat = write_study(tmp_path / "c.h5", synthetic_tables(trials=12, models=("rf",),
                                                           gen_models=(), slopes={"rf": 0.0}),
                       RF_CFG + "max-evals = 60\n", seed=3)
    v, _ = verdicts_of(good, flat)
    assert verdicts.claim_verdicts(v).set_index("claim").loc["thm1_rf", "verdict"] == \
        rules.CONTRADICTED
