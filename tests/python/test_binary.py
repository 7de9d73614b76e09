"""The real binary end to end: a tiny `wordsens run`, then the reader and the report on it."""
import os
import subprocess

import numpy as np
import pytest
from conftest import REPORT

from wordsens_analysis import read_results

BIN = os.environ.get("WORDSENS_BIN")
pytestmark = pytest.mark.skipif(
    not BIN, reason="WORDSENS_BIN is unset (ctest sets it to the built wordsens binary)")

TINY = """\
experiments = ws,gen
models = rf,raf
n = 6,9,12
d = 4
k = 1.0D
N = 5
max-evals = 60
"""
MODELS, NS, TRIALS = ("rf", "raf"), (6, 9, 12), 3


def env():
    e = dict(os.environ)
    e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return e


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("binary")
    (tmp / "tiny.ini").write_text(TINY)
    out = tmp / "tiny.h5"
    p = subprocess.run([BIN, "run", str(tmp / "tiny.ini"), "--output", str(out), "--seed", "7",
                        "--trials", str(TRIALS), "--overwrite", "--save-witness"],
                       capture_output=True, text=True, timeout=300, env=env(), cwd=tmp)
    assert p.returncode == 0, f"wordsens run failed ({p.returncode}): {p.stderr[-2000:]}"
    return tmp, out


def test_reader_on_a_real_file(tiny_run):
    _, path = tiny_run
    res = read_results(path)
    planned = 2 * len(MODELS) * len(NS) * TRIALS
    assert res.complete and res.planned == planned and res.format_version[0] == 1
    assert len(res.ws) == len(MODELS) * len(NS) * TRIALS
    assert len(res.gen) == len(MODELS) * len(NS) * TRIALS * 4  # training × objective
    assert set(res.ws["model"]) == set(MODELS) and sorted(res.ws["n"].unique()) == list(NS)
    assert (res.ws["S"] > 0).all()
    rf = res.ws[res.ws.model == "rf"]
    assert (rf["k"] == rf["n"] * rf["d"]).all()  # k = 1.0D resolved
    assert (rf["S"] <= rf["S_upper"] * (1 + 1e-9)).all()  # the certified bracket
    assert set(res.gen["training"]) == {"finetune", "retrain"}
    assert np.allclose(res.gen["E"], (res.gen["D1"] + res.gen["t1"]) ** 2, rtol=1e-6, atol=1e-9)
    assert int(res.attrs["master_seed"]) == 7


def test_raf_witness_recomputes_S(tiny_run):
    """Python recomputes S from the stored X, W and Δ*: an independent check of the C++ maps."""
    _, path = tiny_run
    res = read_results(path)
    raf = [w for w in res.witnesses if w.model == "raf"]
    assert len(raf) == len(NS) * TRIALS
    for w in raf:
        n, d = w.X.shape
        assert w.W.shape == (d, d) and w.delta.shape == (d,) and 0 <= w.position < n
        assert np.linalg.norm(w.delta) <= np.sqrt(d) * (1 + 1e-9)

        def phi(X):
            s = X @ w.W @ X.T / np.sqrt(d)
            a = np.exp(s - s.max(axis=1, keepdims=True))
            return (a / a.sum(axis=1, keepdims=True)) @ X

        Xp = w.X.copy()
        Xp[w.position] += w.delta
        S = np.linalg.norm(phi(Xp) - phi(w.X)) / np.linalg.norm(phi(w.X))
        assert S == pytest.approx(w.S, rel=1e-9)


def test_report_on_a_real_file(tiny_run):
    tmp, path = tiny_run
    out = tmp / "report"
    p = subprocess.run(["/usr/bin/python3", REPORT, str(path), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    for name in ("report.md", "report.html", "verdicts.csv", "ws_vs_n.png", "gen_error.png",
                 "raf_witness_attention.png"):
        assert (out / name).exists(), name
    assert "thm1_slope" in p.stdout and "thm3_slope" in p.stdout
