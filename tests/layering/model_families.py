#!/usr/bin/env python3
"""The folders of src/models include one another only downward:

    shared/      what every model uses (the feature-map interface, activations, word sets)
    bounds/      the certified bounds' numerics (Lanczos, the float Gram, block norms)
    rf/ drf/ attention/ transformer/ trained/   one folder per model family; a family never includes
                 another
    models/*.cpp the catalogue, which sees every family

A folder that is not in this list fails too, so that a new one is placed in the order on purpose.

Usage: model_families.py SRC_MODELS_DIR        (exit 1 with a line per back arrow)
       model_families.py --self-test           (the check fails on each kind of violation)
"""
import os
import re
import sys

import source_checks

RANK = {"shared": 0, "bounds": 1, "rf": 2, "drf": 2, "attention": 2, "transformer": 2, "trained": 2,
        "": 3}
INCLUDE = re.compile(r'^\s*#\s*include\s+"models/(?:([a-z_0-9]+)/)?[^"]+"', re.M)


def violations(models_dir):
    found = []
    for here, _dirs, files in os.walk(models_dir):
        folder = os.path.relpath(here, models_dir)
        folder = "" if folder == "." else folder
        for name in sorted(files):
            if not name.endswith((".hpp", ".cpp")):
                continue
            where = os.path.join("models", folder, name)
            if folder not in RANK:
                found.append(f"{where}: folder models/{folder}/ is not in the order of "
                             "tests/layering/model_families.py")
                continue
            with open(os.path.join(here, name), encoding="utf-8") as source:
                text = source.read()
            for match in INCLUDE.finditer(text):
                target = match.group(1) or ""
                line = text.count("\n", 0, match.start()) + 1
                if target not in RANK:
                    found.append(f"{where}:{line}: includes models/{target}/, which is not in "
                                 "the order")
                elif target == folder:
                    continue
                elif RANK[target] > RANK[folder] or RANK[target] == RANK[folder]:
                    found.append(f"{where}:{line}: models/{folder or '*.cpp'} must not include "
                                 f"models/{target or '*.hpp'} ({match.group(0).strip()})")
    return found


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
