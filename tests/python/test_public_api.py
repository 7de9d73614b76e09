"""The public Python API (wordsens_analysis.api, docs/python-api.md): its verdict table is the
report's, and a verdict's statistic recomputed by hand from the records, with numpy and scipy
only, is the number in that table."""
import os
import re
import warnings

import numpy as np
import pytest
from scipy import stats

from conftest import ROOT, synthetic_tables, write_results

import wordsens_analysis as wa
from wordsens_analysis.claims import verdicts
from wordsens_analysis.reading import build_studies

DOC = os.path.join(ROOT, "docs", "python-api.md")


# One file judged once for the module: judging takes seconds, and no test changes them.
@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return write_results(tmp_path_factory.mktemp("api") / "synthetic.h5", *synthetic_tables())


@pytest.fixture(scope="module")
def results(synthetic):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return wa.load(synthetic)


@pytest.fixture(scope="module")
def judged(results):
    return wa.judge(results)


def end_of_design(ns):
    """The smallest final stretch of n spanning two doublings with at least 3 values (the rule's
    text, docs/VERDICT_RULES.md), written here again rather than imported."""
    ns = sorted(ns)
    return next((ns[j:] for j in range(len(ns) - 3, -1, -1) if ns[-1] >= 4 * ns[j]), ns)


def sign_p(values, bound, above):
    count = int((values > bound).sum() if above else (values < bound).sum())
    return stats.binomtest(count, len(values), 0.5, alternative="greater").pvalue


def primary(table, claim):
    rows = table[(table["kind"] == "primary") & (table["claim"] == claim)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_every_public_name_exists_has_a_docstring_and_is_documented():
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    for name in wa.__all__:
        if name == "__version__":
            continue
        obj = getattr(wa, name)
        assert (obj.__doc__ or "").strip(), f"{name} has no docstring"
        assert re.search(rf"`{re.escape(name)}\b", doc), f"{name} is not in docs/python-api.md"


def test_unknown_names_are_attribute_errors():
    with pytest.raises(AttributeError):
        wa.no_such_name  # noqa: B018


def test_table_is_the_reports(results, judged):
    studies, _, _ = build_studies([results])
    report = verdicts.judge_studies(studies, "in this file")  # what write_report writes
    assert list(judged.table.columns) == verdicts.COLUMNS
    assert judged.table.equals(report)
    assert wa.verdicts_table(results).equals(report)


def test_thm1_rf_recomputed_by_hand(results, judged):
    row = primary(judged.table, "thm1_rf")
    stat = judged.statistic("thm1_rf")
    assert stat.row["estimate"] == row["estimate"]
    rf = results.ws[(results.ws["model"] == "rf") & (results.ws["k"] >= results.ws["d"])]
    curves = rf.pivot(index="trial", columns="n", values="S_upper")
    end = end_of_design(curves.columns)
    assert end == [32, 64, 128]
    slopes = np.polyfit(np.log(end), np.log(curves[end].to_numpy().T), 1)[0]
    by_trial = stat.per_trial.sort_index().to_numpy()
    assert np.allclose(slopes, by_trial, rtol=1e-9, atol=1e-12)
    assert np.isclose(np.median(slopes), row["estimate"], rtol=1e-9, atol=1e-12)
    assert stat.confirm == ("below", -0.5)  # δ = 0: k grows with n
    assert np.isclose(sign_p(slopes, -0.5, above=False), row["p_confirm"], rtol=1e-9, atol=0)
    assert row["verdict"] == "confirmed"


def test_softmax_contrast_recomputed_by_hand(results, judged):
    row = primary(judged.table, "softmax_raf_relu")
    stat = wa.claim_statistic(results, "softmax_raf_relu")
    ws = results.ws[results.ws["n"] <= results.ws["d"]]  # the regime, n ≤ d
    raf = ws[ws["model"] == "raf"].pivot(index="trial", columns="n", values="S")
    relu = ws[ws["model"] == "raf_relu"].pivot(index="trial", columns="n", values="S")
    worst = np.log(raf / relu).min(axis=1)  # per trial, its smallest over n
    assert np.allclose(worst.to_numpy(), stat.per_trial.sort_index().to_numpy(), rtol=1e-9)
    assert np.isclose(np.median(worst), row["estimate"], rtol=1e-9, atol=1e-12)
    assert stat.confirm == ("above", 0.0)
    assert np.isclose(sign_p(worst.to_numpy(), 0.0, above=True), row["p_confirm"], rtol=1e-9,
                      atol=0)


def test_every_test_of_a_row(judged):
    tests = judged.statistics("thm3_raf")
    assert [t.label.split(" vs ")[0].split(" (")[0] for t in tests] == [
        "slope of log S_raf", "smallest over n of log(S_raf/S_upper,rf), per trial",
        "slope of log(S_raf/S_upper,rf)"]
    assert all(t.group == tests[0].group and t.axes["d"] == 64 for t in tests)


def test_names_a_row_it_cannot_find(judged):
    with pytest.raises(LookupError, match=r"thm45_rf\[finetune\]"):
        judged.statistic("thm45_rf")  # one row per training mode


def test_claim_table_lists_every_primary_claim(judged):
    ids = set(wa.claim_table()["id"])
    claimed = {c.split("[")[0] for c in judged.table.loc[judged.table["kind"] == "primary",
                                                         "claim"]}
    assert claimed <= ids
    reads = wa.claim_table().set_index("id")["reads"]
    assert reads["thm1_rf"] == "S, S_upper" and reads["thm3_raf"] == "S, rf:S_upper"


def test_load_of_several_files_gives_a_list(synthetic):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = wa.load([synthetic])
    assert isinstance(loaded, list) and isinstance(loaded[0], wa.Results)


def test_the_documents_example_runs(synthetic):
    with open(DOC, encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
    assert blocks, "docs/python-api.md has no python example"
    code = blocks[0].replace('"results/quick.h5"', repr(str(synthetic)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, DOC, "exec"), {})  # its own assertions compare with the table
