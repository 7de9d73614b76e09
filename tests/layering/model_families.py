#!/usr/bin/env python3
"""The folders of src/models include one another only downward:

    shared/      what every model uses (the feature-map interface, activations, word sets)
    bounds/      the certified bounds' numerics (Lanczos, the float Gram, block norms)
    rf/ drf/ attention/ transformer/ trained/   one folder per model family; a family never includes
                 another
    models/*.cpp the catalogue, which sees every family

A folder that is not in this list fails too, so that a new one is placed in the order on purpose.
The same check as io_wings.py's for src/io (source_checks.folder_order_violations).

Usage: model_families.py SRC_MODELS_DIR        (exit 1 with a line per back arrow)
       model_families.py --self-test           (the check fails on each kind of violation)
"""
import sys

import source_checks

RANK = {"shared": 0, "bounds": 1, "rf": 2, "drf": 2, "attention": 2, "transformer": 2, "trained": 2,
        "": 3}


def violations(models_dir):
    return source_checks.folder_order_violations(models_dir, "models", RANK,
                                                 "tests/layering/model_families.py")


def self_test():
    cases = {
        "shared/a.hpp": '#include "models/rf/rf.hpp"\n',          # upward
        "bounds/b.cpp": '#include "models/attention/x.hpp"\n',    # upward
        "rf/c.cpp": '#include "models/drf/drf.hpp"\n',            # between families
        "shared/d.hpp": '#include "models/registry.hpp"\n',       # to the catalogue
        "extra/e.cpp": "\n",                                      # a folder out of the order
    }
    fine = {"rf/ok.cpp": '#include "models/shared/feature_map.hpp"\n#include "models/rf/rf.hpp"\n',
            "registry.cpp": '#include "models/drf/drf.hpp"\n'}
    return source_checks.self_test("model_families", violations, cases, fine, "back arrow")


def main(argv):
    return source_checks.main(argv, __doc__, violations, self_test,
                              "model_families: src/models includes only downward")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
