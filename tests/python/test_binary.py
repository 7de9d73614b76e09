"""The real binary end to end: a tiny `wordsens run`, then the reader and the report on it."""
import os
import re
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import REPORT
from tiny_encoder import write_tiny_encoder

from wordsens_analysis import read_results, rules
from wordsens_analysis.reading import schema
from wordsens_analysis.twins import CHECK_COLUMNS, check_witnesses

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


def run_study(tmp, config, *args, timeout=300):
    """`wordsens run CONFIG ARGS…` in the directory `tmp`, which must succeed."""
    assert os.access(BIN, os.X_OK), f"WORDSENS_BIN={BIN} is not an executable (build wordsens)"
    p = subprocess.run([BIN, "run", str(config), *args], capture_output=True, text=True,
                       timeout=timeout, env=env(), cwd=tmp)
    assert p.returncode == 0, f"wordsens run {args} failed ({p.returncode}): {p.stderr[-2000:]}"


def run(tmp, *args):
    run_study(tmp, tmp / "tiny.ini", *args)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("binary")
    (tmp / "tiny.ini").write_text(TINY)
    out = tmp / "tiny.h5"
    run(tmp, "--output", str(out), "--seed", "7", "--trials", str(TRIALS), "--overwrite",
        "--save-witness")
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
    res = read_results(tiny_run[1])
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


def test_every_witness_certifies_its_record(tiny_run):
    """S of every model from its witness to 1e-9; rf's S_upper from V (stored ≥ exact)."""
    res = read_results(tiny_run[1])
    rows = pd.DataFrame(check_witnesses(res.witnesses), columns=CHECK_COLUMNS)
    assert len(rows) == len(MODELS) * len(NS) * TRIALS
    assert (rows["rel_diff"] <= 1e-9).all(), rows.sort_values("rel_diff").tail()
    rf = rows[rows.model == "rf"]
    assert (rf["S_upper_stored"] >= rf["S_upper_recomputed"] * (1 - 1e-12)).all()
    assert (rf["rel_diff_upper"] <= 1e-6).all()


def test_report_on_a_real_file(tiny_run):
    tmp, path = tiny_run
    out = tmp / "report"
    p = subprocess.run(["/usr/bin/python3", REPORT, str(path), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    for name in ("report.md", "report.html", "verdicts.csv", "ws_vs_n.png", "gen_error.png",
                 "raf_witness_attention.png", "witness_check.csv"):
        assert (out / name).exists(), name
    assert "thm1_rf" in p.stdout and "thm3_raf" in p.stdout
    # d = 4 < n: Thm 3 is outside its regime here, and the report says so.
    verdicts = pd.read_csv(out / "verdicts.csv")
    thm3 = verdicts[verdicts["claim"] == "thm3_raf"].iloc[0]
    assert thm3["verdict"] == "inconclusive" and "n > d" in thm3["outside_regime"]


def test_default_study_decides_every_primary_claim(tmp_path):
    """jobs/configs/quick.ini at its own seed: every primary claim lands in its regime and gets
    the strongest verdict its evidence allows (confirmed; the softmax contrast, which no upper
    bound of raf_relu can certify, not refuted by the lower bound; the rf head's E, found by a
    search, supported by the search only, with what its fitted limit says of E tending to 4),
    every integrity check passes."""
    from conftest import ROOT
    from test_report import HEADLINE

    out = tmp_path / "quick.h5"
    run_study(tmp_path, os.path.join(ROOT, "jobs", "configs", "quick.ini"), "--output", str(out),
              "--progress", "600", timeout=1200)
    p = subprocess.run(["/usr/bin/python3", REPORT, str(out), "-o", str(tmp_path / "rep")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    first = p.stdout.splitlines()[0]
    m = HEADLINE.match(first)
    assert m and m.group(4) == "0" and m.group(5) == "0", first  # none contradicted/inconclusive
    assert m.group(6).startswith("all pass"), first
    v = pd.read_csv(tmp_path / "rep" / "verdicts.csv", keep_default_na=False)
    prim = v[v["kind"] == "primary"].set_index("claim")
    assert (prim["outside_regime"] == "").all(), prim["outside_regime"]
    expected = {"thm1_rf": "confirmed", "thm2_drf": "confirmed", "thm3_raf": "confirmed",
                "softmax_raf_relu": "not refuted (lower bound only)"}
    expected.update({f"thm45_rf[{t}]": "supported (search only)"
                     for t in ("finetune", "retrain")})
    expected.update({f"raf_gen[{t}]": "confirmed" for t in ("finetune", "retrain")})
    assert prim["verdict"].to_dict() == expected
    for t in ("finetune", "retrain"):
        reason = prim.loc[f"thm45_rf[{t}]", "reason"]
        assert "E tends to 4" in reason or "E tending to 4 is not claimed" in reason, reason


def test_witnesses_of_several_words_are_recomputed_in_numpy(tmp_path):
    """Every model with words = 1, 2, 3 and --save-witness: each S_m follows from its stored set,
    moves, text and weights in numpy (witness.py shares no code with the C++ maps), rf's bound
    over the examined sets too, and the report's witness check covers those rows."""
    from wordsens_analysis.twins import check_witnesses

    (tmp_path / "words.ini").write_text(
        "experiments = ws\nmodels = rf,drf,raf,raf_relu\nn = 6\nd = 3\nk = 1.0D\n"
        "words = 1,2,3\nword-sets = random:2\ntrials = 2\nmax-evals = 60\n")
    out = tmp_path / "words.h5"
    run_study(tmp_path, tmp_path / "words.ini", "--output", str(out), "--save-witness")
    res = read_results(out)
    several = [w for w in res.witnesses if w.words]
    assert len(several) == 4 * 2 * 2  # models × m ∈ {2, 3} × trials
    assert all(w.delta.shape == (len(w.words), 3) and len(w.sets) == 2 for w in several)
    checks = pd.DataFrame(check_witnesses(res.witnesses), columns=CHECK_COLUMNS)
    assert len(checks) == len(res.witnesses) == 4 * 3 * 2
    assert (checks["rel_diff"] <= 1e-9).all(), checks
    rf = checks[checks["model"] == "rf"]
    # The stored bound is certified from above, rounding included (several words: from a
    # single-precision Gram, a few 1e-6 relative above numpy's 2-norm).
    assert ((rf["S_upper_stored"] >= rf["S_upper_recomputed"])
            & (rf["rel_diff_upper"] <= 1e-4)).all(), rf
    # A witness whose moves are changed no longer reproduces its S: the check can fail.
    w = several[0]
    w.delta = w.delta * 0.5
    bad = pd.DataFrame(check_witnesses([w]), columns=CHECK_COLUMNS)
    assert bad["rel_diff"].iloc[0] > 1e-3


HEADS = """\
experiments = ws
models = rf,mhraf
n = 4,8
d = 8
k = 1.0D
positions = first
max-evals = 60
trials = 2
"""


def _drop_models_traits_of_1_10(f):
    """What a writer before 1.10 lacks: the traits format 1.10 added to /models, and /config
    (1.11)."""
    for column in schema.MODEL_COLUMNS_1_10:
        del f["models"][column]
    del f[schema.GROUP_CONFIG]


def _task_table_crc(f, without=()) -> int:
    """task_table_crc32 of the file's task table as it is stored, as its writer computed it;
    `without`: columns an older writer's table did not have (heads before format 1.8)."""
    from wordsens_analysis.reading import damage
    return damage.task_table_crc(f.attrs["config_text"],
                                 {c: f["tasks"][c][:] for c in f["tasks"] if c not in without})


def test_every_h_of_a_heads_grid_is_stored_and_its_witnesses_reproduce(tmp_path):
    """heads = 1,2: mhraf runs both H (rf one point), the reader joins H onto the records, and
    every witness recomputed by the numpy twin with its own task's H gives its stored S (with
    the other H it would not)."""
    (tmp_path / "heads.ini").write_text(HEADS)
    out = tmp_path / "heads.h5"
    run_study(tmp_path, tmp_path / "heads.ini", "--heads", "1,2", "--save-witness", "--output",
              str(out))
    res = read_results(out)
    assert sorted(res.ws.loc[res.ws["model"] == "mhraf", "heads"].unique()) == [1, 2]
    assert set(res.ws.loc[res.ws["model"] == "rf", "heads"]) == {1}
    mh = [w for w in res.witnesses if w.model == "mhraf"]
    assert len(mh) == 2 * 2 * 2 and {w.model_keys["heads"] for w in mh} == {"1", "2"}
    checks = pd.DataFrame(check_witnesses(res.witnesses), columns=CHECK_COLUMNS)
    assert (checks["rel_diff"] <= 1e-9).all(), checks
    swapped = [w for w in mh if w.model_keys["heads"] == "2"][:1]
    swapped[0].model_keys = dict(swapped[0].model_keys, heads="1")
    bad = pd.DataFrame(check_witnesses(swapped), columns=CHECK_COLUMNS)
    assert bad["rel_diff"].iloc[0] > 1e-6


def test_a_file_before_the_heads_column_reads_its_configurations_heads(tmp_path):
    """A file of format 1.7 (no /tasks/heads, its checksum without it): mhraf's tasks read
    with the configuration's one heads, rf's with 1, the file checks clean, and its witnesses
    still reproduce."""
    import h5py
    (tmp_path / "heads.ini").write_text(HEADS)
    out = tmp_path / "old.h5"
    run_study(tmp_path, tmp_path / "heads.ini", "--heads", "2", "--save-witness", "--output",
              str(out))
    with h5py.File(out, "r+") as f:
        for group in ("tasks", "summary/ws", "summary/gen"):
            del f[group]["heads"]
        _drop_models_traits_of_1_10(f)
        f.attrs["format_version"] = np.array([1, 7], dtype=np.int32)
        f.attrs["task_table_crc32"] = np.int64(_task_table_crc(f, without=("heads",)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no damage note
        res = read_results(out)
    assert res.format_version == (1, 7)
    heads = res.ws.groupby("model")["heads"].unique().to_dict()
    assert list(heads["mhraf"]) == [2] and list(heads["rf"]) == [1], heads
    checks = pd.DataFrame(check_witnesses(res.witnesses), columns=CHECK_COLUMNS)
    assert (checks["rel_diff"] <= 1e-9).all(), checks
    p = subprocess.run([BIN, "info", "--check", str(out)], capture_output=True, text=True,
                       env=env(), timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


MLP_WIDTH = """\
experiments = ws
models = mhraf,block
n = 4,8
d = 8
heads = 2
positions = first
max-evals = 60
trials = 2
"""


def test_every_mlp_width_of_the_block_is_a_point_and_its_witnesses_reproduce(tmp_path):
    """mlp-width = 2d,4d,12: block runs each width as a point of its own (its k in /tasks, W1 and
    W2 that wide), mhraf one point with k = 0, and every witness recomputed by the numpy twin
    from its own weights gives its stored S."""
    (tmp_path / "mlp.ini").write_text(MLP_WIDTH)
    out = tmp_path / "mlp.h5"
    run_study(tmp_path, tmp_path / "mlp.ini", "--mlp-width", "2d,4d,12", "--save-witness",
              "--output", str(out))
    res = read_results(out)
    assert sorted(res.ws.loc[res.ws["model"] == "block", "k"].unique()) == [12, 16, 32]
    assert set(res.ws.loc[res.ws["model"] == "mhraf", "k"]) == {0}
    block = [w for w in res.witnesses if w.model == "block"]
    assert len(block) == 3 * 2 * 2
    assert {w.arrays["W1"].shape for w in block} == {(8, 12), (8, 16), (8, 32)}
    checks = pd.DataFrame(check_witnesses(res.witnesses), columns=CHECK_COLUMNS)
    assert (checks["rel_diff"] <= 1e-9).all(), checks
    p = subprocess.run([BIN, "info", "--check", str(out)], capture_output=True, text=True,
                       env=env(), timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_file_before_the_mlp_width_reads_its_block_at_4d_and_checks_clean(tmp_path):
    """A file of format 1.8 stored 0 as block's k (its MLP was 4d wide) and computed its
    checksum over the 0: the reader gives the block k = 4d, its witnesses reproduce, `info
    --check` compares it with the plan of its configuration (which has no mlp-width) and finds
    it clean, and the same command resumes it as finished (it keeps 1.8). A 0 written into a
    file of this version is damage: the checksum covers the width. (Resuming a 1.8 file with
    block tasks left to run: tests/unit/io/mlp_width_column_test.cpp.)"""
    import h5py
    (tmp_path / "mlp.ini").write_text(MLP_WIDTH)
    old = tmp_path / "old.h5"
    run_study(tmp_path, tmp_path / "mlp.ini", "--output", str(old), "--save-witness")
    edited = tmp_path / "edited.h5"
    shutil.copy(old, edited)
    for path, as_1_8 in ((old, True), (edited, False)):
        with h5py.File(path, "r+") as f:
            for group in ("tasks", "summary/ws", "summary/gen"):
                if len(f[group]["k"]):
                    k = f[group]["k"][:]
                    k[f[group]["model"][:].astype(str) == "block"] = 0
                    f[group]["k"][:] = k
            if as_1_8:
                _drop_models_traits_of_1_10(f)
                f.attrs["format_version"] = np.array([1, 8], dtype=np.int32)
                f.attrs["task_table_crc32"] = np.int64(_task_table_crc(f))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no damage note
        res = read_results(old)
    assert res.format_version == (1, 8)
    assert set(res.tasks.loc[res.tasks["model"] == "block", "k"]) == {32}
    assert set(res.ws.loc[res.ws["model"] == "block", "k"]) == {32}
    checks = pd.DataFrame(check_witnesses(res.witnesses), columns=CHECK_COLUMNS)
    assert (checks["rel_diff"] <= 1e-9).all(), checks
    p = subprocess.run([BIN, "info", "--check", str(old)], capture_output=True, text=True,
                       env=env(), timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    run_study(tmp_path, tmp_path / "mlp.ini", "--output", str(old), "--save-witness")
    assert read_results(old).format_version == (1, 8)
    p = subprocess.run([BIN, "info", "--check", str(edited)], capture_output=True, text=True,
                       env=env(), timeout=120)
    assert p.returncode != 0 and "task_table_crc32" in p.stdout + p.stderr, p.stdout + p.stderr


def test_block_configs_judge_every_claim_beyond_the_paper(tmp_path):
    """jobs/configs/block.ini and block_causal.ini at their seed, cut for CI time (n <= 16, 6
    trials, 40 evaluations an ascent: what the verdicts are is the rules tests' business, here it
    is that the binary's files of these configurations reach them whole): the report over both
    has one extension row per claim beyond the paper and none for a claim of the paper about a
    masked model; every claim names its groups; nothing is contradicted (the claims hold); the
    block's decaying lower bound does not confirm Omega(1); its own report draws S against n for
    every model of the study; integrity passes."""
    from conftest import ROOT

    outs = []
    for name in ("block", "block_causal"):
        out = tmp_path / f"{name}.h5"
        run_study(tmp_path, os.path.join(ROOT, "jobs", "configs", f"{name}.ini"), "--n", "4,8,16",
                  "--trials", "6", "--max-evals", "40", "--budget-check", "0", "--output",
                  str(out), "--progress", "600", timeout=900)
        outs.append(str(out))
    p = subprocess.run(["/usr/bin/python3", REPORT, *outs, "-o", str(tmp_path / "rep")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    v = pd.read_csv(tmp_path / "rep" / "verdicts.csv", keep_default_na=False)
    ext = v[v["kind"] == "extension"].set_index("claim")["verdict"].to_dict()
    assert sorted(ext) == sorted(["ext_raf_v", "ext_mhraf", "ext_block", "ext_residual",
                                  "ext_heads_mhraf", "ext_heads_block", "ext_causal_raf",
                                  "ext_causal_block"]), ext
    assert "contradicted" not in ext.values(), ext
    assert ext["ext_block"] not in rules.POSITIVE, ext
    groups = v[(v["kind"] == "secondary") & v["claim"].str.contains("/")]["claim"]
    named = set(groups.str.split("/").str[0])
    assert set(ext) <= named, (set(ext) - named, list(groups))
    models = set(v.loc[v["kind"] == "extension", "model"])
    assert {"raf/causal", "block/causal"} <= models, models
    assert (v.loc[v["kind"] == "integrity", "verdict"] != "FAIL").all()
    p = subprocess.run(["/usr/bin/python3", REPORT, outs[0], "-o", str(tmp_path / "one")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "one" / "ws_vs_n.png").exists()
    md = (tmp_path / "one" / "report.md").read_text()
    assert "Claims beyond the paper" in md


def test_multiword_config_judges_every_group_of_its_claims(tmp_path):
    """jobs/configs/multiword.ini at its own seed, at d = 8, 6 trials and 40 evaluations an
    ascent (CI time): the run stores S_m for m = 2, 4, 8; the report draws S_m against m/n,
    summarises it per (point, m) and judges every claim per group, and the configuration's grid
    gives every group what it is judged over (three values of m at every n, three of n at its
    fraction): no group is open for want of points. No claim is contradicted (they hold);
    integrity passes."""
    from conftest import ROOT

    out = tmp_path / "multiword.h5"
    run_study(tmp_path, os.path.join(ROOT, "jobs", "configs", "multiword.ini"), "--d", "8",
              "--trials", "6", "--max-evals", "40", "--output", str(out), "--progress", "600",
              timeout=900)
    res = read_results(out)
    assert set(res.multi_word["words"]) == {2, 4, 8} and (res.ws["words"] == 1).all()
    p = subprocess.run(["/usr/bin/python3", REPORT, str(out), "-o", str(tmp_path / "rep")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    for name in ("multi_word.png", "multi_word_summary.csv"):
        assert (tmp_path / "rep" / name).exists(), name
    v = pd.read_csv(tmp_path / "rep" / "verdicts.csv", keep_default_na=False)
    prim = v[v["kind"].isin(["primary", "extension"])].set_index("claim")["verdict"].to_dict()
    mw = [c for c in prim if c.startswith("mw_")]
    assert sorted(mw) == ["mw_rf_fraction", "mw_rf_sqrt_m"], prim  # beyond the paper
    assert (v.loc[v["claim"].isin(mw), "kind"] == "extension").all()
    assert not any(prim[c] == "contradicted" for c in mw), prim
    groups = v[(v["kind"] == "secondary") & v["claim"].str.contains("/")]
    for claim, count in (("mw_rf_sqrt_m", 3), ("mw_rf_fraction", 1)):
        mine = groups[groups["claim"].str.split("/").str[0] == claim]
        assert len(mine) == count, (claim, list(groups["claim"]))
        assert not mine["reason"].str.contains("value(s) of", regex=False).any(), \
            mine[["claim", "reason"]].to_string()
    assert prim["thm1_rf"] != "contradicted", prim
    assert (v.loc[v["kind"] == "integrity", "verdict"] != "FAIL").all()


LIVE = """\
experiments = ws
models = raf
n = 40,80
d = 8
trials = 40
"""


def test_reading_a_live_run_then_killing_it(tmp_path):
    """Read the file while `wordsens run` writes it, kill -9 the run, read and report again."""
    import signal
    import time

    (tmp_path / "live.ini").write_text(LIVE)
    out = tmp_path / "live.h5"
    assert os.access(BIN, os.X_OK), f"WORDSENS_BIN={BIN} is not an executable (build wordsens)"
    proc = subprocess.Popen([BIN, "run", str(tmp_path / "live.ini"), "--output", str(out),
                             "--overwrite"], env=env(), cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        res = None
        while time.time() < deadline and proc.poll() is None:
            time.sleep(0.2)
            if not out.exists():
                continue
            try:
                with warnings.catch_warnings():  # rows half-appended at this instant: expected
                    warnings.simplefilter("ignore")
                    res = read_results(out)
            except Exception:  # the file may not be created yet (renamed into place)
                continue
            if res.done >= 2:
                break
        if proc.poll() is not None:
            pytest.skip("the run finished before it could be read live (machine too fast)")
        assert res is not None and res.done >= 2, "no record appeared within 120 s"
        assert not res.complete and len(res.ws) == res.done <= res.planned == 80
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # orphan rows of the killed append are expected
        after = read_results(out)  # the killed writer's file, flags still set
    assert len(after.ws) == after.done >= res.done and not after.complete
    p = subprocess.run(["/usr/bin/python3", REPORT, str(out), "-o", str(tmp_path / "rep")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "PARTIAL" in (tmp_path / "rep" / "report.md").read_text()


def test_reader_on_merged_shards(tiny_run):
    """Two shards of the tiny study, merged: the reader sees the unsharded run's records."""
    tmp, whole = tiny_run
    shards = []
    for i in (0, 1):
        out = tmp / f"shard{i}.h5"
        run(tmp, "--output", str(out), "--seed", "7", "--trials", str(TRIALS), "--overwrite",
            "--save-witness", f"--shard={i}/2")
        shards.append(str(out))
    total = 2 * len(MODELS) * len(NS) * TRIALS
    done = [read_results(path).done for path in shards]
    assert all(0 < n < total for n in done) and sum(done) == total
    merged = tmp / "merged.h5"
    p = subprocess.run([BIN, "merge", *shards, "-o", str(merged)], capture_output=True,
                       text=True, timeout=120, env=env())
    assert p.returncode == 0, p.stderr
    a, b = read_results(whole), read_results(merged)
    assert b.complete and "merged_from" in b.attrs
    cols = ["task_id", "S", "S_upper", "argmax_position", "model", "n", "trial"]
    pd.testing.assert_frame_equal(a.ws.sort_values("task_id")[cols].reset_index(drop=True),
                                  b.ws.sort_values("task_id")[cols].reset_index(drop=True))
    assert len(b.gen) == len(a.gen) and len(b.witnesses) == len(a.witnesses)


def test_file_summaries_match_the_python_statistics(tiny_run):
    """/summary/ws and /summary/gen (written by C++) equal stats.summarize on the rows."""
    from wordsens_analysis.rules import stats

    res = read_results(tiny_run[1])
    point = ["model", "n", "d", "k", "N", "layers"]
    for table, summary, value, extra in ((res.ws, res.summary_ws, "S", []),
                                         (res.gen, res.summary_gen, "E",
                                          ["training", "objective"])):
        mine = stats.summarize(table, point + extra, value)
        theirs = summary.rename(columns={f"{value}_{s}": s for s in
                                         ("mean", "std", "sem", "median", "q05", "q95")})
        both = mine.merge(theirs, on=point + extra, suffixes=("", "_file"))
        assert len(both) == len(mine) == len(summary) > 0
        for s in ("count", "mean", "std", "sem", "median", "q05", "q95"):
            np.testing.assert_allclose(both[s].astype(float), both[f"{s}_file"].astype(float),
                                       rtol=1e-12, err_msg=f"{value} {s}")


def catalogue_models():
    """The models the binary knows, from its own refusal of an unknown one (never a list kept
    here: a model added to the C++ catalogue is checked below without touching this file)."""
    p = subprocess.run([BIN, "run", "--models", "no_such_model", "--dry-run"], capture_output=True,
                       text=True, timeout=60, env=env())
    match = re.search(r"expected one of ([\w,]+)\)", p.stderr)
    assert p.returncode == 2 and match, p.stderr
    return match.group(1).split(",")


def accepts_causal(tmp_path, model, keys):
    """Whether `wordsens run --dry-run` takes `model` under mask = causal (exit 0) or refuses it
    (exit 2, one line)."""
    ini = tmp_path / f"causal_{model}.ini"
    ini.write_text(f"models = {model}\nn = 5\nd = 3\nheads = 1\nmask = causal\n" + keys)
    p = subprocess.run([BIN, "run", str(ini), "--dry-run"], capture_output=True, text=True,
                       timeout=60, env=env(), cwd=tmp_path)
    assert p.returncode in (0, 2), p.stderr
    assert p.returncode == 0 or len(p.stderr.strip().splitlines()) == 1, p.stderr
    return p.returncode == 0


def test_every_model_of_the_catalogue_has_its_analysis_pieces(tmp_path):
    """Each model wordsens knows has what the analysis needs of it: a plot style of its own, its
    weights in the file with its witness (stored_weights), and a numpy twin that recomputes its
    S from them (its entry in model_pieces.py). A model added to the C++ catalogue without one of
    these fails here, where it would otherwise be drawn in black, or its witness check silently
    skipped."""
    from wordsens_analysis.twins import PIECES

    models = catalogue_models()
    assert {"rf", "drf", "raf", "raf_relu"} <= set(models)
    # The models of a pretrained encoder's layer read this one (ignored by the others).
    encoder = write_tiny_encoder(tmp_path / "encoder", d=3, heads=3)
    encoder_keys = f"encoder = {encoder}\nencoder-layer = 2\n"
    assert [m for m in models if m not in PIECES] == [], "a model without its analysis pieces"
    styles = [tuple(sorted(PIECES[m].style.items())) for m in models]
    assert all(PIECES[m].style.get("color") and PIECES[m].style.get("marker") for m in models)
    assert len(set(styles)) == len(styles), "two models drawn alike"
    # Every model as configured by default, then every attention model under the causal mask
    # (the twins read heads and mask from the file's configuration).
    # … and block's MLP with GELU (its twin takes the file's activation).
    runs = [("3", "none", models), ("3", "none gelu", ["block"])]
    while runs:
        heads, mask, run_models = runs.pop(0)
        mask, _, act = mask.partition(" ")
        act = act or "relu"
        ini = tmp_path / f"all_{mask}_{act}.ini"
        ini.write_text(
            f"experiments = ws\nmodels = {','.join(run_models)}\nn = 5\nd = 3\nk = 1.0D\n"
            f"layers = 2\nheads = {heads}\nmask = {mask}\nactivation = {act}\ntrials = 1\n"
            "max-evals = 40\n" + encoder_keys)
        out = tmp_path / f"all_{mask}_{act}.h5"
        run_study(tmp_path, ini, "--output", str(out), "--save-witness")
        res = read_results(out)
        by_model = {w.model: w for w in res.witnesses}
        assert sorted(by_model) == sorted(run_models)
        for model, w in by_model.items():
            weights = set(w.arrays) - {schema.WITNESS_X, schema.WITNESS_DELTA,
                                       schema.WITNESS_DELTA_WORDS}
            assert weights, f"{model}: no weights stored with its witness"
        checks = pd.DataFrame(check_witnesses(res.witnesses, act), columns=CHECK_COLUMNS)
        assert sorted(checks["model"]) == sorted(run_models), "a model without a numpy twin"
        assert (checks["rel_diff"] <= 1e-9).all(), (mask, checks)
        if mask == "none" and act == "relu":
            attention = [m for m in models if res.catalogue.is_attention(m)]  # as /models says
            # … those the mask applies to: the binary refuses it for the others (an encoder's
            # layer attends both ways) before anything runs.
            causal = [m for m in attention if accepts_causal(tmp_path, m, encoder_keys)]
            assert len(causal) >= 2
            runs.append(("1", "causal", causal))


def chunks_beyond_one_page(path):
    """The chunks of `path` that a single write could tear: any not within one 4 KB page."""
    import h5py
    problems, counts = [], {}
    with h5py.File(path, "r") as f:
        plist = f.id.get_create_plist()
        if plist.get_file_space_strategy()[0] != h5py.h5f.FSPACE_STRATEGY_PAGE or \
                plist.get_file_space_page_size() != 4096:
            problems.append("file space is not paged in 4 KB pages")

        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset) or obj.chunks is None:
                return
            counts[name] = obj.id.get_num_chunks()
            for i in range(counts[name]):
                c = obj.id.get_chunk_info(i)
                if c.size > 4096 or c.byte_offset // 4096 != (c.byte_offset + c.size - 1) // 4096:
                    problems.append(f"{name} chunk {i}: {c.size} bytes at {c.byte_offset}")
        f.visititems(visit)
    return problems, counts


def test_every_chunk_is_written_as_one_page(tmp_path):
    """A kill -9 can tear a write between two pages, never within one. Every chunk (a column's
    unit of writing, with its checksum) of a written and of a merged file lies in one page, so a
    killed writer never leaves a chunk half old, half new, failing its checksum with every record
    it held (it did, with 8 KB and 128 KB chunks)."""
    (tmp_path / "many.ini").write_text("experiments = ws\nmodels = rf\nn = 4\nd = 4\nk = 1.0D\n"
                                       "trials = 1100\nmax-evals = 10\n")
    out, merged = tmp_path / "many.h5", tmp_path / "merged.h5"
    run_study(tmp_path, tmp_path / "many.ini", "--output", str(out), "--save-witness")
    p = subprocess.run([BIN, "merge", str(out), "-o", str(merged)], capture_output=True,
                       text=True, timeout=120, env=env())
    assert p.returncode == 0, p.stderr
    for path in (out, merged):
        problems, counts = chunks_beyond_one_page(path)
        assert not problems, f"{path.name}: {problems[:5]}"
        # The case that tore: columns and flat arrays of several chunks, rewritten in place.
        for name in ("tasks/task_id", "ws/S", "ws/witness_values", "witness/values"):
            assert counts[name] > 1, f"{path.name}: {name} has {counts[name]} chunk(s)"
