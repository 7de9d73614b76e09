"""`python3 -m wordsens_analysis.report FILE… -o DIR`: the same command as wordsens-report."""
import sys

from .cli import main

sys.exit(main())
