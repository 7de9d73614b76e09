"""The suite's version (the top-level VERSION file's, which the binary and the results files
report too): a copy, as the installed package has no checkout to read it from;
tests/packaging/check_version.py keeps the two equal."""
__version__ = "0.1.0"
