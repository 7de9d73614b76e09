"""A referee feeds the rules tables where a claim is false, built in the reader's own layout: none
may give a positive verdict. And tables where the claim holds: the rule must confirm it (a rule
that never confirms cannot fail either)."""
import numpy as np
import pandas as pd
import pytest
from referee import Study, file_tables, judge, row

from wordsens_analysis import rules
from wordsens_analysis.claims import verdicts
from wordsens_analysis.rules import tolerances

NS = (8, 16, 32, 64)
POSITIVE = set(rules.POSITIVE)


def rf_bound(level=1.6):
    """rf's certified bound at k = D: √2·(1 + √(d/k))/√n, the factor 1 + 1/√n."""
    return lambda n, t: level * n ** -0.5 * (1 + 1 / np.sqrt(n))


def rf_like(n, t):
    return 1.2 * n ** -0.5 * (1 + 1 / np.sqrt(n)) / 1.3


def with_rf(study, d, ns=NS):
    return study.ws_group("rf", d, ns, S=rf_like, upper=rf_bound())


def primary_verdicts(t):
    return t[t["kind"] == rules.PRIMARY].set_index("claim")["verdict"].to_dict()


# --- every group judged --------------------------------------------------------------------------

def test_thm1_with_one_d_flat_and_one_steep_is_not_confirmed():
    # Averaged per trial, n^−0.15 and n^−0.85 look like n^−1/2.
    s = Study().ws_group("rf", 64, NS, S=(1.0, -0.15), upper=(1.5, -0.15))
    s.ws_group("rf", 128, NS, S=(1.0, -0.85), upper=(1.5, -0.85))
    t = judge(s)
    r = row(t, "thm1_rf")
    assert r["verdict"] == rules.CONTRADICTED, r["reason"]
    assert "d=64" in r["reason"]
    assert row(t, "thm1_rf/d=64,k=1D")["verdict"] == rules.CONTRADICTED
    assert row(t, "thm1_rf/d=128,k=1D")["verdict"] == rules.CONFIRMED


def test_thm1_with_one_group_only_inconclusive_says_which():
    s = Study().ws_group("rf", 64, NS, S=(1.0, -0.3), upper=(1.5, -0.3))
    s.ws_group("rf", 128, NS, S=rf_like, upper=rf_bound())
    r = row(judge(s), "thm1_rf")
    assert r["verdict"] == rules.INCONCLUSIVE
    assert "confirmed for d=128,k=1D" in r["reason"]
    assert "inconclusive for d=64,k=1D" in r["reason"]


def test_thm2_for_every_depth():
    s = Study().ws_group("drf", 64, NS, S=(1.0, -0.2), upper=(1.5, -0.2), layers=8)
    s.ws_group("drf", 64, NS, S=(1.0, -0.7), upper=(1.5, -0.7), layers=2)
    r = row(judge(s), "thm2_drf")
    assert r["verdict"] not in POSITIVE and "L=8" in r["reason"]


def test_thm3_decaying_at_one_d_flat_at_another_is_not_confirmed():
    s = Study().ws_group("raf", 64, NS, S=(2.0, 0.0)).ws_group("raf", 128, NS, S=(2.0, -0.5))
    with_rf(with_rf(s, 64), 128)
    t = judge(s)
    r = row(t, "thm3_raf")
    assert r["verdict"] == rules.INCONCLUSIVE and "d=128" in r["reason"]
    assert row(t, "thm3_raf/d=64,k=1D")["verdict"] == rules.CONFIRMED


def test_several_words_groups_that_each_contradict_are_not_averaged():
    # n = 64, two d: S_m ∝ m^0.9 (grows too fast) and S_m ∝ m^0.1 with a bound ∝ m^0.1
    # (grows too slowly); their mean slope is 1/2.
    rows = []
    rng = np.random.default_rng(1)
    for d, slope in ((8, 0.9), (16, 0.1)):
        for t in range(12):
            for m in (1, 2, 4, 8):
                s = 0.3 * m ** slope * np.exp(0.02 * rng.standard_normal())
                rows.append(dict(task_id=len(rows), model="rf", n=64, d=d, k=64 * d, layers=1,
                                 N=0, words=m, trial=t, S=s, S_upper=1.3 * s))
    df = pd.DataFrame(rows)
    t = verdicts.judge_frames(df[df["words"] == 1], pd.DataFrame(), None, df[df["words"] > 1])
    r = row(t, "mw_rf_sqrt_m")
    assert r["verdict"] == rules.CONTRADICTED, r["reason"]
    group_rows = t[t["claim"].str.startswith("mw_rf_sqrt_m/")].set_index("claim")["verdict"]
    # m^0.9 lifts the lower bound above any certified bound's ceiling at m = 8: refuted by a
    # level; m^0.1 under a bound over the examined sets only: that bound refutes nothing, and
    # the lower bound's slope does not confirm the lower part.
    assert group_rows.to_dict() == {"mw_rf_sqrt_m/n=64,d=8,k=512": rules.CONTRADICTED,
                                    "mw_rf_sqrt_m/n=64,d=16,k=1024": rules.INCONCLUSIVE}


# --- tolerances that match the theorem -----------------------------------------------------------

@pytest.mark.parametrize("k_of", [None, lambda n, d: 512], ids=["k=D", "k=512"])
def test_a_bound_decaying_like_n_to_the_minus_0_40_does_not_confirm(k_of):
    s = Study(trials=20).ws_group("rf", 64, NS, S=(1.0, -0.40), upper=(1.5, -0.40), k_of=k_of)
    r = row(judge(s), "thm1_rf")
    assert r["verdict"] not in POSITIVE, r["reason"]


def test_delta_is_the_bounds_own_drift():
    ns = np.array(NS)
    # k fixed: only the maximum over the n blocks can grow with n; k = D: the bound falls faster.
    fixed = tolerances.bound_drift(ns, 64, [512] * 4)
    assert 0.0 < fixed < 0.1
    assert tolerances.bound_drift(ns, 64, 64 * ns) == 0.0
    # The drift shrinks as the blocks widen (a larger k concentrates their norms).
    assert tolerances.bound_drift(ns, 64, [8192] * 4) < fixed
    r = row(judge(Study().ws_group("rf", 64, NS, S=rf_like, upper=rf_bound())), "thm1_rf")
    assert r["verdict"] == rules.CONFIRMED and "δ = 0.000" in r["tests"]


# --- Ω(1) has a level ----------------------------------------------------------------------------

def test_raf_decaying_like_n_to_the_minus_0_1_is_not_flat():
    s = with_rf(Study(trials=20).ws_group("raf", 64, NS, S=(2.0, -0.1)), 64)
    r = row(judge(s), "thm3_raf")
    assert r["verdict"] == rules.INCONCLUSIVE and "slope of log S_raf" in r["reason"]


def test_raf_flat_below_rf_is_not_confirmed():
    s = with_rf(Study().ws_group("raf", 64, NS, S=(0.2, 0.0)), 64)
    r = row(judge(s), "thm3_raf")
    assert r["verdict"] == rules.INCONCLUSIVE and "S_raf/S_upper,rf" in r["reason"]


def test_raf_without_rf_on_the_same_texts_is_not_confirmed():
    r = row(judge(Study().ws_group("raf", 64, NS, S=(2.0, 0.0))), "thm3_raf")
    assert r["verdict"] == rules.INCONCLUSIVE and "certified bound" in r["reason"]


def test_raf_flat_and_high_is_confirmed():
    r = row(judge(with_rf(Study().ws_group("raf", 64, NS, S=(2.0, 0.0)), 64)), "thm3_raf")
    assert r["verdict"] == rules.CONFIRMED, r["reason"]


# --- the softmax contrast ------------------------------------------------------------------------

def test_relu_as_high_as_raf_is_never_positive_nor_contradicted_by_two_lower_bounds():
    s = Study().ws_group("raf", 64, NS, S=(2.0, 0.0)).ws_group("raf_relu", 64, NS, S=(2.6, 0.0))
    r = row(judge(s), "softmax_raf_relu")
    assert r["verdict"] == rules.INCONCLUSIVE, r["reason"]


def test_relu_on_its_floor_below_raf_is_at_most_not_refuted():
    s = Study().ws_group("raf", 64, NS, S=(2.0, 0.0)).ws_group("raf_relu", 64, NS, S=(0.6, 0.0))
    r = row(judge(s), "softmax_raf_relu")
    assert r["verdict"] == rules.NOT_REFUTED_LB, r["reason"]


def test_relu_decay_is_shown_beyond_its_floor_only_and_never_judged():
    ns = (8, 16, 32, 64, 128, 256)
    s = Study().ws_group("raf", 32, ns, S=(2.0, 0.0)).ws_group("raf_relu", 32, ns, S=(3.0, -0.5))
    t = judge(s)
    decay = row(t, "relu_decay[d=32]")
    assert decay["verdict"] == rules.SHOWN and decay["n_used"] == "64,128,256"
    assert decay["estimate"] == pytest.approx(-0.5, abs=0.05)
    flat = judge(Study().ws_group("raf", 32, ns, S=(2.0, 0.0))
                 .ws_group("raf_relu", 32, ns, S=(0.6, 0.0)))
    assert row(flat, "relu_decay[d=32]")["verdict"] == rules.SHOWN


# --- no silent drops -----------------------------------------------------------------------------

def test_the_largest_n_with_4_of_10_trials_is_named():
    s = Study(trials=10).ws_group("rf", 64, NS, S=rf_like, upper=rf_bound(), shortfall=4)
    r = row(judge(s), "thm1_rf")
    assert r["verdict"] == rules.INCONCLUSIVE
    assert "n=64 has 4 of 10 trials done" in r["reason"]


def test_a_grid_the_user_restricted_misses_nothing():
    s = Study(trials=10).ws_group("rf", 64, NS[:3], S=rf_like, upper=rf_bound())
    assert row(judge(s), "thm1_rf")["verdict"] == rules.CONFIRMED


def test_a_group_with_too_few_n_in_the_regime_keeps_the_claim_open():
    s = with_rf(Study().ws_group("raf", 64, NS, S=(2.0, 0.0)), 64)
    s.ws_group("raf", 8, NS, S=(2.0, -0.5))  # n ≤ d = 8 only at n = 8
    t = judge(s)
    r = row(t, "thm3_raf")
    assert r["verdict"] == rules.INCONCLUSIVE, r["reason"]
    assert "only 1 value(s) of n in the regime" in r["reason"] and "d=8" in r["reason"]
    assert row(t, "thm3_raf/d=64,k=1D")["verdict"] == rules.CONFIRMED


# --- the heads' evidence kind --------------------------------------------------------------------

@pytest.mark.parametrize("limit", [1.5, 2.0, 2.5])
def test_E_levelling_off_below_4_is_never_confirmed_nor_claimed_to_tend_to_4(limit):
    ns = (8, 16, 32, 64, 128)
    s = Study().gen_group("rf", 64, ns, lambda n: limit - (limit - 1.2) * np.sqrt(8 / n))
    t = judge(s)
    r = row(t, "thm45_rf[finetune]")
    assert r["verdict"] != rules.CONFIRMED
    assert "not claimed" in r["reason"] and "E tends to 4:" not in r["reason"]


def test_E_tending_to_4_from_three_n_is_supported_by_the_search_only():
    s = Study().gen_group("rf", 64, (8, 16, 32, 64), lambda n: 4 - 3 * np.sqrt(8 / n))
    r = row(judge(s), "thm45_rf[finetune]")
    assert r["verdict"] == rules.SUPPORTED_SEARCH and "E tends to 4" in r["reason"]
    two = row(judge(Study().gen_group("rf", 64, (8, 16), lambda n: 4 - 3 * np.sqrt(8 / n))),
              "thm45_rf[finetune]")
    assert "not claimed" in two["reason"]


def test_a_head_fitted_to_the_wrong_label_fails_its_check():
    s = Study().gen_group("rf", 64, (8, 16, 32), lambda n: 3.0)
    ws, gen, tasks = s.frames()
    assert row(verdicts.judge_frames(ws, gen, tasks=tasks), "head_label[rf]")["verdict"] == rules.PASS
    gen.loc[gen.index[::2], "t1"] = -1.0  # fitted to −y: t1 = −y, E still against −y_Δ
    assert row(verdicts.judge_frames(ws, gen, tasks=tasks), "head_label[rf]")["verdict"] == rules.FAIL


# --- words, records and the sensitivity table ----------------------------------------------------

def test_no_verdict_says_supported_by_a_lower_bound():
    s = Study().ws_group("raf", 64, NS, S=(2.0, 0.0)).ws_group("raf_relu", 64, NS, S=(0.6, 0.0))
    words = set(judge(s)["verdict"])
    assert "supported (lower bound only)" not in words and rules.NOT_REFUTED_LB in words


def test_the_sensitivity_table_shows_a_verdict_hinging_on_the_window(tmp_path):
    from conftest import write_results
    from wordsens_analysis import read_results
    from wordsens_analysis.reading import build_studies

    # raf's slope −0.06: flat inside ±0.08, not inside ±0.04.
    s = with_rf(Study(trials=20, noise=0.005).ws_group("raf", 64, NS, S=(2.0, -0.06)), 64)
    ws, gen, tasks = s.frames()
    tables = file_tables(ws, tasks)
    res = read_results(write_results(tmp_path / "f.h5", *tables))
    studies, _, _ = build_studies([res])
    table = verdicts.judge_studies(studies)
    sens = verdicts.sensitivity(studies, "in this file", table).set_index("claim")
    assert list(sens.columns) == ["study", "as judged", "δ halved", "δ doubled", "n ≤ d/2",
                                  "n ≤ d", "all n"]
    assert sens.loc["thm3_raf", "as judged"] == rules.CONFIRMED
    assert sens.loc["thm3_raf", "δ halved"] == rules.INCONCLUSIVE


# --- beyond the paper: the transformer family and the causal mask ---------------------------------

def extension_verdicts(t):
    return t[t["kind"] == rules.EXTENSION].set_index("claim")["verdict"].to_dict()


@pytest.mark.parametrize("model", ["raf_v", "mhraf", "block"])
def test_a_model_beyond_the_paper_decaying_or_below_rf_is_not_confirmed(model):
    decays = judge(with_rf(Study(trials=20).ws_group(model, 64, NS, S=(2.0, -0.3)), 64))
    assert row(decays, f"ext_{model}")["verdict"] == rules.INCONCLUSIVE
    low = judge(with_rf(Study().ws_group(model, 64, NS, S=(0.2, 0.0)), 64))
    assert row(low, f"ext_{model}")["verdict"] == rules.INCONCLUSIVE
    high = judge(with_rf(Study().ws_group(model, 64, NS, S=(2.0, 0.0)), 64))
    r = row(high, f"ext_{model}")
    assert r["verdict"] == rules.CONFIRMED and r["kind"] == rules.EXTENSION, r["reason"]


def test_extension_rows_are_their_own_family_and_absent_without_their_model():
    paper_only = judge(with_rf(Study().ws_group("raf", 64, NS, S=(2.0, 0.0)), 64))
    assert not (paper_only["kind"] == rules.EXTENSION).any()
    both = judge(with_rf(Study().ws_group("raf", 64, NS, S=(2.0, 0.0))
                         .ws_group("block", 64, NS, S=(2.0, 0.0)), 64))
    # The paper's rows read as without the block: Holm's family is the paper's claims only.
    for claim in ("thm1_rf", "thm3_raf"):
        assert row(both, claim)["p_confirm_holm"] == row(paper_only, claim)["p_confirm_holm"]
    assert verdicts.headline(both) == verdicts.headline(paper_only)


def test_a_block_above_its_attention_never_confirms_nor_contradicts_the_residual_claim():
    above = Study().ws_group("mhraf", 64, NS, S=(1.0, 0.0)).ws_group("block", 64, NS, S=(1.5, 0.0))
    assert row(judge(above), "ext_residual")["verdict"] == rules.INCONCLUSIVE
    below = Study().ws_group("mhraf", 64, NS, S=(2.5, 0.0)).ws_group("block", 64, NS, S=(0.6, 0.0))
    assert row(judge(below), "ext_residual")["verdict"] == rules.NOT_REFUTED_LB
    alone = judge(Study().ws_group("block", 64, NS, S=(0.6, 0.0)))
    r = row(alone, "ext_residual")
    assert r["verdict"] == rules.INCONCLUSIVE and "mhraf" in r["reason"]


@pytest.mark.parametrize("model", ["raf", "block"])
def test_the_causal_claim_fails_where_the_last_word_counts_as_much(model):
    claim = f"ext_causal_{model}"
    holds = Study().ws_positions(model, 64, NS, first=(2.0, 0.0), last=(3.0, -0.5))
    assert row(judge(holds, mask="causal"), claim)["verdict"] == rules.NOT_REFUTED_LB
    same = Study(trials=20).ws_positions(model, 64, NS, first=(1.0, 0.0), last=(1.0, 0.0))
    assert row(judge(same, mask="causal"), claim)["verdict"] == rules.INCONCLUSIVE
    more = Study().ws_positions(model, 64, NS, first=(0.5, 0.0), last=(1.0, 0.0))
    assert row(judge(more, mask="causal"), claim)["verdict"] == rules.INCONCLUSIVE


def test_masked_and_unmasked_attention_are_never_read_for_each_other():
    s = with_rf(Study().ws_positions("raf", 64, NS, first=(2.0, 0.0), last=(0.5, -0.5)), 64)
    masked = judge(s, mask="causal")
    # The paper's Thm 3 does not read a causal raf: no raf records for it in this study.
    assert "no raf ws records" in row(masked, "thm3_raf")["reason"]
    assert row(masked, "ext_causal_raf")["model"] == "raf/causal"
    plain = judge(s)
    assert not plain["claim"].str.startswith("ext_causal").any()
    assert row(plain, "thm3_raf")["verdict"] in POSITIVE



# --- beyond the paper: the number of heads ----------------------------------------------------

def heads_study(model, levels, trials=12, missing=None, slope=0.0):
    """`model` at d = 64 over H = sorted(levels), S = levels[H]·n^slope on the same texts."""
    s = Study(trials=trials)
    for H, level in sorted(levels.items()):
        s.ws_group(model, 64, NS, S=(level, slope), heads=H,
                   missing=missing[1] if missing and missing[0] == H else ())
    return s


@pytest.mark.parametrize("model", ["mhraf", "block"])
def test_the_heads_claim_fails_where_more_heads_keep_as_much_or_more(model):
    claim = f"ext_heads_{model}"
    falls = row(judge(heads_study(model, {1: 3.8, 2: 3.2, 4: 2.8, 8: 2.6})), claim)
    assert falls["verdict"] == rules.NOT_REFUTED_LB and falls["kind"] == rules.EXTENSION
    flat = row(judge(heads_study(model, {1: 3.0, 2: 3.0, 4: 3.0}, trials=20)), claim)
    assert flat["verdict"] == rules.INCONCLUSIVE
    rises = row(judge(heads_study(model, {1: 2.0, 2: 2.5, 4: 3.0})), claim)
    assert rises["verdict"] == rules.INCONCLUSIVE  # two lower bounds never refute
    # A planned trial missing at one H leaves the group undecided, and says where.
    short = row(judge(heads_study(model, {1: 3.8, 4: 2.8}, missing=(4, [(NS[0], 0)]))), claim)
    assert short["verdict"] == rules.INCONCLUSIVE and "H=4" in short["reason"]
    # An H planned and never run is no less missing than one trial of it.
    never = heads_study(model, {1: 3.8, 2: 3.2, 4: 2.8},
                        missing=(4, [(n, t) for n in NS for t in range(12)]))
    r = row(judge(never), claim)
    assert r["verdict"] == rules.INCONCLUSIVE and "H=4" in r["reason"], r["reason"]


def test_a_study_with_one_value_of_h_has_no_heads_row():
    one = judge(heads_study("mhraf", {4: 2.8}))
    assert not one["claim"].str.startswith("ext_heads").any()
    assert row(one, "ext_mhraf")["kind"] == rules.EXTENSION


def test_omega_is_judged_per_h_and_never_pooled_over_the_heads():
    s = Study()
    s.ws_group("mhraf", 64, NS, S=(3.0, 0.0), heads=1)
    s.ws_group("mhraf", 64, NS, S=(3.0, -0.3), heads=4)  # decays at H = 4 only
    t = judge(with_rf(s, 64))
    r = row(t, "ext_mhraf")
    assert r["verdict"] == rules.INCONCLUSIVE and "decays at d=64,H=4" in r["reason"], r["reason"]
    assert row(t, "ext_mhraf/d=64,H=1,k=1D")["verdict"] == rules.CONFIRMED
    assert row(t, "ext_mhraf/d=64,H=4,k=1D")["verdict"] == rules.INCONCLUSIVE


def test_the_residual_claim_pairs_the_block_with_mhraf_of_the_same_h():
    s = Study()
    # Paired by H, the block is above its attention at H = 4: not in the claimed order there.
    # Paired with the wrong H (mhraf's H = 1, far higher), it would look below.
    s.ws_group("mhraf", 64, NS, S=(3.0, 0.0), heads=1).ws_group("mhraf", 64, NS, S=(0.5, 0.0),
                                                                heads=4)
    s.ws_group("block", 64, NS, S=(2.0, 0.0), heads=1).ws_group("block", 64, NS, S=(1.0, 0.0),
                                                                heads=4)
    t = judge(s)
    r = row(t, "ext_residual")
    assert r["verdict"] == rules.INCONCLUSIVE and "H=4" in r["reason"], r["reason"]
    assert row(t, "ext_residual/d=64,H=1")["verdict"] == rules.NOT_REFUTED_LB


def _never_run(ns=NS, trials=12):
    return [(n, t) for n in ns for t in range(trials)]


def test_a_planned_group_none_of_whose_tasks_ran_is_never_left_out():
    """A d (or an H) the task table plans and a partial run never reached makes its claim
    inconclusive, named, instead of the claim being judged on the groups that ran."""
    s = Study()
    s.ws_group("raf", 64, NS, S=(2.0, 0.0)).ws_group("raf", 128, NS, S=(2.0, 0.0),
                                                     missing=_never_run())
    r = row(judge(with_rf(with_rf(s, 64), 128)), "thm3_raf")
    assert r["verdict"] == rules.INCONCLUSIVE and "d=128: n=8 has 0 of 12" in r["reason"], \
        r["reason"]
    s = Study()
    s.ws_group("rf", 64, NS, S=(2.0, -0.5), upper=(4.0, -0.6))
    s.ws_group("rf", 128, NS, S=(2.0, -0.5), upper=(4.0, -0.6), missing=_never_run())
    r = row(judge(s), "thm1_rf")
    assert r["verdict"] == rules.INCONCLUSIVE and "d=128" in r["reason"], r["reason"]
    s = Study()
    s.ws_group("mhraf", 64, NS, S=(3.0, 0.0), heads=1)
    s.ws_group("mhraf", 64, NS, S=(3.0, 0.0), heads=4, missing=_never_run())
    t = judge(with_rf(s, 64))
    r = row(t, "ext_mhraf")
    assert r["verdict"] == rules.INCONCLUSIVE and "d=64,H=4" in r["reason"], r["reason"]
    # The heads claim is listed although only one H has records: two are planned.
    assert row(t, "ext_heads_mhraf")["verdict"] == rules.INCONCLUSIVE


# --- beyond the paper: the block's MLP width ----------------------------------------------------

def test_omega_of_the_block_is_judged_per_mlp_width_and_never_pooled():
    """A block flat at one MLP width and decaying at another: pooled over the widths, the mean
    slope would sit near −0.15 with both widths' trials; judged per width, the decaying one keeps
    the claim from being confirmed and is named."""
    s = Study()
    s.ws_group("block", 64, NS, S=(3.0, 0.0), heads=4, width=128)
    s.ws_group("block", 64, NS, S=(3.0, -0.3), heads=4, width=256)
    t = judge(with_rf(s, 64))
    r = row(t, "ext_block")
    assert r["verdict"] == rules.INCONCLUSIVE and "decays at d=64,mlp=256" in r["reason"], \
        r["reason"]
    assert row(t, "ext_block/d=64,mlp=128,k=1D")["verdict"] == rules.CONFIRMED
    assert row(t, "ext_block/d=64,mlp=256,k=1D")["verdict"] == rules.INCONCLUSIVE
    # One width: the groups are named as before, without the width.
    one = judge(with_rf(Study().ws_group("block", 64, NS, S=(3.0, 0.0), heads=4, width=256), 64))
    assert row(one, "ext_block")["verdict"] == rules.CONFIRMED
    assert row(one, "ext_block/d=64,k=1D")["verdict"] == rules.CONFIRMED


def test_the_residual_claim_pairs_every_mlp_width_with_the_same_attention():
    """At one width the block keeps more than its attention alone (contradicts), at the other
    less: pooled over widths, the mean log ratio would be below 0 and hide it."""
    s = Study().ws_group("mhraf", 64, NS, S=(1.0, 0.0), heads=4)
    s.ws_group("block", 64, NS, S=(1.3, 0.0), heads=4, width=64)
    s.ws_group("block", 64, NS, S=(0.2, 0.0), heads=4, width=512)
    r = row(judge(s), "ext_residual")
    assert r["verdict"] == rules.INCONCLUSIVE and "mlp=64" in r["reason"], r["reason"]
    below = Study().ws_group("mhraf", 64, NS, S=(1.0, 0.0), heads=4)
    below.ws_group("block", 64, NS, S=(0.5, 0.0), heads=4, width=64)
    below.ws_group("block", 64, NS, S=(0.2, 0.0), heads=4, width=512)
    assert row(judge(below), "ext_residual")["verdict"] == rules.NOT_REFUTED_LB


def test_the_heads_claim_of_the_block_is_judged_per_mlp_width():
    """More heads keep less of a word at one width and more at another: each width its own
    group, the rising one contradicts."""
    s = Study()
    for H, (narrow, wide) in {1: (3.8, 2.0), 2: (3.2, 2.5), 4: (2.8, 3.0)}.items():
        s.ws_group("block", 64, NS, S=(narrow, 0.0), heads=H, width=64)
        s.ws_group("block", 64, NS, S=(wide, 0.0), heads=H, width=256)
    t = judge(s)
    r = row(t, "ext_heads_block")
    assert r["verdict"] == rules.INCONCLUSIVE and "mlp=256" in r["reason"], r["reason"]
    assert row(t, "ext_heads_block/d=64,mlp=64")["verdict"] == rules.NOT_REFUTED_LB
    # A width the task table plans and that never ran is a shortfall, never left out.
    short = Study()
    for H, level in {1: 3.8, 2: 3.2, 4: 2.8}.items():
        short.ws_group("block", 64, NS, S=(level, 0.0), heads=H, width=64)
        short.ws_group("block", 64, NS, S=(level, 0.0), heads=H, width=256,
                       missing=_never_run())
    r = row(judge(short), "ext_heads_block")
    assert r["verdict"] == rules.INCONCLUSIVE and "mlp=256" in r["reason"], r["reason"]
