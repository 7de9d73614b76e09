"""Plans for jobs/reproduce_paper.sh from `wordsens run CONFIG --dry-run`: wall time on R ranks,
core-hours, memory per rank, and how many Slurm shards a study is worth.

    wordsens run CONFIG --dry-run | reproduce_plan.py plan --ranks R [--sampling full|marginal]
        [--slurm-hours H]

prints one tab-separated line: tasks, points, 1-core seconds, wall seconds on R ranks, largest
memory per rank (bytes), shards (1: one job; more: a job array), wall seconds per shard job,
the most ranks one job can use and what limits it (`tasks` or `rank0`, see useful_ranks).

Wall time: the binary's own scheduling model (longest task first onto the least loaded rank;
src/study/cost_model.cpp, predicted_wall_seconds) over the per-task times of its dry-run table
(a grid point's estimate divided by its tasks), so any R is priced, not only the 1, 2, 4, 16
and 64 cores the binary prints (tests/paper/test_reproduce_paper.py checks the two agree there).

Memory: the dry-run has no memory column, so the largest grid point is priced here from the
arrays its task holds (formulas below, fitted to peak RSS measured with /usr/bin/time -v on the
2-core development machine, within 15 %; same test):

| task | dominant arrays | measured peak RSS |
|---|---|---|
| ws rf, n = 150, d = 768, k = D (full) | the examined word's block V_i, k x d | 730 MB |
| ws rf, n = 50, d = 768, k = D (full) | same | 266 MB |
| ws rf, n = 150, d = 192, k = D (full) | same | 61 MB |
| ws rf, n = 150, d = 768, k = D (marginal) | same | 727 MB |
| ws raf, n = 250, d = 768 | W, X, a group of 13 position evaluators | 176 MB |
| ws drf, n = 10, d = 192, k = D, L = 8 | every layer, 8 (k D + (L-1) k^2) bytes | 250 MB |
| gen rf, n = 40, d = 768, N = 1100, k = D (marginal) | the texts, then Phi (kept) or V_i | 616 MB |
| gen rf, same (full) | the texts and their stacked copy | 619 MB |
| gen raf, n = 40, d = 768, N = 1100 | the texts and their features, (N+1) x n d each | 594 MB |

(gen rows: `wordsens gen` with `--training finetune --objective loss --positions first`.)
"""
from __future__ import annotations

import argparse
import heapq
import math
import re
import sys

MB = 1e6
# Rank 0 stores every record in the results file (an HDF5 append and two flushes a record), so
# it can take at most this many finished tasks a second: the least of the paper configurations'
# throughputs measured with tasks that take no time on 256 and 1024 simulated ranks (479 tasks/s,
# paper_ws_drf on 1024; 479-924 over all), rounded down, by `build/ci/tests/bench/scale_sim`
# (docs/PERFORMANCE.md, "Scale"; 2-core development machine shared with other work, ci build,
# local disk: a parallel file system's slower flushes lower it).
ROOT_TASKS_PER_SECOND = 450.0
BASE = 30 * MB  # the process itself: binary, libraries, small buffers (without MPI)

ROW = re.compile(r"^\s*(\d+)\s+(ws|gen)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
                 r"\s+(\d+)\s+(\d+)\s+\S+\s+(\S+)\s*$")
PREDICTED = re.compile(r"(\d+) cores? ([0-9hms?]+);")


def seconds(text: str) -> float:
    """'1h07m', '3m05s', '45s' (the binary's format_duration) → seconds; '?' → NaN."""
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text)
    if not m or not text or text == "?":
        return float("nan")
    h, mi, s = (int(g) if g else 0 for g in m.groups())
    return 3600 * h + 60 * mi + s


def parse_dry_run(text: str) -> dict:
    points, predicted = [], {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            _, exp, model, n, d, k, L, H, words, N, tasks, est = m.groups()
            points.append(dict(experiment=exp, model=model, n=int(n), d=int(d), k=int(k),
                               layers=int(L), heads=int(H), words=int(words), N=int(N),
                               tasks=int(tasks),
                               seconds=seconds(est)))
        elif line.startswith("predicted wall time"):
            predicted = {int(c): seconds(t) for c, t in PREDICTED.findall(line)}
    if not points:
        raise ValueError("no grid point in the dry-run output")
    return {"points": points, "predicted": predicted}


def task_seconds(points: list) -> list:
    out = []
    for p in points:
        out += [p["seconds"] / p["tasks"]] * p["tasks"]
    return out


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


def memory_bytes(p: dict, sampling: str = "full") -> float:
    """Peak memory of one task at grid point p (formulas fitted to the table above)."""
    n, d, k, L, N = p["n"], p["d"], p["k"], p["layers"], p["N"]
    D = n * d
    if p["experiment"] == "ws":
        if p["model"] == "rf":
            # V_i (the batched search works on 64 of its rows at a time); several changed words
            # hold the m blocks of their set (an estimate: not measured)
            return 1.02 * 8 * k * d * p.get("words", 1) + 20 * MB
        if p["model"] == "drf":
            return 1.05 * 8 * (k * D + (L - 1) * k * k) + BASE / 2
        # raf: the sample's shared products, W, and a group of position evaluators (each with
        # X, W, T, E) sized so that a lockstep round holds about 64 points (word_sensitivity.cpp)
        per_position = max(2, math.ceil(64 / n)) + 3
        group = min(n, math.ceil(64 / per_position))
        return 8 * (group * (d * d + 3 * n * d + n * n) + 5 * n * d + n * n + 2 * d * d) + BASE
    M = N + 1
    if p["model"] == "rf":
        if sampling == "marginal":
            # the texts throughout; then Phi, which gram keeps for the transpose when it takes at
            # most 2 GiB (rf_marginal.hpp, kMaxKeptFeatureBytes), or later the searched block V_i
            kept = M * k if 8 * M * k <= 2 * 2**30 else 0
            return 1.1 * 8 * (M * D + 3 * M * M + max(k * d, kept)) + BASE
        # the texts and their stacked copy (one pass over V serves the Gram), later V_i
        return 1.1 * 8 * (M * D + max(M * D, k * d)) + BASE
    if p["model"] == "drf":
        return 1.05 * 8 * (k * D + (L - 1) * k * k + 2 * M * k) + BASE
    return 2.1 * 8 * M * D + 16 * M * M + BASE


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


def plan(text: str, ranks: int, sampling: str, job_hours: float, forced: int | None = None
         ) -> tuple:
    dry = parse_dry_run(text)
    pts = dry["points"]
    per_task = task_seconds(pts)
    core = sum(per_task)
    n_shards = (shards(core, len(per_task), ranks, job_hours * 3600) if forced is None
                else max(1, min(forced, len(per_task))))
    # Shard i runs the tasks whose id is i modulo the shard count (the driver's --shard i/N);
    # per_task is in task-id order (grid points in order, their trials consecutive).
    shard_wall = max(wall_seconds(per_task[i::n_shards], ranks) for i in range(n_shards))
    mem = max(memory_bytes(p, sampling) for p in pts)
    useful, limit = useful_ranks(len(per_task), core, n_shards)
    return (len(per_task), len(pts), core, wall_seconds(per_task, ranks), mem, n_shards,
            shard_wall, useful, limit)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["plan"])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--sampling", choices=["full", "marginal"], default="full")
    ap.add_argument("--slurm-hours", type=float, default=4.0,
                    help="time limit of one Slurm job (hours)")
    ap.add_argument("--shards", type=int, default=None,
                    help="this many shards (at most one per task) instead of the planned count")
    a = ap.parse_args(argv)
    try:
        row = plan(sys.stdin.read(), a.ranks, a.sampling, a.slurm_hours, a.shards)
    except ValueError as e:
        print(f"reproduce_plan: {e}", file=sys.stderr)
        return 2
    print("\t".join(f"{v:.0f}" if isinstance(v, float) else str(v) for v in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
