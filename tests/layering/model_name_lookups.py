#!/usr/bin/env python3
"""A model's name is looked up only at the edges: where text comes in (the configuration's
`models` key, study/study_keys.cpp, and its `select` key, study/point_selection.cpp; a results
file's task table, io/format/layout.cpp) and where the catalogue defines the lookup
(models/shared/model_kind.*). Every other layer carries the
ModelKind and asks its traits, so a new model cannot be missed by a branch on its name.

A lookup is a call of find_model, model_kind or model_kinds; a branch on a name is a comparison
with a model's name in quotes. Both fail anywhere else in src/.

Usage: model_name_lookups.py SRC_DIR        (exit 1 with a line per lookup out of place)
       model_name_lookups.py --self-test    (the check fails on each kind of lookup)
"""
import os
import re
import sys

import source_checks

EDGES = {"study/study_keys.cpp", "study/point_selection.cpp", "io/format/layout.cpp",
         "models/shared/model_kind.hpp", "models/shared/model_kind.cpp"}
LOOKUP = re.compile(r"\b(find_model|model_kinds?)\s*\(")
NAME = r'"(?:rf|drf|raf|raf_relu)"'
BRANCH = re.compile(rf"(?:[=!]=\s*{NAME}|{NAME}\s*[=!]=)")


def violations(src_dir):
    found = []
    for here, _dirs, files in os.walk(src_dir):
        for name in sorted(files):
            if not name.endswith((".hpp", ".cpp")):
                continue
            path = os.path.relpath(os.path.join(here, name), src_dir).replace(os.sep, "/")
            with open(os.path.join(here, name), encoding="utf-8") as source:
                text = source.read()
            for pattern, what in ((LOOKUP, "looks a model up by name"),
                                  (BRANCH, "branches on a model's name")):
                for match in pattern.finditer(text):
                    if pattern is LOOKUP and path in EDGES:
                        continue
                    line = text.count("\n", 0, match.start()) + 1
                    found.append(f"src/{path}:{line}: {what} ({match.group(0).strip()}); carry "
                                 "the ModelKind and ask traits() (models/shared/model_kind.hpp)")
    return found


def self_test():
    fine = {"study/study_keys.cpp": "auto k = model_kinds(names);\n",
            "io/format/layout.cpp": "const auto kind = find_model(stored);\n",
            "study/study.cpp": "if (traits(task.model).attention) {}\n"}
    cases = {
        "study/cost_model.cpp": "auto k = model_kind(task_name);\n",
        "driver/run.cpp": "if (find_model(name)) {}\n",
        "estimators/ws.cpp": 'if (spec.name == "raf") {}\n',
        "cli/info.cpp": 'bool relu = "raf_relu" != model;\n',
    }
    return source_checks.self_test("model_name_lookups", violations, cases, fine, "lookup")


def main(argv):
    return source_checks.main(
        argv, __doc__, violations, self_test,
        "model names are looked up only by the configuration parser and the file reader")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
