#!/usr/bin/env python3
"""The folders of src/models include one another only downward:

    shared/      what every model uses (the feature-map interface, activations, word sets)
    bounds/      the certified bounds' numerics (Lanczos, the float Gram, block norms)
    rf/ drf/ attention/   one folder per model family; a family never includes another
    models/*.cpp the catalogue, which sees every family

A folder that is not in this list fails too, so that a new one is placed in the order on purpose.

Usage: model_families.py SRC_MODELS_DIR        (exit 1 with a line per back arrow)
       model_families.py --self-test           (the check fails on each kind of violation)
"""
import os
import re
import sys
import tempfile

RANK = {"shared": 0, "bounds": 1, "rf": 2, "drf": 2, "attention": 2, "": 3}
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
    for name, text in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            for path, body in {**fine, name: text}.items():
                os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
                with open(os.path.join(tmp, path), "w", encoding="utf-8") as out:
                    out.write(body)
            got = violations(tmp)
            if len(got) != 1 or name.split("/")[-1] not in got[0]:
                print(f"self-test: {name} gave {got}, expected one violation")
                return 1
    with tempfile.TemporaryDirectory() as tmp:
        for path, body in fine.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
            with open(os.path.join(tmp, path), "w", encoding="utf-8") as out:
                out.write(body)
        if violations(tmp):
            print(f"self-test: a clean tree gave {violations(tmp)}")
            return 1
    print(f"model_families self-test: each of {len(cases)} kinds of back arrow is caught")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    found = violations(argv[1])
    for line in found:
        print(line)
    if not found:
        print("model_families: src/models includes only downward")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
