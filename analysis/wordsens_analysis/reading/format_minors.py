"""The decoders of the older format minors, one per minor that changed what a file holds: each
fills in what a file written before that minor lacks, as the builds that wrote such files meant
it, so that the rest of the reader (and every claim) sees any file as the current format holds
it. analysis/FORMAT.md ("Changes") says what each minor added; tests/python/test_format_minors.py
reads a file of each older minor back as the same results written at the current one. The C++
readers decode the task table the same way (src/io/format/format_minors.hpp).

MINORS lists every minor with its decoder and the table it fills; the reader runs, table by
table, the decoders of the minors a file predates. A column a minor added is filled wherever a
table lacks it (`by_presence`): a file of format 1.5 or later that lacks one is refused by the
damage checks before, and an older file, read without them, may lack one its minor had. Some
minors only added guarantees or provenance, nothing a reader fills in (no decoder): their files
read as they are (before 1.5's checksums the reader applies damage.check_older_file instead of
every damage rule, and says so in a note; before 1.11 the configuration is typed from
config_text, stored_config.config_of_file).
"""
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import pandas as pd

from . import catalogue, schema


@dataclass
class Decoded:
    """What the reader has read of a file when the decoders run: its tables as stored (before
    they are joined), its typed configuration, and its /models table (empty before 1.7)."""

    tasks: pd.DataFrame
    ws: pd.DataFrame
    config: dict
    models: pd.DataFrame = None  # /models as stored (format 1.7 on)
    unknown_models: tuple = ()  # models /models names that the 1.7–1.9 builds did not have


# Before format 1.2 only rf's full sampler had a bound, over every position.
def scope_before_1_2(d: Decoded) -> None:
    if not d.ws.empty and "S_upper" in d.ws and "S_upper_scope" not in d.ws:
        d.ws["S_upper_scope"] = np.where(np.isfinite(d.ws["S_upper"].astype(float)), 1, 0)


# Before format 1.4 every task changed one word (and L was 1 where a table had no layers).
def words_before_1_4(d: Decoded) -> None:
    if d.tasks.empty:
        return
    if "layers" not in d.tasks:
        d.tasks["layers"] = 1
    if "words" not in d.tasks:
        d.tasks["words"] = 1


# The models with several heads in every build that wrote files before /tasks/heads (format 1.8).
MULTI_HEAD_BEFORE_1_8 = ("mhraf", "block")
HEADS_BEFORE_1_8 = 4  # the default of `heads` in those builds


def heads_of_config(models: pd.Series, config: dict) -> np.ndarray:
    """H per task of a file without /tasks/heads: its configuration's one `heads` for the
    multi-head models, 1 for the others."""
    grid = config.get("heads")
    heads = grid[0] if isinstance(grid, list) and len(grid) == 1 else HEADS_BEFORE_1_8
    return np.where(models.astype(str).isin(MULTI_HEAD_BEFORE_1_8), heads, 1).astype(np.int64)


def heads_before_1_8(d: Decoded) -> None:
    if not d.tasks.empty and "heads" not in d.tasks:
        d.tasks["heads"] = heads_of_config(d.tasks["model"], d.config)


# The models with an MLP in every build that wrote files before block's width was stored
# (format 1.9): their k was 0, their MLP schema.BLOCK_WIDTH_FACTOR·d wide.
MLP_BEFORE_1_9 = ("block",)


def mlp_width_of_tasks(tasks: pd.DataFrame) -> pd.Series:
    """k per task of a file before format 1.9: the width its block's MLP ran, 4d, where the
    file stored 0; every other k as stored."""
    old = tasks["model"].astype(str).isin(MLP_BEFORE_1_9) & (tasks["k"] == 0)
    return tasks["k"].where(~old, schema.BLOCK_WIDTH_FACTOR * tasks["d"]).astype(np.int64)


def mlp_width_before_1_9(d: Decoded) -> None:
    if not d.tasks.empty and "k" in d.tasks:
        d.tasks["k"] = mlp_width_of_tasks(d.tasks)


def traits_before_1_10(d: Decoded) -> None:
    """/models of format 1.7 to 1.9: the traits 1.10 added, from catalogue.py's record of the
    builds that wrote them. (Before 1.7 there is no table: the reader takes the pre-1.7
    catalogue, Catalogue.before_1_7.)"""
    d.models, unknown = catalogue.with_traits_before_1_10(d.models)
    d.unknown_models = tuple(unknown)


@dataclass(frozen=True)
class Minor:
    minor: int
    added: str
    decoder: Optional[Callable[[Decoded], None]] = None
    table: str = ""  # what the decoder fills: "ws", "tasks" or "models"
    by_presence: bool = False  # filled wherever the table lacks it, not only in older files


MINORS = (
    Minor(1, "the root attribute build"),
    Minor(2, "each dataset's unit and meaning; the search's evidence columns of /ws "
             "(S_upper_scope, starts, …) and its examined positions", scope_before_1_2, "ws",
          by_presence=True),
    Minor(3, "the root attribute input_fingerprints"),
    Minor(4, "several changed words: /tasks/words and the word-set columns of /ws",
          words_before_1_4, "tasks", by_presence=True),
    Minor(5, "checksums of every dataset and of the task table"),
    Minor(6, "a checksum per row of /ws, /gen and /witness"),
    Minor(7, "/models, the traits of the models the task table runs (before: "
             "Catalogue.before_1_7)"),
    Minor(8, "/tasks/heads, H per task", heads_before_1_8, "tasks", by_presence=True),
    Minor(9, "block's MLP width in /tasks/k", mlp_width_before_1_9, "tasks"),
    Minor(10, "every trait of the catalogue's rows in /models", traits_before_1_10, "models"),
    Minor(11, "/config, the configuration typed (before: read from config_text)"),
)
assert [m.minor for m in MINORS] == list(range(1, schema.CONFIG_MINOR + 1))


def decode(d: Decoded, minor: int, table: str) -> None:
    """Runs, oldest first, the decoders of `table` for the minors after `minor` (and those that
    fill by presence)."""
    for m in MINORS:
        if m.table == table and m.decoder is not None and (minor < m.minor or m.by_presence):
            m.decoder(d)
