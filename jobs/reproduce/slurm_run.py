"""The run on a cluster: one Slurm job per study (a job array and its merge job for a study that
would not fit one job's time limit), then either a judge step that decides what runs next (trials
until decided: jobs/slurm/judge.sbatch runs the driver again with --judge-look) or the report job,
each after the jobs it depends on. Every job of a step is priced before the first is submitted: a
study that cannot be priced stops the step with nothing of it queued."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

from . import processes
from .options import Options, refuse
from .plans import Planner, prepare_script
from .processes import say
from .studies import Runs, batch_lines
from .wordsens import Wordsens

SUBMIT_COMMON = "jobs/slurm/submit_common.sh"
MEMORY_OPTIONS = "--mem --mem-per-cpu --mem-per-gpu"


class SlurmRun:
    def __init__(self, o: Options, runs: Runs, planner: Planner, wordsens: Wordsens,
                 plans: dict, python: str, home: str):
        self.o, self.runs, self.planner, self.wordsens = o, runs, planner, wordsens
        self.plans, self.python, self.home = plans, python, home
        # extra sbatch options, split on whitespace as the user wrote them
        self.extra = os.environ.get("WORDSENS_SBATCH_ARGS", "").split()
        # Job logs next to the results (the sbatch scripts' default is the submit directory,
        # here the checkout).
        self.logs = os.path.join(o.results, "logs")

    def absolute(self, path: str) -> str:
        """A path of the checkout (a configuration) from the root, as the checkout was reached
        (its symbolic links kept, as `cd` and `pwd` keep them), or an absolute path as it is."""
        return os.path.normpath(os.path.join(self.home, path))

    def _common(self, function: str, *args: str) -> subprocess.CompletedProcess:
        """A function of jobs/slurm/submit_common.sh (the submit scripts' own), stdout captured."""
        return processes.quiet(["bash", "-c", f'source {SUBMIT_COMMON}; {function} "$@"', "bash",
                                *args])

    def memory_for(self, config: str, options: list) -> str | None:
        """The sbatch option that asks for a study's memory per rank from its own dry run (as
        jobs/slurm/submit.sh), "" when WORDSENS_SBATCH_ARGS gives memory; None when its dry run
        fails (said on stderr)."""
        if self._common("wordsens_user_gave", MEMORY_OPTIONS, *self.extra).returncode == 0:
            return ""
        p = self._common("wordsens_memory_request", self.wordsens.path, config, *options)
        for line in p.stderr.splitlines(keepends=True):
            print(line.replace("; nothing submitted\n", "\n"), end="", file=sys.stderr)
        return p.stdout.strip() if p.returncode == 0 else None

    def sbatch(self, *args: str) -> str:
        """Submits a job; its id. A refused submission ends the driver with sbatch's code."""
        p = processes.quiet(["sbatch", "--parsable", *args])
        if p.stderr:
            print(p.stderr, end="", file=sys.stderr, flush=True)
        if p.returncode != 0:
            sys.exit(processes.exit_code(p.returncode))
        return p.stdout.strip().split(";")[0]

    def _log(self, pattern: str = "%x-%j.out") -> str:
        return f"--output={self.logs}/{pattern}"

    @staticmethod
    def _after_any(ids) -> list:
        """The dependency on the jobs `ids` whatever their end (none when there are none)."""
        return [f"--dependency=afterany:{':'.join(ids)}"] if ids else []

    def submit_judge(self, look: int, ids: list) -> None:
        """The judge step of `look` after the jobs `ids` (afterany: it judges what ran), with this
        invocation's arguments."""
        dep = self._after_any(ids)
        job = self.sbatch(*self.extra, *dep, f"--job-name=wordsens-judge-{look}", self._log(),
                          "jobs/slurm/judge.sbatch", str(look), *self.o.judge_arguments)
        say(f"judge job {job} (look {look}, after {len(ids)} jobs)")

    def submit_report(self, files: list, ids: list | None, why: str) -> None:
        dep = self._after_any(ids)
        job = self.sbatch(*self.extra, *dep, self._log(), "jobs/slurm/report.sbatch",
                          self.absolute(self.o.report), *map(self.absolute, files))
        say(f"report job {job} -> {self.o.report}/report.html ({why})")

    def judge(self, look: int) -> int:
        """The judge step between looks: plan look + 1 from the files of looks 1 … look, submit
        its runs and the next judge step after them; when nothing is open, the report."""
        files = self.runs.files_up_to(look)
        batch = ""
        if files:
            p = processes.quiet([self.python, "analysis/wordsens-report", "--next-batch",
                                 *files])
            print(p.stderr, end="", file=sys.stderr, flush=True)
            batch = p.stdout
            if p.returncode != 0:
                say(f"the rules could not plan look {look + 1}; no trials added", err=True)
        extensions = [x for x in (self.runs.extension(look + 1, line)
                                  for line in batch_lines(batch)) if x.config]
        if batch.strip("\n"):
            nxt = look + 1
            memory = []
            for x in extensions:
                m = self.memory_for(self.absolute(x.config), x.options)
                if m is None:
                    refuse(f"look {nxt}: {x.name}: its dry run failed (above); no job of look "
                           f"{nxt} submitted")
                memory.append([m] if m else [])
            ids = []
            for x, m in zip(extensions, memory):
                job = self.sbatch(*m, *self.extra, f"--ntasks-per-node={self.o.ranks}",
                                  f"--job-name=wordsens-{x.name}-look-{nxt}", self._log(),
                                  "jobs/slurm/run.sbatch", self.absolute(x.config),
                                  self.absolute(x.output), *x.options)
                say(f"look {nxt}: {x.name}: trials {x.first} … {x.first + x.count - 1} for "
                    f"{x.open}: job {job} -> {x.output}")
                ids.append(job)
            self.submit_judge(nxt, ids)
            return 0
        existing = [f for f in self.runs.report_files() if os.path.isfile(f)]
        self.submit_report(existing, None, "every claim decided or at its cap after look "
                                           f"{look}")
        return 0

    def first_batches(self) -> int:
        # Each file asked once (`wordsens info`): a finished study is not submitted again.
        complete = {s.name: self.wordsens.complete(self.runs.output(s.name))
                    for s in self.runs.selected}
        # What a job would fail on is refused before the first job is submitted.
        for s in self.runs.selected:
            missing = self.planner.missing_texts(s)
            if missing and not complete[s.name]:
                refuse(f"{s.name}: {missing} is missing: build it first with "
                       f"'bash {prepare_script(missing)}'")
        memory = {}
        for s in self.runs.selected:
            if complete[s.name]:
                continue
            m = self.memory_for(self.absolute(s.config), self.runs.options(s.name))
            if m is None:
                refuse(f"{s.name}: its dry run failed (above); no job submitted")
            memory[s.name] = [m] if m else []
        ids = []
        for s in self.runs.selected:
            out = self.runs.output(s.name)
            if complete[s.name]:
                say(f"{s.name}: {out} is complete, not submitted")
                continue
            shards = self.plans[s.name].shards
            opts = self.runs.options(s.name)
            config = self.absolute(s.config)
            if shards <= 1:
                job = self.sbatch(*memory[s.name], *self.extra,
                                  f"--ntasks-per-node={self.o.ranks}",
                                  f"--job-name=wordsens-{s.name}", self._log(),
                                  "jobs/slurm/run.sbatch", config, self.absolute(out), *opts)
                say(f"{s.name}: job {job} -> {out}")
            else:
                # As jobs/slurm/submit_array.sh, with this study's ranks per shard: shards write
                # PREFIX.shard-i-of-N.h5 (and resume them when resubmitted), the merge job
                # PREFIX.h5.
                prefix = self.absolute(out[:-len(".h5")])
                array = self.sbatch(*memory[s.name], *self.extra,
                                    f"--ntasks-per-node={self.o.ranks}",
                                    f"--job-name=wordsens-{s.name}", f"--array=0-{shards - 1}",
                                    self._log("%x-%A_%a.out"), "jobs/slurm/array.sbatch", config,
                                    prefix, *opts)
                job = self.sbatch(*self.extra, f"--dependency=afterok:{array}",
                                  "--kill-on-invalid-dep=yes",
                                  f"--job-name=wordsens-merge-{s.name}", self._log(),
                                  "jobs/slurm/merge.sbatch", prefix, str(shards))
                say(f"{s.name}: array job {array} ({shards} shards), merge job {job} -> {out}")
            ids.append(job)
        if self.may_extend():
            # Trials until decided: a judge step after the first batches decides what runs next.
            self.submit_judge(1, ids)
            return 0
        # afterany: the report also covers studies that failed or were cancelled (as PARTIAL).
        self.submit_report(self.runs.report_files(), ids, f"after {len(ids)} study jobs")
        return 0

    def may_extend(self) -> bool:
        """Whether any selected study can take more trials than its first batch (a tiny run only
        with --max-trials; otherwise --max-trials or a configuration's max-trials key)."""
        if not self.o.extend:
            return False
        if self.o.max_trials:
            return True
        if self.o.tiny:
            return False
        return any(self.plans[s.name].max_trials != 0 for s in self.runs.selected)


def start(o: Options, runs: Runs, planner: Planner, wordsens: Wordsens, plans: dict,
          python: str, home: str) -> int:
    if shutil.which("sbatch") is None:
        refuse("sbatch not found (run on a Slurm login node)")
    # The jobs run copies of the scripts from Slurm's spool: they are told where the checkout
    # (or installation) and the binary are.
    os.environ["WORDSENS_HOME"] = home
    os.environ["WORDSENS_BIN"] = wordsens.path
    run = SlurmRun(o, runs, planner, wordsens, plans, python, home)
    os.makedirs(run.logs, exist_ok=True)
    if o.judge_look:
        return run.judge(int(o.judge_look))
    return run.first_batches()
