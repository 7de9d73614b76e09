"""Analysis of wordsens results files: reader, statistics, theorem checks, figures, report.

The public names are those of __all__ (docs/python-api.md): the reader's (read_results and its
classes) and api.py's (load, judge, verdicts_table, claim_statistic, claim_table, Judgement,
Statistic).
"""
from ._version import __version__  # noqa: F401
from .reader import DamagedFileError, ResultsFileError, Results, Witness, read_results  # noqa: F401

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
