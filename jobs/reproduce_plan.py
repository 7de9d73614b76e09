"""Plans for jobs/reproduce_paper.sh from `wordsens run CONFIG --dry-run --format json`: wall time
on R ranks, core-hours, memory per rank, and how many Slurm shards a study is worth.

    wordsens run CONFIG --dry-run --format json | reproduce_plan.py plan --ranks R
        [--slurm-hours H] [--shards S]

prints one tab-separated line: tasks, points, 1-core seconds, wall seconds on R ranks, memory per
rank (bytes), shards (1: one job; more: a job array), wall seconds per shard job, the most ranks
one job can use and what limits it (`tasks` or `rank0`, see useful_ranks), and the study's trials
as the run takes them: its first batch and its max-trials (0: no extension planned).

Everything is the binary's own plan, read from its JSON (src/cli/plan_export.hpp), never from the
table it prints for people: each grid point's seconds and tasks from the models' own costs
(src/study/cost_model.cpp), and the memory a rank needs as `wordsens run` itself checks it before
it starts (the process, the task table and the largest task, from each model's catalogue price;
src/study/memory_plan.hpp), so that a model is priced by its traits, never by its name.

Wall time: the binary's own scheduling model (longest task first onto the least loaded rank;
predicted_wall_seconds in src/study/cost_model.cpp) over the binary's price of each task (a
point's tasks need not cost the same: a budget check's rerun costs more), so any R is priced, not
only the 1, 2, 4, 16 and 64 ranks the binary prices itself (tests/paper/test_reproduce_paper.py
checks the two agree there).
"""
from __future__ import annotations

import argparse
import heapq
import json
import math
import sys

# Rank 0 stores every record in the results file (an HDF5 append and two flushes a record), so
# it can take at most this many finished tasks a second: the least of the paper configurations'
# throughputs measured with tasks that take no time on 256 and 1024 simulated ranks (479 tasks/s,
# paper_ws_drf on 1024; 479-924 over all), rounded down, by `build/ci/tests/bench/scale_sim`
# (docs/PERFORMANCE.md, "Scale"; 2-core development machine shared with other work, ci build,
# local disk: a parallel file system's slower flushes lower it).
ROOT_TASKS_PER_SECOND = 450.0


def parse_dry_run(text: str) -> dict:
    """The plan of `wordsens run --dry-run --format json`: its grid points (each with
    `tasks`, `seconds` and `bytes`), its predicted wall seconds by rank count, and its memory.
    ValueError for anything else (the table for people, a truncated or empty output)."""
    try:
        plan = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"the dry run's output is not its JSON plan ({e.msg}, line {e.lineno}; "
                         "run it with --format json)") from None
    if not isinstance(plan, dict) or not isinstance(plan.get("points"), list):
        raise ValueError("the dry run's JSON has no list of grid points")
    if not plan["points"]:
        raise ValueError("no grid point in the dry-run output")
    for key in ("predicted_wall_seconds", "memory"):
        if not isinstance(plan.get(key), dict):
            raise ValueError(f"the dry run's JSON has no {key!r}")
    points = plan["points"]
    seconds = plan.get("task_seconds")
    if not isinstance(seconds, list) or len(seconds) != plan.get("tasks"):
        raise ValueError("the dry run's JSON has no seconds for each of its tasks")
    for p in points:
        for key in ("tasks", "seconds", "bytes"):
            if not isinstance(p.get(key), (int, float)) or isinstance(p.get(key), bool):
                raise ValueError(f"grid point {p.get('point', '?')} of the dry run has no number "
                                 f"{key!r}")
    predicted = {int(r): float(s) for r, s in plan["predicted_wall_seconds"].items()}
    per_rank = plan["memory"].get("per_rank_bytes")
    if not isinstance(per_rank, (int, float)):
        raise ValueError("the dry run's JSON has no memory per rank")
    trials = {key: plan.get(key) for key in ("trials", "max_trials")}
    for key, value in trials.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"the dry run's JSON has no count {key!r}")
    return {"points": points, "task_seconds": [float(t) for t in seconds],
            "predicted": predicted, "memory_per_rank": float(per_rank), **trials}


def wall_seconds(tasks: list, ranks: int) -> float:
    """Longest task first onto the least loaded rank (as the driver's scheduler)."""
    if ranks < 1:
        raise ValueError("ranks must be >= 1")
    load = [0.0] * ranks
    wall = 0.0
    for s in sorted(tasks, reverse=True):
        end = heapq.heappop(load) + s
        heapq.heappush(load, end)
        wall = max(wall, end)
    return wall


def shards(core_seconds: float, tasks: int, ranks: int, job_seconds: float) -> int:
    """Shards of a job array, each fitting about 80 % of one job's time limit on `ranks`
    ranks; 1 (one plain job) when the whole study fits."""
    if not math.isfinite(core_seconds) or core_seconds <= 0:
        return 1
    need = math.ceil(core_seconds / (0.8 * job_seconds * ranks))
    return max(1, min(need, tasks))


def useful_ranks(tasks: int, core_seconds: float, shards: int = 1) -> tuple:
    """The most ranks one job of the study can keep busy, and what limits it: 'tasks' (a job of
    T tasks has work for T ranks at most) or 'rank0' (R ranks finish R / mean-task-seconds tasks
    a second; beyond ROOT_TASKS_PER_SECOND x mean-task-seconds ranks, they finish faster than rank
    0 stores them and the extra ranks wait on it)."""
    per_job = math.ceil(tasks / max(1, shards))
    mean = core_seconds / tasks if tasks else 0.0
    by_root = ROOT_TASKS_PER_SECOND * mean
    if not math.isfinite(by_root) or by_root >= per_job:
        return per_job, "tasks"
    return max(1, math.floor(by_root)), "rank0"


def plan(text: str, ranks: int, job_hours: float, forced: int | None = None) -> tuple:
    dry = parse_dry_run(text)
    pts = dry["points"]
    per_task = dry["task_seconds"]
    core = sum(per_task)
    n_shards = (shards(core, len(per_task), ranks, job_hours * 3600) if forced is None
                else max(1, min(forced, len(per_task))))
    # Shard i runs the tasks whose id is i modulo the shard count (the driver's --shard i/N);
    # per_task is in task-id order (grid points in order, their trials consecutive).
    shard_wall = max(wall_seconds(per_task[i::n_shards], ranks) for i in range(n_shards))
    mem = dry["memory_per_rank"]
    useful, limit = useful_ranks(len(per_task), core, n_shards)
    return (len(per_task), len(pts), core, wall_seconds(per_task, ranks), mem, n_shards,
            shard_wall, useful, limit, dry["trials"], dry["max_trials"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["plan"])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--slurm-hours", type=float, default=4.0,
                    help="time limit of one Slurm job (hours)")
    ap.add_argument("--shards", type=int, default=None,
                    help="this many shards (at most one per task) instead of the planned count")
    a = ap.parse_args(argv)
    try:
        row = plan(sys.stdin.read(), a.ranks, a.slurm_hours, a.shards)
    except ValueError as e:
        print(f"reproduce_plan: {e}", file=sys.stderr)
        return 2
    print("\t".join(f"{v:.0f}" if isinstance(v, float) else str(v) for v in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
