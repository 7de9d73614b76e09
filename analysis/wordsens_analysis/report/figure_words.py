"""What a figure says in words: which of the paper's experiments it stands beside, and where its
data come from (a study's name, its kind of texts and seed; never a file's path, which means
nothing to a reader of the figure and differs from machine to machine).

The paper's figures are named by their experiment, not by a number: the claims
(claims/claim_list.py) and the "paper vs here" table (paper_vs_here.py) record the paper's
statements and trends, not its figure numbering.
"""
from __future__ import annotations

import os
import re

from ..reading import texts_key

# The paper's experiments, as paper_vs_here.py describes them (BERT-Base embeddings of IMDb reviews,
# d = 768, n ≤ 250, and synthetic Gaussian texts).
PAPER_WS = ("cf. the paper's word-sensitivity experiment: S against n for random features and "
            "random attention (Thms 1–3), on BERT-Base embeddings of IMDb reviews and synthetic "
            "Gaussian texts")
PAPER_GEN = ("cf. the paper's trained-head experiment: test error after a one-word change "
             "against n, fine-tuning and retraining (Thms 4–5)")
BEYOND = "beyond the paper's figures"
READING = ("lines: median over trials; bands: interquartile range over trials; slopes: median "
           "per-trial slope over the end of the design (its last two doublings of n), as the "
           "verdict table judges it")

_ENCODER = re.compile(r"minilm_brown_l(\d+)")


def data_words(data: str) -> str:
    """The kind of texts of a configuration's `data` value, in words."""
    if data == "synthetic":
        return "synthetic texts, Gaussian tokens"
    if data.startswith("embeddings:"):
        stem = os.path.splitext(os.path.basename(data[len("embeddings:"):]))[0]
        encoder = _ENCODER.search(stem)
        if encoder:
            return f"real text: all-MiniLM-L6-v2 layer {int(encoder.group(1))} × Brown"
        if "glove" in stem.lower():
            return "real text: GloVe × Brown"
        return f"real text: embeddings {stem}"
    return os.path.basename(data)


def _seeds(study) -> str:
    seeds = list(dict.fromkeys(texts_key(res)[0] for res in study.files))
    return f"seed{'s' if len(seeds) > 1 else ''} {', '.join(seeds)}"


def study_words(study) -> str:
    """'quick4_s1 (synthetic texts, Gaussian tokens; seed 1)': the study's name (its first
    file's name without directory or extension), its texts and seeds."""
    return f"{study.label} ({data_words(study.data)}; {_seeds(study)})"


def sources(studies: list) -> dict:
    """{study label: study_words} for the figures' titles."""
    return {s.label: study_words(s) for s in studies}


def sources_line(sources_of: dict, labels) -> str:
    """The data of a figure: its studies in words, one per line where there are several."""
    named = [sources_of.get(label, str(label)) for label in labels]
    if len(named) == 1:
        return f"data: {named[0]}"
    return "data:\n" + "\n".join(named)
