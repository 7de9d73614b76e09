"""The multi-word verdict rules (wordsens_analysis/multi_word.py): each one confirms its claim
on data where the claim holds and fails (contradicted, or inconclusive where a lower bound
cannot refute) on data where it does not."""
import numpy as np
import pandas as pd
import pytest

from wordsens_analysis import multi_word, rules, verdicts

RF_N = (32, 64, 128)
RAF_N = (8, 16, 32)


def frames(rf_m=0.5, rf_n=-0.5, raf_n=0.0, raf_m=0.5, upper=True, trials=10, seed=3,
           rf_words=(1, 2, 4, 8, 16)):
    """(ws, multi_word) like a study's: rf at d = 8, k = n·d with S_m = c·m^rf_m·n^rf_n, raf at
    d = 64 with S_m = c·n^raf_n·m^raf_m; 3 % log-normal noise per record, common per trial."""
    rng = np.random.default_rng(seed)
    rows = []
    task = 0
    for trial in range(trials):
        for n in RF_N:
            for m in rf_words:
                s = 0.3 * m ** rf_m * (n / 32) ** rf_n * np.exp(0.03 * rng.standard_normal())
                rows.append(dict(task_id=task, model="rf", n=n, d=8, k=8 * n, layers=1, N=0,
                                 words=m, trial=trial, S=s,
                                 S_upper=1.4 * s * np.exp(0.01 * rng.standard_normal())
                                 if upper else np.nan))
                task += 1
        for n in RAF_N:
            for m in (1, 2, 4):
                s = 0.8 * (n / 8) ** raf_n * m ** raf_m * np.exp(0.03 * rng.standard_normal())
                rows.append(dict(task_id=task, model="raf", n=n, d=64, k=0, layers=1, N=0,
                                 words=m, trial=trial, S=s, S_upper=np.nan))
                task += 1
    df = pd.DataFrame(rows)
    return df[df["words"] == 1].reset_index(drop=True), df[df["words"] > 1].reset_index(drop=True)


def verdict_of(ws, several, claim, fractions=(0.125,)):
    table = verdicts.judge_frames(ws, pd.DataFrame(), None, several, fractions)
    row = table[table["claim"] == claim]
    assert len(row) == 1, table["claim"].tolist()
    return row.iloc[0]


def test_the_square_root_law_supports_every_claim():
    ws, several = frames()
    for claim in ("mw_rf_sqrt_m", "mw_rf_fraction"):
        assert verdict_of(ws, several, claim)["verdict"] == rules.SUPPORTED_RESTRICTED, claim
    assert verdict_of(ws, several, "mw_raf_one_word")["verdict"] == rules.NOT_REFUTED_LB


def test_linear_growth_in_m_contradicts_the_square_root_law():
    # S_m = m/n: still flat at a fixed fraction, but the lower bound grows like m.
    ws, several = frames(rf_m=1.0, rf_n=-1.0)
    assert verdict_of(ws, several, "mw_rf_sqrt_m")["verdict"] == rules.CONTRADICTED
    assert verdict_of(ws, several, "mw_rf_fraction")["verdict"] == rules.SUPPORTED_RESTRICTED


def test_no_growth_in_m_is_contradicted_by_the_upper_bound():
    # S_m flat in m and decaying like 1/√n: the certified bound refutes both rf claims.
    ws, several = frames(rf_m=0.0, rf_n=-0.5)
    assert verdict_of(ws, several, "mw_rf_sqrt_m")["verdict"] == rules.CONTRADICTED
    assert verdict_of(ws, several, "mw_rf_fraction")["verdict"] == rules.CONTRADICTED


def test_without_an_upper_bound_the_rf_claims_are_supported_by_the_lower_bound_only():
    ws, several = frames(upper=False)
    row = verdict_of(ws, several, "mw_rf_sqrt_m")
    assert row["verdict"] == rules.NOT_REFUTED_LB and "no upper bound" in row["reason"]
    ws, several = frames(upper=False, rf_m=0.0)  # a flat lower bound cannot be refuted …
    assert verdict_of(ws, several, "mw_rf_sqrt_m")["verdict"] == rules.INCONCLUSIVE
    ws, several = frames(upper=False, rf_m=1.0, rf_n=-1.0)  # … a steep one can
    assert verdict_of(ws, several, "mw_rf_sqrt_m")["verdict"] == rules.CONTRADICTED


@pytest.mark.parametrize("raf_n, raf_m", [(-0.5, 0.5), (0.0, -0.3)])
def test_raf_lower_bounds_never_refute_but_do_not_support(raf_n, raf_m):
    # A decaying S_1, or S_m found below S_1: the searches' lower bounds cannot refute the claim.
    ws, several = frames(raf_n=raf_n, raf_m=raf_m)
    assert verdict_of(ws, several, "mw_raf_one_word")["verdict"] == rules.INCONCLUSIVE


def test_words_beyond_an_eighth_of_the_text_are_listed_not_used():
    ws, several = frames(rf_words=(1, 8, 32))  # m ≤ n/8 gives two values of m at most
    row = verdict_of(ws, several, "mw_rf_sqrt_m")
    assert row["verdict"] == rules.INCONCLUSIVE
    assert "m > n/8" in row["outside_regime"] and "n=32 m=8" in row["outside_regime"]


def test_a_study_without_a_fraction_does_not_judge_the_fraction_claim():
    ws, several = frames()
    row = verdict_of(ws, several, "mw_rf_fraction", fractions=())
    assert row["verdict"] == rules.INCONCLUSIVE and "no words-fraction" in row["reason"]


def test_files_without_several_words_get_no_multi_word_rows():
    ws, _ = frames()
    table = verdicts.judge_frames(ws, pd.DataFrame())
    assert not table["claim"].str.startswith("mw_").any()


def test_fractions_are_read_and_rounded_as_the_driver_plans_them():
    text = "seed = 1\nwords = 1,2\nwords-fraction = 0.125,0.3\nword-sets = first\n"
    assert multi_word.fractions_of(text) == [0.125, 0.3]
    assert multi_word.fractions_of("words-fraction = \n") == []
    assert multi_word.fractions_of(None) == []
    assert [multi_word.words_at_fraction(0.3, 10), multi_word.words_at_fraction(0.1, 25),
            multi_word.words_at_fraction(0.25, 8)] == [3, 3, 2]
