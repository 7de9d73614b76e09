"""What the analysis knows about a model: the traits the results file records in /models.

A file of format 1.7 or later lists, for every model its tasks run, the traits the writing
build's catalogue gives it (src/models/registry.cpp; FORMAT.md "/models"): whether it
is attention (features n·d) or random features, whether it has a depth L, what its width k is
(none, random features, its MLP's), whether it has several heads, whether it reads a pretrained
encoder, and so on; from 1.10 on every trait of the catalogue's rows. `read_results` gives each
file's as a value (Results.catalogue, a Catalogue), the files of a report merge theirs
(studies.py), and the analysis asks that value `traits(model)` instead of keeping its own lists
of model names, so a model added to the C++ catalogue is analysed without an edit here. There is
no catalogue of the process: two files read apart never meet unless a report combines them.
Older files take
what they do not store from the one upgrade path below: files before 1.7 carry no /models, and
their models are the four of BEFORE_1_7; files 1.7 to 1.9 store four traits, and the others are
those the models had in every build that wrote such files (TRAITS_BEFORE_1_10).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

WIDTHS = ("none", "features", "mlp")  # /models/width's codes 0, 1, 2


@dataclass(frozen=True)
class ModelTraits:
    name: str
    attention: bool  # features n·d (raf); otherwise random features of width k
    deep: bool  # a depth L (the layers grid)
    marginal_sampler: bool  # its weights may be drawn by the marginal sampler (rf-sampling)
    min_total_sphere_starts: int  # sphere ascents a ws search runs at least (auto)
    multi_head: bool = False  # several attention heads (the heads grid)
    width: str = "none"  # its k: none, random features (the k grid) or its MLP's (mlp-width)
    encoder: bool = False  # a layer of a pretrained encoder (encoder, encoder-layer)

    @property
    def feature_width(self) -> bool:
        """Whether the model is random features of width k (what Thms 1–2 and the k axis of
        the paper's figures are about; block's MLP width is not one)."""
        return self.width == "features"


# The catalogue of every build that wrote files before /models existed (format 1.6 and older),
# in its canonical order. Only for those files, and for tables built by hand (tests).
BEFORE_1_7 = (
    ModelTraits("rf", False, False, True, 0, width="features"),
    ModelTraits("drf", False, True, False, 0, width="features"),
    ModelTraits("raf", True, False, False, 32),
    ModelTraits("raf_relu", True, False, False, 32),
)

# What /models did not store before 1.10 (multi_head, width, encoder), as every build that wrote
# files 1.7 to 1.9 gave it to the models it had.
TRAITS_BEFORE_1_10 = {
    "rf": (False, "features", False), "drf": (False, "features", False),
    "raf": (False, "none", False), "raf_relu": (False, "none", False),
    "raf_v": (False, "none", False), "mhraf": (True, "none", False),
    "block": (True, "mlp", False),
    "trained_attn": (False, "none", True), "twin_attn": (False, "none", True),
    "trained_layer": (False, "none", True), "twin_layer": (False, "none", True),
}
ADDED_IN_1_10 = ("multi_head", "width", "encoder")

COLUMNS = ("model", "attention", "deep", "marginal_sampler", "min_total_sphere_starts",
           "multi_head", "width", "encoder")
# The traits that make a model's kind: two files that differ in one of them describe two kinds.
STRUCTURAL = ("attention", "deep", "multi_head", "width", "encoder")


class CatalogueConflict(Exception):
    """Two results files give one model different kinds (read_results and build_studies raise it
    as a ResultsFileError: neither file need be damaged, they were written by different
    catalogues)."""


def from_table(table: pd.DataFrame) -> list:
    """The traits of the rows of a /models table (columns COLUMNS; `width` as its code)."""
    return [ModelTraits(str(row["model"]), bool(row["attention"]), bool(row["deep"]),
                        bool(row["marginal_sampler"]), int(row["min_total_sphere_starts"]),
                        bool(row["multi_head"]), WIDTHS[int(row["width"])], bool(row["encoder"]))
            for _, row in table.iterrows()]


def with_traits_before_1_10(table: pd.DataFrame) -> tuple:
    """A /models table of format 1.7 to 1.9 with the columns 1.10 added, from the traits its
    models had in every build that wrote such files; and the models those builds did not have
    (given no heads, no encoder, and random-feature width exactly when not attention, as the
    readers of those files took them)."""
    table = table.copy()
    rows, unknown = [], []
    for _, row in table.iterrows():
        name = str(row["model"])
        if name not in TRAITS_BEFORE_1_10:
            unknown.append(name)
        rows.append(TRAITS_BEFORE_1_10.get(
            name, (False, "none" if bool(row["attention"]) else "features", False)))
    for i, column in enumerate(ADDED_IN_1_10):
        values = [r[i] for r in rows]
        table[column] = [WIDTHS.index(v) for v in values] if column == "width" else \
            [int(v) for v in values]
    return table, unknown


def as_table(models: list) -> pd.DataFrame:
    """A /models-like table of traits (`width` as its code)."""
    return pd.DataFrame([(t.name, t.attention, t.deep, t.marginal_sampler,
                          t.min_total_sphere_starts, t.multi_head, WIDTHS.index(t.width),
                          t.encoder) for t in models], columns=list(COLUMNS))


@dataclass(frozen=True)
class Catalogue:
    """The traits of the models some results files record, by name, in the order they became
    known (the pre-1.7 catalogue's first). A value: adding models gives a new catalogue."""

    known: dict = field(default_factory=dict)  # model name -> ModelTraits; never changed

    @classmethod
    def before_1_7(cls) -> "Catalogue":
        """The catalogue of every build that wrote files before /models existed: where every
        file's catalogue starts, and what tables built by hand (tests) are judged with."""
        return cls({t.name: t for t in BEFORE_1_7})

    def with_models(self, models, source: str) -> "Catalogue":
        """This catalogue and the traits `models` (a file's, named by `source`). A model it
        knows with other structural traits is refused: the analysis would treat it as two kinds
        at once."""
        known = dict(self.known)
        for t in models:
            before = known.get(t.name)
            if before is not None:
                differ = [c for c in STRUCTURAL if getattr(before, c) != getattr(t, c)]
                if differ:
                    # attention and deep always, then any other trait that differs
                    shown = ["attention", "deep"] + [c for c in differ
                                                      if c not in ("attention", "deep")]

                    def traits_text(x):
                        return ", ".join(f"{c}={_trait_text(getattr(x, c))}" for c in shown)
                    raise CatalogueConflict(
                        f"{source}: /models gives {t.name} {traits_text(t)}, but it is known "
                        f"with {traits_text(before)}")
            if before is None:
                known[t.name] = t
        return Catalogue(known)

    def merged(self, other: "Catalogue", source: str) -> "Catalogue":
        """This catalogue and another file's (`source`), refused where they disagree."""
        return self.with_models(other.known.values(), source)

    def traits(self, model: str) -> ModelTraits:
        """The traits of a model of the files this catalogue holds (or of the pre-1.7 one)."""
        try:
            return self.known[model]
        except KeyError:
            raise KeyError(f"model {model!r} is in no results file read (its traits are "
                           "unknown)") from None

    def models(self) -> list:
        """Every known model's name, in the order they became known (the canonical order
        first)."""
        return list(self.known)

    def has_feature_width(self, model: str) -> bool:
        """Whether the model is random features of width k (rf, drf)."""
        return self.traits(model).feature_width

    def is_attention(self, model: str) -> bool:
        return self.traits(model).attention

    def is_deep(self, model: str) -> bool:
        return self.traits(model).deep

    def attention_models(self) -> tuple:
        return tuple(m for m, t in self.known.items() if t.attention)


def _trait_text(value) -> str:
    return str(int(value)) if isinstance(value, bool) else str(value)
