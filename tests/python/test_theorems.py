"""Verdicts on synthetic studies whose truth is known."""
import numpy as np
import pandas as pd
import pytest
from conftest import synthetic_tables, write_results

from wordsens_analysis import read_results, theorems


def verdicts(tmp_path, **kw):
    tasks, ws, gen = synthetic_tables(**kw)
    res = read_results(write_results(tmp_path / "v.h5", tasks, ws, gen))
    v = theorems.check_all(res.ws, res.gen)
    return v


def by_claim(v, prefix):
    rows = v[v["claim"].str.startswith(prefix)]
    assert len(rows), f"no {prefix} row"
    return rows


def test_paper_like_study_is_confirmed(tmp_path):
    v = verdicts(tmp_path)
    assert list(v.columns[:8]) == theorems.VERDICT_COLUMNS
    for claim in ("thm1_slope", "thm1_upper_sqrt_n", "rf_bracket", "thm2_slope", "thm3_slope",
                  "thm3_floor", "relu_slope", "thm45_E_far", "thm45_E_to_4"):
        assert (by_claim(v, claim)["verdict"] == "confirmed").all(), claim
    rf = by_claim(v, "thm1_slope").iloc[0]
    assert rf["ci_low"] <= -0.5 <= rf["ci_high"]
    raf = by_claim(v, "thm3_slope").iloc[0]
    assert raf["ci_low"] <= 0.0 <= raf["ci_high"]
    # E_raf: the loss objective (and so "best") reaches E ≈ 0; align stays at 0.5 → undecided.
    near0 = by_claim(v, "raf_E_near_0").set_index("claim")["verdict"]
    assert near0[near0.index.str.contains("loss")].eq("confirmed").all()
    assert near0[near0.index.str.contains("best")].eq("confirmed").all()
    assert near0[near0.index.str.contains("align")].eq("inconclusive").all()


def test_swapped_slopes_are_contradicted(tmp_path):
    # rf flat, raf decaying like 1/√n, raf_relu flat: the opposite of the theorems.
    v = verdicts(tmp_path, slopes={"rf": 0.0, "drf": 0.0, "raf": -0.5, "raf_relu": 0.0})
    for claim in ("thm1_slope", "thm2_slope", "thm3_slope", "relu_slope"):
        assert (by_claim(v, claim)["verdict"] == "contradicted").all(), claim


def test_faster_decay_than_predicted_is_not_a_contradiction(tmp_path):
    # O(1/√n) is an upper bound: a slope of −1 does not break it, but it is not the ≈ −1/2 rate.
    v = verdicts(tmp_path, slopes={"rf": -1.0})
    row = by_claim(v, "thm1_slope").iloc[0]
    assert row["ci_high"] < -0.75
    assert row["verdict"] == "inconclusive" and "faster" in row["reason"]


def test_rf_bracket_violation_is_contradicted():
    ws = pd.DataFrame({"model": "rf", "d": 8, "layers": 1, "k": 80, "n": 10, "trial": [0, 1, 2],
                       "S": [0.3, 0.5, 0.3], "S_upper": [0.4, 0.4, 0.4]})
    v = theorems.check_all(ws, pd.DataFrame())
    row = by_claim(v, "rf_bracket").iloc[0]
    assert row["verdict"] == "contradicted" and row["estimate"] == pytest.approx(1.25)


def test_rf_generalising_is_contradicted():
    rows = [("rf", 8, 80, 20, n, t, tr, ob, 0.01 * (1 + t % 3))
            for n in (10, 20, 40) for t in range(6) for tr in ("finetune", "retrain")
            for ob in ("loss",)]
    gen = pd.DataFrame(rows, columns=["model", "d", "k", "N", "n", "trial", "training",
                                      "objective", "E"])
    gen["task_id"] = gen.groupby(["n", "trial"]).ngroup()
    gen["k"] = gen["n"] * 8
    v = theorems.check_all(pd.DataFrame(), gen)
    assert (by_claim(v, "thm45_E_far")["verdict"] == "contradicted").all()


def test_too_little_data_is_inconclusive_with_reason(tmp_path):
    v = verdicts(tmp_path, ns=(10, 20), trials=5)
    row = by_claim(v, "thm1_slope").iloc[0]
    assert row["verdict"] == "inconclusive" and "need 3" in row["reason"]
    v = verdicts(tmp_path, trials=2)
    for claim in ("thm1_slope", "thm3_floor", "thm45_E_far", "raf_E_near_0"):
        row = by_claim(v, claim).iloc[0]
        assert row["verdict"] == "inconclusive" and row["reason"], claim


def test_models_absent_from_the_file_still_get_a_row(tmp_path):
    v = verdicts(tmp_path, models=("rf",), gen_models=())
    row = by_claim(v, "thm2_slope").iloc[0]
    assert row["verdict"] == "inconclusive" and "no drf" in row["reason"]
    assert by_claim(v, "raf_E_near_0").iloc[0]["verdict"] == "inconclusive"
    assert np.isnan(by_claim(v, "thm3_slope").iloc[0]["estimate"])


def test_k_labels():
    df = pd.DataFrame({"model": "rf", "d": 4, "layers": 1, "N": 0, "n": [10, 20, 10, 20],
                       "k": [40, 80, 20, 40]})
    # Mixed: two different k per n; labelled by their ratio to D.
    assert list(theorems.k_labels(df)) == ["k=1D", "k=1D", "k=0.5D", "k=0.5D"]
    fixed = pd.DataFrame({"model": "rf", "d": 4, "layers": 1, "N": 0, "n": [10, 20],
                          "k": [100, 100]})
    assert list(theorems.k_labels(fixed)) == ["k=100", "k=100"]
