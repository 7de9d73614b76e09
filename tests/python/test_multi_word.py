"""The multi-word verdict rules (wordsens_analysis/claims/multi_word_claims.py): each one confirms
its claim on data where the claim holds and fails (contradicted, or inconclusive where a lower bound
cannot refute) on data where it does not."""
import numpy as np
import pandas as pd

from wordsens_analysis import rules
from wordsens_analysis.claims import multi_word_claims as multi_word, verdicts
from wordsens_analysis.reading import stored_config

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
        row = verdict_of(ws, several, claim)
        assert row["verdict"] == rules.SUPPORTED_RESTRICTED, (claim, row["reason"])
        assert row["kind"] == rules.EXTENSION  # beyond the paper: out of its count


def test_attentions_several_words_are_judged_once_by_thm_3():
    """raf's S_1 is Thm 3's own statistic, and S_m ≥ S_1 holds by the definition of the
    supremum: no multi-word claim measures it a second time."""
    ws, several = frames()
    table = verdicts.judge_frames(ws, pd.DataFrame(), None, several, (0.125,))
    assert not table["claim"].str.startswith("mw_raf").any()
    assert (table["claim"] == "thm3_raf").sum() == 1


def test_growth_faster_than_sqrt_m_is_never_positive():
    # S_m = m/n: still flat at a fixed fraction, but growing like m under a bound growing like m.
    ws, several = frames(rf_m=1.0, rf_n=-1.0)
    assert verdict_of(ws, several, "mw_rf_sqrt_m")["verdict"] == rules.INCONCLUSIVE
    assert verdict_of(ws, several, "mw_rf_fraction")["verdict"] == rules.SUPPORTED_RESTRICTED


def test_a_lower_bound_above_any_certified_ceiling_contradicts():
    # S_m = 0.3·m·(32/n)^½ reaches S_m·√(n/m) ≈ 4.8 at m = 16, n = 128: no certified bound on
    # 16 words obeying the theorem goes that high.
    ws, several = frames(rf_m=1.0, rf_n=-0.5)
    row = verdict_of(ws, several, "mw_rf_sqrt_m")
    assert row["verdict"] == rules.CONTRADICTED and "ceiling" in row["reason"], row["reason"]


def test_no_growth_in_m_is_never_positive_and_a_bound_over_examined_sets_refutes_nothing():
    # S_m flat in m and decaying like 1/√n: the lower parts fail; the bound, certified over the
    # examined word sets only, cannot refute a lower-bound claim (another set may move more).
    ws, several = frames(rf_m=0.0, rf_n=-0.5)
    for claim in ("mw_rf_sqrt_m", "mw_rf_fraction"):
        assert verdict_of(ws, several, claim)["verdict"] == rules.INCONCLUSIVE, claim


def test_without_an_upper_bound_the_rf_claims_are_not_refuted_at_most():
    ws, several = frames(upper=False)
    row = verdict_of(ws, several, "mw_rf_sqrt_m")
    assert row["verdict"] == rules.NOT_REFUTED_LB and "no upper bound" in row["reason"]
    ws, several = frames(upper=False, rf_m=0.0)  # a flat lower bound does not confirm …
    assert verdict_of(ws, several, "mw_rf_sqrt_m")["verdict"] == rules.INCONCLUSIVE
    ws, several = frames(upper=False, rf_m=1.0, rf_n=-0.5)  # … one above the ceiling refutes
    assert verdict_of(ws, several, "mw_rf_sqrt_m")["verdict"] == rules.CONTRADICTED


def test_the_fraction_claim_follows_the_law_where_rounding_moves_m_over_n():
    """At m = ⌈f·n⌉ the ratio m/n moves with the rounding (f = 0.3: m/n = 0.3, 0.35, 0.34 …);
    S_m following the law √(m/n)·(1 + √(m/n)) exactly is not a decay nor a growth."""
    rng = np.random.default_rng(5)
    rows = []
    for trial in range(12):
        effect = 0.02 * rng.standard_normal()
        for n in (10, 20, 23, 37, 50):
            for m in (1, multi_word.words_at_fraction(0.3, n)):
                r = m / n
                s = 0.7 * np.sqrt(r) * (1 + np.sqrt(r)) * np.exp(effect + 0.01 *
                                                                   rng.standard_normal())
                rows.append(dict(task_id=len(rows), model="rf", n=n, d=8, k=8 * n, layers=1,
                                 N=0, words=m, trial=trial, S=s, S_upper=1.4 * s))
    df = pd.DataFrame(rows)
    row = verdict_of(df[df["words"] == 1], df[df["words"] > 1], "mw_rf_fraction", (0.3,))
    assert row["verdict"] == rules.SUPPORTED_RESTRICTED, row["reason"]


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
    assert stored_config.config_of_text(text)["words-fraction"] == [0.125, 0.3]
    assert stored_config.config_of_text("words-fraction = \n")["words-fraction"] == []
    assert stored_config.value(stored_config.config_of_text(None), "words-fraction") == []
    assert [multi_word.words_at_fraction(0.3, 10), multi_word.words_at_fraction(0.1, 25),
            multi_word.words_at_fraction(0.25, 8)] == [3, 3, 2]
