"""The reader's documented path: scripts import `wordsens_analysis.reader` (the reader itself is
reading/reader.py, in the reading wing), so its public names stay importable from here."""
from .reading import DamagedFileError, Results, ResultsFileError, Witness, read_results

__all__ = ["DamagedFileError", "Results", "ResultsFileError", "Witness", "read_results"]
