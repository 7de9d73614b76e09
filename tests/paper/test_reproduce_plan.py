"""jobs/reproduce_plan.py, the planner of jobs/reproduce_paper.sh: it prices a study from the
binary's own plan (`wordsens run --dry-run --format json`), never from the table printed for
people and never by a model's name. Its wall time on any rank count is the binary's schedule over
the binary's price of each task; its memory per rank is what `wordsens run` itself checks before
it starts; its shards and useful ranks follow from those.
"""
import glob
import math
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "jobs"))
import reproduce_plan as rp  # noqa: E402

BIN = os.environ.get("WORDSENS_BIN")
pytestmark = pytest.mark.skipif(
    not BIN, reason="WORDSENS_BIN is unset (ctest sets it to the built wordsens binary)")
SCRIPT = os.path.join(ROOT, "jobs", "reproduce_paper.sh")


def dry_run(config, *args, fmt="json"):
    p = subprocess.run([BIN, "run", str(config), "--dry-run", f"--format={fmt}", *args],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def encoder_of(config):
    """A study of a trained encoder's layers reads the encoder's folder, which its job links into
    the data cache (jobs/prepare_trained_minilm.sh); a clean clone has no such link, so the study
    is given the installed encoder's folder, as that job would link it."""
    with open(config) as f:
        if not any(line.split("=")[0].strip() == "encoder" for line in f):
            return []
    p = subprocess.run(["bash", os.path.join(ROOT, "jobs", "install_encoder.sh"), "--model-dir"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"{config} reads the pretrained encoder: {p.stderr.strip()}"
    return [f"--encoder={p.stdout.strip()}"]


def one_point(tmp_path, name, text):
    config = tmp_path / f"{name}.ini"
    config.write_text(text)
    return config


def test_plan_prices_any_rank_count_like_the_binary():
    """At the rank counts the binary prices itself, the planner's wall time is the binary's, to
    the last digit, for every shipped study (synthetic texts where a study reads real ones).
    block's budget-check reruns cost more than the point's other tasks: spreading a point's
    seconds evenly over its tasks priced it at less than half its wall time on 64 ranks."""
    configs = sorted(glob.glob(os.path.join(ROOT, "jobs", "configs", "*.ini")))
    assert len(configs) >= 15
    for config in configs:
        dry = rp.parse_dry_run(dry_run(config, "--data=synthetic", *encoder_of(config)))
        assert set(dry["predicted"]) == {1, 2, 4, 16, 64}
        for ranks, theirs in dry["predicted"].items():
            mine = rp.wall_seconds(dry["task_seconds"], ranks)
            assert mine == pytest.approx(theirs, rel=1e-12), (config, ranks, mine, theirs)


def test_plan_memory_is_the_binarys_and_covers_the_measured_peaks(tmp_path):
    """The memory per rank of a plan is the binary's own (the process, the task table and the
    largest task, each model priced by its catalogue row), so a job asks for what `wordsens run`
    checks before it starts. It covers the peak resident memory measured on the development
    machine (/usr/bin/time -v; `wordsens ws` and `gen` with --training finetune --objective loss
    --positions first for the gen rows, and the largest task of paper_gen.ini as one of 2 ranks
    ran it), by at most the process allowance beyond the largest task's own estimate."""
    gen = "training = finetune\nobjective = loss\npositions = first\n"
    measured = [  # (config text, peak RSS in bytes)
        ("experiments = ws\nmodels = rf\nn = 150\nd = 768\nk = 1.0D\n", 730e6),
        ("experiments = ws\nmodels = rf\nn = 50\nd = 768\nk = 1.0D\n", 266e6),
        ("experiments = ws\nmodels = rf\nn = 150\nd = 192\nk = 1.0D\n", 61e6),
        ("experiments = ws\nmodels = rf\nn = 150\nd = 768\nk = 1.0D\nrf-sampling = marginal\n",
         727e6),
        ("experiments = ws\nmodels = raf\nn = 250\nd = 768\n", 176e6),
        ("experiments = ws\nmodels = drf\nn = 10\nd = 192\nk = 1.0D\nlayers = 8\n", 250e6),
        ("experiments = gen\nmodels = rf\nn = 40\nd = 768\nk = 1.0D\nN = 1100\n"
         "rf-sampling = marginal\n" + gen, 616e6),
        ("experiments = gen\nmodels = rf\nn = 40\nd = 768\nk = 1.0D\nN = 1100\n" + gen, 619e6),
        ("experiments = gen\nmodels = raf\nn = 40\nd = 768\nN = 1100\n" + gen, 594e6),
        ("experiments = gen\nmodels = rf\nn = 120\nd = 768\nk = 1.0D\nN = 1300\n"
         "rf-sampling = marginal\n", 2130e6),
    ]
    for i, (text, peak) in enumerate(measured):
        out = dry_run(one_point(tmp_path, f"p{i}", text + "trials = 1\n"))
        row = rp.plan(out, 2, 4.0)
        dry = rp.parse_dry_run(out)
        assert row[4] == dry["memory_per_rank"], (text, row)
        largest = max(p["bytes"] for p in dry["points"])
        assert peak <= row[4] <= largest + 64 * 2**20 + 1e6, (text, peak, row[4])
        assert largest >= 0.6 * peak, (text, largest, peak)


def test_plan_prices_a_model_by_its_catalogue_row_not_its_name(tmp_path):
    """Models the planner never names (block and its MLP width, mhraf's heads, raf_v) get the
    binary's memory, which grows with what their rows price (here block's MLP), not raf's."""
    base = "experiments = ws\nn = 64\nd = 256\ntrials = 1\nheads = 4\n"
    for model in ("block", "mhraf", "raf_v", "raf_relu"):
        out = dry_run(one_point(tmp_path, model, base + f"models = {model}\n"))
        assert rp.plan(out, 2, 4.0)[4] == rp.parse_dry_run(out)["memory_per_rank"]
    narrow, wide = (rp.plan(dry_run(one_point(tmp_path, f"block{w}",
                                              base + f"models = block\nmlp-width = {w}\n")),
                            2, 4.0)[4] for w in ("4d", "64d"))
    # two d × width matrices (and their pass) at 16 times the width
    assert wide - narrow >= 8 * 2 * 256 * (64 - 4) * 256, (narrow, wide)


def test_plan_refuses_what_is_not_the_binarys_json_plan():
    table = dry_run(os.path.join(ROOT, "jobs", "configs", "quick.ini"), fmt="table")
    for text, words in [(table, "not its JSON plan"), ("", "not its JSON plan"),
                        ('{"points": []}', "no grid point"),
                        ('{"points": [{"tasks": 1}], "tasks": 1, "task_seconds": [1.0]}',
                         "predicted_wall_seconds")]:
        with pytest.raises(ValueError, match=words):
            rp.parse_dry_run(text)
    p = subprocess.run([sys.executable, os.path.join(ROOT, "jobs", "reproduce_plan.py"), "plan"],
                       input=table, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("reproduce_plan: the dry run's output is not its JSON plan")
    assert len(p.stderr.splitlines()) == 1


def test_plan_useful_ranks_are_capped_by_the_task_count_or_rank_0():
    root = rp.ROOT_TASKS_PER_SECOND
    # 300 tasks of 2.8 s: rank 0 would keep up with root x 2.8 ranks, far more than 300
    assert rp.useful_ranks(300, 300 * 2.8) == (300, "tasks")
    # 10^6 tasks of 0.1 s: R ranks finish R / 0.1 tasks a second, rank 0 stores `root`
    assert rp.useful_ranks(10**6, 10**6 * 0.1) == (math.floor(root * 0.1), "rank0")
    # a job array: the tasks of one shard job
    assert rp.useful_ranks(1680, 1680 * 600.0, shards=5) == (336, "tasks")
    # the same through plan(): its last two columns, from the binary's dry run. paper_ws's tasks
    # take seconds each, so its task count limits it; regime_map's take a fraction of a second,
    # so on 1024 ranks rank 0 storing its records does.
    configs = os.path.join(ROOT, "jobs", "configs")
    row = rp.plan(dry_run(os.path.join(configs, "paper_ws.ini")), 1024, 4.0)
    assert row[0] == 420 and row[7:9] == (420, "tasks"), row
    short = rp.plan(dry_run(os.path.join(configs, "regime_map.ini")), 1024, 4.0)
    assert short[0] == 300 and short[8] == "rank0" and short[7] < 300, short
    assert short[7:9] == rp.useful_ranks(short[0], short[2]), short
    # and in reproduce_paper.sh --dry-run's plan column, with a warning past it
    env = dict(os.environ, WORDSENS_BIN=BIN)

    def rows(*args):
        p = subprocess.run(["bash", SCRIPT, "--dry-run", *args], capture_output=True, text=True,
                           timeout=300, env=env, cwd=ROOT)
        assert p.returncode == 0, p.stderr
        return {line.split()[0]: line for line in p.stdout.splitlines() if line.strip()}

    many = rows("--ranks", "1024", "--only", "paper_ws,regime_map")
    assert "uses at most 420 ranks (its task count), fewer than the 1024 given" in \
        many["paper_ws"], many
    assert (f"uses at most {short[7]} ranks (rank 0 storing the records), fewer than the 1024 "
            "given") in many["regime_map"], many
    few = rows("--ranks", "4", "--only", "paper_ws")["paper_ws"]
    assert "uses at most 420 ranks (its task count)" in few and "fewer than" not in few, few


def test_plan_gives_the_trials_as_the_run_takes_them():
    """The last two columns: the first batch's trials and max-trials of the study as the binary
    reads them, its configuration's keys under the run's options (0: no extension planned), so
    that the script reads no key of a configuration itself."""
    configs = os.path.join(ROOT, "jobs", "configs")
    assert rp.plan(dry_run(os.path.join(configs, "paper_ws.ini")), 2, 4.0)[9:] == (10, 20)
    assert rp.plan(dry_run(os.path.join(configs, "paper_ws_rf.ini")), 2, 4.0)[9:] == (5, 0)
    assert rp.plan(dry_run(os.path.join(configs, "paper_ws.ini"), "--trials=4",
                           "--max-trials=12"), 2, 4.0)[9:] == (4, 12)
    with pytest.raises(ValueError, match="no count 'max_trials'"):
        out = dry_run(os.path.join(configs, "quick.ini"))
        rp.parse_dry_run(out.replace('"max_trials"', '"max_trials_"'))


def test_plan_shards():
    assert rp.shards(3600.0, 100, 4, 4 * 3600) == 1          # fits one job
    assert rp.shards(64 * 3600.0, 1680, 4, 4 * 3600) == 5    # 64 core-h on 4 ranks, 4 h jobs
    assert rp.shards(1e9, 3, 4, 3600) == 3                   # never more shards than tasks
    # longest first onto the least loaded rank: 5 | 4, then 3 → 4+3, 3 → 5+3, 3 → 7+3 = 10
    assert rp.wall_seconds([3, 5, 3, 4, 3], 2) == 10.0
    # a shard job's wall time is that of its own tasks (ids i modulo the shard count)
    out = dry_run(os.path.join(ROOT, "jobs", "configs", "paper_ws.ini"))
    row = rp.plan(out, 4, 4.0, forced=3)
    per_task = rp.parse_dry_run(out)["task_seconds"]
    assert row[5] == 3
    assert row[6] == max(rp.wall_seconds(per_task[i::3], 4) for i in range(3))
