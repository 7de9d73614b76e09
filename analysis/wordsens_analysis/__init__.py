"""Analysis of wordsens results files: reader, statistics, theorem checks, figures, report."""
from .io import ResultsFileError, Results, Witness, read_results  # noqa: F401

__all__ = ["ResultsFileError", "Results", "Witness", "read_results"]
