"""`jobs/reproduce_paper.sh` end to end with the real binary (WORDSENS_BIN, set by ctest):

- --dry-run lists every study with the binary's own task counts and predicted wall times;
- --tiny runs every study on shrunken grids and writes one combined report with all of them;
  a rerun continues (here: finds nothing left to do), a checkpointed run (exit 3) resumes;
- trials until decided (--max-trials): every claim with records decided, trials added only at
  the points of claims open at the previous look, a rerun that adds nothing, and the trials of a
  look equal, record for record, the same trials run at once;
- --slurm submits the jobs to a stand-in sbatch (fake_sbatch.py) that runs each job in order:
  arrays with their merge jobs, the report job after all of them; the merged records equal the
  local run's bit for bit, and a second submission skips the finished studies.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "analysis"))

from wordsens_analysis import claims, read_results, rules  # noqa: E402
from wordsens_analysis.claims import verdicts  # noqa: E402
from wordsens_analysis.reading import build_studies  # noqa: E402

SCRIPT = os.path.join(ROOT, "jobs", "reproduce_paper.sh")
BIN = os.environ.get("WORDSENS_BIN")
pytestmark = pytest.mark.skipif(
    not BIN, reason="WORDSENS_BIN is unset (ctest sets it to the built wordsens binary)")
STUDIES = ["paper_ws", "paper_ws_rf", "paper_ws_rf_bound", "paper_ws_drf", "paper_gen",
           "paper_glove_brown", "paper_minilm_brown", "paper_minilm_brown_l6", "regime_map",
           "multiword"]
CONFIG = {s: f"jobs/configs/{s}.ini" for s in STUDIES}


def env(**extra):
    e = dict(os.environ, WORDSENS_BIN=BIN, OMPI_ALLOW_RUN_AS_ROOT="1",
             OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", MPLBACKEND="Agg")
    e.update(extra)
    return e


def script(*args, timeout=600, **extra):
    return subprocess.run(["bash", SCRIPT, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env(**extra), cwd=ROOT)


def binary_dry_run(config, *args):
    p = subprocess.run([BIN, "run", config, "--dry-run", *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    tasks = int(re.search(r"^total: (\d+) tasks", p.stdout, re.M).group(1))
    walls = dict(re.findall(r"(\d+) cores? ([0-9hms]+);", p.stdout))
    return tasks, walls


def hms_seconds(text):
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text)
    h, mi, s = (int(g) if g else 0 for g in m.groups())
    return 3600 * h + 60 * mi + s


def dry_rows(stdout):
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if parts and parts[0] in STUDIES + ["glove_brown"]:
            rows[parts[0]] = parts
    return rows


def test_dry_run_lists_every_study_with_the_binarys_tasks_and_times():
    p = script("--dry-run", "--ranks", 4)
    assert p.returncode == 0, p.stderr
    rows = dry_rows(p.stdout)
    assert list(rows) == STUDIES
    total = 0
    for name, parts in rows.items():
        assert parts[1] == CONFIG[name]
        extra = []
        data = re.search(r"^data = embeddings:(\S+)", open(os.path.join(ROOT, CONFIG[name])).read(),
                         re.M)
        if data and not os.path.exists(os.path.join(ROOT, data.group(1))):
            extra = ["--data=synthetic"]
            assert "priced on synthetic texts" in " ".join(parts)
        tasks, walls = binary_dry_run(CONFIG[name], *extra)
        assert int(parts[2]) == tasks, name
        # the binary's own wall time on 4 cores, to the rounding of its per-point table and of
        # the printed durations (whole minutes from an hour on)
        mine, theirs = hms_seconds(parts[5]), hms_seconds(walls["4"])
        tol = max(2, 0.01 * theirs, 60 if theirs >= 3600 else 0)
        assert abs(mine - theirs) <= tol, (name, parts[5], walls["4"])
        total += tasks
    assert f"total: {total} tasks" in p.stdout
    # --trials reaches every study's dry run.
    p3 = script("--dry-run", "--trials", 3, "--only", "paper_ws,paper_gen")
    rows3 = dry_rows(p3.stdout)
    assert list(rows3) == ["paper_ws", "paper_gen"]
    assert int(rows3["paper_ws"][2]) == binary_dry_run(CONFIG["paper_ws"], "--trials=3")[0]


def test_slurm_dry_run_plans_arrays_where_a_study_does_not_fit_one_job():
    p = script("--dry-run", "--slurm", "--ranks", 4, "--slurm-hours", 1)
    assert p.returncode == 0, p.stderr
    rows = dry_rows(p.stdout)
    assert "glove_brown" in rows and "paper_glove_brown" not in rows  # full size on a cluster
    line = " ".join(rows["glove_brown"])
    assert rows["glove_brown"][1] == "jobs/configs/glove_brown.ini"
    m = re.search(r"array of (\d+) shards", line)
    assert m and int(m.group(1)) > 1, line
    assert "one job" in " ".join(rows["regime_map"])


@pytest.mark.parametrize("args,words", [
    (["--trials", "0"], "--trials must be a positive integer"),
    (["--only", "nosuch"], "no study named 'nosuch'"),
    (["--bogus"], "unknown argument"),
])
def test_bad_arguments_are_one_line_errors(args, words):
    p = script(*args, "--dry-run")
    assert p.returncode == 2 and words in p.stderr, p.stderr


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tiny")
    res, rep = tmp / "results", tmp / "report"
    p = script("--tiny", "--results", res, "--report", rep)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return tmp, res, rep, p


def records(path):
    r = read_results(path)
    cols = [c for c in ("task_id", "S", "S_upper", "argmax_position") if c in r.ws]
    ws = r.ws[cols].sort_values("task_id").reset_index(drop=True)
    gcols = ["task_id", "training", "objective", "E", "D1"]
    gen = r.gen[gcols].sort_values(gcols[:3]).reset_index(drop=True) if not r.gen.empty else None
    return ws, gen


def test_tiny_mode_runs_every_study_into_one_report(tiny):
    _, res, rep, p = tiny
    for s in STUDIES:
        r = read_results(res / f"{s}.h5")
        assert r.complete and 0 < r.planned <= 30, (s, r.done, r.planned)
        assert int(r.attrs["config_text"].split("trials = ")[1].split()[0]) == 1
    v = pd.read_csv(rep / "verdicts.csv", keep_default_na=False)
    prim = v[v["kind"] == rules.PRIMARY]
    # Every study's claims in one table; the regime map is descriptive: its rows are a
    # breakdown (secondary, marked so), outside the primary claims.
    assert set(prim["study"]) == set(STUDIES) - {"regime_map"}
    mapped = v[v["study"] == "regime_map"]
    judged = mapped[mapped["kind"] != rules.INTEGRITY]  # its integrity checks stay as they are
    assert not judged.empty and (judged["kind"] == rules.SECONDARY).all(), judged["kind"]
    assert mapped["claim"].str.endswith("(descriptive)").any()
    # With one trial no claim can be decided, and every row says why.
    assert (prim["verdict"] == rules.INCONCLUSIVE).all() and (prim["reason"] != "").all()
    md = (rep / "report.md").read_text()
    assert md.startswith("# 0 of ") and "## Paper vs here" in md
    assert f"over {len(STUDIES)} files in {len(STUDIES)} studies" in md
    # The regime map: the only study with 3 values of d for raf and raf_relu.
    for model in ("raf", "raf_relu"):
        assert (rep / f"regime_map_{model}_regime_map.png").exists()
    assert len(list(rep.glob("regime_map_*.png"))) == 2
    for name in ("paper_ws_vs_n.png", "paper_gen_error.png", "report.html"):
        assert (rep / name).exists(), name


def test_a_rerun_continues_every_file_and_redoes_nothing(tiny):
    _, res, rep, _ = tiny
    before = {s: records(res / f"{s}.h5") for s in STUDIES}
    p = script("--tiny", "--results", res, "--report", rep)
    assert p.returncode == 0, p.stderr[-2000:]
    assert len(re.findall(r"0 to run on 2 ranks", p.stderr)) == len(STUDIES), p.stderr
    for s in STUDIES:
        ws, gen = records(res / f"{s}.h5")
        pd.testing.assert_frame_equal(ws, before[s][0])
        if gen is not None:
            pd.testing.assert_frame_equal(gen, before[s][1])


def test_a_checkpointed_study_resumes_on_the_next_run(tmp_path, tiny):
    # A wrapper makes the first run stop handing out tasks at once (--walltime: exit 3, as a
    # cluster's time limit would); the rerun, without it, completes the same file.
    real = BIN
    wrapper = tmp_path / "wordsens"
    stop = tmp_path / "stop"
    wrapper.write_text("#!/usr/bin/env bash\n"
                       f'if [ "$1" = run ] && [ -f {stop} ]; then exec {real} "$@" '
                       "--walltime=0.000001; fi\n"
                       f'exec {real} "$@"\n')
    wrapper.chmod(0o755)
    stop.touch()
    res, rep = tmp_path / "results", tmp_path / "report"
    args = ("--tiny", "--only", "paper_glove_brown,regime_map", "--results", res, "--report",
            rep)
    p = subprocess.run(["bash", SCRIPT, *map(str, args)], capture_output=True, text=True,
                       timeout=300, env=env(WORDSENS_BIN=str(wrapper)), cwd=ROOT)
    assert p.returncode == 3, p.stdout[-2000:] + p.stderr[-2000:]
    first = read_results(res / "paper_glove_brown.h5")
    assert not first.complete
    assert "PARTIAL" in (rep / "report.md").read_text()  # the report still covers both files
    # but publishes no results section from an incomplete run, and says so in one line
    assert not (rep / "results.md").exists()
    assert "paper_glove_brown: exit 3" in p.stderr and "is PARTIAL" in p.stderr, p.stderr
    stop.unlink()
    p = subprocess.run(["bash", SCRIPT, *map(str, args)], capture_output=True, text=True,
                       timeout=300, env=env(WORDSENS_BIN=str(wrapper)), cwd=ROOT)
    assert p.returncode == 0, p.stderr[-2000:]
    done = read_results(res / "paper_glove_brown.h5")
    assert done.complete
    assert (rep / "results.md").exists()
    # The resumed file holds exactly the records of the uninterrupted run.
    _, tres, _, _ = tiny
    for s in ("paper_glove_brown", "regime_map"):
        a, b = records(res / f"{s}.h5"), records(tres / f"{s}.h5")
        pd.testing.assert_frame_equal(a[0], b[0])


ADAPTIVE = ("--tiny", "--trials", 5, "--max-trials", 20, "--only", "paper_ws,paper_ws_rf_bound")
LOOK = re.compile(r"\.look-(\d+)-trials-(\d+)-(\d+)\.h5$")


@pytest.fixture(scope="module")
def adaptive(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adaptive")
    res, rep = tmp / "results", tmp / "report"
    p = script(*ADAPTIVE, "--results", res, "--report", rep)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return tmp, res, rep, p


def _look(path) -> int:
    m = LOOK.search(str(path))
    return int(m.group(1)) if m else 1


def decided_or_at_cap(prim: pd.DataFrame) -> None:
    """The adaptive run's verdicts: both theorems decided; a claim still open (the softmax
    contrast, two lower bounds whose every trial must agree on these tiny searches) was read at
    the cap, its last look, so that more trials were not for the taking."""
    by_claim = prim.set_index("claim")
    for claim in ("thm1_rf", "thm3_raf"):
        assert by_claim.loc[claim, "verdict"] != rules.INCONCLUSIVE, by_claim.loc[claim].to_dict()
    for r in prim[prim["verdict"] == rules.INCONCLUSIVE].itertuples():
        assert r.looks.startswith("look 3 of 3 (20 trials)"), (r.claim, r.looks, r.reason)


def test_trials_until_decided_decides_every_claim_it_holds(adaptive):
    _, res, rep, _ = adaptive
    v = pd.read_csv(rep / "verdicts.csv", keep_default_na=False)
    prim = v[(v["kind"] == rules.PRIMARY) & (v["study"] != "")]
    assert set(prim["claim"]) == {"thm1_rf", "thm3_raf", "softmax_raf_relu"}
    decided_or_at_cap(prim)
    # Each row says at which look and after how many trials it was read (4 looks: 5, 10, 20).
    assert prim["looks"].str.match(r"look [123] of 3 \(\d+ trials\)").all(), prim["looks"]
    looks = sorted({_look(f) for f in res.glob("*.h5")})
    assert looks[0] == 1 and len(looks) >= 2  # at least one look added trials
    # Nothing is left to add.
    files = sorted(str(f) for f in res.glob("*.h5"))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "wordsens-report"),
                        "--next-batch", *files], capture_output=True, text=True, env=env())
    assert p.returncode == 0 and p.stdout == "", p.stdout + p.stderr


def test_trials_are_added_only_where_a_claim_was_open(adaptive):
    _, res, _, _ = adaptive
    by_look: dict = {}
    for f in res.glob("*.h5"):
        by_look.setdefault(_look(f), []).append(f)
    for look in sorted(by_look)[1:]:
        before = sorted((f for j in by_look if j < look for f in by_look[j]),
                        key=lambda f: (_look(f), f.name))  # a study's first batch first
        studies, _, _ = build_studies([read_results(f) for f in before])
        table = verdicts.judge_studies(studies, "in these files")
        prim = table[table["kind"] == rules.PRIMARY]
        open_claims = set(prim.loc[prim["verdict"] == rules.INCONCLUSIVE, "claim"])
        decided = set(prim["claim"]) - open_claims
        models = set()
        for c in open_claims:
            cid = c.split("[")[0]
            models.add(claims.CLAIMS[cid].model)
            if claims.CLAIMS[cid].partner:
                models.add(claims.CLAIMS[cid].partner)
        for f in by_look[look]:
            r = read_results(f)
            first, last = (int(g) for g in LOOK.search(f.name).groups()[1:])
            assert set(r.ws["trial"]) == set(range(first, last)), f.name
            assert set(r.ws["model"]) <= models, (f.name, open_claims, decided)
            # The planned points are exactly the selected ones, and a decided claim's model
            # gets trials only as the partner of an open one.
            sel = r.config.get("select")
            assert sel and set(r.tasks["model"]) == set(r.ws["model"])


def test_the_results_section_is_written_from_the_run(adaptive, tmp_path):
    _, res, rep, _ = adaptive
    text = (rep / "results.md").read_text()
    first = (rep / "report.md").read_text().splitlines()[0].lstrip("# ")
    assert f"The combined report's first line: **{first}**" in text
    timings = pd.read_csv(res / "timings.tsv", sep="\t")
    # One line per run that ran tasks: every file, with its look, predicted and measured time.
    assert sorted(timings["file"]) == sorted(f.name for f in res.glob("*.h5"))
    assert (timings["predicted_s"] >= 0).all() and (timings["measured_s"] >= 0).all()
    for f in timings["file"]:
        assert f"`{f}`" in text
    v = pd.read_csv(rep / "verdicts.csv", keep_default_na=False)
    for r in v[v["kind"] == rules.PRIMARY].itertuples():
        assert f"`{r.claim}`" in text
    sha = pd.read_csv(rep / "provenance.csv")["git_sha"].iloc[0]
    assert sha in text and "cores" in text
    # --update replaces the marked section of a document and nothing else.
    doc = tmp_path / "doc.md"
    doc.write_text("# head\n\n<!-- results: begin -->\nOLD SECTION\n<!-- results: end -->\n"
                   "\ntail\n")
    script_py = os.path.join(ROOT, "jobs", "reproduce_results.py")
    for _ in range(2):  # idempotent
        p = subprocess.run([sys.executable, script_py, "--report", str(rep), "--results",
                            str(res), "--update", str(doc)], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    new = doc.read_text()
    assert new.startswith("# head\n\n<!-- results: begin -->") and new.endswith("\n\ntail\n")
    assert "OLD SECTION" not in new and new.count("<!-- results: begin -->") == 1
    p = subprocess.run([sys.executable, script_py, "--report", str(tmp_path / "none"),
                        "--results", str(res)], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr


def test_a_partner_is_extended_at_the_points_its_grid_has(tmp_path):
    """Thm 3 reads rf on raf's texts; rf's grid may lack some of raf's n (the paper's rf stops at
    n = 100): the next look still extends rf at the n it has, with raf at all of its n."""
    runs = {"paper_ws": "--n=4,8,16,32", "paper_ws_rf_bound": "--n=4,8,16"}
    files = []
    for name, n in runs.items():
        out = tmp_path / f"{name}.h5"
        p = subprocess.run([BIN, "run", os.path.join(ROOT, CONFIG[name]), n, "--d=32",
                            "--max-evals=20", "--progress=600", "--trials=5", "--max-trials=10",
                            "--output", str(out)], capture_output=True, text=True, cwd=ROOT,
                           env=env(), timeout=300)
        assert p.returncode == 0, p.stderr
        files.append(str(out))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "wordsens-report"),
                        "--next-batch", *files], capture_output=True, text=True, env=env())
    assert p.returncode == 0, p.stderr
    lines = {line.split("\t")[0]: line.split("\t") for line in p.stdout.splitlines()}
    assert set(lines) == {"paper_ws", "paper_ws_rf_bound"}, p.stdout
    study, first, count, cap, select, claims_ = lines["paper_ws_rf_bound"]
    assert (first, count, cap) == ("5", "5", "10") and "thm3_raf" in claims_
    rf_ns = {int(part[2:]) for sel in select.split(";") for part in sel.split(",")
             if part.startswith("n:")}
    assert rf_ns == {4, 8, 16}, select
    raf = lines["paper_ws"][4]
    assert "model:raf,d:32,n:32" in raf, raf


def test_a_rerun_of_trials_until_decided_adds_nothing(adaptive):
    _, res, rep, _ = adaptive
    files = {f.name: records(f) for f in res.glob("*.h5")}
    p = script(*ADAPTIVE, "--results", res, "--report", rep)
    assert p.returncode == 0, p.stderr[-2000:]
    assert sorted(f.name for f in res.glob("*.h5")) == sorted(files)
    assert len(re.findall(r"0 to run on 2 ranks", p.stderr)) == len(files), p.stderr
    assert "look 2:" in p.stdout  # the looks were replayed from the files, not skipped


def test_the_trials_of_a_look_equal_the_same_trials_run_at_once(adaptive, tmp_path):
    _, res, _, _ = adaptive
    ext = sorted(res.glob("paper_ws_rf_bound.look-*.h5"))
    assert ext
    cfg = os.path.join(ROOT, CONFIG["paper_ws_rf_bound"])
    whole = tmp_path / "whole.h5"
    p = subprocess.run([BIN, "run", cfg, "--n=4,8,16", "--d=32", "--max-evals=20",
                        "--progress=600", "--trials=20", "--max-trials=20", "--output",
                        str(whole)], capture_output=True, text=True, cwd=ROOT, env=env(),
                       timeout=300)
    assert p.returncode == 0, p.stderr
    at_once = read_results(whole).ws.set_index(["model", "n", "d", "trial"])
    cols = ["S", "S_upper", "argmax_position"]
    for f in [res / "paper_ws_rf_bound.h5", *ext]:
        part = read_results(f).ws.set_index(["model", "n", "d", "trial"])
        pd.testing.assert_frame_equal(part[cols].sort_index(),
                                      at_once.loc[part.index, cols].sort_index())


def test_a_replicate_with_another_seed_extends_a_finished_study(tmp_path):
    res, rep = tmp_path / "results", tmp_path / "report"
    base = ("--tiny", "--trials", 2, "--only", "regime_map", "--results", res, "--report", rep)
    assert script(*base).returncode == 0
    p = script(*base, "--seed", 7)
    assert p.returncode == 0, p.stderr[-2000:]
    assert (res / "regime_map.h5").exists() and (res / "regime_map.seed-7.h5").exists()
    assert read_results(res / "regime_map.seed-7.h5").attrs["master_seed"] == 7
    studies = pd.read_csv(rep / "studies.csv")
    assert list(studies["study"]) == ["regime_map", "regime_map"]  # one study, two files
    assert studies["texts block"].str[0].tolist() == ["0", "1"]  # independent texts
    ws = pd.read_csv(rep / "ws_summary.csv")
    assert (ws["count"] == 4).all()  # 2 trials from each seed, pooled


def fake_slurm(tmp_path):
    """(the stand-in sbatch's job log, the environment that puts it first on the PATH and runs
    each job's ranks with mpirun -n 1)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(os.path.join(HERE, "fake_sbatch.py"), bindir / "sbatch")
    (bindir / "sbatch").chmod(0o755)
    log = tmp_path / "sbatch.log"
    extra = dict(PATH=f"{bindir}:{os.environ['PATH']}", FAKE_SBATCH_LOG=str(log),
                 FAKE_SBATCH_OUT=str(tmp_path), WORDSENS_LAUNCHER="mpirun",
                 WORDSENS_MPIRUN_ARGS="--oversubscribe -n 1")
    return log, extra


def test_slurm_mode_submits_arrays_merges_and_a_final_report(tmp_path, tiny):
    log, extra = fake_slurm(tmp_path)
    res, rep = tmp_path / "results", tmp_path / "report"
    only = "paper_ws,paper_gen,glove_brown"
    args = ["--slurm", "--tiny", "--ranks", 1, "--shards", 2, "--only", only, "--results", res,
            "--report", rep]
    p = script(*args, **extra)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    jobs = [json.loads(line) for line in log.read_text().splitlines()]
    states = {j["id"]: j["state"] for j in jobs}
    assert all(s == "COMPLETED" for s in states.values()), jobs
    arrays = [j for j in jobs if j["script"] == "array.sbatch"]
    merges = [j for j in jobs if j["script"] == "merge.sbatch"]
    assert len(arrays) == len(merges) == 3
    for a, m in zip(arrays, merges):
        assert a["options"]["--array"] == "0-1" and a["options"]["--ntasks-per-node"] == "1"
        assert m["options"]["--dependency"] == f"afterok:{a['id']}"
        # Each study asks for the memory per rank of its own dry run (+25 %).
        cfg, opts = a["args"][0], a["args"][2:]
        dry = subprocess.run([BIN, "run", cfg, *opts, "--dry-run", "--format=json"], cwd=ROOT,
                             capture_output=True, text=True, check=True)
        per_rank = json.loads(dry.stdout)["memory"]["per_rank_bytes"]
        assert a["options"]["--mem-per-cpu"] == f"{math.ceil(per_rank * 1.25 / 2**20)}M"
    report = jobs[-1]
    assert report["script"] == "report.sbatch"
    assert report["options"]["--dependency"] == "afterany:" + ":".join(
        str(m["id"]) for m in merges)
    assert [os.path.basename(a) for a in report["args"][1:]] == [
        "paper_ws.h5", "paper_gen.h5", "glove_brown.h5"]
    # The cluster's files hold the local run's records, bit for bit (same study, same seed).
    _, tres, _, _ = tiny
    for s, local in (("paper_ws", "paper_ws"), ("paper_gen", "paper_gen"),
                     ("glove_brown", None)):
        r = read_results(res / f"{s}.h5")
        assert r.complete and "merged_from" in r.attrs
        if local:
            a, b = records(res / f"{s}.h5"), records(tres / f"{local}.h5")
            pd.testing.assert_frame_equal(a[0], b[0])
            if a[1] is not None:
                pd.testing.assert_frame_equal(a[1], b[1])
    v = pd.read_csv(rep / "verdicts.csv", keep_default_na=False)
    # (drf is in none of these three: its claim gets one row without a study)
    assert set(v.loc[v["kind"] == rules.PRIMARY, "study"]) == {"paper_ws", "paper_gen",
                                                                "glove_brown", ""}
    # Resubmitting skips the finished studies: only a new report job is queued.
    p = script(*args, **extra)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.count("is complete, not submitted") == 3
    again = [json.loads(line) for line in log.read_text().splitlines()][len(jobs):]
    assert [j["script"] for j in again] == ["report.sbatch"]
    assert "--dependency" not in again[0]["options"]


def test_slurm_trials_until_decided_judges_between_looks(tmp_path, adaptive):
    log, extra = fake_slurm(tmp_path)
    res, rep = tmp_path / "results", tmp_path / "report"
    p = script("--slurm", "--ranks", 1, *ADAPTIVE, "--results", res, "--report", rep, **extra)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    # (the stand-in logs a job when it ends, so the jobs a judge step queues come first: sorted
    # by id they are in submission order)
    jobs = sorted((json.loads(line) for line in log.read_text().splitlines()),
                  key=lambda j: j["id"])
    assert all(j["state"] == "COMPLETED" for j in jobs), jobs
    scripts = [j["script"] for j in jobs]
    judges = [j for j in jobs if j["script"] == "judge.sbatch"]
    # The first batch, a judge step per look, the extensions it queued, one report at the end.
    assert scripts.count("report.sbatch") == 1 and len(judges) >= 2, scripts
    assert judges[0]["args"][0] == "1" and "--dependency" in judges[0]["options"]
    looks = [int(j["args"][0]) for j in judges]
    assert looks == list(range(1, len(looks) + 1))
    # The same files, with the same records, as the local adaptive run.
    _, local, _, _ = adaptive
    assert sorted(f.name for f in res.glob("*.h5")) == sorted(f.name for f in local.glob("*.h5"))
    for f in res.glob("*.h5"):
        pd.testing.assert_frame_equal(records(f)[0], records(local / f.name)[0])
    v = pd.read_csv(rep / "verdicts.csv", keep_default_na=False)
    prim = v[(v["kind"] == rules.PRIMARY) & (v["study"] != "")]
    decided_or_at_cap(prim)
    local_v = pd.read_csv(adaptive[2] / "verdicts.csv", keep_default_na=False)
    local_prim = local_v[(local_v["kind"] == rules.PRIMARY) & (local_v["study"] != "")]
    assert list(prim["verdict"]) == list(local_prim["verdict"])


def test_dry_run_footnote_names_the_calibration_it_priced_with(tmp_path):
    """With a calibration of this host (`wordsens calibrate`'s file, found through
    WORDSENS_CALIBRATION), the dry run's times are this host's and its footnote says so and
    names the file; without one it names the development machine's constants."""
    rows = [("gen", "raf"), ("gen", "rf"), ("ws", "block"), ("ws", "drf"), ("ws", "mhraf"),
            ("ws", "raf"), ("ws", "raf_relu"), ("ws", "raf_v"), ("ws", "rf")]
    calibration = tmp_path / "calibration.tsv"
    calibration.write_text(
        "# wordsens cost calibration 0.1.0, 2026-12-05, host test, cpu test, 9 tasks in 18 s\n"
        "experiment\tmodel\ttasks\tpredicted_seconds\tmeasured_seconds\trate\n" +
        "".join(f"{e}\t{m}\t1\t1.0\t2.0\t2.0\n" for e, m in rows))
    # (auto with no file there: no calibration, whatever ~/.config holds)
    plain = script("--dry-run", "--only", "paper_ws",
                   WORDSENS_CALIBRATION=str(tmp_path / "absent.tsv"))
    hosted = script("--dry-run", "--only", "paper_ws", WORDSENS_CALIBRATION=str(calibration))
    assert plain.returncode == 0 and hosted.returncode == 0, (plain.stderr, hosted.stderr)
    assert "calibrated on the 2-core development machine;" in plain.stdout.splitlines()[-1]
    footnote = hosted.stdout.splitlines()[-1]
    assert f"calibrated on this host: {calibration}" in footnote, footnote
    assert "development machine" not in footnote
    # raf and raf_relu at twice the development machine's time: the study's wall time doubles.
    mine, theirs = (hms_seconds(dry_rows(p.stdout)["paper_ws"][5]) for p in (hosted, plain))
    assert abs(mine - 2 * theirs) <= 0.05 * 2 * theirs, (mine, theirs)
