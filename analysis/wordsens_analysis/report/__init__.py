"""The report: `wordsens-report` (cli.main), the report it writes (writer.py: tables, figures,
report.md and report.html) and the directory it writes into. The top wing: it imports every other
and no other imports it.

    cli             the command line: read the files, write the report, print the verdicts
    writer          the report's files, from the verdict table and the studies
    output_dir      the output directory, replaced whole by one report at a time
    first_line      the report's first line: the headline after the input's state
    paper_vs_here   the "paper vs here" table
    background      a computation run on another core while the report draws
    plots, paper_figures, figure_series, figure_words, regime_map
                    the figures, the numbers they draw and the words they say

Its face is the command line's: `wordsens_analysis.report:main` is the console script.
"""
from .cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, main, print_result, printable, verdict_text

__all__ = ["EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE", "main", "print_result", "printable",
           "verdict_text"]
