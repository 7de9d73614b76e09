"""What the analysis knows about a model: the traits the results file records in /models.

A file of format 1.7 or later lists, for every model its tasks run, the traits the writing
build's catalogue gives it (src/models/registry.cpp; FORMAT.md "/models"): whether it
is attention (features n·d, no width k) or random features of width k, whether it has a depth
L, and so on. `read_results` registers them here, so that the analysis asks `traits(model)`
instead of keeping its own lists of model names, and a model added to the C++ catalogue is
analysed without an edit here. Files written before 1.7 carry no /models: their models are the
four below, whose traits they had (BEFORE_1_7).
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class ModelTraits:
    name: str
    attention: bool  # features n·d and no width k (raf); otherwise random features of width k
    deep: bool  # a depth L (the layers grid)
    marginal_sampler: bool  # its weights may be drawn by the marginal sampler (rf-sampling)
    min_total_sphere_starts: int  # sphere ascents a ws search runs at least (auto)

    @property
    def width(self) -> bool:
        """Whether the model has a feature width k (random features)."""
        return not self.attention


# The catalogue of every build that wrote files before /models existed (format 1.6 and older),
# in its canonical order. Only for those files, and for tables built by hand (tests).
BEFORE_1_7 = (
    ModelTraits("rf", False, False, True, 0),
    ModelTraits("drf", False, True, False, 0),
    ModelTraits("raf", True, False, False, 32),
    ModelTraits("raf_relu", True, False, False, 32),
)

COLUMNS = ("model", "attention", "deep", "marginal_sampler", "min_total_sphere_starts")

_known: dict = {t.name: t for t in BEFORE_1_7}


class CatalogueConflict(Exception):
    """Two results files give one model different kinds (read_results raises it as a
    ResultsFileError: neither file need be damaged, they were written by different catalogues)."""


def from_table(table: pd.DataFrame) -> list:
    """The traits of the rows of a /models table (columns COLUMNS)."""
    return [ModelTraits(str(row["model"]), bool(row["attention"]), bool(row["deep"]),
                        bool(row["marginal_sampler"]), int(row["min_total_sphere_starts"]))
            for _, row in table.iterrows()]


def as_table(models: list) -> pd.DataFrame:
    """A /models-like table of traits (what a file before 1.7 implies)."""
    return pd.DataFrame([(t.name, t.attention, t.deep, t.marginal_sampler,
                          t.min_total_sphere_starts) for t in models], columns=list(COLUMNS))


def register(models: list, source: str) -> None:
    """Adds the traits a file records. A model another file (or the pre-1.7 catalogue) gave
    other structural traits is refused: the analysis would treat it as two kinds at once."""
    for t in models:
        known = _known.get(t.name)
        if known is not None and (known.attention, known.deep) != (t.attention, t.deep):
            raise CatalogueConflict(
                f"{source}: /models gives {t.name} attention={int(t.attention)}, "
                f"deep={int(t.deep)}, but it is known with attention={int(known.attention)}, "
                f"deep={int(known.deep)}")
        if known is None:
            _known[t.name] = t


def traits(model: str) -> ModelTraits:
    """The traits of a model of a file read (or of the pre-1.7 catalogue)."""
    try:
        return _known[model]
    except KeyError:
        raise KeyError(f"model {model!r} is in no results file read (its traits are unknown)") \
            from None


def models() -> list:
    """Every known model's name, in the order they became known (the canonical order first)."""
    return list(_known)


def has_width(model: str) -> bool:
    return traits(model).width


def is_attention(model: str) -> bool:
    return traits(model).attention


def is_deep(model: str) -> bool:
    return traits(model).deep


def attention_models() -> tuple:
    return tuple(m for m, t in _known.items() if t.attention)
