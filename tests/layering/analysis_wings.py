#!/usr/bin/env python3
"""The wings of the analysis package (analysis/wordsens_analysis) import one another only
downward, and only through a wing's face (its __init__.py):

    twins/      each model's style and numpy twin, witnesses recomputed from their arrays
    reading/    a results file into tables (reader, damage, schema, catalogue, stored
                configuration) and the files of a report into studies
    rules/      thresholds, evidence, statistics, regimes, tests, groups and rows, integrity
    claims/     every claim, its rows builders, the verdict table, trials until decided
    report/     wordsens-report: the report's files, figures and command line
    *.py        the package's face above them all: __init__.py, _version.py, api.py (the public
                API), and two paths kept for what names them: reader.py (the reader's, in
                scripts and docs) and model_pieces.py (the twins', in the C++ sources)

reading/ and rules/ are side by side (neither imports the other: the rules are handed the model
catalogue a study carries, as a value). A wing imports another as `from ..rules import Row,
evidence`, never `from ..rules.judgement import Row`, and a module of another wing only when
that wing's __init__.py imports it itself. A folder that is not in this list fails too, and so
does a module of the package's own folder that is not one of its face's: each is placed in the
order on purpose. The same check as
io_wings.py's for src/io, over Python imports (source_checks.package_order_violations).

Usage: analysis_wings.py PACKAGE_DIR   (exit 1 with a line per back arrow)
       analysis_wings.py --self-test   (the check fails on each kind of violation)
"""
import sys

import source_checks

PACKAGE = "wordsens_analysis"
RANK = {"twins": 0, "reading": 1, "rules": 1, "claims": 2, "report": 3, "": 4}
TOP = ("__init__.py", "_version.py", "api.py", "reader.py")


def violations(package_dir):
    return source_checks.package_order_violations(package_dir, PACKAGE, RANK, TOP,
                                                  "tests/layering/analysis_wings.py")


# A tree every case adds one bad module to: each wing with a face, imports downward through it.
FINE = {
    "__init__.py": "from .reading import read_results\n",
    "api.py": "import wordsens_analysis as wa\nfrom .claims import verdicts\n",
    "twins/__init__.py": "from .pieces import style\n",
    "twins/pieces.py": "import numpy as np\n",
    "reading/__init__.py": "from . import reader\nfrom .reader import read_results\n",
    "reading/reader.py": "from ..twins import style\nfrom . import schema\n",
    "reading/schema.py": "\n",
    "rules/__init__.py": "from .judgement import Row\n",
    "rules/judgement.py": "from ..twins import style\n",
    "claims/__init__.py": "from . import verdicts\n",
    "claims/verdicts.py": "from .. import rules\nfrom ..rules import Row\n",
    "report/__init__.py": "\n",
    "report/cli.py": "def main():\n    from wordsens_analysis.claims import verdicts\n",
}


def self_test():
    cases = {
        "twins/up.py": "from ..reading import read_results\n",                # upward
        "rules/up.py": "def f():\n    from wordsens_analysis import report\n",  # upward, lazy
        "reading/up.py": "import wordsens_analysis\n",                          # to the face
        "rules/side.py": "from ..reading import read_results\n",              # side by side
        "reading/side.py": "from ..rules import Row\n",                       # side by side
        "claims/past.py": "from ..rules.judgement import Row\n",              # past a face
        "report/past.py": "from ..reading import schema\n",  # a module its face does not import
        "extra/x.py": "\n",                                   # a folder out of the order
        "helpers.py": "\n",                                   # a module outside any wing
    }
    return source_checks.self_test("analysis_wings", violations, cases, FINE, "back arrow")


def main(argv):
    return source_checks.main(argv, __doc__, violations, self_test,
                              "analysis_wings: the analysis imports only downward, through faces")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
