"""The rules: what every verdict is made of, whatever the claim. Beside the reading wing (neither
imports the other: a model's kind comes from the catalogue the caller passes, a value the reader
makes), below the claims.

    thresholds  every number and verdict word a verdict depends on, and the rules' texts; the
                face re-exports them, so that `rules.CONFIRMED`, `rules.ALPHA` … read as before
    evidence    what each kind of evidence can say about each kind of statement
    stats       per-trial statistics: intervals, sign tests, slopes
    shape       the end of the design, where asymptotic claims are read
    tolerances  the tolerances and levels derived from the grid; the sensitivity settings
    regimes     where each claim speaks, and the k labels of the groups
    judgement   tests, groups and rows, and how they combine into a verdict (Holm)
    groups      what a group has to show before it is judged
    integrity   the integrity checks and the claims a failing one leaves open

The other wings take from here only what __all__ names.
"""
from . import (evidence, groups, integrity, judgement, regimes, shape, stats, thresholds,
               tolerances)
from .judgement import Group, Judge, Row, Test, finish, group_rows, sign_test
from .thresholds import *  # noqa: F401,F403 - the thresholds, verdict words and rule texts

__all__ = ["evidence", "groups", "integrity", "judgement", "regimes", "shape", "stats",
           "thresholds", "tolerances", "Group", "Judge", "Row", "Test", "finish", "group_rows",
           "sign_test", *(name for name in vars(thresholds) if name.isupper())]
