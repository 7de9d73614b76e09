"""A study's plan from the binary's own dry run (tasks, seconds and bytes from each model's costs,
priced on R ranks and cut into Slurm shards by jobs/reproduce_plan.py), and the --dry-run table
that lists every study's plan for people."""
from __future__ import annotations

import dataclasses
import os
import re
import sys

from .options import Options, Refused
from .studies import Runs, Study
from .wordsens import Wordsens

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import reproduce_plan  # noqa: E402  (jobs/reproduce_plan.py)
import reproduce_results  # noqa: E402  (jobs/reproduce_results.py: the same durations)

PREPARE = {"minilm_brown_": "jobs/prepare_minilm_brown.sh"}
PREPARE_DEFAULT = "jobs/prepare_glove_brown.sh"


@dataclasses.dataclass(frozen=True)
class Plan:
    """jobs/reproduce_plan.py's plan, in whole seconds and bytes as the table prints them."""
    tasks: int
    points: int
    core_seconds: int
    wall_seconds: int
    memory_per_rank: int
    shards: int
    shard_wall_seconds: int
    useful_ranks: int
    limit: str       # what caps useful_ranks: `tasks` or `rank0`
    trials: int      # the first batch's, as the run takes it
    max_trials: int  # 0 when the study plans no extension


def hms(seconds) -> str:
    """Whole seconds (the fraction dropped) as 1h02m, 3m04s or 5s."""
    return reproduce_results.hms(int(seconds))


def prepare_script(data: str) -> str:
    """The script that builds a real-text study's embeddings file."""
    base = os.path.basename(data)
    return next((s for prefix, s in PREPARE.items() if base.startswith(prefix)), PREPARE_DEFAULT)


class Planner:
    def __init__(self, o: Options, runs: Runs, wordsens: Wordsens):
        self.o, self.runs, self.wordsens = o, runs, wordsens

    def missing_texts(self, study: Study) -> str:
        """The embeddings file a real-text study needs and is not built yet (empty otherwise;
        --tiny reads the in-repository fixtures)."""
        data = self.wordsens.embeddings_of(study.config)
        return data if data and not self.o.tiny and not os.path.isfile(data) else ""

    def dry_run(self, study: Study, options: list | None = None, json: bool = False):
        """`wordsens run --dry-run` of the study with these options (default: its first
        batch's). A study whose texts are not built yet is priced on synthetic ones: the cost
        model does not read the texts."""
        extra = list(self.runs.options(study.name) if options is None else options)
        if self.missing_texts(study):
            extra.append("--data=synthetic")
        return self.wordsens.dry_run(study.config, extra, json=json)

    def plan(self, study: Study, options: list | None = None, say_why: bool = True) -> Plan:
        """The study's plan from the binary's JSON; Refused with the binary's own words when it
        refuses the study (the dry run for people gives them), or after the planner's line on
        stderr (with `say_why`) when the JSON is not a plan."""
        p = self.dry_run(study, options, json=True)
        if p.returncode != 0 or not p.stdout.strip("\n"):
            lines = self.dry_run(study, options).stdout.rstrip("\n").split("\n")
            said = next((line for line in lines if re.search("error", line, re.I)), lines[-1])
            raise Refused(f"{study.name}: cannot plan the study: {said}")
        try:
            row = reproduce_plan.plan(p.stdout, int(self.o.ranks), float(self.o.slurm_hours),
                                      int(self.o.shards) if self.o.shards else None)
        except (ValueError, ArithmeticError) as e:  # not its JSON plan; --slurm-hours 0
            if say_why:
                print(f"reproduce_plan: {e}", file=sys.stderr)
            raise Refused(f"{study.name}: cannot plan the study from its dry run") from None
        return Plan(*(int(f"{v:.0f}") if isinstance(v, float) else v for v in row))


def print_dry_run(o: Options, selected: list, plans: dict, planner: Planner) -> None:
    """Every study with its tasks, core-hours, predicted wall time on the given ranks, memory
    per rank and how it would run; the totals; the calibration the binary priced with."""
    where = f"{o.ranks} ranks here (mpirun)"
    if o.slurm:
        where = f"Slurm jobs of {o.ranks} ranks, {o.slurm_hours} h per job"
    if o.tiny:
        where += ", tiny grids"
    print(f"reproduce_paper --dry-run: {len(selected)} studies on {where}")
    print("%-18s %-36s %6s %7s %9s %10s %9s  %s" % ("study", "config", "tasks", "points",
                                                    "core-h", f"wall@{o.ranks}", "mem/rank",
                                                    "plan"))
    ranks = int(o.ranks)
    tot_tasks = tot_core = tot_wall = tot_more = tot_more_core = 0
    for study in selected:
        p = plans[study.name]
        how = "one run"
        if o.slurm:
            how = "one job"
            if p.shards > 1:
                how = (f"array of {p.shards} shards + merge, {hms(p.shard_wall_seconds)} per "
                       "shard")
        # More ranks than this only wait: for tasks, or on rank 0 storing the records.
        by = "its task count" if p.limit == "tasks" else "rank 0 storing the records"
        how += f"; uses at most {p.useful_ranks} ranks ({by})"
        if ranks > p.useful_ranks:
            how += f", fewer than the {o.ranks} given"
        note = ""
        missing = planner.missing_texts(study)
        if missing:
            note = (f" (priced on synthetic texts: {missing} is built by "
                    f"{prepare_script(missing)})")
        # Trials until decided: the first batch above, and at most the rest of max-trials at
        # every point (when no claim is decided before the cap); both as the first batch's run
        # takes them (its options over the configuration's keys).
        if o.extend and p.max_trials > p.trials:
            cap = p.max_trials
            at_cap = planner.plan(study, planner.runs.options(study.name, extension=True) +
                                  [f"--trials={cap}", f"--max-trials={cap}"])
            more = at_cap.wall_seconds - p.wall_seconds
            note += f" (+ at most {hms(more)} if every point needs max-trials = {cap})"
            tot_more += more
            tot_more_core += at_cap.core_seconds - p.core_seconds
        print("%-18s %-36s %6d %7d %9.2f %10s %7.2f GB  %s%s" % (
            study.name, study.config, p.tasks, p.points, p.core_seconds / 3600,
            hms(p.wall_seconds), p.memory_per_rank / 1e9, how, note))
        tot_tasks += p.tasks
        tot_core += p.core_seconds
        if o.slurm:
            # The jobs run at once where the cluster has room: the longest one sets the wall
            # time.
            tot_wall = max(tot_wall, p.shard_wall_seconds if p.shards > 1 else p.wall_seconds)
        else:
            tot_wall += p.wall_seconds
    if o.slurm:
        total = f"{hms(tot_wall)} for the longest job (all jobs at once), then the report job"
    else:
        total = f"{hms(tot_wall)} one study after another on {o.ranks} ranks"
    print("total: %d tasks, %.2f core-hours, predicted %s" % (tot_tasks, tot_core / 3600, total))
    if tot_more > 0:
        print("trials until decided: the first batches above; at most %s (%.2f core-hours) more "
              "on %s ranks if no claim is decided before its study's max-trials (each look only "
              "adds trials where a claim is open)" % (hms(tot_more), tot_more_core / 3600,
                                                      o.ranks))
    # The constants the dry runs priced with: this host's calibration when `wordsens run` found
    # one (its run key `calibration`, `wordsens calibrate`), else the development machine's.
    found = re.search(r"calibrated on this host: [^)]*", planner.dry_run(selected[0]).stdout)
    calibrated = found.group(0) if found else "calibrated on the 2-core development machine"
    print(f"(cost model of src/study/cost_model.cpp, {calibrated}; memory per rank: the process, "
          "its task table and its largest task, as `wordsens run` checks it)")
