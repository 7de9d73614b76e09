"""Analysis of wordsens results files: reader, statistics, theorem checks, figures, report."""
from ._version import __version__  # noqa: F401
from .io import DamagedFileError, ResultsFileError, Results, Witness, read_results  # noqa: F401

__all__ = ["DamagedFileError", "ResultsFileError", "Results", "Witness", "read_results",
           "__version__"]
