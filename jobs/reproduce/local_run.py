"""The run here, under mpirun: every selected study's first batch, then the looks of trials until
decided, the combined report, and the results section when the run is complete.

Every attempt of a run on a file is a line of RESULTS/timings.tsv (jobs/reproduce_results.py
reads it): its exit code, the tasks it ran (the file's own count before and after), the file's
creation time and configuration hash (which file it ran on). RESULTS/machine.txt describes the
machine.
"""
from __future__ import annotations

import dataclasses
import datetime
import os
import shlex
import time

from . import processes
from .options import Options, Refused
from .plans import Planner, hms, prepare_script
from .processes import say
from .studies import Runs, batch_lines
from .wordsens import Wordsens

TIMINGS_HEAD = ("study", "file", "look", "tasks", "done_before", "done_after", "predicted_s",
                "measured_s", "ranks", "exit", "started_utc", "created_utc", "config_hash")
MAX_LOOKS = 64


def _utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _first(path: str, prefix: str) -> str | None:
    """The rest of the first line of a file that starts with `prefix` (None: no such line)."""
    try:
        with open(path, errors="replace") as f:
            return next((line[len(prefix):].strip() for line in f if line.startswith(prefix)),
                        None)
    except OSError:
        return None


def machine_text(ranks: str) -> str:
    """RESULTS/machine.txt: the processor, cores, memory, system and ranks of the run."""
    cpu = _first("/proc/cpuinfo", "model name")
    cpu = cpu.split(":", 1)[1].strip() if cpu and ":" in cpu else ""
    kib = _first("/proc/meminfo", "MemTotal:")
    memory = f"{int(kib.split()[0]) / 1048576:.0f} GiB" if kib else ""
    system = ""
    if os.path.isfile("/etc/os-release"):
        pretty = _first("/etc/os-release", "PRETTY_NAME=")
        system = (shlex.split(pretty) or [""])[0] if pretty else ""
        system = system or "unknown"
    cores = processes.nproc()
    return f"cpu: {cpu}\ncores: {cores}\nmemory: {memory}\nos: {system}\nranks: {ranks}\n"


@dataclasses.dataclass(frozen=True)
class Attempt:
    """A run on a file under way: what its timings line says."""
    study: str
    look: int
    tasks: int        # planned, for a file that cannot tell
    predicted: object  # wall seconds, or "nan" when the look could not be priced
    output: str
    done_before: str
    started_utc: str
    start: float      # time.monotonic()


class LocalRun:
    def __init__(self, o: Options, runs: Runs, planner: Planner, wordsens: Wordsens,
                 plans: dict, python: str, report_lock_fd: int):
        self.o, self.runs, self.planner, self.wordsens = o, runs, planner, wordsens
        self.plans, self.python, self.report_lock_fd = plans, python, report_lock_fd
        self.timings = os.path.join(o.results, "timings.tsv")
        self.attempt = None  # the attempt under way, for its line when a signal ends it
        self.status = 0
        self.failed = []     # "STUDY: exit N" of every run that failed, for the one line that
                             # says why the results section is not written

    # ------------------------------------------------------------------ attempts
    def start_timings(self) -> None:
        head = "\t".join(TIMINGS_HEAD)
        if os.path.isfile(self.timings):
            with open(self.timings, errors="replace") as f:
                first = f.readline().rstrip("\n")
            if first != head:
                # an older driver's table (other columns): kept aside, not mixed into this one
                stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
                os.replace(self.timings,
                           os.path.join(self.o.results, f"timings.before-{stamp}.tsv"))
        if not os.path.isfile(self.timings):
            with open(self.timings, "w") as f:
                f.write(head + "\n")
        with open(os.path.join(self.o.results, "machine.txt"), "w") as f:
            f.write(machine_text(self.o.ranks))

    def attempt_ended(self, code: int, signal_name: str | None = None) -> None:
        """The timings line of the attempt under way, ended with `code` (also from the signal
        handler, for an attempt a TERM interrupted; then with its line)."""
        attempt, self.attempt = self.attempt, None  # recorded once
        if attempt is None:
            return
        a = attempt
        seconds = int(time.monotonic() - a.start)
        if signal_name:
            say(f"{a.study}: exit {code} ({signal_name}) after {hms(seconds)}")
        state = self.wordsens.file_state(a.output)
        planned = state.planned if state.planned != "0" else str(a.tasks)
        row = (a.study, os.path.basename(a.output), a.look, planned, a.done_before, state.done,
               a.predicted, seconds, self.o.ranks, code, a.started_utc, state.created,
               state.config_hash)
        try:
            with open(self.timings, "a") as f:
                f.write("\t".join(str(v) for v in row) + "\n")
        except OSError:
            say(f"cannot write {self.timings}", err=True)

    def timed_run(self, look: int, name: str, config: str, out: str, options: list) -> int:
        """The run of one look of a study (through jobs/mpi_step.sh), its line and its timings
        line; its exit code."""
        before = self.wordsens.file_state(out).done
        plan = self.plans.get(name) if look == 1 else None
        if look != 1:
            try:
                plan = self.planner.plan(next(s for s in self.runs.selected if s.name == name),
                                         options, say_why=False)
            except Refused:  # a look's plan only prices its timings line
                plan = None
        tasks, predicted = (plan.tasks, plan.wall_seconds) if plan else (0, "nan")
        start = time.monotonic()
        self.attempt = Attempt(name, look, tasks, predicted, out, before, _utc_now(), start)
        rc = processes.mpi_step(self.mpirun(), [self.wordsens.path, "run", config, "--output",
                                                out, *options])
        what = name if look == 1 else f"look {look}: {name}"
        say(f"{what}: exit {rc} after {hms(time.monotonic() - start)}")
        self.attempt_ended(rc)
        return rc

    def mpirun(self) -> list:
        return ["mpirun", "--oversubscribe", "-n", self.o.ranks,
                *os.environ.get("WORDSENS_MPIRUN_ARGS", "").split()]

    def _failed(self, why: str, rc: int) -> None:
        self.failed.append(why)
        if self.status == 0:
            self.status = rc

    # ------------------------------------------------------------------ the run
    def first_batches(self) -> None:
        for study in self.runs.selected:
            name, config = study.name, study.config
            out = self.runs.output(name)
            missing = self.planner.missing_texts(study)
            if missing:
                say(f"{name}: building {missing} ({prepare_script(missing)})")
                if processes.run(["bash", prepare_script(missing)], background=True) != 0:
                    say(f"{name}: cannot build {missing}; skipped (rerun once it exists)",
                        err=True)
                    self._failed(f"{name}: its texts {missing} could not be built", 1)
                    continue
            opts = self.runs.options(name)
            say(f"{name}: {' '.join(self.mpirun())} wordsens run {config} --output {out} "
                f"{' '.join(opts)}")
            rc = self.timed_run(1, name, config, out, opts)
            if rc == 2 and os.path.isfile(out):
                say(f"{name}: if {out} holds another configuration (e.g. another --trials), move "
                    "it away or choose another --results directory", err=True)
            if rc != 0:
                self._failed(f"{name}: exit {rc}", rc)

    def more_trials(self) -> None:
        """Trials until decided: the rules say which claims are open after each look; the next
        look adds trials only at their points, until nothing is open."""
        look = 1
        batch_file = os.path.join(self.o.results, ".next-batch")
        while self.o.extend and self.status == 0 and look < MAX_LOOKS:
            files = self.runs.files_up_to(look)
            if not files:
                break
            with open(batch_file, "w") as answer:
                rc = processes.run([self.python, "analysis/wordsens-report", "--next-batch",
                                    *files], stdout=answer, background=True)
            if rc != 0:
                say("the rules could not plan the next look; no trials added", err=True)
                self.failed.append(f"the rules could not plan look {look + 1} (exit {rc})")
                self.status = 1
                break
            with open(batch_file, errors="surrogateescape") as f:
                batch = f.read()
            if not batch.strip("\n"):
                break
            look += 1
            for line in batch_lines(batch):
                x = self.runs.extension(look, line)
                if not x.config:
                    continue
                say(f"look {look}: {x.name}: trials {x.first} … {x.first + x.count - 1} for "
                    f"{x.open} -> {x.output}")
                rc = self.timed_run(look, x.name, x.config, x.output, x.options)
                if rc != 0:
                    self._failed(f"look {look}: {x.name}: exit {rc}", rc)
        try:
            os.remove(batch_file)
        except FileNotFoundError:
            pass

    def report(self) -> int:
        """The combined report of every file there is, then the results section when the run
        is complete; the run's exit code."""
        existing = [f for f in self.runs.report_files() if os.path.isfile(f)]
        if not existing:
            say("no results file to report", err=True)
            return self.status or 1
        say(f"report of {len(existing)} files -> {self.o.report}/")
        # The report replaces its directory whole (a reader sees the old report or the new one)
        # under this run's lock of it.
        rc = processes.run([self.python, "analysis/wordsens-report", *existing, "-o",
                            self.o.report],
                           env={"WORDSENS_REPORT_LOCK_FD": str(self.report_lock_fd)},
                           background=True)
        if rc != 0:
            say(f"the report failed (exit {rc}): no results section written", err=True)
            return self.status or rc
        # The results section (verdicts, paper vs here, predicted and measured times, machine
        # and commit), written from the report and the run's timings, only when the run is
        # complete: every selected study ran without failure and every file of the report is
        # complete. --update-doc also puts it into docs/REPRODUCE.md.
        argv = [self.python, "jobs/reproduce_results.py", "--report", self.o.report,
                "--results", self.o.results]
        for s in self.runs.selected:
            argv += ["--expect", self.runs.output(s.name)]
        for why in self.failed:
            argv += ["--failed", why]
        if self.o.update_doc:
            argv += ["--update", "docs/REPRODUCE.md"]
        rc = processes.run(argv)
        if rc == 0:
            also = " and docs/REPRODUCE.md" if self.o.update_doc else ""
            say(f"results section -> {self.o.report}/results.md{also}")
        elif self.status == 0:
            self.status = rc
        return self.status

    def __call__(self) -> int:
        self.start_timings()
        self.first_batches()
        self.more_trials()
        return self.report()


def start(o: Options, runs: Runs, planner: Planner, wordsens: Wordsens, plans: dict,
          python: str) -> int:
    """One run at a time on a results directory, and on a report directory: locks held by the
    driver and every process it starts, so that a second run is refused before any work and
    never publishes from files the first one is writing. Then the run."""
    results_lock = os.path.join(o.results, ".reproduce_paper.lock")
    processes.lock(results_lock, f"the results directory {o.results}")
    report_lock = os.path.join(os.path.dirname(o.report), f".{os.path.basename(o.report)}.lock")
    report_fd = processes.lock(report_lock, f"the report directory {o.report}")
    run = LocalRun(o, runs, planner, wordsens, plans, python, report_fd)
    processes.on_interrupt(run.attempt_ended)
    return run()
