"""More trials, guided (more_trials.py): `wordsens-report --next-batch` says on stderr the command
that runs each extension it prints, or why an open claim cannot take more trials; its stdout
stays the tab-separated lines scripts read. Studies are synthetic (conftest.synthetic_tables):
3 trials per point cannot decide any claim (2^-3 > α), so thm1_rf stays open."""
import shlex
import subprocess

import h5py
import numpy as np
from conftest import REPORT, synthetic_tables, write_results

PY = "/usr/bin/python3"
RF_CFG = "experiments = ws\nmodels = rf\nrf-sampling = full\ndata = synthetic\n"


def study(path, config, trials=3, command="wordsens run cfg.ini --output x.h5",
          ns=(8, 16, 32, 64, 128)):
    write_results(path, *synthetic_tables(ns=ns, trials=trials, models=("rf",), gen_models=()))
    with h5py.File(path, "r+") as f:
        f.attrs["config_text"] = config + "seed = 1\n"
        f.attrs["master_seed"] = np.uint64(1)
        f.attrs["command_line"] = command
    return path


def next_batch(*paths):
    p = subprocess.run([PY, REPORT, "--next-batch", *map(str, paths)], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines(), [line for line in p.stderr.splitlines()
                                   if line.startswith("wordsens-report: ")]


def test_a_planned_study_names_the_command_of_its_next_look(tmp_path):
    path = study(tmp_path / "rf.h5", RF_CFG + "trials = 3\nmax-trials = 12\n",
                 command="wordsens run my.ini --n=8,16 --output rf.h5 --overwrite --progress=5")
    lines, said = next_batch(path)
    assert len(lines) == 1 and lines[0].split("\t")[:4] == ["rf", "3", "3", "12"]
    assert len(said) == 1 and "thm1_rf" in said[0]
    words = shlex.split(said[0].split(": ", 3)[-1])
    assert words[:4] == ["wordsens", "run", "my.ini", "--n=8,16"]
    assert "--progress=5" in words and "--overwrite" not in words and "rf.h5" not in words
    assert "--first-trial=3" in words and "--trials=3" in words and "--max-trials=12" in words
    select = next(w for w in words if w.startswith("--select="))
    assert select == "--select=" + lines[0].split("\t")[4]
    assert f"--output={tmp_path / 'rf'}.look-2-trials-3-6.h5" in words


def test_a_study_of_one_look_says_why_it_cannot_take_more(tmp_path):
    lines, said = next_batch(study(tmp_path / "rf.h5", RF_CFG + "trials = 3\n"))
    assert lines == []
    assert len(said) == 1 and "thm1_rf open" in said[0] and "planned one look" in said[0]
    assert "max-trials = 6 or more" in said[0]


def test_a_study_at_its_cap_says_so(tmp_path):
    # Looks at 3 and 6 trials, both run (the second as an extension file); noisy trials keep
    # thm1_rf open at the cap.
    tasks, ws, gen = synthetic_tables(trials=6, models=("rf",), gen_models=(), noise=1.0)

    def trials(lo, hi):
        ids = tasks["task_id"][(tasks["trial"] >= lo) & (tasks["trial"] < hi)]
        return [{c: v[np.isin(t["task_id"], ids)] for c, v in t.items()} for t in (tasks, ws, gen)]

    paths = []
    for name, lo, cfg in (("first", 0, ""), ("look2", 3, "first-trial = 3\n")):
        paths.append(tmp_path / f"{name}.h5")
        write_results(paths[-1], *trials(lo, lo + 3))
        with h5py.File(paths[-1], "r+") as f:
            f.attrs["config_text"] = RF_CFG + cfg + "max-trials = 6\nseed = 1\ntrials = 3\n"
            f.attrs["master_seed"] = np.uint64(1)
    lines, said = next_batch(*paths)
    assert lines == []
    assert said == ["wordsens-report: first: thm1_rf open at the study's max-trials (6): more "
                    "trials would need a new study that plans them"]


def test_decided_claims_say_nothing_is_open_and_absent_models_are_not_open(tmp_path):
    # 12 trials decide thm1_rf; the claims about drf, raf and raf_relu have no data here.
    lines, said = next_batch(study(tmp_path / "rf.h5", RF_CFG + "trials = 12\n", trials=12))
    assert lines == []
    assert said == ["wordsens-report: nothing to add: no claim with data in these files is open"]


def test_the_report_names_the_next_look_of_an_open_claim_and_nothing_when_decided(tmp_path):
    planned = study(tmp_path / "rf.h5", RF_CFG + "trials = 3\nmax-trials = 12\n")
    p = subprocess.run([PY, REPORT, str(planned), "-o", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    more = [line for line in p.stdout.splitlines() if line.startswith("more trials: ")]
    assert len(more) == 1 and "thm1_rf" in more[0] and "--first-trial=3" in more[0]
    decided = study(tmp_path / "done.h5", RF_CFG + "trials = 12\n", trials=12)
    p = subprocess.run([PY, REPORT, str(decided), "-o", str(tmp_path / "out2")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "more trials:" not in p.stdout, p.stdout


def test_a_claim_its_design_keeps_open_says_so_beside_the_trials(tmp_path):
    # Two values of n: no slope to judge, whatever the trials.
    lines, said = next_batch(study(tmp_path / "rf.h5", RF_CFG + "trials = 12\n", trials=12,
                                   ns=(8, 16)))
    assert lines == [] and len(said) == 1
    assert "thm1_rf open" in said[0] and "as designed, thm1_rf: " in said[0], said


def test_a_sharded_or_merged_study_gets_a_run_command_without_the_shard(tmp_path):
    cfg = RF_CFG + "trials = 3\nmax-trials = 12\n"
    merged = study(tmp_path / "m.h5", cfg, command="wordsens merge m.shard-0-of-2.h5 "
                   "m.shard-1-of-2.h5 -o m.h5")
    _, said = next_batch(merged)
    words = shlex.split(said[0].split(": ", 3)[-1])
    assert words[:3] == ["wordsens", "run", "CONFIG.ini"] and "merge" not in words
    shard = study(tmp_path / "s.h5", cfg, command="wordsens run my.ini --shard 1/4 --output s.h5")
    _, said = next_batch(shard)
    words = shlex.split(said[0].split(": ", 3)[-1])
    assert words[:3] == ["wordsens", "run", "my.ini"]
    assert not any(w.startswith("--shard") or w == "1/4" for w in words), words
