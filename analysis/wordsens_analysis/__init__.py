"""Analysis of wordsens results files: reader, statistics, theorem checks, figures, report.

The public names are those of __all__ (docs/python-api.md): the reader's (read_results and its
classes) and api.py's (load, judge, verdicts_table, claim_statistic, claim_table, Judgement,
Statistic).

The code is in wings, each a package whose __init__ is the face the wings above it use, each
importing only the wings below it (tests/layering/analysis_wings.py checks it; reading/ and
rules/ are side by side, neither importing the other):

    twins/    each model's style and numpy twin; witnesses recomputed from their arrays
    reading/  a results file into tables (reader, damage, schema, catalogue, stored
              configuration) and the files of a report into studies
    rules/    thresholds, evidence, statistics, regimes, tests, groups and rows, integrity
    claims/   every claim, the rows builders of its tests, the verdict table, trials until decided
    report/   wordsens-report: the report's files, figures and command line

Above them, this face, api.py (the public API), and two paths kept for what names them:
reader.py (the reader's, in scripts and docs) and model_pieces.py (the twins', in the C++
sources).
"""
from ._version import __version__  # noqa: F401
from .reading import (DamagedFileError, ResultsFileError, Results, Witness,  # noqa: F401
                      read_results)

# Judging imports the rules and scipy, a second of start-up that the scripts which only read a
# file (jobs/, `import wordsens_analysis`) need not pay: api.py's names load on first use.
_API = ("load", "judge", "verdicts_table", "claim_statistic", "claim_table", "Judgement",
        "Statistic")

__all__ = ["DamagedFileError", "ResultsFileError", "Results", "Witness", "read_results",
           *_API, "__version__"]


def __getattr__(name):
    if name in _API:
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
