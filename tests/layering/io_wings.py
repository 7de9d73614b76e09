#!/usr/bin/env python3
"""The wings of src/io include one another only downward:

    h5/          the HDF5 wrapper (the only code that sees hdf5.h), checked attribute and
                 dataset reads, the global heap's sanity check
    files/       file-system safety: the lock of a results file, what kind of file a path is
    inputs/      the input files a run reads: embeddings (HDF5) and an encoder's safetensors
    format/      the results format: its names (schema), the layout of its tables, how a file is
                 written and read back, its checksums, /config, the summaries
    integrity/   the damage rules: consistency, the content checks, the invariants of a record
    io/*.cpp     the results file itself (create, resume, append, merge, read), above them all

inputs/ and format/ are side by side (neither includes the other). A folder that is not in this
list fails too, so that a new one is placed in the order on purpose. The same check as
model_families.py's for src/models (source_checks.folder_order_violations).

Usage: io_wings.py SRC_IO_DIR        (exit 1 with a line per back arrow)
       io_wings.py --self-test       (the check fails on each kind of violation)
"""
import sys

import source_checks

RANK = {"h5": 0, "files": 0, "inputs": 1, "format": 1, "integrity": 2, "": 3}


def violations(io_dir):
    return source_checks.folder_order_violations(io_dir, "io", RANK, "tests/layering/io_wings.py")


def self_test():
    cases = {
        "h5/a.cpp": '#include "io/format/schema.hpp"\n',          # upward
        "files/b.cpp": '#include "io/h5/h5.hpp"\n',               # side by side
        "format/c.cpp": '#include "io/integrity/integrity.hpp"\n',  # upward
        "format/d.cpp": '#include "io/inputs/safetensors.hpp"\n',   # side by side
        "integrity/e.cpp": '#include "io/results_file.hpp"\n',    # to the results file
        "extra/f.cpp": "\n",                                      # a folder out of the order
    }
    fine = {"integrity/ok.cpp": '#include "io/format/layout.hpp"\n#include "io/h5/h5.hpp"\n',
            "inputs/ok.cpp": '#include "io/files/file_kind.hpp"\n',
            "results_file.cpp": '#include "io/integrity/integrity.hpp"\n'}
    return source_checks.self_test("io_wings", violations, cases, fine, "back arrow")


def main(argv):
    return source_checks.main(argv, __doc__, violations, self_test,
                              "io_wings: src/io includes only downward")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
