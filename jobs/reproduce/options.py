"""The command line of jobs/reproduce_paper.sh (its --help: jobs/reproduce_paper.py), parsed and
checked before anything runs: a bad value is refused with one line and exit 2."""
from __future__ import annotations

import dataclasses
import os
import re
import sys
import unicodedata

# Options that take a value, as `--name VALUE` or `--name=VALUE`.
VALUED = ("--trials", "--ranks", "--only", "--results", "--report", "--slurm-hours", "--shards",
          "--seed", "--max-trials", "--judge-look")
SWITCHES = ("--slurm", "--dry-run", "--tiny", "--no-extend", "--update-doc")
SEED_MAX = 4294967295


class Refused(Exception):
    """A refusal: one line on stderr (prefixed `reproduce_paper: `) and exit 2."""


class HelpAsked(Exception):
    """-h or --help: the usage, exit 0."""


@dataclasses.dataclass
class Options:
    slurm: bool = False
    dry_run: bool = False
    tiny: bool = False
    extend: bool = True
    update_doc: bool = False
    trials: str = ""
    max_trials: str = ""
    ranks: str = ""
    only: str = ""
    results: str = "results/paper"
    report: str = "report/paper"
    slurm_hours: str = "4"
    shards: str = ""
    seed: str = ""
    judge_look: str = ""
    # This invocation's arguments without --judge-look, with absolute --results and --report:
    # what a Slurm judge step runs again.
    judge_arguments: list = dataclasses.field(default_factory=list)


def _positive(text: str) -> bool:
    return re.fullmatch(r"[1-9][0-9]*", text) is not None


def _split(argv: list) -> list:
    """(name, value) pairs, `--name=value` split; a valued option without its value refused."""
    pairs, i = [], 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if eq and name in VALUED:
            pairs.append((name, value))
        elif arg in VALUED:
            if i + 1 >= len(argv):
                raise Refused(f"{arg} needs a value")
            pairs.append((arg, argv[i + 1]))
            i += 1
        elif arg in SWITCHES:
            pairs.append((arg, None))
        elif arg in ("-h", "--help"):
            raise HelpAsked()
        else:
            raise Refused(f"unknown argument '{arg}' (see --help)")
        i += 1
    return pairs


def _without_judge_look(argv: list) -> list:
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--judge-look":
            skip = True
        elif not arg.startswith("--judge-look="):
            out.append(arg)
    return out


def parse(argv: list, base: str, installed: bool, environ=os.environ) -> Options:
    """The options of `argv`; relative --results and --report are taken from `base` (the
    checkout, or in an installed copy the directory it was called from). Refused or HelpAsked."""
    o = Options()
    for name, value in _split(argv):
        if value is None:
            if name == "--slurm":
                o.slurm = True
            elif name == "--dry-run":
                o.dry_run = True
            elif name == "--tiny":
                o.tiny = True
            elif name == "--no-extend":
                o.extend = False
            else:
                o.update_doc = True
        else:
            setattr(o, name[2:].replace("-", "_"), value)
    if o.trials and not _positive(o.trials):
        raise Refused("--trials must be a positive integer")
    if o.max_trials and not _positive(o.max_trials):
        raise Refused("--max-trials must be a positive integer")
    if o.judge_look and not (_positive(o.judge_look) and o.slurm):
        raise Refused("--judge-look takes a look number and --slurm")
    if not o.ranks:
        o.ranks = (environ.get("WORDSENS_SLURM_RANKS") or "4") if o.slurm else "2"
    if not _positive(o.ranks):
        raise Refused("--ranks must be a positive integer")
    if re.fullmatch(r"[0-9]+([.][0-9]+)?", o.slurm_hours) is None:
        raise Refused("--slurm-hours must be a number")
    if o.shards and not _positive(o.shards):
        raise Refused("--shards must be a positive integer")
    if o.seed and not (re.fullmatch(r"[0-9]+", o.seed) and int(o.seed) <= SEED_MAX):
        raise Refused(f"--seed must be an integer in 0 … {SEED_MAX}")
    # Names are data: any path works but one with a control character (a newline would split
    # the lists of files the driver prints, an escape would reach the terminal).
    for name in ("--results", "--report"):
        path = getattr(o, name[2:])
        if not path:
            raise Refused(f"{name} needs a directory")
        if any(unicodedata.category(c) == "Cc" for c in path):  # C0, DEL and C1
            raise Refused(f"{name}: a path with a control character (a newline, a tab, an "
                          "escape) is refused")
    # Absolute from here on: the Slurm judge steps run the driver again elsewhere, and a path
    # starting with a dash is no option to the tools it reaches.
    o.results = os.path.realpath(os.path.join(base, o.results))
    o.report = os.path.realpath(os.path.join(base, o.report))
    o.judge_arguments = _without_judge_look(argv) + ["--results", o.results, "--report",
                                                     o.report]
    if o.update_doc:
        # docs/REPRODUCE.md shows the paper's run: a smoke, subset or changed run writes its
        # results section to its own report directory only.
        not_full = [flag for flag, given in (
            ("--tiny", o.tiny), ("--trials", o.trials), ("--max-trials", o.max_trials),
            ("--seed", o.seed), ("--no-extend", not o.extend), ("--slurm", o.slurm),
            ("an installed copy", installed)) if given]
        if not_full:
            raise Refused(not_full_run(" ".join(not_full)))
    return o


def not_full_run(what: str) -> str:
    return (f"--update-doc writes docs/REPRODUCE.md from the full run of a checkout only, not "
            f"with {what} (the report directory gets results.md)")


def refuse(message: str) -> None:
    """The one line of a refusal, and exit 2."""
    print(f"reproduce_paper: {message}", file=sys.stderr)
    sys.exit(2)
