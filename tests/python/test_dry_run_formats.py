"""`wordsens run --dry-run --format=tsv|json`: the plan for scripts says exactly what the table
for people says (tasks, points, wall times, memory per rank), and what it adds is the cost
model's own numbers (the JSON's memory is the process, the task table and its largest point)."""
import csv
import io
import json
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
