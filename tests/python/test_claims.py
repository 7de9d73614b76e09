"""Verdicts on synthetic studies whose truth is known, including studies where each claim is
false: every rule must fail there (contradicted or inconclusive, never confirmed)."""
import numpy as np
import pandas as pd
import pytest
from conftest import relabel, synthetic_tables, write_results

from wordsens_analysis import claims, read_results, rules
from wordsens_analysis.claims import verdicts
from wordsens_analysis.reading import Catalogue
from wordsens_analysis.rules import regimes

POSITIVE = set(rules.POSITIVE)


def judged(tmp_path, tables=None, **kw):
    tasks, ws, gen = tables if tables is not None else synthetic_tables(**kw)
    res = read_results(write_results(tmp_path / "v.h5", tasks, ws, gen))
    return verdicts.judge_frames(res.ws, res.gen)


def row(v, claim):
    rows = v[v["claim"] == claim]
    assert len(rows) == 1, (claim, list(v["claim"]))
    return rows.iloc[0]


def primary(v):
    return v[v["kind"] == rules.PRIMARY].set_index("claim")["verdict"]


PAPER = {"thm1_rf": rules.CONFIRMED, "thm2_drf": rules.CONFIRMED, "thm3_raf": rules.CONFIRMED,
         "softmax_raf_relu": rules.NOT_REFUTED_LB, "thm45_rf[finetune]": rules.SUPPORTED_SEARCH,
         "thm45_rf[retrain]": rules.SUPPORTED_SEARCH, "raf_gen[finetune]": rules.CONFIRMED,
         "raf_gen[retrain]": rules.CONFIRMED}


def test_paper_like_study_is_confirmed(tmp_path):
    v = judged(tmp_path)
    assert list(v.columns) == verdicts.COLUMNS
    assert primary(v).to_dict() == PAPER
    assert set(v["kind"]) == {rules.PRIMARY, rules.SECONDARY, rules.INTEGRITY}
    assert (v.loc[v["kind"] == rules.INTEGRITY, "verdict"] == rules.PASS).all()
    assert (v["rules_version"] == rules.RULES_VERSION).all()
    assert (v["rules_hash"] == claims.RULES_HASH).all()
    rf = row(v, "thm1_rf")
    assert "S_upper" in rf["statistic"] and rf["ci_high"] <= -0.5  # δ = 0 at k = D
    # Thm 3 is judged on n ≤ d only: n = 128 > d = 64 is listed, not used.
    raf = row(v, "thm3_raf")
    assert raf["n_used"] == "8,16,32,64" and "n=128" in raf["outside_regime"]
    # O(1/√n) speaks for n past some n0: its slope is read over the end of the design.
    assert rf["n_used"] == "32,64,128" and "n=32,64,128" in rf["statistic"]
    assert abs(raf["estimate"]) < 0.05
    assert "S_raf/S_upper,rf" in raf["statistic"]
    # Primary rows come right after any integrity failure (none here), before the rest.
    assert list(v["kind"][:8]) == [rules.PRIMARY] * 8


def test_rows_are_sorted_primary_first_and_every_secondary_kind_is_there(tmp_path):
    v = judged(tmp_path)
    claims = " ".join(v["claim"])
    for part in ("thm1_rf/d=64,k=1D", "thm2_drf/d=64,L=2,k=1D", "thm3_raf/d=64,k=1D",
                 "softmax_raf_relu/d=64", "thm45_rf[finetune]/d=64,N=20,k=1D",
                 "raf_gen[retrain]/d=64,N=20", "local_slope[raf,", "level[rf,",
                 "limit[rf,finetune,", "bracket[rf]", "bracket[drf]", "cert_rel_err[ws]",
                 "cert_rel_err[gen]", "head_t1[rf]", "head_label[rf]", "head_cond_K[raf]",
                 "budget_gain[raf]"):
        assert part in claims, part
    # Local slopes are shown, never judged (they straddle n = d here).
    out = row(v, "local_slope[raf,d=64,n=64→128]")
    assert out["verdict"] == rules.SHOWN and np.isfinite(out["estimate"])


# --- each rule fed data where its claim is false ------------------------------------------------

def test_rf_rows_labelled_raf_never_confirm_thm3(tmp_path):
    # The old floor rule (mean S above 0.1) confirmed this; the paired contrast is 0 here.
    v = judged(tmp_path, relabel(*synthetic_tables(), "rf", "raf"))
    thm3 = row(v, "thm3_raf")
    assert thm3["verdict"] == rules.INCONCLUSIVE, thm3
    assert "S_raf/S_upper,rf" in thm3["reason"] and "lower bound" in thm3["reason"]
    assert primary(v)["softmax_raf_relu"] not in POSITIVE  # raf decays as fast as raf_relu
    # rf's test errors labelled raf: the raf head claim is not confirmed either.
    assert all(primary(v)[f"raf_gen[{t}]"] == rules.INCONCLUSIVE for t in ("finetune", "retrain"))


def test_raf_rows_labelled_rf_contradict_thms_1_and_4_5(tmp_path):
    v = judged(tmp_path, relabel(*synthetic_tables(), "raf", "rf"))
    p = primary(v)
    assert p["thm1_rf"] == rules.CONTRADICTED  # a flat lower bound refutes O(1/√n)
    assert p["thm45_rf[finetune]"] == rules.CONTRADICTED  # the head got E ≈ 0: fooled
    assert p["thm45_rf[retrain]"] == rules.CONTRADICTED
    assert p["thm3_raf"] not in POSITIVE  # the contrast of raf with itself is 0


def test_flat_rf_is_contradicted(tmp_path):
    v = judged(tmp_path, slopes={"rf": 0.0, "drf": 0.0})
    p = primary(v)
    assert p["thm1_rf"] == rules.CONTRADICTED and p["thm2_drf"] == rules.CONTRADICTED


def test_decaying_raf_is_never_confirmed_and_never_contradicted_by_a_lower_bound(tmp_path):
    v = judged(tmp_path, slopes={"raf": -0.5, "raf_relu": 0.0})
    p = primary(v)
    thm3 = row(v, "thm3_raf")
    assert thm3["verdict"] == rules.INCONCLUSIVE
    assert "cannot refute" in thm3["reason"]
    # raf_relu's lower bound above raf's: two lower bounds never order two models
    assert p["softmax_raf_relu"] == rules.INCONCLUSIVE


def test_E_rising_to_2_5_is_not_E_tending_to_4(tmp_path):
    # E → 2.5: far from 0 and rising, but levelling off below 4 (the rules before 3.0 confirmed
    # "E tends to 4" from a two-point slope): E staying far from 0 is supported by the search,
    # E tending to 4 is not claimed.
    v = judged(tmp_path, E_rf=lambda n: 2.5 - 1.5 * np.sqrt(8 / n))
    for t in ("finetune", "retrain"):
        r = row(v, f"thm45_rf[{t}]")
        assert r["verdict"] == rules.SUPPORTED_SEARCH, r
        assert "E tending to 4 is not claimed" in r["reason"]
        assert row(v, f"limit[rf,{t},d=64,N=20,k=1D]")["verdict"] == rules.INCONCLUSIVE


def test_rf_fooled_by_the_change_is_contradicted(tmp_path):
    v = judged(tmp_path, E_rf=lambda n: 0.01 + 0 * n)
    assert primary(v)["thm45_rf[finetune]"] == rules.CONTRADICTED


def test_a_growing_upper_bound_does_not_confirm_thm1(tmp_path):
    # S_upper·√n grows like n^0.3: the certificate cannot confirm O(1/√n), and it cannot refute
    # it either (S itself still decays like 1/√n).
    v = judged(tmp_path, upper={"rf": -0.2})
    r = row(v, "thm1_rf")
    assert r["verdict"] == rules.INCONCLUSIVE and "S_upper" in r["reason"]


def test_without_an_upper_bound_O_claims_are_at_most_supported(tmp_path):
    # A file before format 1.2 (no drf bound) and with the marginal rf sampler (no rf bound).
    tasks, ws, gen = synthetic_tables(new_columns=False)
    ws["S_upper"][:] = np.nan
    v = judged(tmp_path, (tasks, ws, gen))
    for claim in ("thm1_rf", "thm2_drf"):
        r = row(v, claim)
        assert r["verdict"] == rules.NOT_REFUTED_LB and "no upper bound in this file" in r["reason"]
    assert row(v, "bracket")["verdict"] == rules.NOT_IN_FILE
    assert row(v, "cert_rel_err[ws]")["verdict"] == rules.NOT_IN_FILE


def test_a_search_that_misses_the_maximum_at_large_n_is_never_confirmation(tmp_path):
    # S falling faster than 1/n (a search finding less and less): steeper than 1/√n, so the old
    # slope rule moved towards "confirmed". A lower bound's slope never decides an upper-bound
    # claim: without an upper bound the claim is at most not refuted (its level is below every
    # admissible constant), whatever the slope.
    tasks, ws, gen = synthetic_tables(slopes={"rf": -1.2}, new_columns=False)
    ws["S_upper"][:] = np.nan
    r = row(judged(tmp_path, (tasks, ws, gen)), "thm1_rf")
    assert r["verdict"] == rules.NOT_REFUTED_LB and "no upper bound" in r["reason"]
    assert "slope" not in r["statistic"] and "C_max" in r["statistic"]


def test_restricted_bound_is_weaker_evidence(tmp_path):
    v = judged(tmp_path, scope=2)
    assert row(v, "thm1_rf")["verdict"] == rules.SUPPORTED_RESTRICTED
    assert "examined positions" in row(v, "thm1_rf")["reason"]


def test_grid_outside_the_regime_is_listed_not_used(tmp_path):
    # The old default study: d = 8, n = 10…80, every point has n > d.
    v = judged(tmp_path, d=8, ns=(10, 20, 40, 80))
    r = row(v, "thm3_raf")
    assert r["verdict"] == rules.INCONCLUSIVE and "regime" in r["reason"]
    assert r["outside_regime"] == "d=8: n=10,20,40,80 (n > d)"
    # rf at k = n·d ≥ d: Thm 1 is in its regime and confirmed.
    assert row(v, "thm1_rf")["verdict"] == rules.CONFIRMED


def test_head_regime_k_much_larger_than_N(tmp_path):
    v = judged(tmp_path, k_of=lambda n, d: 4 * 20 + 0 * n, N=20)  # k = 4N < 10N
    r = row(v, "thm45_rf[finetune]")
    assert r["verdict"] == rules.INCONCLUSIVE and "k ≥ 10·N" in r["reason"]


def test_too_little_data_is_inconclusive_with_reason(tmp_path):
    v = judged(tmp_path, ns=(8, 16), trials=6)
    r = row(v, "thm1_rf")
    assert r["verdict"] == rules.INCONCLUSIVE and "a slope needs 3" in r["reason"]
    v = judged(tmp_path, trials=rules.MIN_TRIALS - 1)
    for claim in ("thm1_rf", "thm3_raf", "thm45_rf[finetune]", "raf_gen[retrain]"):
        r = row(v, claim)
        assert r["verdict"] == rules.INCONCLUSIVE and r["reason"], claim


def test_holm_correction_can_withhold_a_verdict(tmp_path):
    # 6 trials: a sign test's p = 1/64 passes alone (≤ 0.025) but four tied gen rows cannot all
    # pass after Holm's correction.
    v = judged(tmp_path, trials=6)
    r = row(v, "raf_gen[finetune]")
    assert r["p_confirm"] == pytest.approx(1 / 64)
    assert r["p_confirm_holm"] > rules.ALPHA and r["verdict"] == rules.INCONCLUSIVE
    assert "Holm" in r["reason"]
    sec = row(v, "raf_gen[finetune]/d=64,N=20")
    assert sec["verdict"] == rules.CONFIRMED  # secondary rows are not corrected


def test_a_sign_test_short_of_trials_says_so(tmp_path):
    # 5 trials, every one on the confirming side: p = 1/32 > 0.025 whatever the data. The reason
    # must say the trials are too few, not that the median is on the wrong side.
    v = judged(tmp_path, trials=5)
    for claim in ("thm45_rf[finetune]", "raf_gen[retrain]"):
        r = row(v, claim)
        assert r["p_confirm"] == pytest.approx(1 / 32), claim
        assert r["verdict"] == rules.INCONCLUSIVE, claim
        assert "cannot reach" in r["reason"] and "at least 6 trials" in r["reason"], r["reason"]
        assert "is not above" not in r["reason"] and "is not below" not in r["reason"]


def test_models_absent_from_the_file_still_get_a_row(tmp_path):
    v = judged(tmp_path, models=("rf",), gen_models=())
    r = row(v, "thm2_drf")
    assert r["verdict"] == rules.INCONCLUSIVE and "no drf ws records" in r["reason"]
    assert row(v, "raf_gen")["verdict"] == rules.INCONCLUSIVE
    assert np.isnan(row(v, "thm3_raf")["estimate"])
    thm3 = verdicts.judge_frames(pd.DataFrame(), pd.DataFrame())
    assert (thm3.loc[thm3["kind"] == rules.PRIMARY, "verdict"] == rules.INCONCLUSIVE).all()


# --- integrity --------------------------------------------------------------------------------

def _ws_frame(**over):
    n = np.repeat([8, 16, 32], 6)
    df = pd.DataFrame({"model": "rf", "d": 64, "layers": 1, "k": 512, "n": n,
                       "trial": np.tile(range(6), 3), "S": 1 / np.sqrt(n),
                       "S_upper": 1.5 / np.sqrt(n)})
    for k, v in over.items():
        df[k] = v
    return df


def test_bracket_violation_fails_and_comes_first():
    ws = _ws_frame()
    ws.loc[3, "S"] = 2 * ws.loc[3, "S_upper"]
    v = verdicts.judge_frames(ws, pd.DataFrame())
    first = v.iloc[0]
    assert first["claim"] == "bracket[rf]" and first["verdict"] == rules.FAIL
    assert first["estimate"] == pytest.approx(2.0)
    assert "FAIL: bracket[rf]" in verdicts.headline(v)


def test_certificate_and_budget_checks_fail_on_bad_numbers():
    ws = _ws_frame(cert_rel_err=1e-12, S_budget_check=np.nan)
    ws.loc[0, "S_budget_check"] = ws.loc[0, "S"] * 1.2  # the budget-check search finds 20% more
    v = verdicts.judge_frames(ws, pd.DataFrame())
    assert row(v, "cert_rel_err[ws]")["verdict"] == rules.PASS
    bg = row(v, "budget_gain[rf]")
    assert bg["verdict"] == rules.FAIL and "not converged" in bg["reason"]
    ws.loc[0, "S_budget_check"] = ws.loc[0, "S"] * 0.9  # a superset search finding less
    assert "nested" in row(verdicts.judge_frames(ws, pd.DataFrame()), "budget_gain[rf]")["reason"]
    ws["cert_rel_err"] = 1e-6
    assert row(verdicts.judge_frames(ws, pd.DataFrame()), "cert_rel_err[ws]")["verdict"] == rules.FAIL


def test_head_checks_fail_on_bad_heads():
    gen = pd.DataFrame({"model": "rf", "d": 64, "k": 512, "N": 20, "n": 8, "trial": range(5),
                        "task_id": range(5), "training": "finetune", "objective": "loss",
                        "E": 3.0, "t1": [1.0, -1.0, 1.0, 0.7, 1.0],
                        "cond_K": [10, 10, np.inf, 10, 10]})
    v = verdicts.judge_frames(pd.DataFrame(), gen)
    assert row(v, "head_t1[rf]")["verdict"] == rules.FAIL
    assert row(v, "head_cond_K[rf]")["verdict"] == rules.FAIL
    assert list(v["verdict"][:2]) == [rules.FAIL, rules.FAIL]


def test_headline_counts():
    v = verdicts.judge_frames(_ws_frame(), pd.DataFrame())
    h = verdicts.headline(v)
    # Only rf's ws records: the other claims are named once (a head claim once, not once per
    # training mode), outside the count.
    assert h.startswith("1 of 1 claims confirmed, 0 supported or not refuted by weaker "
                        "evidence, 0 contradicted, 0 inconclusive; not in this study: thm2_drf, "
                        "thm3_raf, softmax_raf_relu, thm45_rf, raf_gen; integrity checks: all "
                        "pass")


def test_k_labels():
    df = pd.DataFrame({"model": "rf", "d": 4, "layers": 1, "N": 0, "n": [10, 20, 10, 20],
                       "k": [40, 80, 20, 40]})
    # Mixed: two different k per n; labelled by their ratio to D.
    known = Catalogue.before_1_7()
    assert list(regimes.k_labels(df, known)) == ["k=1D", "k=1D", "k=0.5D", "k=0.5D"]
    fixed = pd.DataFrame({"model": "rf", "d": 4, "layers": 1, "N": 0, "n": [10, 20],
                          "k": [100, 100]})
    assert list(regimes.k_labels(fixed, known)) == ["k=100", "k=100"]


def test_rules_hash_covers_every_rule_text():
    import hashlib

    texts = claims.claim_list._texts()
    digest = lambda t: hashlib.sha256("\n".join(t).encode()).hexdigest()[:12]  # noqa: E731
    assert claims.RULES_HASH == digest(texts)
    assert any(f"above −{rules.FLAT}" in t for t in texts)  # thresholds are in them
    assert any(f"η = {rules.TOLERATED:g}" in t for t in texts)
    for i in range(len(texts)):  # any edit of any text changes the hash
        changed = list(texts)
        changed[i] += " "
        assert digest(changed) != claims.RULES_HASH


def test_thm3_contrast_reads_the_n_the_partner_planned():
    """Thm 3's contrast with rf is read at the n of raf's design that rf's study planned: an n rf
    never planned is outside it (the paper's rf stops at n = 100), but a planned n without any
    record of rf is a shortfall that keeps the group open, never a silently smaller design."""
    import pandas as pd

    from wordsens_analysis import claims as claims_module
    from wordsens_analysis.claims.ws_claims import level_tests
    from wordsens_analysis.rules import groups

    trials = range(12)
    raf = pd.DataFrame([{"n": n, "trial": t, "S": 1.0} for n in (4, 8, 16, 32) for t in trials])
    rf = pd.DataFrame([{"n": n, "trial": t, "S_upper": 0.5 / n ** 0.5, "scope": "all"}
                       for n in (4, 8, 16) for t in trials])
    plan = groups.Design([4, 8, 16, 32], 12, "")
    judge = claims_module.CLAIMS["thm3_raf"].judge()

    unplanned = level_tests(judge, raf, rf, plan, "raf", partner_ns={4, 8, 16})
    assert all(t.trials == 12 for t in unplanned), [t.label for t in unplanned]
    assert "n=4,8,16" in unplanned[0].label
    by_records = level_tests(judge, raf, rf, plan, "raf")  # no task table: its records' n
    assert [t.trials for t in by_records] == [t.trials for t in unplanned]

    planned = level_tests(judge, raf, rf, plan, "raf", partner_ns={4, 8, 16, 32})
    assert all(t.trials == 0 for t in planned)
    assert all("n=32" in t.wants for t in planned), [t.wants for t in planned]

    few = level_tests(judge, raf, rf, plan, "raf", partner_ns={4, 8})
    assert all(t.trials == 0 and "shares only n=4,8" in t.wants for t in few)
