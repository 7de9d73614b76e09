"""The studies of the paper: which configuration each runs (here and on a cluster), the options of
every run of it (a first batch, a look's extension, --tiny's shrunken grids), and the files it
writes and the report reads."""
from __future__ import annotations

import dataclasses
import glob
import os
import re

from .options import Options, Refused, not_full_run

# name, local configuration, Slurm configuration (the real-text study runs at full size on a
# cluster: another configuration, another file).
STUDIES = (
    ("paper_ws", "jobs/configs/paper_ws.ini", "jobs/configs/paper_ws.ini"),
    ("paper_ws_rf", "jobs/configs/paper_ws_rf.ini", "jobs/configs/paper_ws_rf.ini"),
    ("paper_ws_rf_bound", "jobs/configs/paper_ws_rf_bound.ini",
     "jobs/configs/paper_ws_rf_bound.ini"),
    ("paper_ws_drf", "jobs/configs/paper_ws_drf.ini", "jobs/configs/paper_ws_drf.ini"),
    ("paper_gen", "jobs/configs/paper_gen.ini", "jobs/configs/paper_gen.ini"),
    ("paper_glove_brown", "jobs/configs/paper_glove_brown.ini", "jobs/configs/glove_brown.ini"),
    ("paper_minilm_brown", "jobs/configs/paper_minilm_brown.ini",
     "jobs/configs/paper_minilm_brown.ini"),
    ("paper_minilm_brown_l6", "jobs/configs/paper_minilm_brown_l6.ini",
     "jobs/configs/paper_minilm_brown_l6.ini"),
    ("regime_map", "jobs/configs/regime_map.ini", "jobs/configs/regime_map.ini"),
    ("multiword", "jobs/configs/multiword.ini", "jobs/configs/multiword.ini"),
)
TINY_EMBEDDINGS = "tests/fixtures/embeddings/good.h5"
TINY_WHOLE_EMBEDDINGS = "tests/fixtures/embeddings/whole.h5"
TINY_COMMON = ["--max-evals=20", "--progress=600"]
# Shrunken grids for --tiny: each study keeps its models, experiments, positions and sampler.
TINY = {
    "paper_ws": ["--n=4,8,16", "--d=32"],
    "paper_ws_rf": ["--n=4,8,16", "--d=32"],
    "paper_ws_rf_bound": ["--n=4,8,16", "--d=32"],
    "paper_ws_drf": ["--n=2,3,4", "--d=8", "--layers=2"],
    "paper_gen": ["--n=4,8", "--d=8", "--N=6"],
    # d = 5, 6 and n <= 9: the fixture's traps (an inf in coordinate 7, a NaN at token 10, a
    # token zero in its first 4 coordinates) stay out of reach.
    "paper_glove_brown": ["--n=4,6,8", "--d=5,6", "--N=2", f"--data=embeddings:{TINY_EMBEDDINGS}"],
    # without raf_relu: the fixtures' tokens all point nearly one way, where a random W can make
    # every ReLU score zero (phi(X) = 0, S undefined)
    "paper_minilm_brown": ["--models=rf,raf", "--n=4,6,8", "--gen-n=4,8", "--d=5,6", "--N=2",
                           f"--data=embeddings:{TINY_EMBEDDINGS}"],
    # whole windows: the fixture's texts are of 5, 9 and 12 tokens (three of 12 for gen's N + 1)
    "paper_minilm_brown_l6": ["--models=rf,raf", "--n=5,9,12", "--gen-n=12", "--d=5,6", "--N=2",
                              f"--data=embeddings:{TINY_WHOLE_EMBEDDINGS}"],
    "regime_map": ["--n=4,8", "--d=4,8,16"],
    "multiword": ["--n=8,16,32", "--d=4", "--words=1,2,4", "--words-fraction=0.125"],
}
TINY["glove_brown"] = TINY["paper_glove_brown"]
LOOK_FILE = re.compile(r"\.look-([0-9]+)-trials-[0-9]+-[0-9]+\.h5$")


@dataclasses.dataclass(frozen=True)
class Study:
    name: str    # its files' name
    config: str  # relative to the checkout


@dataclasses.dataclass(frozen=True)
class Extension:
    """One line of `wordsens-report --next-batch` as the run of a look that makes it."""
    name: str
    first: int
    count: int
    cap: str
    select: str
    open: str     # the claims asking for it
    config: str   # empty when the study is not selected
    output: str
    options: list


def _only_list(only: str) -> list:
    """--only's names as bash's `read -a` split them (a trailing comma ends the last name)."""
    names = only.split(",")
    return names[:-1] if len(names) > 1 and names[-1] == "" else names


def select(o: Options) -> list:
    """The studies --only selects (all by default), in the paper's order; Refused for a name
    that is no study."""
    selected, names = [], []
    wanted = _only_list(o.only) if o.only else []
    for first_name, local_config, slurm_config in STUDIES:
        config, name = local_config, first_name
        if o.slurm:
            config = slurm_config
            name = os.path.basename(config)[:-len(".ini")]
        names.append(name)
        if not o.only or name in wanted or first_name in wanted:
            selected.append(Study(name, config))
    known = {s[0] for s in STUDIES} | set(names)
    for w in wanted:
        if w not in known:
            raise Refused(f"--only: no study named '{w}' (studies: {' '.join(names)})")
    if not selected:
        raise Refused("no study selected")
    if o.update_doc and len(selected) != len(STUDIES):
        raise Refused(not_full_run("a subset --only"))
    return selected


class Runs:
    """The options and files of every run of the selected studies under these options."""

    def __init__(self, o: Options, selected: list):
        self.o = o
        self.selected = selected

    def options(self, name: str, extension: bool = False) -> list:
        """The options every `wordsens run` of a study gets (identical on every rerun, so files
        resume): those of its first batch, or those an extension adds --first-trial, --trials,
        --max-trials and --select to."""
        o, opts = self.o, []
        if not extension and o.trials:
            opts.append(f"--trials={o.trials}")
        if o.seed:
            opts.append(f"--seed={o.seed}")
        if o.tiny:
            opts += TINY_COMMON + TINY.get(name, [])
            if not extension and not o.trials:
                opts.append("--trials=1")
            # A tiny run extends only when asked to: its first batch is its cap.
            if not extension and not o.max_trials:
                opts.append(f"--max-trials={o.trials or 1}")
        if not extension and o.max_trials:
            opts.append(f"--max-trials={o.max_trials}")
        return opts

    def output(self, name: str) -> str:
        """The results file this invocation writes for a study."""
        return os.path.join(self.o.results, f"{name}{self._seed()}.h5")

    def extension_output(self, name: str, look: int, first: int, count: int) -> str:
        return os.path.join(self.o.results,
                            f"{name}{self._seed()}.look-{look}-trials-{first}-{first + count}.h5")

    def _seed(self) -> str:
        return f".seed-{self.o.seed}" if self.o.seed else ""

    def config_of(self, name: str) -> str:
        return next((s.config for s in self.selected if s.name == name), "")

    def report_files(self) -> list:
        """The files the report reads: every selected study's file, its looks and its replicates
        (other seeds), and this run's file even before it exists (a Slurm job will write it)."""
        files = []
        for s in self.selected:
            stem = os.path.join(glob.escape(self.o.results), glob.escape(s.name))
            for pattern in (f"{stem}.h5", f"{stem}.look-*.h5", f"{stem}.seed-*.h5"):
                files += [f for f in sorted(glob.glob(pattern)) if os.path.isfile(f)]
            mine = self.output(s.name)
            if not os.path.isfile(mine):
                files.append(mine)
        return files

    def files_up_to(self, look: int) -> list:
        """The existing files of looks 1 … look (the first batch is look 1), so that each look
        is planned from what the previous ones ran, on a rerun too."""
        out = []
        for f in self.report_files():
            m = LOOK_FILE.search(f)
            if os.path.isfile(f) and (int(m.group(1)) if m else 1) <= look:
                out.append(f)
        return out

    def extension(self, look: int, line: str) -> Extension:
        """One line of `wordsens-report --next-batch` (study, first trial, count, cap, selected
        points, open claims) as the run of `look` that makes it; the local run and the Slurm
        judge step run exactly this."""
        fields = line.strip(" \t\n").split("\t", 5)
        fields += [""] * (6 - len(fields))
        name, first, count, cap, select_, open_ = fields
        first_i, count_i = int(first), int(count)
        opts = self.options(name, extension=True) + [
            f"--first-trial={first}", f"--trials={count}", f"--max-trials={cap}",
            f"--select={select_}"]
        return Extension(name, first_i, count_i, cap, select_, open_, self.config_of(name),
                         self.extension_output(name, look, first_i, count_i), opts)


def batch_lines(batch: str) -> list:
    """The lines of a --next-batch answer (empty ones dropped)."""
    return [line for line in batch.split("\n") if line.strip(" \t")]
