#!/usr/bin/python3
"""Memory before start: `wordsens run` refuses a plan whose largest task does not fit in the
memory a rank has (this machine's available memory, its control group's or ulimit -v's, shared by
the ranks on the node; memory-per-rank overrides it), with one line and exit 2, before MPI starts
or any file is written; `--dry-run` prints the memory per rank and in total. Grids that needed
more memory than the machine had started and died mid-run of std::bad_alloc.

The estimate comes from each model's catalogue price (ModelCosts::ws_memory, gen_memory): the
case estimate_against_peak_rss measures the peak resident memory of single tasks of every model
family (`wordsens ws` / `gen`, less the process's own) and requires the estimate within a factor
of FACTOR of it.

usage: memory_test.py WORDSENS_BINARY CASE
"""
import os
import re
import subprocess
import time

import cli_common  # beside this script

check = cli_common.check
EXIT_USAGE = cli_common.EXIT_USAGE
FACTOR = 1.5  # the estimate of a task's own memory lies within [peak / FACTOR, peak · FACTOR]
SMALL = "experiments = ws\nmodels = rf\nn = 4\nd = 3\nk = 1.0D\ntrials = 2\nseed = 5\n" \
        "max-evals = 50\n"
# Grids far beyond any machine: raf at n = 30000 (its scores, n² each, for a group of positions),
# block with an MLP of 2^31 - 1 (two d × width matrices), rf at n = d = 2000, k = D (a word's
# block of V: k × d), a gen rf whose N + 1 texts alone take 30 TB.
TOO_LARGE = [
    "experiments = ws\nmodels = raf\nn = 8,30000\nd = 64\ntrials = 1\n",
    "experiments = ws\nmodels = block\nn = 8\nd = 64\nheads = 2\nmlp-width = 4d,2147483647\n"
    "trials = 1\n",
    "experiments = ws\nmodels = rf\nn = 2000\nd = 2000\nk = 1.0D\ntrials = 1\n",
    "experiments = gen\nmodels = rf\nn = 1000\nd = 1000\nk = 1.0D\nN = 999999\ntrials = 1\n",
]
UNITS = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}


class Scratch:
    def __init__(self):
        self.dir = cli_common.scratch_dir("wordsens_memory_")

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)
        return self.path(name)


def run(binary, *args, env=None):
    start = time.monotonic()
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, **(env or {})))
    return p, time.monotonic() - start


def refused(p, seconds, *words):
    lines = p.stderr.strip().splitlines()
    check(p.returncode == EXIT_USAGE, f"exit {p.returncode}, expected 2: {p.stderr}")
    check(len(lines) == 1 and re.match(r"wordsens (run|ws|gen): error: the plan needs about",
                                       lines[0]),
          f"expected one line: {p.stderr!r}")
    for word in words:
        check(word in lines[0], f"'{word}' not in {lines[0]!r}")
    check(seconds < 10, f"the refusal took {seconds:.1f} s")
    return lines[0]


def nothing_written(scratch):
    left = [n for n in os.listdir(scratch.dir) if not n.endswith(".ini")]
    check(not left, f"files were written: {left}")


def case_too_large_is_refused_before_it_starts(binary):
    scratch = Scratch()
    for i, text in enumerate(TOO_LARGE):
        config = scratch.write(f"large{i}.ini", text)
        p, seconds = run(binary, "run", config, "--output", scratch.path("out.h5"))
        line = refused(p, seconds, "its largest task:", "but a rank has",
                       "available on this machine", "memory-per-rank")
        nothing_written(scratch)
        # --dry-run prints the plan and says the run would refuse it (exit 0: a plan).
        p, _ = run(binary, "run", config, "--dry-run")
        check(p.returncode == 0 and "too little: `wordsens run` refuses this plan" in p.stdout,
              f"dry-run: {p.stdout[-600:]}")
        print(f"refused: {line[len('wordsens run: error: '):][:150]}…")


def case_one_point_too_large_is_refused_before_it_starts(binary):
    """`wordsens ws` and `gen` price their point as `run` prices a plan: a point that cannot fit
    is one line and exit 2 before its first trial (it ended in std::bad_alloc, exit 1)."""
    for args in (["ws", "--model", "raf", "--n", "30000", "--d", "64"],
                 ["ws", "--model", "rf", "--n", "2000", "--d", "2000", "--k", "1.0D"],
                 ["gen", "--model", "rf", "--n", "1000", "--d", "1000", "--k", "1.0D", "--N",
                  "999999", "--training", "finetune", "--objective", "loss"]):
        p, seconds = run(binary, *args, "--trials", "1")
        line = refused(p, seconds, "its largest task:", "but a rank has", "choose smaller sizes")
        check(p.stdout == "", f"{args[0]} printed a row: {p.stdout[:200]!r}")
        print(f"refused: {line[:150]}…")
    # A point that fits runs as before.
    p, _ = run(binary, "ws", "--model", "raf", "--n", "8", "--d", "4", "--trials", "1")
    check(p.returncode == 0 and "trial 0: S =" in p.stdout, f"small point: {p.stderr}")


def case_override_and_ranks_per_node(binary):
    scratch = Scratch()
    config = scratch.write("small.ini", SMALL)
    out = scratch.path("out.h5")
    # A rank given less than the plan needs: refused, naming the override it was given.
    p, seconds = run(binary, "run", config, "--output", out, "--memory-per-rank", "1M")
    refused(p, seconds, "but a rank has 1.0 MiB (memory-per-rank = 1.0 MiB)")
    nothing_written(scratch)
    # The machine's memory shared by the ranks the launcher says it starts on this node.
    p, seconds = run(binary, "run", config, "--output", out,
                     env={"OMPI_COMM_WORLD_LOCAL_SIZE": "1000000"})
    refused(p, seconds, "shared by 1000000 ranks on this node")
    nothing_written(scratch)
    # The override wins over the node's share (a cluster's job states its memory per rank).
    p, _ = run(binary, "run", config, "--dry-run", "--memory-per-rank", "2G",
               env={"OMPI_COMM_WORLD_LOCAL_SIZE": "1000000"})
    check(p.returncode == 0 and "memory per rank here: 2.0 GiB (memory-per-rank = 2.0 GiB)"
          in p.stdout and "too little" not in p.stdout, p.stdout)
    large = scratch.write("large.ini", TOO_LARGE[0])
    p, _ = run(binary, "run", large, "--dry-run", "--memory-per-rank", "100T")
    check(p.returncode == 0 and "too little" not in p.stdout, p.stdout[-400:])
    # A run within its memory runs.
    p, _ = run(binary, "run", config, "--output", out, "--memory-per-rank", "2G",
               "--progress", "60")
    check(p.returncode == 0 and os.path.exists(out), f"exit {p.returncode}: {p.stderr}")
    # The key in a configuration file, and bad values.
    with_key = scratch.write("with_key.ini", SMALL + "memory-per-rank = 1K\n")
    p, seconds = run(binary, "run", with_key, "--output", scratch.path("o2.h5"))
    refused(p, seconds, "memory-per-rank = 1.0 KiB")
    for bad in ("lots", "-1G", "0", "4Q", "1.5.2G"):
        p, _ = run(binary, "run", config, "--dry-run", "--memory-per-rank", bad)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == EXIT_USAGE and len(lines) == 1 and
              f"memory-per-rank = '{bad}'" in lines[0], f"{bad}: {p.stderr!r}")


def case_dry_run_prints_memory(binary):
    scratch = Scratch()
    config = scratch.write("small.ini", SMALL)
    p, _ = run(binary, "run", config, "--dry-run")
    check(p.returncode == 0, p.stderr)
    lines = [line for line in p.stdout.splitlines() if line.startswith("memory")]
    check(len(lines) == 2, f"{p.stdout}")
    check(re.match(r"memory: [\d.]+ MiB per rank \(the process, the task table and the largest "
                   r"task: ws rf n=4 d=3 k=12 trial=0 \(task 0\), [\d.]+ [KM]iB\); in total "
                   r"[\d.]+ MiB on 1 rank; [\d.]+ MiB on 2 ranks;", lines[0]), lines[0])
    check(lines[1].startswith("memory per rank here: ") and "available on this machine"
          in lines[1], lines[1])


def task_bytes(binary, scratch, keys):
    """The dry-run's estimate of the largest task's own bytes for a one-point study of `keys`."""
    lines = [f"{k} = {v}" for k, v in keys.items() if k not in ("experiment", "model")]
    config = scratch.write("point.ini", f"experiments = {keys['experiment']}\nmodels = "
                           f"{keys['model']}\n" + "\n".join(lines) + "\n")
    p, _ = run(binary, "run", config, "--dry-run")
    check(p.returncode == 0, p.stderr)
    m = re.search(r"largest task: .*?, ([\d.]+) (bytes|KiB|MiB|GiB|TiB)\)", p.stdout)
    check(m is not None, p.stdout)
    return float(m.group(1)) * UNITS[m.group(2)]


def peak_rss(binary, command, keys):
    """Peak resident bytes of `wordsens ws|gen` with `keys` (one trial)."""
    args = [binary, command]
    for k, v in keys.items():
        if k == "experiment":
            continue
        args += [f"--{k}", str(v)]
    p = subprocess.Popen(args + ["--trials", "1"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    check(status == 0, f"{args}: {p.stderr.read()}")
    return usage.ru_maxrss * 1024.0


# One point per model family, each small enough to run in a few seconds but with its own memory
# well above the process's.
POINTS = [
    {"experiment": "ws", "model": "rf", "n": 60, "d": 256, "k": "1.0D", "rf-sampling": "marginal",
     "positions": "first", "max-evals": 10},
    {"experiment": "ws", "model": "drf", "n": 10, "d": 128, "k": "1.0D", "layers": 3,
     "positions": "first", "max-evals": 10},
    {"experiment": "ws", "model": "raf", "n": 500, "d": 64, "positions": "random:16",
     "max-evals": 5},
    {"experiment": "ws", "model": "mhraf", "n": 600, "d": 64, "heads": 4, "positions": "first",
     "max-evals": 5},
    {"experiment": "ws", "model": "block", "n": 50, "d": 64, "heads": 4, "mlp-width": 50000,
     "positions": "first", "max-evals": 5},
    {"experiment": "gen", "model": "rf", "n": 50, "d": 64, "k": "1.0D", "N": 2000,
     "positions": "first", "training": "finetune", "objective": "loss", "max-evals": 5},
    {"experiment": "gen", "model": "raf", "n": 40, "d": 64, "N": 1500, "positions": "first",
     "training": "finetune", "objective": "loss", "max-evals": 5},
]


def case_estimate_against_peak_rss(binary):
    scratch = Scratch()
    base = peak_rss(binary, "ws", {"model": "rf", "n": 4, "d": 3, "k": "1.0D"})
    print(f"the process alone: {base / 2**20:.1f} MiB")
    worst = []
    for keys in POINTS:
        estimate = task_bytes(binary, scratch, keys)
        measured = peak_rss(binary, keys["experiment"], keys) - base
        ratio = estimate / measured
        worst.append(ratio)
        print(f"{keys['experiment']} {keys['model']}: estimated {estimate / 2**20:.1f} MiB, "
              f"measured {measured / 2**20:.1f} MiB (peak RSS less the process), ratio "
              f"{ratio:.2f}")
        check(1 / FACTOR <= ratio <= FACTOR, f"{keys}: the estimate is off by {ratio:.2f}")
    print(f"estimates within {min(worst):.2f}-{max(worst):.2f} of the measured peaks")


if __name__ == "__main__":
    cli_common.run_case(globals())
