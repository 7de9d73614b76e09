"""`wordsens run --dry-run --format=tsv|json`: the plan for scripts says exactly what the table
for people says (tasks, points, wall times, memory per rank), and what it adds is the cost
model's own numbers (the JSON's memory is the process, the task table and its largest point)."""
import csv
import io
import json
import math
import os
import re
import subprocess

import pytest

from conftest import ROOT

BIN = os.environ.get("WORDSENS_BIN")
pytestmark = pytest.mark.skipif(not BIN, reason="WORDSENS_BIN not set")

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
CASES = [
    [os.path.join(ROOT, "jobs/configs/quick.ini")],
    [os.path.join(ROOT, "jobs/configs/quick.ini"), "--shard=1/3"],
    ["--experiments=ws,gen", "--models=rf,raf,drf", "--n=8,64", "--d=16", "--gen-n=16",
     "--gen-d=16", "--trials=3"],
]


def dry_run(args, fmt):
    # No host calibration unless a test gives one: the prices are the development machine's.
    if not any(a.startswith("--calibration") for a in args):
        args = [*args, "--calibration=none"]
    p = subprocess.run([BIN, "run", *args, "--dry-run", f"--format={fmt}"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


def seconds_of(text):
    """format_duration's text ("1m00s", "2h03m", "7s") in seconds."""
    total = 0
    for value, unit in re.findall(r"(\d+)([hms])", text):
        total += int(value) * {"h": 3600, "m": 60, "s": 1}[unit]
    return total


@pytest.mark.parametrize("args", CASES)
def test_json_tsv_and_table_agree(args):
    table, tsv, plan = dry_run(args, "table"), dry_run(args, "tsv"), json.loads(dry_run(args, "json"))
    rows = list(csv.DictReader(io.StringIO(tsv), delimiter="\t"))
    assert len(rows) == len(plan["points"]) > 0
    for row, point in zip(rows, plan["points"]):
        assert list(row) == list(point)
        for key, value in point.items():  # the same number, written alike (17 digits)
            assert (row[key] == value) if isinstance(value, str) else (float(row[key]) == value)
    # The table's rows: point, exp, model, n, d, k, L, H, m, N, tasks.
    lines = [line.split() for line in table.splitlines() if re.match(r"\s*\d+\s+(ws|gen)\s", line)]
    assert [[str(p[c]) for c in ("point", "experiment", "model", "n", "d", "k", "L", "H", "m",
                                  "N", "tasks")] for p in plan["points"]] == [l[:11] for l in lines]
    total = re.search(r"total: (\d+) tasks", table)
    assert int(total.group(1)) == plan["tasks"] == sum(p["tasks"] for p in plan["points"])
    assert plan["seconds_one_core"] == pytest.approx(sum(p["seconds"] for p in plan["points"]))
    # Each task's seconds, in task-id order: a point's tasks in a row, adding up to its seconds.
    assert len(plan["task_seconds"]) == plan["tasks"]
    start = 0
    for point in plan["points"]:
        own = plan["task_seconds"][start:start + point["tasks"]]
        assert sum(own) == pytest.approx(point["seconds"], rel=1e-12) and min(own) > 0
        start += point["tasks"]
    assert plan["flops"] == pytest.approx(sum(p["flops"] for p in plan["points"]))
    walls = dict(re.findall(r"(\d+) cores? ([0-9hms]+);", table))
    for cores, text in walls.items():
        assert abs(plan["predicted_wall_seconds"][cores] - seconds_of(text)) <= 1.0, cores
    # Memory: the process (64 MiB), 200 bytes per task of the study, and the largest point's task.
    memory = plan["memory"]
    assert memory["largest_task_bytes"] == max(p["bytes"] for p in plan["points"])
    expected = 64 * (1 << 20) + 200 * plan["tasks_in_study"] + memory["largest_task_bytes"]
    assert abs(memory["per_rank_bytes"] - expected) <= 1
    shown = re.search(r"memory: ([\d.]+) (\w+) per rank", table)
    assert memory["per_rank_bytes"] == pytest.approx(
        float(shown.group(1)) * UNITS[shown.group(2)], rel=0.06)
    assert all(isinstance(p["bytes"], int) for p in plan["points"])


def test_a_shard_plans_its_own_tasks():
    whole = json.loads(dry_run(CASES[0], "json"))
    shards = [json.loads(dry_run(CASES[0] + [f"--shard={i}/3"], "json")) for i in range(3)]
    assert sum(s["tasks"] for s in shards) == whole["tasks"] == whole["tasks_in_study"]
    assert all(s["shard"] == f"{i}/3" for i, s in enumerate(shards))


def test_a_bad_format_is_one_line_and_exit_2(tmp_path):
    p = subprocess.run([BIN, "run", "--format=csv", f"--output={tmp_path / 'x.h5'}"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == "wordsens run: error: format = 'csv': expected table, tsv or json\n"
    assert not (tmp_path / "x.h5").exists()


def test_calibrate_writes_a_rate_per_model_and_the_dry_run_prices_with_it(tmp_path):
    cal = tmp_path / "conf" / "cal.tsv"
    p = subprocess.run([BIN, "calibrate", "--budget=0.5", f"--output={cal}"], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rows = [line.split("\t") for line in cal.read_text().splitlines()
            if line and not line.startswith("#")]
    assert rows[0] == ["experiment", "model", "tasks", "predicted_seconds", "measured_seconds",
                       "rate"]
    # The price's factor is measured / predicted (the rate column rounds it).
    rates = {(r[0], r[1]): float(r[4]) / float(r[3]) for r in rows[1:]}
    # Every model's ws and the heads of rf and raf, each timed at least once.
    assert {m for e, m in rates if e == "ws"} == {"rf", "drf", "raf", "raf_relu", "raf_v",
                                                   "mhraf", "block"}
    assert {m for e, m in rates if e == "gen"} == {"rf", "raf"}
    assert all(r > 0 for r in rates.values())
    for r in rows[1:]:
        assert float(r[5]) == pytest.approx(float(r[4]) / float(r[3]), rel=1e-4)

    args = CASES[2]
    plain = json.loads(dry_run(args + ["--calibration=none"], "json"))
    priced = json.loads(dry_run(args + [f"--calibration={cal}"], "json"))
    assert plain["calibration"] is None and priced["calibration"] == str(cal)
    # A model the calibration did not time (gen of drf) is priced at the rates' geometric mean.
    overall = math.exp(sum(math.log(r) for r in rates.values()) / len(rates))
    for a, b in zip(plain["points"], priced["points"]):
        rate = rates.get((a["experiment"], a["model"]), overall)
        assert b["seconds"] == pytest.approx(a["seconds"] * rate, rel=1e-9)
        assert b["flops"] == a["flops"] and b["bytes"] == a["bytes"]
    assert "calibrated on this host: " + str(cal) in dry_run(args + [f"--calibration={cal}"],
                                                             "table")
    # auto reads $WORDSENS_CALIBRATION; none ignores it.
    env = dict(os.environ, WORDSENS_CALIBRATION=str(cal))
    auto = subprocess.run([BIN, "run", *args, "--dry-run", "--format=json"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert json.loads(auto.stdout)["calibration"] == str(cal)
    off = subprocess.run([BIN, "run", *args, "--dry-run", "--format=json", "--calibration=none"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert json.loads(off.stdout)["calibration"] is None


@pytest.mark.parametrize("text, expected", [
    (None, "no such file"),
    ("# h\nnot the columns\n", ":2: not a wordsens cost calibration"),
    ("# h\nexperiment\tmodel\ttasks\tpredicted_seconds\tmeasured_seconds\trate\nws\trf\t1\t1\t2\t5\n",
     ":3: the rate is not measured / predicted"),
])
def test_a_missing_or_malformed_calibration_is_one_line_and_exit_2(tmp_path, text, expected):
    cal = tmp_path / "cal.tsv"
    if text is not None:
        cal.write_text(text)
    p = subprocess.run([BIN, "run", *CASES[2], "--dry-run", f"--calibration={cal}"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and expected in p.stderr, p.stderr
